import { sql } from 'kysely';
import { MINUTE, SECOND } from '../../../shared/clock.js';
import type { Owner } from '../../../shared/owner.js';
import type { BatchReport, RetryPolicy } from '../../../worker/queue.js';
import { autoRefundBatch } from './auto-refund.js';
import type { RefundRuleDeps, RuleActor } from './deps.js';
import { listRules, setRule } from './rules.js';
import type { DisputeRefundRuleKind, RuleList, RuleUpdate, RuleView } from './schemas.js';

export type { AutoRefunds, RefundRuleDeps, RuleActor } from './deps.js';
export type { DisputeRefundRuleKind, RuleList, RuleUpdate, RuleView } from './schemas.js';

export interface DisputeRefundRuleService {
  /** The owner's two rules, `dispute_alert` first. */
  list(owner: Owner): Promise<RuleList>;
  /** Sets one rule, audited. */
  set(owner: Owner, kind: DisputeRefundRuleKind, input: RuleUpdate, by: RuleActor): Promise<RuleView>;
  /** One batch of the `dispute-auto-refund` job: queues what the rules cover and refunds due rows. */
  autoRefundBatch(limit?: number): Promise<BatchReport>;
}

/**
 * A refund the acquirer cannot take now is asked again within seconds (an alert has a deadline), then
 * less often; after about five hours the row is parked and raised to the operator.
 */
export const AUTO_REFUND_RETRY: RetryPolicy = {
  baseMs: 5 * SECOND,
  capMs: 5 * MINUTE,
  maxAttempts: 60,
  jitter: 0.2,
};

/** Auto-refund rules of pre-dispute alerts and early fraud warnings (issue 37 item 5). */
export function createDisputeRefundRuleService(deps: RefundRuleDeps): DisputeRefundRuleService {
  const queue = deps.jobs.queue({
    job: 'dispute-auto-refund',
    table: 'dispute_auto_refunds',
    eligible: sql`outcome is null`,
    // Longer than a row's work: one refund request (its acquirer call and its answer's transaction).
    leaseMs: deps.refundBudgetMs + 10 * SECOND,
    retry: AUTO_REFUND_RETRY,
  });
  return {
    list: (owner) => listRules(deps, owner),
    set: (owner, kind, input, by) => setRule(deps, owner, kind, input, by),
    autoRefundBatch: (limit = 20) => autoRefundBatch(deps, queue, limit),
  };
}
