import { sql } from 'kysely';
import { ownedBy } from '../../db/scopes.js';
import { creationDay, type DailyActivity } from '../charges/activity.js';

/** One UTC day's succeeded refunds (the dashboard's overview). */
export interface DailyRefundActivity {
  /** `YYYY-MM-DD`, UTC: the day the refund was asked for. */
  day: string;
  count: number;
  /** Minor units. */
  amount: bigint;
}

/** The owner's succeeded refunds of `[since, until)` per UTC day (index `refunds_owner_idx`, migration 0021). */
export const dailyRefundActivity: DailyActivity<DailyRefundActivity> = async (db, owner, range) => {
  const rows = await db
    .selectFrom('refunds')
    .select([creationDay, sql<string>`count(*)`.as('count'), sql<string>`sum(amount)`.as('amount')])
    .$call(ownedBy(owner))
    .where('status', '=', 'succeeded')
    .where('created_at', '>=', range.since)
    .where('created_at', '<', range.until)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  return rows.map((row) => ({ day: row.day, count: Number(row.count), amount: BigInt(row.amount) }));
};
