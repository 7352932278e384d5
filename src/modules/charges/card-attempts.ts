import type { AcquirerPayment } from '../acquirer/types.js';
import { applyLocked } from './apply-payment.js';
import type { ChargeCompletionDeps } from './deps.js';
import type { ChargeRow } from './model.js';
import * as cardAttempts from './repository/card-attempts.js';
import * as charges from './repository/charges.js';

/**
 * Counts and claims one card attempt of a pending charge, committed before the card goes to the acquirer
 * (ADR 0065): its number, or undefined when its attempts are used up or another attempt is in flight.
 */
export async function takeCardAttempt(
  deps: Pick<ChargeCompletionDeps, 'db' | 'clock' | 'cardAttempts' | 'cardClaimLeaseMs'>,
  chargeId: string,
): Promise<number | undefined> {
  const { db, clock } = deps;
  const now = clock.now();
  return cardAttempts.takeCardAttempt(db, chargeId, {
    maxAttempts: deps.cardAttempts,
    now,
    claimedUntil: new Date(now.getTime() + deps.cardClaimLeaseMs),
  });
}

/** What the acquirer answered to one card attempt (`error`: it could not be asked). */
export interface CardAttemptOutcome {
  outcome: 'succeeded' | 'declined' | 'challenge' | 'error';
  failureCode: string | null;
  card: { brand: string | null; last4: string } | null;
}

/**
 * Attempt `number` is over, in one transaction under the charge's row lock: what the acquirer answered,
 * the payment it reported applied when there is one, and the attempt's claim ended.
 */
export async function finishCardAttempt(
  deps: ChargeCompletionDeps,
  chargeId: string,
  number: number,
  attempt: CardAttemptOutcome,
  payment: AcquirerPayment | null,
): Promise<ChargeRow> {
  const { db, clock } = deps;
  const last4 = attempt.card !== null && /^[0-9]{4}$/.test(attempt.card.last4) ? attempt.card.last4 : null;
  return db.transaction().execute(async (trx) => {
    let charge = await charges.lockById(trx, chargeId);
    await cardAttempts.recordCardAttempt(trx, {
      charge_id: chargeId,
      number,
      outcome: attempt.outcome,
      failure_code: attempt.failureCode,
      card_brand: last4 === null ? null : (attempt.card?.brand ?? null),
      card_last4: last4,
      attempted_at: clock.now(),
    });
    if (payment !== null) charge = (await applyLocked(deps, trx, charge, payment)).charge;
    return (await cardAttempts.endCardAttemptClaim(trx, chargeId, number)) ?? charge;
  });
}

/** Ends the claim of attempt `number` if its lease has run out (one a crashed process left). */
export async function endStaleCardAttempt(
  deps: Pick<ChargeCompletionDeps, 'db' | 'clock'>,
  chargeId: string,
  number: number,
): Promise<void> {
  await cardAttempts.endCardAttemptClaim(deps.db, chargeId, number, deps.clock.now());
}
