import type { Logger } from 'pino';
import type { Kdb } from '../../../db/database.js';
import type { Clock } from '../../../shared/clock.js';
import type { Owner } from '../../../shared/owner.js';
import type { Result } from '../../../shared/result.js';
import type { JobKit } from '../../../worker/kit.js';
import type { AuditLog } from '../../audit/service.js';
import type { DisputeCharges } from '../deps.js';

/**
 * What auto-refunds need of refunds (src/modules/refunds): the merchant API's own refund path, which
 * reserves the amount under the charge's lock, asks the acquirer and books the refund; a retry under
 * the same idempotency key finds the refund it made instead of making another.
 */
export interface AutoRefunds {
  create(
    owner: Owner,
    chargeId: string,
    input: { amount?: number; reason?: string },
    options: { idempotencyKey: string | undefined },
  ): Promise<Result<{ id: string; status: string }, { code: string; refundId?: string }>>;
  /** A page of the charge's refunds, newest first. */
  list(
    owner: Owner,
    chargeId: string,
    query: { limit?: number },
  ): Promise<
    Result<{ data: Array<{ id: string; status: string; reason: string | null }> }, { code: string }>
  >;
}

export interface RefundRuleDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  audit: AuditLog;
  jobs: JobKit;
  refunds: AutoRefunds;
  /** A fraud warning's charge amount, checked against the rule's limit. */
  charges: Pick<DisputeCharges, 'findVisible'>;
  /**
   * The longest a refund request can run (IDEMPOTENCY_LOCK_MS, above the longest acquirer call): the
   * job's lease follows it, so a row a killed worker held is taken up again soon after.
   */
  refundBudgetMs: number;
}

/** Who changed a rule, for the audit log: `key:key_…` or `user:usr_…`, with the request's id and address. */
export interface RuleActor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}
