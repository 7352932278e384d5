import { AcquirerRejectedError, type AcquirerPayment } from '../acquirer/types.js';
import type { Claimed, DueQueue } from '../../worker/queue.js';
import { applyLocked } from './apply-payment.js';
import { deferClaimed, type DueOutcome } from '../../worker/due-batch.js';
import type { ChargeCompletionDeps } from './deps.js';
import * as charges from './repository/charges.js';

/**
 * The expiry job's work of one claimed charge (`workDueBatch`): cancels it at the acquirer, then applies
 * the answer and ends the claim together.
 */
export async function expireClaimed(
  deps: ChargeCompletionDeps,
  expiry: DueQueue,
  claimed: Claimed,
): Promise<DueOutcome> {
  const { db } = deps;
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
    // Final otherwise (paid or failed at the acquirer): not counted as expired.
    return outcome.charge.status === 'expired' ? 'done' : 'neither';
  } catch (error) {
    return deferClaimed(deps, expiry, claimed, error, {
      context: { chargeId: charge.id },
      message: 'expiry deferred: the acquirer could not cancel',
    });
  }
}
