import { sql, type RawBuilder } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type { Environment } from '../../../db/schema.js';
import type { Owner } from '../../../shared/owner.js';
import type { RatioLevel, RatioSettings } from './levels.js';

/**
 * The SQL of the ratios (docs/dispute-ratios.md): one statement counts every figure of a set of months,
 * grouped by month and scheme (and by owner, for every merchant at once), served by migration 0042's
 * partial indexes. The constant predicates are literals, so the planner matches the partial indexes'
 * predicates whatever plan it caches. One owner's closed days are counted by the same predicates into
 * its summary (migration 0044, ADR 0077), below.
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

/** A fraud warning `f` whose charge has a chargeback counted before the end of the warning's month. */
const alsoDisputed = sql`EXISTS (
  SELECT 1 FROM disputes d
   WHERE d.charge_id = f.charge_id AND ${CHARGEBACK}
     AND ${COUNTED_AT} < (date_trunc('month', f.provider_created_at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC')`;

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
           (count(*) FILTER (WHERE ${alsoDisputed}))::int
      FROM fraud_warnings f JOIN charges c ON c.id = f.charge_id
     WHERE ${ownerFilter('f', scope)} ${SCHEME}
       AND f.provider_created_at >= ${from} AND f.provider_created_at < ${to}
     GROUP BY 1, 2, 4, 5`.execute(db);
  for (const row of result.rows) {
    row.count = Number(row.count);
    row.overlap = Number(row.overlap);
  }
  return result.rows;
}

// --- The closed days of one owner (migration 0044, ADR 0077): counted once, read on every page. ---

/** `YYYY-MM-DD` (UTC) of an instant. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** How far one owner's closed days are summarised (migration 0044). */
export interface SummaryState {
  daysFrom: string;
  daysUntil: string;
  writesBefore: Date;
}

const ownerIs = (alias: 'd' | 'f', owner: Owner) => {
  const table = sql.raw(alias);
  return sql`${table}.organization_id = ${owner.organizationId} AND ${table}.environment = ${owner.environment}`;
};

/** The owner's summary (locked with `forUpdate`, inside the transaction that refreshes it); null without one. */
export async function summaryOf(db: Kdb, owner: Owner, forUpdate = false): Promise<SummaryState | null> {
  let query = db
    .selectFrom('dispute_ratio_summaries')
    .select(['days_from', 'days_until', 'writes_before'])
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row === undefined
    ? null
    : { daysFrom: row.days_from, daysUntil: row.days_until, writesBefore: new Date(row.writes_before) };
}

/**
 * The summarised days in [from, until) that a dispute or fraud warning of the owner written since `since`
 * counts in, or (a chargeback) whose fraud warnings on the same charge it may make "also disputed". Read
 * through the owner's written-at indexes: as many rows as were written since.
 */
export async function touchedDays(
  db: Kdb,
  owner: Owner,
  { since, from, until }: { since: Date; from: string; until: string },
): Promise<string[]> {
  const result = await sql<{ day: string }>`
    SELECT DISTINCT to_char(changed.day, 'YYYY-MM-DD') AS day FROM (
        SELECT (${COUNTED_AT} AT TIME ZONE 'UTC')::date AS day FROM disputes d
         WHERE ${ownerIs('d', owner)} AND d.updated_at >= ${since} AND ${CHARGEBACK}
        UNION ALL
        SELECT (f.provider_created_at AT TIME ZONE 'UTC')::date
          FROM disputes d JOIN fraud_warnings f ON f.charge_id = d.charge_id
         WHERE ${ownerIs('d', owner)} AND d.updated_at >= ${since} AND ${CHARGEBACK}
        UNION ALL
        SELECT (f.provider_created_at AT TIME ZONE 'UTC')::date FROM fraud_warnings f
         WHERE ${ownerIs('f', owner)} AND f.updated_at >= ${since}
      ) changed
     WHERE changed.day >= ${from}::date AND changed.day < ${until}::date
     ORDER BY 1`.execute(db);
  return result.rows.map((row) => row.day);
}

/** The owner's summary row, empty (nothing summarised) when it has none, so that a refresh can lock it. */
export async function ensureSummary(trx: Trx, owner: Owner, horizon: string, at: Date): Promise<void> {
  await trx
    .insertInto('dispute_ratio_summaries')
    .values({
      organization_id: owner.organizationId,
      environment: owner.environment,
      days_from: horizon,
      days_until: horizon,
      writes_before: new Date(0),
      refreshed_at: at,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'environment']).doNothing())
    .execute();
}

export async function writeSummary(
  trx: Trx,
  owner: Owner,
  state: { daysFrom: string; daysUntil: string; writesBefore: Date; refreshedAt: Date },
): Promise<void> {
  await trx
    .updateTable('dispute_ratio_summaries')
    .set({
      days_from: state.daysFrom,
      days_until: state.daysUntil,
      writes_before: state.writesBefore,
      refreshed_at: state.refreshedAt,
    })
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .execute();
}

/** Forgets the owner's days before `before` (every one, without it): no page reads them any more. */
export async function forgetDays(trx: Trx, owner: Owner, before?: string): Promise<void> {
  let query = trx
    .deleteFrom('dispute_ratio_days')
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment);
  if (before !== undefined) query = query.where('day', '<', before);
  await query.execute();
}

/**
 * Recounts `days` of the owner whole, from the rows, as `countsOf` counts them: one statement replaces the
 * days' rows (a day without any count keeps none). Each day's charges, chargebacks and fraud warnings are
 * read through migration 0042's indexes, one range per day.
 */
export async function recountDays(trx: Trx, owner: Owner, days: readonly string[]): Promise<void> {
  if (days.length === 0) return;
  const list = sql`unnest(${[...days]}::date[]) AS x(day)`;
  const start = sql.raw(`(x.day::timestamp AT TIME ZONE 'UTC')`);
  const end = sql.raw(`((x.day + 1)::timestamp AT TIME ZONE 'UTC')`);
  await trx
    .deleteFrom('dispute_ratio_days')
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where(sql<boolean>`day = ANY(${[...days]}::date[])`)
    .execute();
  await sql`
    INSERT INTO dispute_ratio_days (organization_id, environment, day, scheme, sales, chargebacks, fraud_warnings,
                                    fraud_warnings_also_disputed)
    SELECT ${owner.organizationId}, ${owner.environment}, day, scheme, sum(sales), sum(chargebacks),
           sum(fraud_warnings), sum(also_disputed)
      FROM (
        SELECT x.day, c.card_brand AS scheme, count(*) AS sales, 0 AS chargebacks, 0 AS fraud_warnings,
               0 AS also_disputed
          FROM ${list} JOIN charges c
            ON c.organization_id = ${owner.organizationId} AND c.environment = ${owner.environment}
           AND ${CARD_SALE} AND ${SCHEME} AND c.finalized_at >= ${start} AND c.finalized_at < ${end}
         GROUP BY 1, 2
        UNION ALL
        SELECT x.day, c.card_brand, 0, count(*), 0, 0
          FROM ${list} JOIN disputes d
            ON ${ownerIs('d', owner)} AND ${CHARGEBACK} AND ${COUNTED_AT} >= ${start} AND ${COUNTED_AT} < ${end}
          JOIN charges c ON c.id = d.charge_id
         WHERE ${SCHEME}
         GROUP BY 1, 2
        UNION ALL
        SELECT x.day, c.card_brand, 0, 0, count(*), count(*) FILTER (WHERE ${alsoDisputed})
          FROM ${list} JOIN fraud_warnings f
            ON ${ownerIs('f', owner)} AND f.provider_created_at >= ${start} AND f.provider_created_at < ${end}
          JOIN charges c ON c.id = f.charge_id
         WHERE ${SCHEME}
         GROUP BY 1, 2
      ) counts
     GROUP BY day, scheme`.execute(trx);
}

/**
 * The summarised counts of the owner's days in [salesFrom, until) (sales) and [from, until) (chargebacks and
 * fraud warnings), per month and scheme, as the rows of `countsOf`.
 */
export async function summarisedCounts(
  db: Kdb,
  owner: Owner,
  range: { salesFrom: Date; from: Date },
  until: string,
): Promise<CountRow[]> {
  const from = dayOf(range.from);
  const result = await sql<{
    month: string;
    scheme: string;
    sales: number;
    chargebacks: number;
    fraud_warnings: number;
    also_disputed: number;
  }>`
    SELECT to_char(day, 'YYYY-MM') AS month, scheme, sum(sales)::int AS sales,
           (sum(chargebacks) FILTER (WHERE day >= ${from}::date))::int AS chargebacks,
           (sum(fraud_warnings) FILTER (WHERE day >= ${from}::date))::int AS fraud_warnings,
           (sum(fraud_warnings_also_disputed) FILTER (WHERE day >= ${from}::date))::int AS also_disputed
      FROM dispute_ratio_days
     WHERE organization_id = ${owner.organizationId} AND environment = ${owner.environment}
       AND day >= ${dayOf(range.salesFrom)}::date AND day < ${until}::date
     GROUP BY 1, 2`.execute(db);
  const base = { organization_id: owner.organizationId, environment: owner.environment };
  return result.rows.flatMap((row) => [
    {
      ...base,
      kind: 'sales' as const,
      month: row.month,
      scheme: row.scheme,
      count: Number(row.sales),
      overlap: 0,
    },
    {
      ...base,
      kind: 'chargebacks' as const,
      month: row.month,
      scheme: row.scheme,
      count: Number(row.chargebacks ?? 0),
      overlap: 0,
    },
    {
      ...base,
      kind: 'fraud_warnings' as const,
      month: row.month,
      scheme: row.scheme,
      count: Number(row.fraud_warnings ?? 0),
      overlap: Number(row.also_disputed ?? 0),
    },
  ]);
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
