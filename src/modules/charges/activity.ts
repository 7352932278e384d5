import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { ownedBy } from '../../db/scopes.js';
import type { PaymentMethod } from '../../db/schema.js';
import type { Owner } from '../../shared/owner.js';

/** One UTC day's charges of one payment method (the dashboard's overview). */
export interface DailyChargeActivity {
  /** `YYYY-MM-DD`, UTC: the day the charge was created. */
  day: string;
  method: PaymentMethod;
  /** Charges that succeeded, and their amount in minor units. */
  succeeded: number;
  volume: bigint;
  /** Charges that failed or expired: with `succeeded`, the charges that reached an outcome. */
  unsuccessful: number;
  /** Charges still waiting for the customer or the acquirer. */
  pending: number;
}

/** A read of the dashboard's overview: the owner's activity of `[since, until)`, per UTC day (and kind). */
export type DailyActivity<Day> = (
  db: Kdb,
  owner: Owner,
  range: { since: Date; until: Date },
) => Promise<Day[]>;

/** A row's UTC creation day, `YYYY-MM-DD`: a daily activity's first column, which groups and orders it. */
export const creationDay = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day');

/**
 * The owner's created charges of `[since, until)` counted per UTC day and payment method, by their
 * present status. One statement over the list index (`organization_id, environment, created_at`): at most
 * days × methods rows.
 */
export const dailyChargeActivity: DailyActivity<DailyChargeActivity> = async (db, owner, range) => {
  const rows = await db
    .selectFrom('charges')
    .select([
      creationDay,
      'payment_method',
      sql<string>`count(*) filter (where status = 'succeeded')`.as('succeeded'),
      sql<string>`coalesce(sum(amount) filter (where status = 'succeeded'), 0)`.as('volume'),
      sql<string>`count(*) filter (where status in ('failed', 'expired'))`.as('unsuccessful'),
      sql<string>`count(*) filter (where status = 'pending')`.as('pending'),
    ])
    .$call(ownedBy(owner))
    .where('creation_state', '=', 'created')
    .where('created_at', '>=', range.since)
    .where('created_at', '<', range.until)
    .groupBy([sql`1`, 'payment_method'])
    .orderBy(sql`1`)
    .execute();
  return rows.map((row) => ({
    day: row.day,
    method: row.payment_method,
    succeeded: Number(row.succeeded),
    volume: BigInt(row.volume),
    unsuccessful: Number(row.unsuccessful),
    pending: Number(row.pending),
  }));
};
