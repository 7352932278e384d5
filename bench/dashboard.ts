/**
 * The dashboard lists of `npm run bench` (issue 15, "Every list stays fast with 100,000 charges in one
 * organization"; docs/benchmarks.md "Dashboard lists"): the Payments list, its filters and cursor, the
 * overview's charts, the charge exports and `GET /v1/charges`, through the real stack, as one
 * organization's charges grow.
 *
 * 1. A fresh database, migrated; the measured organization (KYC approved) with an active owner (a real
 *    argon2 password hash) and NOISE_ORGANIZATIONS others. For each size (ascending, one database), the
 *    organization's sandbox charges are grown to `size`, created over the last 90 days, with as many
 *    charges of the other organizations (sandbox and live) interleaved: set-based (`INSERT … SELECT
 *    generate_series`), `session_replication_role = replica`, with statuses (succeeded, failed, expired,
 *    pending in the last hour, a few rejected creations that no list shows), methods, amounts (10 TRY to
 *    20 000 TRY, most small), unique references, customer e-mails (about seven charges per address),
 *    card brands and last fours, failure codes, refunds of some succeeded charges (full and partial, in
 *    the `refunds` table) and the `charge_succeeded` ledger entry of each succeeded charge (the export's
 *    fee and net columns). Then VACUUM ANALYZE.
 * 2. The gateway runs in the bench's process (`startGateway`, roles api and sandbox-acquirer, the system
 *    clock, a pool of its own) on real sockets; the owner signs in through `/login` as a browser does
 *    (test/helpers/accounts.ts WebClient keeps the cookies). At each size, each figure is the p50 and
 *    p99 of `calls` sequential GETs after `warmup` ones, timed to the last byte of the body.
 * 3. Beside each figure, the statements that one request sent on the charges, refunds and ledger tables
 *    (captured on node-postgres's client), replayed one after another through a node-postgres client of
 *    their own: the SQL ceiling of that request; and for lists and filters, the plan of the list
 *    statement under EXPLAIN ANALYZE (the charges index read, the rows it went through, any sort).
 */
import os from 'node:os';
import type pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { startGateway, type Gateway } from '../src/gateway.js';
import { createLogger } from '../src/logger.js';
import { DEFAULT_FEES } from '../src/modules/organizations/types.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { createCursorCodec } from '../src/shared/pagination.js';
import { hashPassword } from '../src/shared/passwords.js';
import { generateEncryptionKeys, parseEncryptionKeys } from '../src/shared/secret-box.js';
import { resolveSecretBox } from '../src/services.js';
import { WebClient } from '../test/helpers/accounts.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { issueKey } from '../test/helpers/merchants.js';
import { gatewayEnv } from '../test/helpers/process.js';
import { capture, round, timed, withClient, type Statement } from './measure.js';

export interface DashboardBenchOptions {
  /** The organization's charges at each step, grown in ascending order in one database. */
  sizes: readonly number[];
  /** Sequential requests per list figure (default 50), after `warmup` (default 5) unmeasured ones. */
  calls?: number;
  warmup?: number;
  /** Sequential downloads per export figure (default 5), after one unmeasured one. */
  exportCalls?: number;
}

const NOISE_ORGANIZATIONS = 4;
const ENVIRONMENT = 'sandbox';
const OWNER = orgId(1);
const OWNER_EMAIL = 'owner@dashboard-bench.example';
const OWNER_PASSWORD = 'correct horse battery staple';
/** The tables whose statements make a request's SQL ceiling (the session's and the account's are not). */
const WORK_TABLES = /"?\b(charges|refunds|journal_entries|ledger_postings)\b"?/;
const DAY_MS = 86_400_000;

const log = (message: string) => console.error(`[bench dashboard] ${message}`);

function orgId(k: number): string {
  return `org_${k.toString(16).padStart(29, '0')}`;
}

interface Latency {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  calls: number;
}

function summary(samples: number[]): Latency {
  samples.sort((a, b) => a - b);
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0);
  return {
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    meanMs: round(samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length)),
    calls: samples.length,
  };
}

async function latency(once: () => Promise<unknown>, calls: number, warmup: number): Promise<Latency> {
  for (let index = 0; index < warmup; index++) await once();
  const samples: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return summary(samples);
}

// ------------------------------------------------------------------------------------------- the seed

async function seedOrganizations(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO organizations (id, name, application_id, contact_email, kyc_status, feature_flags,
         rate_limit_live, rate_limit_sandbox, created_at, updated_at)
       SELECT 'org_' || lpad(to_hex(k), 29, '0'), 'Dashboard bench ' || k, NULL,
         'bench' || k || '@merchant.example', 'APPROVED', ARRAY['apiKeys', 'payouts', 'wallets'],
         1000000, 1000000, now() - interval '120 days', now()
       FROM generate_series(1, $1::int) k`,
      [1 + NOISE_ORGANIZATIONS],
    );
    await client.query(
      `INSERT INTO users (id, organization_id, email, name, role, status, password_hash, totp_secret_enc,
         totp_enabled_at, locked_until, created_at, updated_at)
       VALUES ('usr_dashboardbench0000000000000000', $1, $2, 'Bench Owner', 'owner', 'active', $3, NULL, NULL,
         NULL, now(), now())`,
      [OWNER, OWNER_EMAIL, await hashPassword(OWNER_PASSWORD)],
    );
    const fees = Object.entries(DEFAULT_FEES).map(([method, fee]) => [
      method,
      fee.basisPoints,
      fee.fixedMinor.toString(),
    ]);
    await client.query(
      `CREATE TABLE bench_fees AS
       SELECT f->>0 AS method, (f->>1)::int AS bps, (f->>2)::bigint AS fixed
       FROM jsonb_array_elements($1::jsonb) f`,
      [JSON.stringify(fees)],
    );
  });
}

async function ownerCharges(client: pg.Client): Promise<number> {
  const result = await client.query<{ count: string }>(
    `SELECT count(*)::text AS count FROM charges WHERE organization_id = $1 AND environment = $2`,
    [OWNER, ENVIRONMENT],
  );
  return Number(result.rows[0]?.count ?? 0);
}

/**
 * `owned` more charges of the measured organization, each followed by one of a noise organization (in
 * turn, sandbox and live alternately), created at random times of the last 90 days; their refunds and
 * ledger entries. One transaction, triggers and foreign keys off (superuser); then VACUUM ANALYZE.
 */
async function seedCharges(url: string, owned: number, seed: number): Promise<void> {
  if (owned <= 0) return;
  await withClient(url, async (client) => {
    let replica = true;
    try {
      await client.query(`SET session_replication_role = replica`);
    } catch {
      replica = false;
      log('not a superuser: seeding with every trigger (slower)');
    }
    await client.query(`SET work_mem = '256MB'`);
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SELECT setseed($1)`, [seed]);
    const offset = Number(
      (await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM charges`)).rows[0]?.n ?? 0,
    );
    const total = (await ownerCharges(client)) + owned;
    // One address per eight charges: about seven charges per address (one charge in ten has none).
    const customers = Math.max(50, Math.floor(total / 8));
    await client.query('BEGIN');
    await client.query(
      `CREATE TEMP TABLE bench_seed ON COMMIT DROP AS
       SELECT s.*,
         'ch_' || lpad(to_hex((extract(epoch FROM s.at) * 1000)::bigint), 12, '0') || substr(md5('ch' || s.i), 1, 17) AS id,
         CASE WHEN s.rejected THEN 'pending'
           WHEN s.at > now() - interval '1 hour' AND s.r1 < 0.6 THEN 'pending'
           WHEN s.r1 < 0.72 THEN 'succeeded' WHEN s.r1 < 0.88 THEN 'failed' ELSE 'expired' END AS status,
         least(s.amount, (s.amount * f.bps + 5000) / 10000 + f.fixed) AS fee
       FROM (
         -- random() is drawn once per row here (a subquery with volatile outputs is not flattened).
         SELECT i, org, env, at, amount, r1, r2, rejected, email,
           CASE WHEN m < 0.55 THEN 'credit_card_tr' WHEN m < 0.65 THEN 'credit_card_international'
             ELSE 'bank_transfer' END AS method
         FROM (
           SELECT i,
             CASE WHEN i % 2 = 1 THEN 'org_' || lpad('1', 29, '0')
               ELSE 'org_' || lpad(to_hex(((i / 2) % $2::int) + 2), 29, '0') END AS org,
             CASE WHEN i % 2 = 1 OR i % 4 = 0 THEN 'sandbox' ELSE 'live' END AS env,
             date_trunc('milliseconds', now() - random() * interval '90 days') AS at,
             1000 + floor(power(random(), 3) * 1999000)::bigint AS amount,
             random() AS m, random() AS r1, random() AS r2, random() < 0.01 AS rejected,
             CASE WHEN random() < 0.9 THEN 'customer' || floor(random() * $3::int)::int || '@shopper.example' END AS email
           FROM generate_series($1::int + 1, $1::int + $4::int * 2) i
         ) g
       ) s
       JOIN bench_fees f ON f.method = s.method`,
      [offset, NOISE_ORGANIZATIONS, customers, owned],
    );
    await client.query(
      `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
         status, creation_state, creation_locked_until, idempotency_key, provider, provider_request,
         provider_payment_id, provider_status, provider_error, customer_name, customer_email, card_brand,
         card_last4, failure_code, failure_message, refunded_amount, finalized_at, expires_at, created_at, updated_at)
       SELECT id, org, env, amount, 'TRY', method, 'order-' || lpad(i::text, 9, '0'), status,
         CASE WHEN rejected THEN 'rejected' ELSE 'created' END, NULL, md5('idempotency' || i), 'sandbox',
         jsonb_build_object('idempotencyKey', id, 'amount', amount::text, 'currency', 'TRY',
           'method', CASE WHEN method = 'bank_transfer' THEN 'bank_transfer' ELSE 'card' END, 'reference', id),
         CASE WHEN NOT rejected THEN 'pay_' || md5('pay' || i) END,
         CASE WHEN rejected THEN NULL
           WHEN status = 'pending' THEN 'awaiting_payment' WHEN status = 'failed' THEN 'failed'
           WHEN status = 'expired' THEN 'canceled'
           WHEN r2 < 0.04 THEN 'refunded' WHEN r2 < 0.07 THEN 'partially_refunded' ELSE 'succeeded' END,
         CASE WHEN rejected THEN '{"code": "provider_rejected", "status": 422}'::jsonb END,
         CASE WHEN email IS NOT NULL THEN 'Shopper ' || split_part(email, '@', 1) END, email,
         CASE WHEN method <> 'bank_transfer' AND status IN ('succeeded', 'failed')
           THEN (ARRAY['visa', 'mastercard', 'troy', 'amex'])[1 + floor(r2 * 4)::int] END,
         CASE WHEN method <> 'bank_transfer' AND status IN ('succeeded', 'failed')
           THEN lpad(floor(r2 * 10000)::int::text, 4, '0') END,
         CASE WHEN status = 'failed' THEN (ARRAY['card_declined', 'insufficient_funds', 'three_ds_failed'])[1 + floor(r2 * 3)::int] END,
         CASE WHEN status = 'failed' THEN 'The card was declined.' END,
         CASE WHEN status = 'succeeded' AND r2 < 0.04 THEN amount
           WHEN status = 'succeeded' AND r2 < 0.07 THEN greatest(1, amount / 2) ELSE 0 END,
         CASE WHEN status IN ('succeeded', 'failed') THEN at + interval '40 seconds'
           WHEN status = 'expired' THEN at + interval '1 hour' END,
         at + interval '1 hour', at,
         CASE WHEN status = 'pending' THEN at WHEN status = 'expired' THEN at + interval '1 hour'
           ELSE at + interval '40 seconds' END
       FROM bench_seed ORDER BY i`,
    );
    // One refund per refunded charge, a day or so after it (never in the future).
    await client.query(
      `INSERT INTO refunds (id, charge_id, organization_id, environment, amount, currency, status, reason,
         idempotency_key, provider_refund_id, created_at, updated_at)
       SELECT 're_' || substr(id, 4), id, org, env, CASE WHEN r2 < 0.04 THEN amount ELSE greatest(1, amount / 2) END,
         'TRY', 'succeeded', 'requested_by_customer', NULL, 'rf_' || md5('rf' || i),
         least(now(), at + r1 * interval '3 days'), least(now(), at + r1 * interval '3 days')
       FROM bench_seed WHERE status = 'succeeded' AND r2 < 0.07 AND NOT rejected ORDER BY i`,
    );
    // The charge_succeeded entry of each succeeded charge and its postings, as postChargeSucceeded writes them.
    const entries = Number(
      (await client.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM journal_entries`))
        .rows[0]?.id ?? 0,
    );
    await client.query(
      `CREATE TEMP TABLE bench_entries ON COMMIT DROP AS
       SELECT $1::bigint + row_number() OVER (ORDER BY i) AS entry, * FROM bench_seed
       WHERE status = 'succeeded' AND NOT rejected`,
      [entries],
    );
    await client.query(
      `INSERT INTO journal_entries (id, organization_id, environment, kind, source_id, currency, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT entry, org, env, 'charge_succeeded', id, 'TRY', at + interval '40 seconds' FROM bench_entries ORDER BY entry`,
    );
    await client.query(
      `INSERT INTO ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
       SELECT s.entry, s.org, s.env, p.account, 'TRY', p.amount, s.at + interval '40 seconds'
       FROM bench_entries s
       CROSS JOIN LATERAL (VALUES (1, 'acquirer_clearing', s.amount), (2, 'merchant_pending', -(s.amount - s.fee)),
         (3, 'fee_revenue', -s.fee)) p(n, account, amount)
       WHERE p.amount <> 0 ORDER BY s.entry, p.n`,
    );
    await client.query('COMMIT');
    await client.query(
      `SELECT setval(pg_get_serial_sequence('journal_entries', 'id'), greatest(1, (SELECT max(id) FROM journal_entries)))`,
    );
    if (replica) await client.query(`SET session_replication_role = origin`);
    await client.query('VACUUM ANALYZE charges, refunds, journal_entries, ledger_postings');
  });
}

// ------------------------------------------------------------------------ statements and their plans

interface Plan {
  /** The indexes the plan reads on the charges, refunds and ledger tables, or the scan without one. */
  indexes: string[];
  /** The rows those scans went through, the ones a filter or recheck threw away included. */
  rowsRead: number;
  rowsReturned: number;
  /** A sort the index order did not give: its method and the rows it sorted. */
  sort: string | null;
  executionMs: number;
}

async function explain(client: pg.Client, statement: Statement): Promise<Plan> {
  const result = await client.query<{ 'QUERY PLAN': Array<Record<string, unknown>> }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
    statement.values,
  );
  const root = result.rows[0]?.['QUERY PLAN'][0] ?? {};
  const indexes = new Set<string>();
  let read = 0;
  const sorts: string[] = [];
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const relation = record['Relation Name'];
    // The amount order's cursor reads one row by its primary key: not the list's walk.
    if (
      typeof relation === 'string' &&
      WORK_TABLES.test(relation) &&
      record['Index Name'] !== 'charges_pkey'
    ) {
      if (record['Node Type'] !== 'Bitmap Heap Scan')
        indexes.add(
          typeof record['Index Name'] === 'string'
            ? record['Index Name']
            : `${String(record['Node Type'])} on ${relation}`,
        );
      const perLoop =
        Number(record['Actual Rows'] ?? 0) +
        Number(record['Rows Removed by Filter'] ?? 0) +
        Number(record['Rows Removed by Index Recheck'] ?? 0);
      read += perLoop * Number(record['Actual Loops'] ?? 1);
    }
    // A bitmap scan names its index on the child node, which has no relation.
    const index = record['Index Name'];
    if (
      record['Node Type'] === 'Bitmap Index Scan' &&
      typeof index === 'string' &&
      /^(charges|refunds|journal_entries|ledger_postings)_/.test(index)
    )
      indexes.add(`${index} (bitmap)`);
    if (record['Node Type'] === 'Sort')
      sorts.push(`${String(record['Sort Method'])} of ${Number(record['Actual Rows'] ?? 0)} rows out`);
    for (const value of Object.values(record)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === 'object') visit(value);
    }
  };
  visit(root['Plan']);
  const top = root['Plan'] as Record<string, unknown> | undefined;
  return {
    indexes: [...indexes],
    rowsRead: Math.round(read),
    rowsReturned: Number(top?.['Actual Rows'] ?? 0),
    sort: sorts.length > 0 ? sorts.join('; ') : null,
    executionMs: round(Number(root['Execution Time'] ?? 0)),
  };
}

// -------------------------------------------------------------------------------------- the figures

type Figure = 'list' | 'export' | 'overview' | 'api';

interface Target {
  name: string;
  kind: Figure;
  path: string;
  /** An export's window of creation times: the rows it must hold are counted in SQL. */
  window?: { from: Date; to: Date };
  /** Whether the request goes to the sandbox API with the key (else the web listener with the session). */
  api?: boolean;
}

function targetsFor(now: Date, deep: string, reference: string, email: string): Target[] {
  const day = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10);
  const window = (fromDaysAgo: number) => ({
    from: new Date(`${day(fromDaysAgo)}T00:00:00.000Z`),
    to: new Date(new Date(`${day(0)}T00:00:00.000Z`).getTime() + DAY_MS),
  });
  const list = (name: string, query: string): Target => ({
    name,
    kind: 'list',
    path: `/dashboard/payments${query === '' ? '' : `?${query}`}`,
  });
  return [
    list('payments: first page (newest first)', ''),
    list('payments: a page after a cursor 90% deep', `cursor=${encodeURIComponent(deep)}`),
    list('filter: status failed', 'status=failed'),
    list('filter: status pending (few or none)', 'status=pending'),
    list('filter: method credit_card_international', 'method=credit_card_international'),
    list('filter: amount 500.00 to 510.00 TRY', 'min=500&max=510'),
    list('filter: date range, 7 days 30 days ago', `from=${day(36)}&to=${day(30)}`),
    list('filter: reference (exact)', `reference=${encodeURIComponent(reference)}`),
    list('filter: customer e-mail (other case)', `email=${encodeURIComponent(email.toUpperCase())}`),
    list('sort: amount, largest first', 'sort=amount_desc'),
    list('combined: international, 19 000 TRY or more (rare)', 'method=credit_card_international&min=19000'),
    list(
      'combined: succeeded, international, last 30 days',
      `status=succeeded&method=credit_card_international&from=${day(29)}&to=${day(0)}`,
    ),
    list('combined: one day sorted by amount', `from=${day(45)}&to=${day(45)}&sort=amount_desc`),
    { name: 'overview: /dashboard?period=90', kind: 'overview', path: '/dashboard?period=90' },
    {
      name: 'export: charges.csv, 30 days',
      kind: 'export',
      path: `/dashboard/exports/charges.csv?from=${day(29)}&to=${day(0)}`,
      window: window(29),
    },
    {
      name: 'export: charges.csv, 90 days',
      kind: 'export',
      path: `/dashboard/exports/charges.csv?from=${day(90)}&to=${day(0)}`,
      window: window(90),
    },
    { name: 'api: GET /v1/charges?limit=100', kind: 'api', path: '/v1/charges?limit=100', api: true },
  ];
}

export async function benchDashboard(options: DashboardBenchOptions) {
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const calls = options.calls ?? 50;
  const warmup = options.warmup ?? 5;
  const exportCalls = options.exportCalls ?? 5;
  const load: Record<string, number[]> = { start: os.loadavg().map(round) };
  const url = await createFreshDatabase();
  let gateway: Gateway | undefined;
  const stop = (signal: NodeJS.Signals) => {
    log(`${signal}: dropping the bench's database`);
    process.on('uncaughtException', () => undefined);
    void dropDatabase(url).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const migrated = await openDatabase({ databaseUrl: url, poolSize: 2 });
    let key: Awaited<ReturnType<typeof issueKey>>;
    try {
      await migrate(migrated, readMigrations(migrationsDir));
      await seedOrganizations(url);
      key = await issueKey(migrated.db, systemClock, OWNER, { environment: ENVIRONMENT, scopes: ['all'] });
    } finally {
      await migrated.close();
    }
    const config = loadConfig(
      gatewayEnv({
        ROLES: 'api,sandbox-acquirer',
        DATABASE_URL: url,
        SETTLEMENT_CRON: 'off',
        RECONCILIATION_CRON: 'off',
      }),
    );
    config.encryptionKeys ??= parseEncryptionKeys(generateEncryptionKeys());
    gateway = await startGateway({
      config,
      logger: createLogger({ level: 'warn', destination: process.stderr }),
      clock: systemClock,
      database: await openDatabase({ databaseUrl: url, poolSize: 5 }),
    });
    const web = new WebClient(gateway.urls.web ?? '');
    const login = await web.login(OWNER_EMAIL, OWNER_PASSWORD);
    if (login.status !== 302 && login.status !== 303)
      throw new Error(`signing in answered ${login.status}: ${login.text.slice(0, 500)}`);
    const api = new WebClient(gateway.urls.sandboxApi ?? '');
    const apiHeaders = { 'x-api-key': key.secret };
    const cursors = createCursorCodec(resolveSecretBox(config).deriveKey('pagination-cursor'));

    const results = [];
    const mismatches: string[] = [];
    for (const [step, size] of sizes.entries()) {
      const have = await withClient(url, ownerCharges);
      log(
        `size ${size}: seeding ${Math.max(0, size - have)} more charges of the organization and as many of others`,
      );
      const seeded = await timed(() => seedCharges(url, size - have, (step + 1) / (sizes.length + 1)));
      const facts = await withClient(url, async (client) => {
        const row = (
          await client.query<{ charges: string; visible: string; everyone: string; refunds: string }>(
            `SELECT (SELECT count(*) FROM charges WHERE organization_id = $1 AND environment = $2)::text AS charges,
               (SELECT count(*) FROM charges WHERE organization_id = $1 AND environment = $2
                 AND creation_state = 'created')::text AS visible,
               (SELECT count(*) FROM charges)::text AS everyone,
               (SELECT count(*) FROM refunds WHERE organization_id = $1 AND environment = $2)::text AS refunds`,
            [OWNER, ENVIRONMENT],
          )
        ).rows[0];
        // The cursor of the row 90% down the default order, as the list would have issued it.
        const deepRow = (
          await client.query<{ id: string; created_at: Date }>(
            `SELECT id, created_at FROM charges WHERE organization_id = $1 AND environment = $2
               AND creation_state = 'created' ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT 1`,
            [OWNER, ENVIRONMENT, Math.floor(Number(row?.visible ?? 0) * 0.9)],
          )
        ).rows[0];
        const sample = (
          await client.query<{ reference: string; email: string }>(
            `SELECT merchant_reference AS reference, customer_email AS email FROM charges
             WHERE organization_id = $1 AND environment = $2 AND creation_state = 'created'
               AND customer_email IS NOT NULL ORDER BY created_at LIMIT 1 OFFSET $3`,
            [OWNER, ENVIRONMENT, Math.floor(Number(row?.visible ?? 0) / 3)],
          )
        ).rows[0];
        return { row, deepRow, sample };
      });
      if (!facts.row || !facts.deepRow || !facts.sample) throw new Error('the seed left no charges to list');
      const deep = cursors
        .for({
          list: 'charges',
          organizationId: OWNER,
          environment: ENVIRONMENT,
          filter: JSON.stringify({ search: {}, sort: 'newest' }),
        })
        .encode(facts.deepRow.created_at, facts.deepRow.id);
      const now = new Date();
      const targets = targetsFor(now, deep, facts.sample.reference, facts.sample.email);
      const loadBefore = os.loadavg().map(round);

      // The floors: a signed-in page that reads no list (the session, the shell), and `select 1`.
      const signedInPage = await latency(() => web.get('/dashboard/exports'), calls, warmup);
      const selectOne = await withClient(url, (client) =>
        latency(() => client.query('select 1'), calls, warmup),
      );

      const figures: Record<string, unknown> = {};
      for (const target of targets) {
        const get = () => (target.api ? api.get(target.path, apiHeaders) : web.get(target.path));
        const probe = await capture(get);
        const response = probe.value;
        if (response.status !== 200)
          throw new Error(`${target.path} answered ${response.status}: ${response.text.slice(0, 500)}`);
        const work = probe.statements.filter((statement) => WORK_TABLES.test(statement.text));
        const isExport = target.kind === 'export';
        const http = await latency(get, isExport ? exportCalls : calls, isExport ? 1 : warmup);
        const sqlCeiling = await withClient(url, (client) =>
          latency(
            async () => {
              for (const statement of work) await client.query(statement.text, statement.values);
            },
            isExport ? exportCalls : calls,
            isExport ? 1 : warmup,
          ),
        );
        const plans = await withClient(url, async (client) => {
          const chargeStatements = work.filter((statement) => /from "charges"/.test(statement.text));
          if (target.kind === 'list' || target.kind === 'api') {
            const listing = chargeStatements.at(-1);
            return listing ? { list: await explain(client, listing) } : {};
          }
          if (target.kind === 'overview') {
            const plansOf: Record<string, Plan> = {};
            for (const statement of work)
              plansOf[/from "refunds"/.test(statement.text) ? 'refunds' : 'charges'] = await explain(
                client,
                statement,
              );
            return plansOf;
          }
          const first = chargeStatements[0];
          const last = chargeStatements.at(-1);
          // The fee and net of the first page's succeeded charges, read from the ledger.
          const fees = work.find((statement) => /from "journal_entries"/.test(statement.text));
          return {
            ...(first ? { firstPage: await explain(client, first) } : {}),
            ...(fees ? { feesOfFirstPage: await explain(client, fees) } : {}),
            ...(last && last !== first ? { lastPage: await explain(client, last) } : {}),
          };
        });
        const rows = (() => {
          if (target.kind === 'export')
            return response.text.split('\n').filter((line) => line !== '').length - 1;
          if (target.kind === 'api') return (response.json as { data: unknown[] }).data.length;
          if (target.kind === 'list') return (response.text.match(/class="payment-link"/g) ?? []).length;
          return null;
        })();
        const expectedRows = target.window
          ? await withClient(url, async (client) =>
              Number(
                (
                  await client.query<{ count: string }>(
                    `SELECT count(*)::text AS count FROM charges WHERE organization_id = $1 AND environment = $2
                       AND creation_state = 'created' AND created_at >= $3 AND created_at < $4`,
                    [OWNER, ENVIRONMENT, target.window?.from, target.window?.to],
                  )
                ).rows[0]?.count ?? -1,
              ),
            )
          : undefined;
        if (expectedRows !== undefined && rows !== expectedRows) {
          mismatches.push(`${target.name}: ${rows} rows, ${expectedRows} in SQL`);
          log(`MISMATCH: ${target.name}: ${rows} rows, ${expectedRows} charges in the window`);
        }
        figures[target.name] = {
          path: target.path.replace(/cursor=[^&]+/, 'cursor=…'),
          http,
          sqlCeiling,
          ratioToSqlCeiling: sqlCeiling.p50Ms === 0 ? null : round(http.p50Ms / sqlCeiling.p50Ms),
          ratioToSignedInPage:
            target.api || signedInPage.p50Ms === 0 ? null : round(http.p50Ms / signedInPage.p50Ms),
          statements: { all: probe.statements.length, onChargeTables: work.length },
          rows,
          ...(expectedRows === undefined ? {} : { expectedRows }),
          bytes: Buffer.byteLength(response.text),
          plans,
        };
        log(
          `size ${size}: ${target.name}: p50 ${http.p50Ms} ms (sql ${sqlCeiling.p50Ms} ms), ${rows ?? '-'} rows`,
        );
      }
      results.push({
        organizationCharges: Number(facts.row.charges),
        listedCharges: Number(facts.row.visible),
        chargesInDatabase: Number(facts.row.everyone),
        organizationRefunds: Number(facts.row.refunds),
        seedMs: seeded.ms,
        floors: { signedInPage, selectOne },
        figures,
        loadAverage: { beforeMeasuring: loadBefore, after: os.loadavg().map(round) },
      });
    }
    const version = await withClient(url, (client) =>
      client.query<{ version: string; autovacuum: string; shared_buffers: string }>(
        `select current_setting('server_version') as version, current_setting('autovacuum') as autovacuum,
           current_setting('shared_buffers') as shared_buffers`,
      ),
    );
    const server = version.rows[0];
    return {
      correctness: mismatches.length === 0 ? 'ok' : mismatches,
      sizes: results,
      settings: {
        environment: ENVIRONMENT,
        noiseOrganizations: NOISE_ORGANIZATIONS,
        noiseChargesPerOrganizationCharge: 1,
        days: 90,
        calls,
        warmup,
        exportCalls,
        pageSize: 25,
      },
      server: server
        ? { version: server.version, autovacuum: server.autovacuum, sharedBuffers: server.shared_buffers }
        : null,
      loadAverage: { ...load, end: os.loadavg().map(round) },
    };
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await gateway?.close();
    await dropDatabase(url);
  }
}
