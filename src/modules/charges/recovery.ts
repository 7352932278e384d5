import { AcquirerUnavailableError, type AcquirerPayment } from '../acquirer/types.js';
import type { ChargeServiceDeps } from './deps.js';
import { assertPaymentMatches, markAbandoned, markCreated, takeLease } from './finish-creation.js';
import * as creation from './repository/creation.js';

/**
 * Product decision 15: finishes or abandons creations whose request died between phase 1 and phase 2
 * (a crash, or an acquirer outage the merchant did not retry). Returns what it did.
 */
export async function recoverInterruptedCreations(
  deps: ChargeServiceDeps,
  limit = 50,
): Promise<{ finished: number; abandoned: number; deferred: number }> {
  const { db, clock, logger } = deps;
  const now = clock.now();
  const outcome = { finished: 0, abandoned: 0, deferred: 0 };
  // Old enough that any request of the same creation is over (its lease and every acquirer call
  // it could still have in flight have lapsed), and not leased right now.
  const candidates = await creation.interruptedCreations(
    db,
    now,
    new Date(now.getTime() - deps.creationLeaseMs),
    limit,
  );
  for (const { id } of candidates) {
    const charge = await takeLease(db, id, now, deps.creationLeaseMs);
    if (!charge) continue;
    const acquirer = deps.acquirerFor(charge.environment);
    let payment: AcquirerPayment | undefined;
    try {
      if (!acquirer) throw new AcquirerUnavailableError('no acquirer configured', 0);
      const payments = await acquirer.findPayments(charge.id);
      payment = payments.find((candidate) => candidate.reference === charge.id);
      if (payment) assertPaymentMatches(charge, payment);
    } catch (error) {
      await creation.releaseLease(db, charge.id, clock.now());
      outcome.deferred++;
      logger.warn(
        { err: error, chargeId: charge.id },
        'charge recovery deferred: the acquirer could not say',
      );
      continue;
    }
    if (payment) {
      await markCreated(db, charge.id, payment, clock.now());
      outcome.finished++;
      logger.info(
        { chargeId: charge.id, paymentId: payment.id },
        'charge recovery finished an interrupted creation',
      );
    } else {
      await markAbandoned(db, charge.id, clock.now());
      outcome.abandoned++;
      logger.info(
        { chargeId: charge.id },
        'charge recovery abandoned a creation the acquirer never received',
      );
    }
  }
  return outcome;
}
