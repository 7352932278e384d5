import { sql, type RawBuilder } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { Environment } from '../../../db/schema.js';
import type { RatioLevel, RatioSettings } from './levels.js';

/**
 * The SQL of the ratios (docs/dispute-ratios.md): one statement counts every figure of a set of months,
 * grouped by month and scheme (and by owner, for every merchant at once), served by migration 0042's
 * partial indexes. The constant predicates are literals, so the planner matches the partial indexes'
 * predicates whatever plan it caches.
 */

/** One count of one month and scheme: settled card sales, chargebacks or fraud warnings. */
export interface CountRow {
  organization_id: string;
  environment: Environment;
  kind: 'sales' | 'chargebacks' | 'fraud_warnings';
  /** `YYYY-MM` (UTC). */
  month: string;
  scheme: string;
  count: number;
  /** Fraud warnings only: those whose charge has a chargeback counted in their month or before. */
  overlap: number;
}

const CARD_SALE = sql.raw(
  "c.status = 'succeeded' AND c.payment_method IN ('credit_card_tr', 'credit_card_international')",
);
const SCHEME = sql.raw("c.card_brand IN ('visa', 'mastercard', 'troy')");
const CHARGEBACK = sql.raw("d.stage <> 'inquiry'");
/** The instant a chargeback counts at: an escalated inquiry when it escalated (docs/dispute-ratios.md). */
const COUNTED_AT = sql.raw('coalesce(d.escalated_at, d.provider_created_at)');

const monthKey = (column: RawBuilder<unknown>) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')`;

/** Whose rows: one owner, or every owner (its columns then group the counts). */
type Scope = { organizationId: string; environment: Environment } | 'all';

function ownerFilter(alias: 'c' | 'd' | 'f', scope: Scope) {
  if (scope === 'all') return sql``;
  const table = sql.raw(alias);
  return sql`${table}.organization_id = ${scope.organizationId} AND ${table}.environment = ${scope.environment} AND`;
}

/**
 * Every count of the months from `salesFrom` (sales) and `from` (chargebacks, warnings) until `to`: one
 * statement, three grouped reads joined by UNION ALL. A dispute counts once per row; an inquiry not at
 * all until it escalates, then in its escalation month.
 */
export async function countsOf(
  db: Kdb,
  scope: Scope,
  range: { salesFrom: Date; from: Date; to: Date },
): Promise<CountRow[]> {
  const { salesFrom, from, to } = range;
  const result = await sql<CountRow>`
    SELECT c.organization_id, c.environment, 'sales' AS kind, ${monthKey(sql.raw('c.finalized_at'))} AS month,
           c.card_brand AS scheme, count(*)::int AS count, 0 AS overlap
      FROM charges c
     WHERE ${ownerFilter('c', scope)} ${CARD_SALE} AND ${SCHEME}
       AND c.finalized_at >= ${salesFrom} AND c.finalized_at < ${to}
     GROUP BY 1, 2, 4, 5
    UNION ALL
    SELECT d.organization_id, d.environment, 'chargebacks', ${monthKey(COUNTED_AT)}, c.card_brand,
           count(*)::int, 0
      FROM disputes d JOIN charges c ON c.id = d.charge_id
     WHERE ${ownerFilter('d', scope)} ${CHARGEBACK} AND ${SCHEME}
       AND ${COUNTED_AT} >= ${from} AND ${COUNTED_AT} < ${to}
     GROUP BY 1, 2, 4, 5
    UNION ALL
    SELECT f.organization_id, f.environment, 'fraud_warnings', ${monthKey(sql.raw('f.provider_created_at'))},
           c.card_brand, count(*)::int,
           (count(*) FILTER (WHERE EXISTS (
              SELECT 1 FROM disputes d
               WHERE d.charge_id = f.charge_id AND ${CHARGEBACK}
                 AND ${COUNTED_AT} < (date_trunc('month', f.provider_created_at AT TIME ZONE 'UTC')
                                      + interval '1 month') AT TIME ZONE 'UTC')))::int
      FROM fraud_warnings f JOIN charges c ON c.id = f.charge_id
     WHERE ${ownerFilter('f', scope)} ${SCHEME}
       AND f.provider_created_at >= ${from} AND f.provider_created_at < ${to}
     GROUP BY 1, 2, 4, 5`.execute(db);
  return result.rows.map((row) => ({ ...row, count: Number(row.count), overlap: Number(row.overlap) }));
}

/** The platform's settings (migration 0042 writes the one row). */
export async function readSettings(db: Kdb): Promise<RatioSettings> {
  const row = await db
    .selectFrom('dispute_ratio_settings')
    .selectAll()
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  const levels = typeof row.levels === 'string' ? (JSON.parse(row.levels) as unknown) : row.levels;
  return {
    countFraudAndDisputeOnce: row.count_fraud_and_dispute_once,
    levels: levels as RatioLevel[],
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}

export async function writeSettings(
  db: Kdb,
  settings: Pick<RatioSettings, 'countFraudAndDisputeOnce' | 'levels'>,
  by: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('dispute_ratio_settings')
    .set({
      count_fraud_and_dispute_once: settings.countFraudAndDisputeOnce,
      levels: JSON.stringify(settings.levels),
      updated_by: by,
      updated_at: at,
    })
    .where('id', '=', 1)
    .execute();
}
