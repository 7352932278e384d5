import { sql, type Insertable, type Selectable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { SettlementBatchesTable, SettlementItemsTable } from '../../db/schema.js';
import type { PayoutOwner } from '../payouts/ports.js';

/** The only writer of `settlement_batches` and `settlement_items`. */

export type BatchRow = Selectable<SettlementBatchesTable>;
export type ItemRow = Selectable<SettlementItemsTable>;

/** Serialises the releases of one owner until the end of the caller's transaction. */
export async function lockOwner(trx: Trx, owner: PayoutOwner): Promise<void> {
  const key = `settlement:${owner.organizationId}:${owner.environment}`;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

export async function findBatch(
  trx: Kdb,
  owner: PayoutOwner,
  businessDate: string,
): Promise<BatchRow | undefined> {
  return trx
    .selectFrom('settlement_batches')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('business_date', '=', businessDate)
    .executeTakeFirst();
}

/** The owner's latest batch (by cutoff), if any. */
export async function latestBatch(db: Kdb, owner: PayoutOwner): Promise<BatchRow | undefined> {
  return db
    .selectFrom('settlement_batches')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .orderBy('business_date', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Which of these sources were released already. */
export async function releasedSources(trx: Trx, sourceIds: readonly string[]): Promise<Set<string>> {
  if (sourceIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom('settlement_items')
    .select('source_id')
    .where('source_id', 'in', [...sourceIds])
    .execute();
  return new Set(rows.map((row) => row.source_id));
}

export async function insertBatch(trx: Trx, batch: Insertable<SettlementBatchesTable>): Promise<BatchRow> {
  return trx.insertInto('settlement_batches').values(batch).returningAll().executeTakeFirstOrThrow();
}

export async function insertItems(trx: Trx, items: Insertable<SettlementItemsTable>[]): Promise<void> {
  for (let start = 0; start < items.length; start += 1000) {
    await trx
      .insertInto('settlement_items')
      .values(items.slice(start, start + 1000))
      .execute();
  }
}

export async function attachUnpaid(trx: Trx, owner: PayoutOwner, payoutId: string): Promise<number> {
  const result = await trx
    .updateTable('settlement_items')
    .set({ payout_id: payoutId })
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('payout_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function detach(trx: Trx, payoutId: string): Promise<void> {
  await trx
    .updateTable('settlement_items')
    .set({ payout_id: null })
    .where('payout_id', '=', payoutId)
    .execute();
}

export async function listByPayout(
  db: Kdb,
  payoutId: string,
  page: { limit: number; after?: { availableAt: Date; id: string } },
): Promise<ItemRow[]> {
  let query = db.selectFrom('settlement_items').selectAll().where('payout_id', '=', payoutId);
  if (page.after) {
    const { availableAt, id } = page.after;
    query = query.where((eb) =>
      eb.or([
        eb('available_at', '>', availableAt),
        eb.and([eb('available_at', '=', availableAt), eb('id', '>', id)]),
      ]),
    );
  }
  return query.orderBy('available_at').orderBy('id').limit(page.limit).execute();
}

export async function findItem(db: Kdb, id: string): Promise<ItemRow | undefined> {
  return db.selectFrom('settlement_items').selectAll().where('id', '=', id).executeTakeFirst();
}
