import type { Selectable } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import { findAll } from '../../../db/rows.js';
import type { ChargeCardAttemptsTable } from '../../../db/schema.js';
import type { ChargeRow } from '../model.js';

/**
 * Counts and claims one card attempt of a pending charge until `claimedUntil` (ADR 0065): its number, or
 * undefined when its attempts are used up or another attempt's claim is live at `now`. One statement,
 * committed before the acquirer is called: concurrent claims serialize on the row, and each sees the
 * winner's claim.
 */
export async function takeCardAttempt(
  db: Kdb,
  id: string,
  claim: { maxAttempts: number; now: Date; claimedUntil: Date },
): Promise<number | undefined> {
  const taken = await db
    .updateTable('charges')
    .set((eb) => ({
      card_attempts: eb('card_attempts', '+', 1),
      card_attempt_claimed_until: claim.claimedUntil,
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('card_attempts', '<', claim.maxAttempts)
    .where((eb) =>
      eb.or([
        eb('card_attempt_claimed_until', 'is', null),
        eb('card_attempt_claimed_until', '<=', claim.now),
      ]),
    )
    .returning('card_attempts')
    .executeTakeFirst();
  return taken?.card_attempts;
}

/**
 * Ends the claim of attempt `number`, if it is still that attempt's: a later attempt's claim (taken
 * after this one's lease ran out) is left alone. `staleAt`: only a claim whose lease ended by then.
 * The charge, or undefined when there was no such claim.
 */
export async function endCardAttemptClaim(
  db: Kdb,
  id: string,
  number: number,
  staleAt?: Date,
): Promise<ChargeRow | undefined> {
  let query = db
    .updateTable('charges')
    .set({ card_attempt_claimed_until: null })
    .where('id', '=', id)
    .where('card_attempts', '=', number)
    .where('card_attempt_claimed_until', 'is not', null);
  if (staleAt !== undefined) query = query.where('card_attempt_claimed_until', '<=', staleAt);
  return query.returningAll().executeTakeFirst();
}

export type CardAttemptRow = Selectable<ChargeCardAttemptsTable>;

/** What the acquirer answered to attempt `number` (once: a second write of the same attempt is ignored). */
export async function recordCardAttempt(db: Kdb, row: CardAttemptRow): Promise<void> {
  await db
    .insertInto('charge_card_attempts')
    .values(row)
    .onConflict((oc) => oc.columns(['charge_id', 'number']).doNothing())
    .execute();
}

/** A charge's card attempts, in order. */
export async function cardAttemptsOf(db: Kdb, chargeId: string): Promise<CardAttemptRow[]> {
  return findAll(db, 'charge_card_attempts', { charge_id: chargeId }, ['number']);
}
