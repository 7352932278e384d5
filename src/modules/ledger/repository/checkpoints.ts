import { sql } from 'kysely';
import type { Trx } from '../../../db/database.js';
import { lockUntilCommit } from '../../../db/locks.js';

/**
 * Moves every checkpoint to the oldest transaction still running: the postings written since the last
 * horizon are added to their accounts' checkpoints, in the caller's transaction (one run at a time, under
 * its lock). Returns the number of accounts moved. A key with no posting since the last horizon keeps its
 * checkpoint: nothing lies between it and the new horizon.
 */
export async function advanceCheckpoints(trx: Trx, now: Date): Promise<number> {
  await lockUntilCommit(trx, 'ledger-checkpoints');
  const horizon = (
    await sql<{ h: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as h`.execute(trx)
  ).rows[0]?.h;
  if (horizon === undefined) throw new Error('no snapshot horizon');
  const previous =
    (await trx.selectFrom('ledger_checkpoint_horizon').select('covers_before').executeTakeFirst())
      ?.covers_before ?? '0';
  if (BigInt(previous) >= BigInt(horizon)) return 0;
  const moved = await sql`
    insert into ledger_balance_checkpoints as c
      (organization_id, environment, account, currency, balance, covers_before, updated_at)
    select organization_id, environment, account, currency, sum(amount), ${horizon}::xid8, ${now}
    from ledger_postings
    where written_by >= ${previous}::xid8 and written_by < ${horizon}::xid8
    group by organization_id, environment, account, currency
    on conflict (organization_id, environment, account, currency) do update
      set balance = c.balance + excluded.balance,
          covers_before = excluded.covers_before,
          updated_at = excluded.updated_at`.execute(trx);
  await trx
    .insertInto('ledger_checkpoint_horizon')
    .values({ covers_before: horizon, updated_at: now })
    .onConflict((oc) => oc.column('singleton').doUpdateSet({ covers_before: horizon, updated_at: now }))
    .execute();
  return Number(moved.numAffectedRows ?? 0n);
}
