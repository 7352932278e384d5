/**
 * The settlement figure of `npm run bench` (issue 14, docs/benchmarks.md "Settlement batch"): the daily
 * batch of one business date over `charges` paid live charges of `organizations` organizations, on the
 * real PostgreSQL, beside the bare SQL that reads and writes the same rows.
 *
 * 1. A fresh database, migrated, is seeded set-based (one `INSERT … SELECT generate_series` per table, in
 *    chunks): the organizations, each with an active default TRON wallet (live), and the charges as the
 *    charge completion leaves them: the `succeeded` charge row, its `charge_succeeded` journal entry and
 *    its postings (acquirer_clearing gross, merchant_pending net, fee_revenue fee at the onboarding fee
 *    schedule), entered over the 24 hours before the date's 03:00 UTC cutoff, the owners interleaved as
 *    traffic would; and an operator-entered live rate (`fx_rates`). The `charge.succeeded` events are not
 *    written: nothing in the batch reads them. Then VACUUM ANALYZE, and a copy of the database
 *    (`CREATE DATABASE … TEMPLATE`) for the bare SQL, so both start from the same rows, statistics and
 *    visibility map. Seeding is timed apart and is not part of either figure.
 * 2. The batch: `settlementBatches.runDay(cutoff)` of the real service composition, as the CLI composes
 *    it (`createDetachedServices`), the function the 03:00 job calls, with its payout phase: every owner
 *    is released and paid out to its default wallet at the operator's rate less PAYOUT_FX_SPREAD_BPS.
 * 3. The bare SQL on the copy: the same reads (pending credits, wallets, minimums, the rate, available
 *    balances, statement heads) and the same writes (batches in their final state with a statement hash,
 *    items, release and payout journal entries with their postings, payouts, events and their webhook
 *    fan-out) as a handful of set-based statements in one transaction through node-postgres: the ceiling.
 * 4. Each database is checked afterwards, and the two are compared.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { createLogDestination, createLogger } from '../src/logger.js';
import { DEFAULT_FEES } from '../src/modules/organizations/types.js';
import type { DayReport } from '../src/modules/settlement/batch-types.js';
import { createBusinessCalendar, utcDateOf } from '../src/shared/business-calendar.js';
import { migrationsDir } from '../src/paths.js';
import { createDetachedServices } from '../src/services.js';
import { systemClock } from '../src/shared/clock.js';
import { formatRate, lessSpread, parseRate } from '../src/shared/money.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { createFreshDatabase, dropDatabase, postgresServerUrl } from '../test/helpers/database.js';
import { gatewayEnv } from '../test/helpers/process.js';
import { round, timed, withClient } from './measure.js';

export interface SettlementBenchOptions {
  charges: number;
  organizations: number;
  /**
   * The previous business day settled first (one charge per organization, released and paid out by the
   * set-based SQL), as on a gateway that has run before: the settlement tables hold a day of history when
   * the measured run starts (default). False: they are empty.
   */
  history: boolean;
}

/** USDT per TRY, as an operator would enter it. */
const RATE = '0.0285';
/** The FX spread the bench's gateway is configured with (PAYOUT_FX_SPREAD_BPS). */
const SPREAD_BPS: number = 50;
const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
/** Charges per seeding transaction. */
const SEED_CHUNK = 100_000;

const log = (message: string) => console.error(`[bench settlement] ${message}`);

/** The most recent business day before today (UTC): its 03:00 cutoff has passed. */
function businessDateBefore(now: Date): string {
  const calendar = createBusinessCalendar();
  const date = calendar.previousBusinessDay(utcDateOf(now));
  if (date === undefined) throw new Error('no business day in the year before today');
  return date;
}

/**
 * Organizations, wallets, charges with their ledger entries, the live rate. Set-based, in chunks of
 * SEED_CHUNK charges per transaction. The rows are written with `session_replication_role = replica`
 * (superuser): the per-row triggers (the deferred balanced-entry check, foreign keys) do not fire, so a
 * million entries do not queue four million deferred checks. Every entry's balance is checked after, in
 * one query; the keys hold by construction (an entry and its postings come from the same seed row).
 */
async function seed(url: string, options: SettlementBenchOptions, cutoff: Date, historyCutoff?: Date) {
  return withClient(url, async (client) => {
    let replica = true;
    try {
      await client.query(`SET session_replication_role = replica`);
    } catch {
      replica = false;
      log('not a superuser: seeding with every trigger (slower)');
    }
    await client.query(`SET work_mem = '256MB'`);
    await client.query(`SET synchronous_commit = off`);
    const start = new Date(cutoff.getTime() - 24 * 3600_000);
    // The last entry 2 minutes before the cutoff; each one 20 s after its charge was created.
    const stepMs = (24 * 3600_000 - 120_000) / Math.max(1, options.charges);
    const organizations = options.organizations;

    await client.query('BEGIN');
    await client.query(
      `INSERT INTO organizations (id, name, display_name, application_id, contact_email, kyc_status,
         feature_flags, rate_limit_live, rate_limit_sandbox, created_at, updated_at)
       SELECT 'org_' || lpad(to_hex(k), 29, '0'), 'Settlement bench ' || k, 'Settlement bench ' || k, NULL,
         'bench' || k || '@merchant.example', 'APPROVED', ARRAY['apiKeys', 'payouts', 'wallets'],
         1000000, 1000000, $2::timestamptz, $2::timestamptz
       FROM generate_series(1, $1::int) k`,
      [organizations, start],
    );
    // An active default live wallet each, as an applied wallet change leaves it.
    await client.query(
      `INSERT INTO wallets (id, organization_id, environment, network, address, label, status, is_default,
         created_by, activated_at, archived_at, created_at, updated_at)
       SELECT 'wal_' || lpad(to_hex(k), 29, '0'), 'org_' || lpad(to_hex(k), 29, '0'), 'live', 'tron', $2::text,
         NULL, 'active', true, 'system', $3::timestamptz, NULL, $3::timestamptz, $3::timestamptz
       FROM generate_series(1, $1::int) k`,
      [organizations, TRON_ADDRESS, start],
    );
    await client.query(
      `INSERT INTO fx_rates (id, environment, rate, reason, entered_by, entered_at)
       VALUES ($1, 'live', $2, 'settlement bench', 'staff:bench', now())`,
      [`fxr_${randomBytes(15).toString('hex').slice(0, 29)}`, RATE],
    );
    await client.query('COMMIT');

    // One row per charge: its owner, time, amount, method and the fee of the onboarding schedule
    // (fee = round-half-up(amount × bps / 10000) + fixed, capped at the amount: src/modules/ledger/fees.ts).
    const fees = Object.entries(DEFAULT_FEES).map(([method, fee]) => [
      method,
      fee.basisPoints,
      fee.fixedMinor.toString(),
    ]);
    await client.query(
      `CREATE TEMP TABLE bench_fees AS
       SELECT f->>0 AS method, (f->>1)::int AS bps, (f->>2)::bigint AS fixed
       FROM jsonb_array_elements($1::jsonb) f`,
      [JSON.stringify(fees)],
    );
    // Rows 1 to `charges`: the measured date's charges, the owners interleaved as traffic would be. Then,
    // with a history, one charge of 10 000 TRY per organization 12 hours before the previous date's cutoff.
    const history = historyCutoff ? organizations : 0;
    const historyStart = new Date((historyCutoff ?? cutoff).getTime() - 12 * 3600_000);
    await client.query(
      `CREATE TEMP TABLE bench_seed AS
       SELECT s.i, s.org, s.at,
         'ch_' || lpad(to_hex((extract(epoch FROM s.at) * 1000)::bigint), 12, '0') || substr(md5('ch' || s.i), 1, 17) AS id,
         s.amount, s.method, x.fee, s.amount - x.fee AS net
       FROM (
         SELECT i,
           'org_' || lpad(to_hex(CASE WHEN i <= $1 THEN ((i - 1) % $2::int) + 1 ELSE i - $1 END), 29, '0') AS org,
           CASE WHEN i <= $1 THEN $3::timestamptz + ((i - 1) * $4::float8) * interval '1 millisecond'
             ELSE $6::timestamptz + (i - $1) * interval '1 millisecond' END AS at,
           CASE WHEN i <= $1 THEN 1000 + ((i::bigint * 7919) % 99001) * 10 ELSE 1000000 END AS amount,
           CASE WHEN i % 10 < 3 THEN 'bank_transfer' WHEN i % 10 < 9 THEN 'credit_card_tr'
             ELSE 'credit_card_international' END AS method
         FROM generate_series(1, $1::int + $5::int) i
       ) s
       JOIN bench_fees f ON f.method = s.method
       CROSS JOIN LATERAL (SELECT least(s.amount, (s.amount * f.bps + 5000) / 10000 + f.fixed) AS fee) x`,
      [options.charges, organizations, start, stepMs, history, historyStart],
    );
    await client.query(`CREATE INDEX ON bench_seed (i)`);

    // The secondary indexes of the three big tables are built once after the load rather than row by row
    // (the same definitions, read back from the catalog); the constraints' indexes stay.
    const secondary = await client.query<{ name: string; definition: string }>(
      `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
       WHERE i.schemaname = current_schema() AND i.tablename IN ('charges', 'journal_entries', 'ledger_postings')
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
    );
    for (const index of secondary.rows) await client.query(`DROP INDEX ${index.name}`);

    const rows = options.charges + history;
    for (let from = 1; from <= rows; from += SEED_CHUNK) {
      const to = Math.min(rows, from + SEED_CHUNK - 1);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
           status, creation_state, creation_locked_until, idempotency_key, provider, provider_request,
           provider_payment_id, provider_status, card_brand, card_last4, expires_at, created_at, updated_at,
           finalized_at)
         SELECT id, org, 'live', amount, 'TRY', method, 'order-' || i, 'succeeded', 'created', NULL,
           md5('idempotency' || i), 'live',
           jsonb_build_object('idempotencyKey', id, 'amount', amount::text, 'currency', 'TRY',
             'method', CASE WHEN method = 'bank_transfer' THEN 'bank_transfer' ELSE 'card' END, 'reference', id),
           'pay_' || md5('pay' || i), 'succeeded',
           CASE WHEN method <> 'bank_transfer' THEN 'visa' END, CASE WHEN method <> 'bank_transfer' THEN '4242' END,
           at + interval '30 minutes', at, at + interval '20 seconds', at + interval '20 seconds'
         FROM bench_seed WHERE i BETWEEN $1 AND $2 ORDER BY i`,
        [from, to],
      );
      // The charge_succeeded entry (id = i) and its postings, as ledger.postChargeSucceeded writes them.
      await client.query(
        `INSERT INTO journal_entries (id, organization_id, environment, kind, source_id, currency, created_at,
           charge_id, merchant_reference)
         OVERRIDING SYSTEM VALUE
         SELECT i, org, 'live', 'charge_succeeded', id, 'TRY', at + interval '20 seconds', id, 'order-' || i
         FROM bench_seed WHERE i BETWEEN $1 AND $2 ORDER BY i`,
        [from, to],
      );
      await client.query(
        `INSERT INTO ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
         SELECT s.i, s.org, 'live', p.account, 'TRY', p.amount, s.at + interval '20 seconds'
         FROM bench_seed s
         CROSS JOIN LATERAL (VALUES (1, 'acquirer_clearing', s.amount), (2, 'merchant_pending', -s.net),
           (3, 'fee_revenue', -s.fee)) p(n, account, amount)
         WHERE s.i BETWEEN $1 AND $2 AND p.amount <> 0
         ORDER BY s.i, p.n`,
        [from, to],
      );
      await client.query('COMMIT');
      log(`seeded ${to} of ${rows} charges`);
    }
    await client.query(
      `SELECT setval(pg_get_serial_sequence('journal_entries', 'id'), (SELECT max(id) FROM journal_entries))`,
    );
    if (replica) await client.query(`SET session_replication_role = origin`);
    await client.query(`SET maintenance_work_mem = '512MB'`);
    for (const index of secondary.rows) await client.query(index.definition);
    log(`rebuilt ${secondary.rows.length} indexes`);

    const totals = await client.query<{ count: string; gross: string; fees: string; net: string }>(
      `SELECT count(*)::text AS count, sum(amount)::text AS gross, sum(fee)::text AS fees, sum(net)::text AS net
       FROM bench_seed WHERE i <= $1`,
      [options.charges],
    );
    // What the skipped triggers check: every entry balanced with at least two postings, every posting's entry.
    const unbalanced = await client.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM (
         SELECT e.id FROM journal_entries e LEFT JOIN ledger_postings p ON p.entry_id = e.id
         GROUP BY e.id HAVING count(p.id) < 2 OR coalesce(sum(p.amount), 0) <> 0) bad`,
    );
    if (unbalanced.rows[0]?.count !== '0')
      throw new Error(`the seed wrote ${unbalanced.rows[0]?.count} unbalanced journal entries`);
    const row = totals.rows[0];
    if (!row) throw new Error('the seed wrote nothing');
    return { charges: Number(row.count), gross: row.gross, fees: row.fees, net: row.net };
  });
}

/** A copy of a database (no connection may be open to it), named so that dropDatabase accepts it. */
async function copyDatabase(url: string): Promise<string> {
  const source = new URL(url).pathname.slice(1);
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  await withClient(postgresServerUrl, async (admin) => {
    // A backend whose client just closed may take a moment to leave ("being accessed by other users").
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source} STRATEGY FILE_COPY`);
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 42601: before PostgreSQL 15 there is no STRATEGY, and FILE_COPY is the only way.
        if (code === '42601') {
          await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
          return;
        }
        if (code !== '55006' || attempt >= 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  });
  const copy = new URL(postgresServerUrl);
  copy.pathname = `/${name}`;
  return copy.toString();
}

/** The same sequential scans before each timed run, so both start with the tables in the OS cache. */
async function warm(client: pg.Client): Promise<void> {
  for (const table of ['journal_entries', 'ledger_postings', 'charges', 'wallets', 'organizations'])
    await client.query(`SELECT count(*) FROM ${table}`);
}

interface ServerCounters {
  walBytes: number;
  walFullPageImages: number;
  checkpoints: number;
  buffersWrittenByBackends: number;
}

/**
 * The server's WAL and checkpoint counters (pg_stat_wal, PostgreSQL 14+; pg_stat_bgwriter): cluster-wide,
 * so they include whatever else the server did meanwhile. Undefined where they cannot be read.
 */
async function serverCounters(url: string): Promise<ServerCounters | undefined> {
  try {
    return await withClient(url, async (client) => {
      const result = await client.query<Record<string, string>>(
        `SELECT w.wal_bytes::text AS wal_bytes, w.wal_fpi::text AS wal_fpi,
           (b.checkpoints_timed + b.checkpoints_req)::text AS checkpoints, b.buffers_backend::text AS backend
         FROM pg_stat_wal w, pg_stat_bgwriter b`,
      );
      const row = result.rows[0] ?? {};
      return {
        walBytes: Number(row.wal_bytes),
        walFullPageImages: Number(row.wal_fpi),
        checkpoints: Number(row.checkpoints),
        buffersWrittenByBackends: Number(row.backend),
      };
    });
  } catch {
    return undefined;
  }
}

function countersBetween(before: ServerCounters | undefined, after: ServerCounters | undefined) {
  if (!before || !after) return null;
  return {
    walMegabytes: round((after.walBytes - before.walBytes) / 1_048_576),
    walFullPageImages: after.walFullPageImages - before.walFullPageImages,
    checkpoints: after.checkpoints - before.checkpoints,
    buffersWrittenByBackends: after.buffersWrittenByBackends - before.buffersWrittenByBackends,
  };
}

/** The median latency of `SELECT 1` over one connection: the cost of a round trip without work. */
async function roundTripMs(client: pg.Client): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < 500; index++) {
    const started = performance.now();
    await client.query('SELECT 1');
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

/**
 * Counts the statements every node-postgres client sends while `work` runs, and the time spent waiting
 * for their answers (the batch sends one at a time, so the sum is wall time spent in PostgreSQL and on
 * the wire).
 */
async function countingQueries<T>(work: () => Promise<T>): Promise<{
  value: T;
  queries: number;
  commits: number;
  waitMs: number;
  byStatement: Array<{ statement: string; count: number; ms: number }>;
}> {
  type Query = (...args: unknown[]) => unknown;
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  let queries = 0;
  let commits = 0;
  let waitMs = 0;
  const statements = new Map<string, { count: number; ms: number }>();
  prototype.query = function (this: unknown, ...args: unknown[]) {
    queries++;
    const raw = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
    const text = typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : '?';
    if (/^commit\b/i.test(text)) commits++;
    // The statement's shape: its text up to the first list of parameters (an IN list's length varies).
    const key = text.replace(/\(\$\d+(, \$\d+)*\)/g, '(…)').replace(/\(\$\d+(, \$\d+)*\), .*/, '(…)…');
    const started = performance.now();
    const result = original.apply(this, args);
    if (result instanceof Promise) {
      const stop = () => {
        const ms = performance.now() - started;
        waitMs += ms;
        const entry = statements.get(key) ?? { count: 0, ms: 0 };
        entry.count++;
        entry.ms += ms;
        statements.set(key, entry);
      };
      void result.then(stop, stop);
    }
    return result;
  };
  try {
    const value = await work();
    const byStatement = [...statements.entries()]
      .map(([statement, entry]) => ({
        statement: statement.length > 160 ? `${statement.slice(0, 160)}…` : statement,
        count: entry.count,
        ms: round(entry.ms),
      }))
      .sort((a, b) => b.ms - a.ms);
    return { value, queries, commits, waitMs, byStatement };
  } finally {
    prototype.query = original;
  }
}

function pick(env: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}

/** The real batch: the service composition of the gateway, the run of the 03:00 job. */
async function runBatch(url: string, cutoff: Date) {
  const config = loadConfig(
    gatewayEnv({
      ROLES: 'worker',
      DATABASE_URL: url,
      ENCRYPTION_KEYS: generateEncryptionKeys(),
      SETTLEMENT_CRON: '0 3 * * *',
      PAYOUT_FX_SPREAD_BPS: String(SPREAD_BPS),
      // The rate was entered before the seed's VACUUM and copy: fresh enough however long they take.
      FX_OPERATOR_RATE_MAX_AGE_SECONDS: String(7 * 86_400),
      // The run's concurrency and pool as the gateway's configuration sets them, when given.
      ...pick(process.env, ['SETTLEMENT_CONCURRENCY', 'DATABASE_POOL_SIZE']),
    }),
  );
  const database = await openDatabase({ databaseUrl: url, poolSize: config.databasePoolSize });
  try {
    const logger = createLogger({ level: 'warn', destination: createLogDestination(process.stderr) });
    // As the CLI composes them: no listeners, no worker.
    const services = createDetachedServices({ database, clock: systemClock, config, logger });
    const probe = await withClient(url, async (client) => {
      await warm(client);
      return roundTripMs(client);
    });
    // The pool's connections are opened before the clock starts.
    await services.settlementBatches.businessDay(utcDateOf(cutoff));
    const run = await timed(() => countingQueries(() => services.settlementBatches.runDay(cutoff)));
    return { ms: run.ms, ...run.value, roundTripMs: probe };
  } finally {
    await database.close();
  }
}

/**
 * The ceiling: the batch's reads and writes as set-based statements in one transaction, for the data the
 * bench seeds (every owner's net positive, a default wallet and a balance above the minimum; no refunds
 * to net against a debt, no reserve): what the batch could cost if it did the same work without visiting
 * owners one by one. Each statement is timed.
 */
async function runBareSql(url: string, cutoff: Date, businessDate: string) {
  return withClient(url, async (client) => {
    await warm(client);
    const steps: Record<string, number> = {};
    const step = async (name: string, text: string, values: unknown[] = []) => {
      const started = performance.now();
      const result = await client.query(text, values);
      steps[name] = round((steps[name] ?? 0) + performance.now() - started);
      return result;
    };
    const now = new Date();
    const arrivalDate = createBusinessCalendar().nextBusinessDay(utcDateOf(now));
    const started = performance.now();
    await step('begin', 'BEGIN');
    // Where the run looks from: the previous scheduled cutoff less the late-commit hour (batch.ts).
    const previous = await step(
      'previous cutoff',
      `SELECT max(cutoff) AS cutoff FROM settlement_batches WHERE origin = 'schedule' AND business_date < $1`,
      [businessDate],
    );
    const previousCutoff = (previous.rows[0] as { cutoff: Date | null } | undefined)?.cutoff ?? null;
    const after = previousCutoff ? new Date(previousCutoff.getTime() - 3600_000) : new Date(0);
    // The rate, as the operator source quotes it, less the spread (payouts/service.ts `conversion`).
    const quoted = await step(
      'rate',
      `SELECT rate, entered_by, entered_at FROM fx_rates WHERE environment = 'live'
       ORDER BY entered_at DESC, id DESC LIMIT 1`,
    );
    const quote = quoted.rows[0] as { rate: string; entered_by: string; entered_at: Date } | undefined;
    if (!quote) throw new Error('no live rate');
    const market = parseRate('TRY', 'USDT', quote.rate);
    const applied = lessSpread(market, SPREAD_BPS);
    const appliedText = SPREAD_BPS === 0 ? quote.rate : formatRate(applied, 18);
    const rateSource = `operator:${quote.entered_by}`;

    // 1. The pending credits never released (findPendingCredits, for every owner at once), each with its
    //    item id, charge and merchant reference (as the entries recorded them since migration 0029).
    await step(
      'read pending credits',
      `CREATE TEMP TABLE bare_credits ON COMMIT DROP AS
       SELECT 'txn_' || substr(md5(random()::text || e.id), 1, 29) AS item_id, e.organization_id, e.environment,
         e.kind, e.source_id, e.charge_id, e.merchant_reference, e.created_at, e.gross, e.fee, e.net
       FROM (
         SELECT e.id, e.organization_id, e.environment, e.kind, e.source_id, e.created_at, e.charge_id,
           e.merchant_reference,
           coalesce(sum(p.amount) FILTER (WHERE p.account = 'acquirer_clearing'), 0) AS gross,
           coalesce(-sum(p.amount) FILTER (WHERE p.account = 'fee_revenue'), 0) AS fee,
           coalesce(-sum(p.amount) FILTER (WHERE p.account = 'merchant_pending'), 0) AS net
         FROM journal_entries e JOIN ledger_postings p ON p.entry_id = e.id
         WHERE e.kind IN ('charge_succeeded', 'refund') AND e.created_at > $1 AND e.created_at <= $2
           AND NOT EXISTS (SELECT 1 FROM settlement_items s WHERE s.source_id = e.source_id)
         GROUP BY e.id
       ) e`,
      [after, cutoff],
    );
    // 2. One batch per owner with a positive net, its default wallet and the network's minimum.
    await step(
      'group batches',
      `CREATE TEMP TABLE bare_batches ON COMMIT DROP AS
       SELECT o.*, 'stl_' || substr(md5(random()::text || o.organization_id), 1, 29) AS batch_id,
         'po_' || substr(md5(random()::text || o.organization_id), 1, 29) AS payout_id,
         w.id AS wallet_id, w.network, w.address, m.amount AS minimum
       FROM (
         SELECT organization_id, environment,
           coalesce(sum(gross) FILTER (WHERE kind = 'charge_succeeded'), 0) AS gross, sum(fee) AS fees,
           coalesce(-sum(gross) FILTER (WHERE kind = 'refund'), 0) AS refunds, sum(net) AS net,
           count(*)::int AS item_count
         FROM bare_credits GROUP BY organization_id, environment HAVING sum(net) > 0
       ) o
       JOIN wallets w ON w.organization_id = o.organization_id AND w.environment = o.environment
         AND w.is_default AND w.status = 'active'
       JOIN payout_minimums m ON m.network = w.network AND m.environment = o.environment`,
    );
    // 3. The releases: merchant_pending to merchant_available (ledger.postRelease).
    await step(
      'release entries',
      `WITH e AS (
         INSERT INTO journal_entries (organization_id, environment, kind, source_id, currency, created_at)
         SELECT organization_id, environment, 'settlement_batch', batch_id, 'TRY', $1::timestamptz FROM bare_batches
         RETURNING id, organization_id, environment, source_id
       )
       INSERT INTO ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
       SELECT e.id, e.organization_id, e.environment, a.account, 'TRY', a.sign * b.net, $1::timestamptz
       FROM e JOIN bare_batches b ON b.batch_id = e.source_id
       CROSS JOIN (VALUES ('merchant_pending', 1), ('merchant_available', -1)) a(account, sign)`,
      [now],
    );
    // 4. Each owner's available balance from the ledger, converted (USDT rounded down; the TRY it
    //    covers rounded up; the spread against the market rate).
    await step(
      'available and conversion',
      `CREATE TEMP TABLE bare_payouts ON COMMIT DROP AS
       SELECT b.*, av.available, c.converted, d.covered, greatest(d.covered - d.at_market, 0) AS spread
       FROM bare_batches b
       CROSS JOIN LATERAL (
         SELECT coalesce(-sum(p.amount), 0)::numeric AS available FROM ledger_postings p
         WHERE p.organization_id = b.organization_id AND p.environment = b.environment
           AND p.account = 'merchant_available' AND p.currency = 'TRY'
       ) av
       CROSS JOIN LATERAL (SELECT div(av.available * $1::numeric * 10000, $2::numeric) AS converted) c
       CROSS JOIN LATERAL (
         SELECT least(av.available,
             div(c.converted * $2::numeric * 100 + 1000000 * $1::numeric - 1, 1000000 * $1::numeric)) AS covered,
           div(c.converted * $4::numeric * 100 + 1000000 * $3::numeric - 1, 1000000 * $3::numeric) AS at_market
       ) d
       WHERE av.available >= b.minimum AND c.converted > 0`,
      [
        applied.numerator.toString(),
        applied.denominator.toString(),
        market.numerator.toString(),
        market.denominator.toString(),
      ],
    );
    const short = await step(
      'minimums',
      `SELECT (SELECT count(*) FROM bare_batches) - (SELECT count(*) FROM bare_payouts) AS short`,
    );
    const carried = Number((short.rows[0] as { short: string } | undefined)?.short ?? 0);
    if (carried > 0)
      throw new Error(
        `${carried} batches are below the payout minimum: the bare SQL pays every batch out and carries none ` +
          '(seed more charges per organization)',
      );
    // 5. The payouts: available to in transit (ledger.postPayoutCreated), and the payout rows.
    await step(
      'payout entries',
      `WITH e AS (
         INSERT INTO journal_entries (organization_id, environment, kind, source_id, currency, created_at)
         SELECT organization_id, environment, 'payout_created', payout_id, 'TRY', $1::timestamptz FROM bare_payouts
         RETURNING id, organization_id, environment, source_id
       )
       INSERT INTO ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
       SELECT e.id, e.organization_id, e.environment, a.account, 'TRY', a.sign * b.covered, $1::timestamptz
       FROM e JOIN bare_payouts b ON b.payout_id = e.source_id
       CROSS JOIN (VALUES ('merchant_available', 1), ('merchant_in_transit', -1)) a(account, sign)`,
      [now],
    );
    await step(
      'payouts',
      `INSERT INTO payouts (id, organization_id, environment, amount, currency, payout_amount, payout_currency,
         rate, rate_source, rate_at, market_rate, spread_bps, spread_amount, network, wallet_id, address, rail,
         status, automatic, tx_hash, arrival_date, failure_code, failure_message, description, metadata,
         created_by, created_at, updated_at, next_attempt_at)
       SELECT payout_id, organization_id, environment, covered, 'TRY', converted, 'USDT', $1::text, $2::text,
         $3::timestamptz, $4::text, $5::int, spread, network, wallet_id, address,
         CASE WHEN environment = 'live' THEN 'treasury' ELSE 'sandbox_chain' END, 'pending', true, NULL,
         $6::date, NULL, NULL, 'Settlement of ' || $7::text, '{}', NULL, $8::timestamptz, $8::timestamptz,
         CASE WHEN environment = 'live' THEN NULL ELSE $8::timestamptz END
       FROM bare_payouts`,
      [appliedText, rateSource, quote.entered_at, quote.rate, SPREAD_BPS, arrivalDate, businessDate, now],
    );
    // 6. The batches in their final state, each the next link of its owner's statement chain: a sha256
    //    over the previous hash and the batch with its lines (the same work as statement.ts; JSON built by
    //    PostgreSQL, not the canonical JSON of the gateway).
    await step(
      'batches with statements',
      `INSERT INTO settlement_batches (id, organization_id, environment, business_date, origin, cutoff, status,
         gross, fees, refunds, net, item_count, reserve_held, reserve_release_date, reserve_released, payout_id,
         carry_reason, hold_reason, rate, rate_source, rate_at, payout_amount, payout_usdt, payout_attempts,
         statement_seq, statement_hash, previous_hash, created_at, updated_at)
       SELECT b.batch_id, b.organization_id, b.environment, $1::date, 'schedule', $2::timestamptz, 'paid_out',
         b.gross, b.fees, b.refunds, b.net, b.item_count, 0, NULL, 0, b.payout_id, NULL, NULL, $3::text, $4::text,
         $5::timestamptz, b.covered, b.converted, 1,
         coalesce(h.statement_seq, 0) + 1,
         encode(sha256(convert_to(coalesce(h.statement_hash, '') || E'\\n' || jsonb_build_object(
           'batch', jsonb_build_object('id', b.batch_id, 'organizationId', b.organization_id,
             'livemode', b.environment = 'live', 'businessDate', $1::date, 'cutoff', $2::timestamptz,
             'gross', b.gross::text,
             'fees', b.fees::text, 'refunds', b.refunds::text, 'net', b.net::text, 'currency', 'TRY',
             'itemCount', b.item_count, 'status', 'paid_out',
             'rate', jsonb_build_object('value', $3::text, 'source', $4::text, 'at', $5::timestamptz),
             'payout', jsonb_build_object('id', b.payout_id, 'amount', b.covered::text,
               'payoutAmount', b.converted::text)),
           'lines', l.lines, 'sequence', coalesce(h.statement_seq, 0) + 1)::text, 'UTF8')), 'hex'),
         h.statement_hash, $6::timestamptz, $6::timestamptz
       FROM bare_payouts b
       JOIN (
         SELECT organization_id, environment, jsonb_agg(jsonb_build_object('id', item_id, 'type',
             CASE WHEN kind = 'refund' THEN 'refund' ELSE 'charge' END, 'sourceId', source_id,
             'chargeId', charge_id, 'merchantReference', merchant_reference, 'amount', gross::text,
             'fee', fee::text, 'net', net::text, 'occurredAt', created_at) ORDER BY item_id) AS lines
         FROM bare_credits GROUP BY organization_id, environment
       ) l ON l.organization_id = b.organization_id AND l.environment = b.environment
       LEFT JOIN LATERAL (
         SELECT statement_seq, statement_hash FROM settlement_batches s
         WHERE s.organization_id = b.organization_id AND s.environment = b.environment
           AND s.statement_seq IS NOT NULL
         ORDER BY s.statement_seq DESC LIMIT 1
       ) h ON true`,
      [businessDate, cutoff, appliedText, rateSource, quote.entered_at, now],
    );
    // 7. The items, attached to their payout.
    await step(
      'items',
      `INSERT INTO settlement_items (id, batch_id, organization_id, environment, type, source_id, charge_id,
         merchant_reference, amount, fee, net, occurred_at, available_at, payout_id)
       SELECT c.item_id, b.batch_id, c.organization_id, c.environment,
         CASE WHEN c.kind = 'refund' THEN 'refund' ELSE 'charge' END, c.source_id, c.charge_id,
         c.merchant_reference, c.gross, c.fee, c.net, c.created_at, $1::timestamptz, b.payout_id
       FROM bare_credits c
       JOIN bare_payouts b ON b.organization_id = c.organization_id AND b.environment = c.environment`,
      [now],
    );
    // 8. payout.created and balance.settled, and their webhook fan-out (events/service.ts, webhooks/fan-out.ts).
    await step(
      'events',
      `WITH payloads AS (
         SELECT organization_id, environment, 'payout.created' AS type, payout_id AS resource_id,
           jsonb_build_object('id', payout_id, 'object', 'payout', 'amount', covered::text, 'currency', 'TRY',
             'payoutAmount', converted::text, 'payoutCurrency', 'USDT', 'spreadAmount', spread::text,
             'rate', jsonb_build_object('value', $1::text, 'source', $2::text, 'at', $3::timestamptz,
               'market', $4::text, 'spreadBps', $5::int),
             'network', network, 'walletId', wallet_id, 'address', address,
             'rail', CASE WHEN environment = 'live' THEN 'treasury' ELSE 'sandbox_chain' END,
             'status', 'pending', 'txHash', NULL, 'arrivalDate', $6::text, 'automatic', true,
             'failureCode', NULL, 'failureMessage', NULL, 'description', 'Settlement of ' || $7::text,
             'metadata', '{}'::jsonb, 'livemode', environment = 'live', 'createdAt', $8::timestamptz,
             'updatedAt', $8::timestamptz, 'inTransitAt', NULL, 'completedAt', NULL, 'failedAt', NULL,
             'canceledAt', NULL) AS data
         FROM bare_payouts
         UNION ALL
         SELECT organization_id, environment, 'balance.settled', batch_id,
           jsonb_build_object('id', batch_id, 'object', 'settlement_batch', 'businessDate', $7::text,
             'cutoff', $9::timestamptz, 'gross', gross::text, 'fees', fees::text, 'refunds', refunds::text,
             'net', net::text, 'itemCount', item_count,
             'reserve', jsonb_build_object('held', '0', 'releaseDate', NULL, 'released', '0'),
             'status', 'paid_out', 'payoutId', payout_id, 'carryReason', NULL, 'holdReason', NULL,
             'rate', jsonb_build_object('value', $1::text, 'source', $2::text, 'at', $3::timestamptz),
             'livemode', environment = 'live', 'createdAt', $8::timestamptz, 'updatedAt', $8::timestamptz)
         FROM bare_payouts
       ),
       ev AS (
         INSERT INTO events (id, organization_id, environment, type, resource_id, payload, created_at)
         SELECT id, organization_id, environment, type, resource_id,
           jsonb_build_object('id', id, 'eventType', type, 'createdAt', $8::timestamptz,
             'livemode', environment = 'live', 'data', data), $8::timestamptz
         FROM (SELECT 'evt_' || substr(md5(random()::text || resource_id || type), 1, 29) AS id, * FROM payloads) p
         RETURNING id, organization_id, environment, type
       )
       INSERT INTO webhook_deliveries (id, event_id, endpoint_id, organization_id, environment, status,
         next_attempt_at, created_at, updated_at)
       SELECT 'whd_' || substr(md5(random()::text || ev.id || w.id), 1, 29), ev.id, w.id, ev.organization_id,
         ev.environment, 'pending', $8::timestamptz, $8::timestamptz, $8::timestamptz
       FROM ev JOIN webhook_endpoints w ON w.organization_id = ev.organization_id
         AND w.environment = ev.environment AND w.status = 'enabled' AND w.deleted_at IS NULL
         AND w.enabled_events && ARRAY[ev.type, '*']
       ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
      [
        appliedText,
        rateSource,
        quote.entered_at,
        quote.rate,
        SPREAD_BPS,
        arrivalDate,
        businessDate,
        now,
        cutoff,
      ],
    );
    // The deferred balanced-entry checks and the foreign keys run here.
    await step('commit', 'COMMIT');
    return { ms: round(performance.now() - started), steps };
  });
}

interface Outcome {
  /** The measured date's batches. */
  batches: number;
  paidOut: number;
  statements: number;
  /** Statements linked to an earlier one of their owner (the previous date's, with a history). */
  chained: number;
  batchesNet: string;
  /** Every date's, so a run's figures are the change it made. */
  items: number;
  itemsNet: string;
  itemsWithoutPayout: number;
  payouts: number;
  payoutsTry: string;
  payoutsUsdt: string;
  pendingLeft: string;
  availableLeft: string;
  inTransit: string;
  events: number;
}

/** What the database holds, read back set-based. */
async function outcome(url: string, businessDate: string): Promise<Outcome> {
  return withClient(url, async (client) => {
    const result = await client.query<Record<string, string>>(
      `SELECT
         (SELECT count(*) FROM settlement_batches WHERE business_date = $1)::text AS batches,
         (SELECT count(*) FROM settlement_batches WHERE business_date = $1 AND status = 'paid_out')::text AS paid_out,
         (SELECT count(*) FROM settlement_batches WHERE business_date = $1 AND statement_hash IS NOT NULL)::text
           AS statements,
         (SELECT count(*) FROM settlement_batches WHERE business_date = $1 AND previous_hash IS NOT NULL)::text
           AS chained,
         (SELECT coalesce(sum(net), 0) FROM settlement_batches WHERE business_date = $1)::text AS batches_net,
         (SELECT count(*) FROM settlement_items)::text AS items,
         (SELECT coalesce(sum(net), 0) FROM settlement_items)::text AS items_net,
         (SELECT count(*) FROM settlement_items WHERE payout_id IS NULL)::text AS items_without_payout,
         (SELECT count(*) FROM payouts)::text AS payouts,
         (SELECT coalesce(sum(amount), 0) FROM payouts)::text AS payouts_try,
         (SELECT coalesce(sum(payout_amount), 0) FROM payouts)::text AS payouts_usdt,
         (SELECT coalesce(-sum(amount), 0) FROM ledger_postings WHERE account = 'merchant_pending')::text
           AS pending_left,
         (SELECT coalesce(-sum(amount), 0) FROM ledger_postings WHERE account = 'merchant_available')::text
           AS available_left,
         (SELECT coalesce(-sum(amount), 0) FROM ledger_postings WHERE account = 'merchant_in_transit')::text
           AS in_transit,
         (SELECT count(*) FROM events)::text AS events`,
      [businessDate],
    );
    const row = result.rows[0] ?? {};
    const count = (name: string) => Number(row[name] ?? 0);
    const text = (name: string) => row[name] ?? '0';
    return {
      batches: count('batches'),
      paidOut: count('paid_out'),
      statements: count('statements'),
      chained: count('chained'),
      batchesNet: text('batches_net'),
      items: count('items'),
      itemsNet: text('items_net'),
      itemsWithoutPayout: count('items_without_payout'),
      payouts: count('payouts'),
      payoutsTry: text('payouts_try'),
      payoutsUsdt: text('payouts_usdt'),
      pendingLeft: text('pending_left'),
      availableLeft: text('available_left'),
      inTransit: text('in_transit'),
      events: count('events'),
    };
  });
}

/** What a run changed: the totals after it less those before (the date's batches and what is left as is). */
function change(after: Outcome, before: Outcome): Outcome {
  const minus = (a: string, b: string) => (BigInt(a) - BigInt(b)).toString();
  return {
    ...after,
    items: after.items - before.items,
    itemsNet: minus(after.itemsNet, before.itemsNet),
    payouts: after.payouts - before.payouts,
    payoutsTry: minus(after.payoutsTry, before.payoutsTry),
    payoutsUsdt: minus(after.payoutsUsdt, before.payoutsUsdt),
    availableLeft: minus(after.availableLeft, before.availableLeft),
    inTransit: minus(after.inTransit, before.inTransit),
    events: after.events - before.events,
  };
}

/** Every owner batched and paid out once, every charge an item, the seeded net released and moved on. */
function verdict(
  found: Outcome,
  expected: { owners: number; charges: number; net: string; chained: boolean },
) {
  const problems: string[] = [];
  const expect = (what: string, actual: number | string, wanted: number | string) => {
    if (String(actual) !== String(wanted)) problems.push(`${what}: ${actual}, expected ${wanted}`);
  };
  expect('batches', found.batches, expected.owners);
  expect('batches paid out', found.paidOut, expected.owners);
  expect('statements', found.statements, expected.owners);
  expect('statements chained to the previous one', found.chained, expected.chained ? expected.owners : 0);
  expect('items', found.items, expected.charges);
  expect('sum of item nets', found.itemsNet, expected.net);
  expect('sum of batch nets', found.batchesNet, expected.net);
  expect('items without a payout', found.itemsWithoutPayout, 0);
  expect('payouts', found.payouts, expected.owners);
  expect('pending left', found.pendingLeft, 0);
  expect('events (payout.created, balance.settled)', found.events, 2 * expected.owners);
  // The payouts debit what they cover; what the rounding down leaves stays available.
  const moved = BigInt(found.inTransit) + BigInt(found.availableLeft);
  expect('in transit + available', moved.toString(), expected.net);
  return { ok: problems.length === 0, problems, ...found };
}

export async function benchSettlement(options: SettlementBenchOptions) {
  const now = new Date();
  const businessDate = businessDateBefore(now);
  const cutoff = new Date(`${businessDate}T03:00:00.000Z`);
  const historyDate = options.history
    ? createBusinessCalendar().previousBusinessDay(businessDate)
    : undefined;
  const historyCutoff = historyDate === undefined ? undefined : new Date(`${historyDate}T03:00:00.000Z`);
  const owners = Math.min(options.organizations, options.charges);
  const load: Record<string, number[]> = { start: os.loadavg().map(round) };
  const seeded = await createFreshDatabase();
  let copy: string | undefined;
  // Stopped midway (a run at full size takes many minutes), the bench still drops its databases.
  const stop = (signal: NodeJS.Signals) => {
    log(`${signal}: dropping the bench's databases`);
    // The forced drop ends this process's own connections: their errors no longer matter.
    process.on('uncaughtException', () => undefined);
    void Promise.allSettled([copy ? dropDatabase(copy) : undefined, dropDatabase(seeded)]).then(() =>
      process.exit(signal === 'SIGINT' ? 130 : 143),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const migrated = await timed(async () => {
      const database = await openDatabase({ databaseUrl: seeded, poolSize: 2 });
      await migrate(database, readMigrations(migrationsDir));
      await database.close();
    });
    log(`seeding ${options.charges} charges of ${options.organizations} organizations for ${businessDate}`);
    const seeding = await timed(async () => {
      const totals = await seed(seeded, options, cutoff, historyCutoff);
      if (historyDate !== undefined && historyCutoff !== undefined) {
        log(`settling the history (${historyDate}) with the set-based SQL`);
        await runBareSql(seeded, historyCutoff, historyDate);
      }
      await withClient(seeded, (client) => client.query('VACUUM ANALYZE'));
      return totals;
    });
    const before = await outcome(seeded, businessDate);
    const expected = {
      owners,
      charges: seeding.value.charges,
      net: seeding.value.net,
      chained: historyDate !== undefined,
    };
    const copying = await timed(async () => {
      copy = await copyDatabase(seeded);
    });
    const bareUrl = copy ?? '';

    log('running the batch (settlementBatches.runDay)');
    load.beforeBatch = os.loadavg().map(round);
    const countersBeforeBatch = await serverCounters(seeded);
    const batch = await runBatch(seeded, cutoff);
    const countersAfterBatch = await serverCounters(seeded);
    const batchOutcome = verdict(change(await outcome(seeded, businessDate), before), expected);
    log(`batch: ${batch.ms} ms; running the bare SQL`);
    load.beforeBareSql = os.loadavg().map(round);
    const countersBeforeBare = await serverCounters(bareUrl);
    const bare = await runBareSql(bareUrl, cutoff, businessDate);
    const countersAfterBare = await serverCounters(bareUrl);
    const bareOutcome = verdict(change(await outcome(bareUrl, businessDate), before), expected);
    log(`bare SQL: ${bare.ms} ms`);

    const report: DayReport = batch.value;
    const sameTotals =
      batchOutcome.itemsNet === bareOutcome.itemsNet &&
      batchOutcome.payoutsTry === bareOutcome.payoutsTry &&
      batchOutcome.payoutsUsdt === bareOutcome.payoutsUsdt &&
      batchOutcome.batches === bareOutcome.batches &&
      batchOutcome.items === bareOutcome.items;
    const ratio = bare.ms === 0 ? null : round(batch.ms / bare.ms);
    const roundTripFloorMs = round(batch.queries * batch.roundTripMs);
    return {
      charges: seeding.value.charges,
      organizations: options.organizations,
      seedMs: seeding.ms,
      batchMs: batch.ms,
      bareSqlMs: bare.ms,
      ratio,
      batchesMade: batchOutcome.batches,
      payoutsMade: batchOutcome.payouts,
      correctness: {
        ok: batchOutcome.ok && bareOutcome.ok && sameTotals,
        batch: batchOutcome,
        bareSql: bareOutcome,
        sameTotals,
      },
      goal: {
        ratioAtMost: 2,
        withinRatio: ratio !== null && ratio <= 2,
        batchSecondsAtMost: 30,
        withinTime: batch.ms <= 30_000,
      },
      settings: {
        environment: 'live',
        businessDate,
        history:
          historyDate === undefined ? null : { businessDate: historyDate, charges: options.organizations },
        cutoff: cutoff.toISOString(),
        rate: RATE,
        payoutFxSpreadBps: SPREAD_BPS,
        seededGross: seeding.value.gross,
        seededFees: seeding.value.fees,
        seededNet: seeding.value.net,
      },
      setup: { migrateMs: migrated.ms, copyMs: copying.ms },
      // Other work on the machine skews every figure here: the load average before and after.
      loadAverage: { ...load, end: os.loadavg().map(round) },
      batch: {
        report,
        chargesPerSecond: round(seeding.value.charges / (batch.ms / 1000)),
        ownersPerSecond: round(report.owners / (batch.ms / 1000)),
        statements: batch.queries,
        statementsPerOwner: report.owners === 0 ? null : round(batch.queries / report.owners),
        commits: batch.commits,
        roundTripMs: round(batch.roundTripMs),
        roundTripFloorMs,
        waitingOnPostgresMs: round(batch.waitMs),
        inNodeMs: round(batch.ms - batch.waitMs),
        /** The ten statement shapes that took the most time, waiting for PostgreSQL's answer. */
        slowestStatements: batch.byStatement.slice(0, Number(process.env.BENCH_STATEMENTS ?? 10)),
        server: countersBetween(countersBeforeBatch, countersAfterBatch),
      },
      bareSql: { steps: bare.steps, server: countersBetween(countersBeforeBare, countersAfterBare) },
    };
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    if (copy) await dropDatabase(copy);
    await dropDatabase(seeded);
  }
}
