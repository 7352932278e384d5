import { AcquirerRejectedError, type AcquirerPayment } from '../acquirer/types.js';
import type { BatchReport, Claimed, DueQueue } from '../../worker/queue.js';
import { applyLocked } from './apply-payment.js';
import type { ChargeCompletionDeps } from './deps.js';
import * as charges from './repository/charges.js';

/** Cancels one claimed charge at the acquirer, then applies the answer and ends the claim together. */
async function expireOne(
  deps: ChargeCompletionDeps,
  expiry: DueQueue,
  claimed: Claimed,
): Promise<'expired' | 'final' | 'failed'> {
  const { db, logger } = deps;
  const charge = await charges.findById(db, claimed.id);
  if (!charge) throw new Error(`charge ${claimed.id} is gone`);
  try {
    const acquirer = deps.acquirerFor(charge.environment);
    if (!acquirer || charge.provider_payment_id === null) {
      throw new Error(`no acquirer payment to cancel (${charge.environment})`);
    }
    let payment: AcquirerPayment;
    try {
      // Cancel first: a payment the customer completed a moment ago succeeds instead of expiring.
      payment = await acquirer.cancel(charge.provider_payment_id);
    } catch (error) {
      // A "not now" 4xx says nothing of the payment: the expiry is tried again later.
      if (!(error instanceof AcquirerRejectedError) || error.transient) throw error;
      // Already final at the acquirer (paid or failed): take its word for it.
      payment = await acquirer.getPayment(charge.provider_payment_id);
    }
    const outcome = await db.transaction().execute(async (trx) => {
      const locked = await charges.lockById(trx, charge.id);
      const applied = await applyLocked(deps, trx, locked, payment);
      await expiry.succeed(trx, claimed);
      return applied;
    });
    return outcome.charge.status === 'expired' ? 'expired' : 'final';
  } catch (error) {
    logger.warn({ err: error, chargeId: charge.id }, 'expiry deferred: the acquirer could not cancel');
    await db.transaction().execute((trx) => expiry.fail(trx, claimed, error));
    return 'failed';
  }
}

/** One batch of the expiry job: claims due charges, and reports what became of them. */
export async function expireDueBatch(
  deps: ChargeCompletionDeps,
  expiry: DueQueue,
  limit = 50,
): Promise<BatchReport> {
  const claimed = await expiry.claim(limit);
  const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
  for (const charge of claimed) {
    const outcome = await expireOne(deps, expiry, charge);
    if (outcome === 'expired') report.done++;
    if (outcome === 'failed') report.failed++;
  }
  return report;
}
