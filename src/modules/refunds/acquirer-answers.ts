import type { Trx } from '../../db/database.js';
import { refundOutcomes } from '../../metrics/registry.js';
import type { Claimed, DueQueue } from '../../worker/queue.js';
import { AcquirerRejectedError, type Acquirer, type AcquirerRefund } from '../acquirer/types.js';
import type { ChargeRow } from '../charges/model.js';
import { chargeView } from '../charges/views.js';
import type { RefundServiceDeps } from './deps.js';
import type { RefundRow } from './model.js';
import * as refunds from './repository.js';
import { refundView } from './schemas.js';

/**
 * What the acquirer answered to a refund, and how it is recorded: booked (ledger entry, `charge.refunded`),
 * failed, or held for the operator when it disagrees with what was asked (ADR 0055).
 */

/**
 * What of the acquirer's success disagrees with the refund it was asked for (ADR 0055): its amount, and
 * its currency and payment when it names them. Read as the protocol states them (decimal text of minor
 * units): an answer in another shape is a difference, never a guess.
 */
function answerDifferences(refund: RefundRow, paymentId: string | null, answer: AcquirerRefund): string[] {
  const differences: string[] = [];
  const amount: unknown = answer.amount;
  if (typeof amount !== 'string' || !/^\d{1,30}$/.test(amount) || BigInt(amount) !== BigInt(refund.amount))
    differences.push('amount');
  const currency: unknown = answer.currency;
  if (currency !== undefined && (typeof currency !== 'string' || currency.toUpperCase() !== refund.currency))
    differences.push('currency');
  const answeredPayment: unknown = answer.paymentId;
  if (answeredPayment !== undefined && answeredPayment !== paymentId) differences.push('paymentId');
  return differences;
}

/**
 * A success the refund cannot be booked on (ADR 0055): the acquirer may have moved money, but not what
 * was asked, or for a refund already recorded failed. Nothing is booked; the operator is alerted once. A
 * pending refund stays pending, its amount still reserved on the charge, and leaves the retry queue
 * (parked): asking again with the same idempotency key would only repeat the answer.
 */
async function holdForOperator(
  deps: Pick<RefundServiceDeps, 'clock' | 'alerts'>,
  trx: Trx,
  refund: RefundRow,
  paymentId: string | null,
  answer: AcquirerRefund,
  differences: readonly string[],
): Promise<void> {
  const shown = (value: unknown) =>
    value === undefined ? null : (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 64);
  const message = `The acquirer answered refund ${refund.id} (${refund.status}) with another ${differences.join(', ')}; nothing was booked`;
  await deps.alerts.raise(trx, {
    kind: 'refund_mismatch',
    organizationId: refund.organization_id,
    environment: refund.environment,
    subjectId: refund.id,
    chargeId: refund.charge_id,
    message,
    details: {
      refundId: refund.id,
      status: refund.status,
      differences,
      asked: { amount: refund.amount, currency: refund.currency, paymentId },
      answered: {
        id: shown(answer.id),
        amount: shown(answer.amount),
        currency: shown(answer.currency),
        paymentId: shown(answer.paymentId),
      },
    },
  });
  if (refund.status === 'pending') await refunds.park(trx, refund.id, deps.clock.now(), message);
}

async function finish(
  deps: RefundServiceDeps,
  retry: DueQueue,
  refundId: string,
  answer: AcquirerRefund,
  claimed?: Claimed,
): Promise<RefundRow> {
  return deps.db.transaction().execute(async (trx) => {
    const refund = await refunds.lockById(trx, refundId);
    if (claimed) await retry.succeed(trx, claimed);
    if (refund.status === 'succeeded') return refund;
    // The charge's lock after the refund's, as every path that records a refund takes them.
    const charge = await deps.charges.lock(trx, refund.charge_id);
    const differences = answerDifferences(refund, charge.provider_payment_id, answer);
    if (refund.status === 'failed') differences.unshift('status');
    if (differences.length > 0) {
      await holdForOperator(deps, trx, refund, charge.provider_payment_id, answer, differences);
      return refund;
    }
    return book(deps, trx, refund, charge, { providerRefundId: answer.id, amount: refund.amount });
  });
}

/**
 * Books a pending refund as succeeded for `amount`, under the refund's and the charge's row locks (in
 * that order): the charge's refunded amount, the refund's row, the ledger entry, the alert of a pending
 * balance left below zero, and `charge.refunded`.
 */
export async function book(
  deps: Pick<RefundServiceDeps, 'clock' | 'charges' | 'ledger' | 'alerts' | 'events' | 'checkoutUrl'>,
  trx: Trx,
  refund: RefundRow,
  charge: ChargeRow,
  booked: { providerRefundId: string; amount: string },
): Promise<RefundRow> {
  const now = deps.clock.now();
  const updatedCharge = await deps.charges.recordRefund(trx, charge, booked.amount, now);
  const done = await refunds.transition(trx, refund.id, ['pending'], 'succeeded', {
    provider_refund_id: booked.providerRefundId,
    ...(booked.amount === refund.amount ? {} : { amount: booked.amount }),
    updated_at: now,
  });
  if (!done) throw new Error(`refund ${refund.id} left pending under its row lock`);
  refundOutcomes.inc({ environment: done.environment, outcome: 'succeeded' });
  const posted = await deps.ledger.postRefund(trx, {
    id: done.id,
    chargeId: charge.id,
    organizationId: charge.organization_id,
    environment: charge.environment,
    amount: done.amount,
    merchantReference: charge.merchant_reference,
  });
  // A refund is never refused for want of balance (the customer is owed it and the acquirer debits
  // us anyway): the pending balance may go below zero, as a debt the next settlement recovers, and the
  // operator is told (docs/decisions/0014-refund-debt.md).
  if (posted.created && BigInt(posted.pendingAfter) < 0n) {
    const debt = (-BigInt(posted.pendingAfter)).toString();
    await deps.alerts.raise(trx, {
      kind: 'negative_pending_balance',
      organizationId: charge.organization_id,
      environment: charge.environment,
      subjectId: done.id,
      chargeId: charge.id,
      message: `Refund ${done.id} left the pending balance of ${charge.organization_id} (${charge.environment}) at ${posted.pendingAfter} TRY minor units`,
      details: {
        refundId: done.id,
        amount: done.amount,
        currency: done.currency,
        pendingAfter: posted.pendingAfter,
        debt,
      },
    });
  }
  await deps.events.record(trx, {
    organizationId: charge.organization_id,
    environment: charge.environment,
    type: 'charge.refunded',
    resourceId: charge.id,
    data: { ...chargeView(updatedCharge, deps.checkoutUrl()), refund: refundView(done) },
    payment: {
      id: charge.id,
      paymentId: charge.provider_payment_id ?? '',
      merchantReference: charge.merchant_reference,
    },
  });
  return done;
}

async function fail(
  deps: RefundServiceDeps,
  retry: DueQueue,
  refundId: string,
  error: AcquirerRejectedError,
  claimed?: Claimed,
): Promise<RefundRow> {
  return deps.db.transaction().execute(async (trx) => {
    if (claimed) await retry.succeed(trx, claimed);
    const failed = await refunds.transition(trx, refundId, ['pending'], 'failed', {
      failure_code: error.providerCode,
      failure_message: error.sanitizedMessage,
      updated_at: deps.clock.now(),
    });
    if (failed) {
      refundOutcomes.inc({ environment: failed.environment, outcome: 'failed' });
      return failed;
    }
    // Another path (the retry job, or a retried request) recorded an answer for this refund first (the
    // update waited for its row lock): that answer stands, and this refusal answers the refund as it is.
    const current = await refunds.findById(trx, refundId);
    if (!current) throw new Error(`refund ${refundId} is gone`);
    return current;
  });
}

/**
 * One acquirer round for a pending refund: succeeded, failed, or still pending (thrown). A round of the
 * retry job ends its claim in the transaction that records the answer.
 */
export async function ask(
  deps: RefundServiceDeps,
  retry: DueQueue,
  refund: RefundRow,
  paymentId: string,
  acquirer: Acquirer,
  claimed?: Claimed,
): Promise<RefundRow> {
  try {
    const answer = await acquirer.refund(paymentId, { idempotencyKey: refund.id, amount: refund.amount });
    return await finish(deps, retry, refund.id, answer, claimed);
  } catch (error) {
    // A "not now" 4xx (408, 425, 429 on every attempt) refused nothing: the refund stays pending.
    if (error instanceof AcquirerRejectedError && !error.transient) {
      const current = await fail(deps, retry, refund.id, error, claimed);
      // The acquirer's success, recorded by another path first, is the refund's answer.
      if (current.status === 'succeeded') return current;
      throw error;
    }
    throw error;
  }
}
