/**
 * The month's ratios of every merchant, the first dispute figure of `npm run bench` (issue 37 item 8,
 * docs/dispute-ratios.md "Bench"): every merchant's month as the hourly evaluation and the operator's
 * watchlist compute it, beside the bare SQL that counts the same rows, on the real PostgreSQL
 * (DATABASE_URL).
 *
 * 1. A fresh database, migrated, is seeded set-based: `organizations` merchants and `charges` succeeded
 *    card charges (visa, mastercard and troy in turn), half in the previous month and half in this month
 *    so far, the owners interleaved; 2% of them disputed (chargebacks, one in ten of them an inquiry that
 *    does not count), and fraud warnings on 1% (half of them on a disputed charge). Then VACUUM ANALYZE.
 * 2. The ratios: `everyOwnerMonth` of src/modules/disputes/ratios/read.ts, the function the job and the
 *    watchlist call (one statement, then the figures, projections and levels of every owner and scheme
 *    in memory), as the gateway runs it: the module built into dist/ (`npm start`'s code, not the
 *    development loader's), through Kysely.
 * 3. The bare SQL: the same three counts through node-postgres (sales of the two months, chargebacks and
 *    fraud warnings of the month, grouped by owner, month and scheme), nothing assembled: the ceiling.
 * Each is run `runs` times after a warm-up, alternately; the medians are compared (target: within 2x),
 * and the counts of both are checked to agree. The ratios' time is also split: its statement alone
 * (`countsOf`, rows read into objects) and the figures built from those rows.
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import type * as RatioReads from '../src/modules/disputes/ratios/read.js';
import type * as RatioRepository from '../src/modules/disputes/ratios/repository.js';
import type * as RatioFigures from '../src/modules/disputes/ratios/figures.js';
import { monthOf } from '../src/modules/disputes/ratios/levels.js';
import { systemClock } from '../src/shared/clock.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { builtProgram } from '../test/helpers/process.js';
import { round, timed, withClient } from './measure.js';

/** A module of src/ as built into dist/ (run.ts builds it first). */
const built = async <T>(source: string): Promise<T> =>
  (await import(pathToFileURL(builtProgram(source)).href)) as T;

export interface DisputesMonthBenchOptions {
  charges: number;
  organizations: number;
  runs: number;
}

const log = (message: string) => console.error(`[bench disputes month] ${message}`);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function seed(url: string, options: DisputesMonthBenchOptions, now: Date): Promise<void> {
  const previous = monthOf(now, -1);
  const current = monthOf(now);
  await withClient(url, async (client) => {
    try {
      await client.query(`SET session_replication_role = replica`);
    } catch {
      log('not a superuser: seeding with every trigger (slower)');
    }
    await client.query(`SET synchronous_commit = off`);
    await client.query(
      `INSERT INTO organizations (id, name, display_name, application_id, contact_email, kyc_status, feature_flags,
         rate_limit_live, rate_limit_sandbox, created_at, updated_at)
       SELECT 'org_' || lpad(to_hex(k), 29, '0'), 'Disputes bench ' || k, 'Disputes bench ' || k, NULL,
         'bench' || k || '@merchant.example',
         'APPROVED', ARRAY['apiKeys', 'disputes'], 1000000, 1000000, $2::timestamptz, $2::timestamptz
       FROM generate_series(1, $1::int) k`,
      [options.organizations, previous.start],
    );
    // Odd rows in the previous month, even rows in this month so far, each spread evenly over its span;
    // rows 2k-1 and 2k share an owner, so every owner with sales last month has sales this month.
    await client.query(
      `CREATE TEMP TABLE bench_seed AS
       SELECT i, 'ch_' || lpad(to_hex(i), 29, '0') AS id,
         'org_' || lpad(to_hex((((i - 1) / 2) % $2::int) + 1), 29, '0') AS org,
         (ARRAY['visa', 'mastercard', 'troy'])[1 + ((i - 1) / 2 / $2::int) % 3] AS brand,
         CASE WHEN i % 2 = 1 THEN $3::timestamptz + (i::float8 / $1::int) * ($4::timestamptz - $3::timestamptz)
           ELSE $4::timestamptz + (i::float8 / $1::int) * ($5::timestamptz - $4::timestamptz) END AS at
       FROM generate_series(1, $1::int) i`,
      [options.charges, options.organizations, previous.start, current.start, now],
    );
    await client.query(
      `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
         status, creation_state, provider, provider_request, provider_payment_id, provider_status, card_brand,
         card_last4, finalized_at, expires_at, created_at, updated_at)
       SELECT id, org, 'live', 10000, 'TRY', CASE WHEN i % 5 = 0 THEN 'credit_card_international' ELSE 'credit_card_tr' END,
         id, 'succeeded', 'created', 'sandbox', '{}'::jsonb, 'pay_' || id, 'succeeded', brand, '4242', at,
         at + interval '1 hour', at - interval '1 minute', at
       FROM bench_seed`,
    );
    // 2% disputed: every 50th charge, a day after it; one in ten of them an inquiry (not a chargeback).
    await client.query(
      `INSERT INTO disputes (id, organization_id, environment, charge_id, provider, provider_dispute_id, amount,
         currency, reason, reason_code, network, status, stage, rank, provider_created_at, provider_updated_at,
         created_at, updated_at)
       SELECT 'dp_' || substr(id, 4), org, 'live', id, 'sandbox', 'sdp_' || id, 10000, 'TRY', 'fraudulent', '10.4',
         brand, CASE WHEN i % 500 = 0 THEN 'warning_needs_response' ELSE 'needs_response' END,
         CASE WHEN i % 500 = 0 THEN 'inquiry' ELSE 'chargeback' END, 11,
         least(at + interval '1 day', $1::timestamptz), at, at, at
       FROM bench_seed WHERE i % 50 = 0`,
      [now],
    );
    // Fraud warnings on 1%: every 100th charge (disputed too) and every 100th from the 25th (not).
    await client.query(
      `INSERT INTO fraud_warnings (id, organization_id, environment, charge_id, provider, provider_warning_id,
         reason, reason_code, network, provider_created_at, created_at, updated_at)
       SELECT 'efw_' || substr(id, 4), org, 'live', id, 'sandbox', 'sfw_' || id, 'fraudulent', '10.4', brand,
         least(at + interval '12 hours', $1::timestamptz), at, at
       FROM bench_seed WHERE i % 100 = 0 OR i % 100 = 25`,
      [now],
    );
    await client.query(`DROP TABLE bench_seed`);
    await client.query(`RESET session_replication_role`);
    await client.query(`VACUUM ANALYZE organizations, charges, disputes, fraud_warnings`);
  });
}

/** The same counts as `countsOf('all', …)`, as three plain statements, nothing assembled. */
async function bareCounts(client: pg.Client, now: Date): Promise<{ ms: number; total: number }> {
  const previous = monthOf(now, -1);
  const current = monthOf(now);
  const statements = [
    [
      `SELECT organization_id, environment, to_char(finalized_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
           card_brand, count(*) AS n
         FROM charges
         WHERE status = 'succeeded' AND payment_method IN ('credit_card_tr', 'credit_card_international')
           AND card_brand IN ('visa', 'mastercard', 'troy') AND finalized_at >= $1 AND finalized_at < $2
         GROUP BY 1, 2, 3, 4`,
      [previous.start, current.end],
    ],
    [
      `SELECT d.organization_id, d.environment, c.card_brand, count(*) AS n
         FROM disputes d JOIN charges c ON c.id = d.charge_id
         WHERE d.stage <> 'inquiry' AND coalesce(d.escalated_at, d.provider_created_at) >= $1
           AND coalesce(d.escalated_at, d.provider_created_at) < $2
         GROUP BY 1, 2, 3`,
      [current.start, current.end],
    ],
    [
      `SELECT f.organization_id, f.environment, c.card_brand, count(*) AS n
         FROM fraud_warnings f JOIN charges c ON c.id = f.charge_id
         WHERE f.provider_created_at >= $1 AND f.provider_created_at < $2
         GROUP BY 1, 2, 3`,
      [current.start, current.end],
    ],
  ] as const;
  const started = performance.now();
  let total = 0;
  for (const [text, values] of statements) {
    const result = await client.query<{ n: string }>(text, [...values]);
    total += result.rows.reduce((sum, row) => sum + Number(row.n), 0);
  }
  return { ms: round(performance.now() - started), total };
}

export async function benchDisputesMonth(options: DisputesMonthBenchOptions) {
  const url = await createFreshDatabase();
  try {
    const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
    try {
      await migrate(database, readMigrations(migrationsDir));
      const now = systemClock.now();
      const seeding = await timed(() => seed(url, options, now));
      log(`seeded ${options.charges} charges of ${options.organizations} merchants in ${seeding.ms} ms`);
      const reads = await built<typeof RatioReads>('src/modules/disputes/ratios/read.ts');
      const repository = await built<typeof RatioRepository>('src/modules/disputes/ratios/repository.ts');
      const figures = await built<typeof RatioFigures>('src/modules/disputes/ratios/figures.ts');
      const deps = { db: database.db, clock: { now: () => now } };
      const settings = await repository.readSettings(database.db);
      const ours = async () => {
        const run = await timed(() => reads.everyOwnerMonth(deps, settings, now));
        const total = run.value.reduce(
          (sum, owner) =>
            sum +
            owner.schemes.reduce(
              (inner, figures) =>
                inner +
                figures.visaStyle.figure.sales +
                figures.mastercardStyle.figure.previousMonthSales +
                figures.visaStyle.figure.disputes +
                figures.visaStyle.figure.fraudWarnings,
              0,
            ),
          0,
        );
        return { ms: run.ms, total, owners: run.value.length };
      };
      // One connection for the bare SQL, warm like the pool's.
      const bareClient = new pg.Client({ connectionString: url });
      await bareClient.connect();
      const bare = () => bareCounts(bareClient, now);
      // Warm-up: the caches of both, then alternate runs so neither has the warmer machine.
      const first = await ours();
      const firstBare = await bare();
      if (first.total !== firstBare.total)
        throw new Error(`the ratios counted ${first.total} rows, the bare SQL ${firstBare.total}`);
      // The ratios' statement alone, rows read into objects: what the figures add is the rest.
      const statement = async () =>
        (await timed(() => repository.countsOf(database.db, 'all', figures.monthRange(now)))).ms;
      const oursMs: number[] = [];
      const bareMs: number[] = [];
      const statementMs: number[] = [];
      for (let i = 0; i < options.runs; i += 1) {
        oursMs.push((await ours()).ms);
        bareMs.push((await bare()).ms);
        statementMs.push(await statement());
      }
      await bareClient.end();
      const ratiosMs = median(oursMs);
      const bareSqlMs = median(bareMs);
      const ratio = bareSqlMs === 0 ? null : round(ratiosMs / bareSqlMs);
      return {
        charges: options.charges,
        organizations: options.organizations,
        disputedShare: '2%',
        ownersEvaluated: first.owners,
        rowsCounted: first.total,
        seedingMs: seeding.ms,
        runs: options.runs,
        'month ratios of every merchant (ms, median)': ratiosMs,
        'bare SQL counting the same rows (ms, median)': bareSqlMs,
        'of the ratios: their statement alone (ms, median)': median(statementMs),
        runsMs: { ratios: oursMs, bareSql: bareMs },
        ratioToBareSql: ratio,
        target: 'within 2x',
        withinTarget: ratio !== null && ratio <= 2,
      };
    } finally {
      await database.close();
    }
  } finally {
    await dropDatabase(url);
  }
}
