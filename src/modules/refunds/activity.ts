import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { Owner } from '../../shared/owner.js';

/** One UTC day's succeeded refunds (the dashboard's overview). */
export interface DailyRefundActivity {
  /** `YYYY-MM-DD`, UTC: the day the refund was asked for. */
  day: string;
  count: number;
  /** Minor units. */
  amount: bigint;
}

/** The owner's succeeded refunds of `[since, until)` per UTC day (index `refunds_owner_idx`, migration 0021). */
export async function dailyRefundActivity(
  db: Kdb,
  owner: Owner,
  range: { since: Date; until: Date },
): Promise<DailyRefundActivity[]> {
  const rows = await db
    .selectFrom('refunds')
    .select([
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'),
      sql<string>`count(*)`.as('count'),
      sql<string>`sum(amount)`.as('amount'),
    ])
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('status', '=', 'succeeded')
    .where('created_at', '>=', range.since)
    .where('created_at', '<', range.until)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  return rows.map((row) => ({ day: row.day, count: Number(row.count), amount: BigInt(row.amount) }));
}
