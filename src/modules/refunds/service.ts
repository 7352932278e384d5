import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import { HOUR, MINUTE } from '../../shared/clock.js';
import type { CreatedWindow, Cursor } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { BatchReport, RetryPolicy } from '../../worker/queue.js';
import { workDueBatch } from '../../worker/due-batch.js';
import { createRefund } from './create.js';
import type { RefundServiceDeps } from './deps.js';
import type { HeldRefundError, RefundError, RefundListError } from './errors.js';
import { settleHeld, type HeldRefundDecision, type RefundActor } from './held.js';
import { listRefunds, pageRefundsCreatedIn, pendingTotal } from './list.js';
import * as refunds from './repository.js';
import { retryClaimed } from './retry.js';
import type { RefundCreate, RefundList, RefundListQuery, RefundView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

export interface RefundService {
  create(
    owner: Owner,
    chargeId: string,
    input: RefundCreate,
    options: { idempotencyKey: string | undefined },
  ): Promise<Result<RefundView, RefundError>>;
  /** One page of the charge's refunds, newest first; its cursors are bound to the charge. */
  list(owner: Owner, chargeId: string, query: RefundListQuery): Promise<Result<RefundList, RefundListError>>;
  /** What the owner's charge's pending refunds hold back (decimal text of minor units). */
  pendingTotal(owner: Owner, chargeId: string): Promise<string>;
  /**
   * An operator's settlement of a held refund (ADR 0063): a pending refund out of the retry queue (held
   * for an answer that disagreed, or parked after its retries), once the operator has asked the acquirer.
   * Audited as `refund.settled`, in its transaction.
   */
  settleHeld(
    refundId: string,
    decision: HeldRefundDecision,
    by: RefundActor,
  ): Promise<Result<RefundView, HeldRefundError>>;
  /**
   * One page of an export: the refunds made in `window`, oldest first, after the
   * (createdAt, id) of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: Owner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<RefundView[]>;
  /** Asks the acquirer again, with the same idempotency key, for refunds a failure left pending. */
  retryPending(limit?: number): Promise<number>;
  /** One batch of the retry job: claims due pending refunds, and reports what became of them. */
  retryPendingBatch(limit?: number): Promise<BatchReport>;
}

/**
 * The decision of an operator's request (the operator API's body, the CLI's options): `providerRefundId`
 * and `amount` count with `succeeded` only; a missing acquirer refund id is refused by `settleHeld`.
 */
export function heldRefundDecision(input: {
  outcome: 'succeeded' | 'failed';
  reason: string;
  providerRefundId?: string | undefined;
  amount?: string | undefined;
}): HeldRefundDecision {
  if (input.outcome === 'failed') return { outcome: 'failed', reason: input.reason };
  return {
    outcome: 'succeeded',
    reason: input.reason,
    providerRefundId: input.providerRefundId ?? '',
    ...(input.amount === undefined ? {} : { amount: input.amount }),
  };
}

/** The charge of each refund, by refund id, read in the caller's transaction (settlement items). */
export function refundChargeIds(trx: Trx, refundIds: readonly string[]): Promise<Map<string, string>> {
  return refunds.chargeIdsOf(trx, refundIds);
}

/** Refund retry's backoff: a refund the acquirer cannot take for about 8 hours is parked. */
export const REFUND_RETRY: RetryPolicy = { baseMs: MINUTE, capMs: HOUR, maxAttempts: 12, jitter: 0.2 };

/**
 * Refunds (product decision 13): all or part of a succeeded charge, through the acquirer with the refund
 * id as its idempotency key. The amount is reserved under the charge's row lock before the acquirer is
 * asked, so concurrent refunds can never exceed the charge; the ledger entry and `charge.refunded` are
 * written in the transaction that records the acquirer's answer.
 */
export function createRefundService(deps: RefundServiceDeps): RefundService {
  // Claimed in due order with SKIP LOCKED and leased while the acquirer is asked: a refund that keeps
  // failing backs off and finally parks, and two workers never ask for the same refund at once.
  const retry = deps.jobs.queue({
    job: 'refund-retry',
    table: 'refunds',
    eligible: sql`status = 'pending'`,
    firstDueAt: sql`updated_at`,
    firstDelayMs: deps.retryAfterMs,
    leaseMs: 5 * MINUTE,
    retry: REFUND_RETRY,
  });

  const retryPendingBatch = (limit = 20) =>
    workDueBatch(retry, limit, (claimed) => retryClaimed(deps, retry, claimed));

  return {
    create: (owner, chargeId, input, options) => createRefund(deps, retry, owner, chargeId, input, options),
    list: (owner, chargeId, query) => listRefunds(deps, owner, chargeId, query),
    settleHeld: (refundId, decision, by) => settleHeld(deps, refundId, decision, by),
    pendingTotal: (owner, chargeId) => pendingTotal(deps, owner, chargeId),
    pageCreatedIn: (owner, window, after, limit) => pageRefundsCreatedIn(deps, owner, window, after, limit),
    async retryPending(limit) {
      return (await retryPendingBatch(limit)).done;
    },
    retryPendingBatch,
  };
}
