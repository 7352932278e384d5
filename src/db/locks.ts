import { sql } from 'kysely';
import type { Trx } from './database.js';

/**
 * Serialises, until the end of the caller's transaction, every writer that takes the same `key` (a
 * transaction-scoped advisory lock on the key's 64-bit hash: nothing to release, safe behind PgBouncer's
 * transaction pooling). Keys name their module first (`wallets:<org>:<environment>`).
 */
export async function lockUntilCommit(trx: Trx, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
