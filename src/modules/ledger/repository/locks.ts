import { sql } from 'kysely';
import type { Trx } from '../../../db/database.js';
import { lockUntilCommit } from '../../../db/locks.js';
import type { Owner } from '../../../shared/owner.js';

/**
 * Serialises, until the end of the caller's transaction, the writers that can lower one owner's pending
 * balance (refunds today, settlement later), so that each sees the balance the previous one left.
 */
export async function lockPendingBalance(trx: Trx, owner: Owner, currency: 'TRY'): Promise<void> {
  await lockUntilCommit(trx, `ledger-pending:${owner.organizationId}:${owner.environment}:${currency}`);
}

/**
 * Serialises, until the end of the caller's transaction, the writers that lower one owner's available
 * balance (payouts), so that concurrent payouts can never together spend more than is available.
 */
export async function lockAvailableBalance(trx: Trx, owner: Owner, currency: 'TRY'): Promise<void> {
  await lockUntilCommit(trx, `ledger-available:${owner.organizationId}:${owner.environment}:${currency}`);
}

// The set-based forms the settlement batch uses for a chunk of owners (docs/decisions/0041).

/**
 * Takes advisory locks of these keys until the end of the caller's transaction, in the order given (the
 * caller sorts them: two transactions taking overlapping sets in the same order never deadlock).
 */
export async function lockKeys(trx: Trx, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql`select count(pg_advisory_xact_lock(hashtextextended(t.key, 0)))
    from jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) with ordinality as t (key, n)`.execute(
    trx,
  );
}

export const pendingLockKey = (owner: Owner, currency: 'TRY') =>
  `ledger-pending:${owner.organizationId}:${owner.environment}:${currency}`;
export const availableLockKey = (owner: Owner, currency: 'TRY') =>
  `ledger-available:${owner.organizationId}:${owner.environment}:${currency}`;
