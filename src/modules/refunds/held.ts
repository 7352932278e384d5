import { refundOutcomes } from '../../metrics/registry.js';
import { err, ok, type Result } from '../../shared/result.js';
import { book } from './acquirer-answers.js';
import type { RefundServiceDeps } from './deps.js';
import type { HeldRefundError } from './errors.js';
import type { RefundRow } from './model.js';
import * as refunds from './repository.js';
import { refundView, type RefundView } from './schemas.js';

/** What the operator found at the acquirer about a held refund, and why (ADR 0063). */
export type HeldRefundDecision =
  /** The acquirer refunded `amount` (the refund's own when absent) under its refund id `providerRefundId`. */
  | { outcome: 'succeeded'; providerRefundId: string; amount?: string; reason: string }
  /** The acquirer refunded nothing: the refund fails and its amount is refundable again. */
  | { outcome: 'failed'; reason: string };

/** Who settles a held refund (the audit entry's actor). */
export interface RefundActor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** The settled refund, or why it was not settled. */
type Settled = Result<RefundView, HeldRefundError>;

/**
 * An operator's settlement of a held refund (ADR 0063): a pending refund out of the retry queue (held for
 * an answer that disagreed, or parked after its retries), once the operator has asked the acquirer.
 * Audited as `refund.settled`, in its transaction.
 */
export async function settleHeld(
  deps: RefundServiceDeps,
  refundId: string,
  decision: HeldRefundDecision,
  by: RefundActor,
): Promise<Settled> {
  const { db, clock, logger } = deps;
  const reason = decision.reason.trim();
  if (reason === '' || reason.length > 500) return err({ code: 'reason_required' });
  if (decision.outcome === 'succeeded') {
    if (decision.amount !== undefined && !/^[1-9][0-9]{0,17}$/.test(decision.amount))
      return err({ code: 'invalid_amount' });
    if (!/^[\x21-\x7e]{1,255}$/.test(decision.providerRefundId))
      return err({ code: 'invalid_provider_refund_id' });
  }
  return db.transaction().execute(async (trx): Promise<Settled> => {
    const refund = await refunds.lockIfExists(trx, refundId);
    if (!refund) return err({ code: 'refund_not_found' });
    // Held: pending and out of the retry queue (parked), so the job is not asking for it. A retried
    // request with its idempotency key may still ask: its answer waits for this row lock and then
    // meets the settled refund (a success after `failed` is held for the operator, ADR 0055).
    if (refund.status !== 'pending' || refund.parked_at === null)
      return err({ code: 'refund_not_held', status: refund.status });
    const charge = await deps.charges.lock(trx, refund.charge_id);
    const now = clock.now();
    let settled: RefundRow;
    if (decision.outcome === 'failed') {
      const failed = await refunds.transition(trx, refund.id, ['pending'], 'failed', {
        failure_code: 'operator_failed',
        failure_message: reason,
        updated_at: now,
      });
      if (!failed) throw new Error(`refund ${refund.id} left pending under its row lock`);
      refundOutcomes.inc({ environment: failed.environment, outcome: 'failed' });
      settled = failed;
    } else {
      const amount = decision.amount ?? refund.amount;
      // What the charge can still give: its amount, less what is refunded and what the other pending
      // refunds hold (this one's reserve is the operator's to replace).
      const othersPending = BigInt(await refunds.pendingTotal(trx, charge.id)) - BigInt(refund.amount);
      const room = BigInt(charge.amount) - BigInt(charge.refunded_amount) - othersPending;
      if (BigInt(amount) > room) return err({ code: 'exceeds_refundable', remaining: room.toString() });
      const taken = await refunds.findByProviderRefundId(trx, decision.providerRefundId);
      if (taken) return err({ code: 'provider_refund_id_in_use', refundId: taken.id });
      settled = await book(deps, trx, refund, charge, {
        providerRefundId: decision.providerRefundId,
        amount,
      });
    }
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'refund.settled',
      targetType: 'refund',
      targetId: refund.id,
      organizationId: refund.organization_id,
      before: { status: refund.status, amount: refund.amount },
      after: {
        status: settled.status,
        amount: settled.amount,
        providerRefundId: settled.provider_refund_id,
        reason,
      },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    logger.warn(
      { refundId: refund.id, outcome: settled.status, amount: settled.amount, actor: by.actor },
      'held refund settled by an operator',
    );
    return ok(refundView(settled));
  });
}
