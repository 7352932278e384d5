/**
 * The dashboard ratio page of `npm run bench` (issue 37 item 8, docs/dispute-ratios.md "Bench"): one
 * merchant's ratios, `GET /v1/dispute-ratios` (`DisputeRatioService.ratios`, what the dashboard's ratio
 * page shows) and the page `/dashboard/dispute-ratios` itself when the gateway has it, for merchants with
 * 1,000 to 100,000 card sales over the last seven months. Flat: the largest merchant's latency within
 * 1.5x of the smallest's.
 *
 * 1. A fresh database, migrated; one organization per size (flag `disputes`, an active owner with a real
 *    argon2 hash), and as many charges of NOISE_ORGANIZATIONS others as the measured ones have. Each
 *    measured organization's sandbox card charges are spread over the time from the start of the month
 *    seven months ago until now; 2% of them disputed (one in ten of those an inquiry), 1% with a fraud
 *    warning (half of them on a disputed charge), as bench/disputes-month.ts seeds them. Set-based, then
 *    VACUUM ANALYZE.
 * 2. The gateway runs in the bench's process (roles api and sandbox-acquirer, the system clock); each
 *    owner signs in through `/login`. Each organization's first request (which summarises its closed days,
 *    ADR 0077) is timed alone; then `calls` rounds after `warmup` ones, each round one request of every
 *    organization in turn, so that the load of this shared machine falls on every size alike. Latency to
 *    the last byte of the body.
 * 3. Beside them, in the same rounds: the floor (an authenticated `GET /v1/charges/{id}` that finds nothing:
 *    the key, the request path and one indexed read), and the statements one ratio request sent on the
 *    ratio tables, replayed through node-postgres (its SQL ceiling). Each answer's counts are checked
 *    against the rows' (per month and scheme, counted in plain SQL).
 */
import type pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { startGateway, type Gateway } from '../src/gateway.js';
import { createLogger } from '../src/logger.js';
import { monthOf } from '../src/modules/disputes/ratios/levels.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { hashPassword } from '../src/shared/passwords.js';
import { generateEncryptionKeys, parseEncryptionKeys } from '../src/shared/secret-box.js';
import { WebClient } from '../test/helpers/accounts.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { issueKey } from '../test/helpers/merchants.js';
import { gatewayEnv } from '../test/helpers/process.js';
import { capture, round, timed, withClient, type Statement } from './measure.js';

export interface DisputesPageBenchOptions {
  /** The card charges of each measured organization. */
  sizes: readonly number[];
  /** Measured rounds (default 200), after `warmup` (default 20) unmeasured ones. */
  calls?: number;
  warmup?: number;
}

const NOISE_ORGANIZATIONS = 4;
const ENVIRONMENT = 'sandbox';
const PASSWORD = 'correct horse battery staple';
const PAGE_PATH = '/dashboard/dispute-ratios';
/** The statements of a ratio request that make its SQL ceiling (the settings' too; not the key's or the session's). */
const RATIO_TABLES = /\b(charges|disputes|fraud_warnings|dispute_ratio_[a-z_]+)\b/;
/** Flat: the largest merchant's latency within this factor of the smallest's. */
export const FLAT_FACTOR = 1.5;

const log = (message: string) => console.error(`[bench disputes page] ${message}`);

const orgId = (k: number) => `org_${k.toString(16).padStart(29, '0')}`;
const emailOf = (k: number) => `owner${k}@disputes-bench.example`;

export interface Latency {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  calls: number;
}

export function latencyOf(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return {
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    meanMs: round(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    calls: sorted.length,
  };
}

async function seedOrganizations(url: string, measured: number, start: Date): Promise<void> {
  const hash = await hashPassword(PASSWORD);
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO organizations (id, name, application_id, contact_email, kyc_status, feature_flags,
         rate_limit_live, rate_limit_sandbox, created_at, updated_at)
       SELECT 'org_' || lpad(to_hex(k), 29, '0'), 'Disputes page bench ' || k, NULL,
         'bench' || k || '@merchant.example', 'APPROVED', ARRAY['apiKeys', 'disputes'], 1000000, 1000000, $2, $2
       FROM generate_series(1, $1::int) k`,
      [measured + NOISE_ORGANIZATIONS, start],
    );
    await client.query(
      `INSERT INTO users (id, organization_id, email, name, role, status, password_hash, totp_secret_enc,
         totp_enabled_at, locked_until, created_at, updated_at)
       SELECT 'usr_disputesbench' || lpad(to_hex(k), 17, '0'), 'org_' || lpad(to_hex(k), 29, '0'),
         'owner' || k || '@disputes-bench.example', 'Bench Owner ' || k, 'owner', 'active', $2, NULL, NULL, NULL,
         $3, $3
       FROM generate_series(1, $1::int) k`,
      [measured, hash, start],
    );
  });
}

/**
 * `count` card charges of organization `k` (the measured ones are 1 to `measured`, the noise ones follow),
 * each followed by one of a noise organization, at instants
 * spread over [start, now); the organization's disputes and fraud warnings as bench/disputes-month.ts
 * seeds them.
 */
async function seedCharges(
  url: string,
  organization: { k: number; measured: number },
  count: number,
  start: Date,
  now: Date,
): Promise<void> {
  await withClient(url, async (client) => {
    let replica = true;
    try {
      await client.query(`SET session_replication_role = replica`);
    } catch {
      replica = false;
      log('not a superuser: seeding with every trigger (slower)');
    }
    await client.query(`SET synchronous_commit = off`);
    await client.query(
      `CREATE TEMP TABLE bench_seed AS
       SELECT i, n, 'ch_' || lpad(to_hex($1::int), 4, '0') || lpad(to_hex(i), 12, '0') || n || repeat('0', 12) AS id,
         CASE WHEN n = 0 THEN 'org_' || lpad(to_hex($1::int), 29, '0')
           ELSE 'org_' || lpad(to_hex($2::int + 1 + (i % $3::int)), 29, '0') END AS org,
         (ARRAY['visa', 'mastercard', 'troy'])[1 + i % 3] AS brand,
         $5::timestamptz + ((i * 7919) % 1000003)::float8 / 1000003 * ($6::timestamptz - $5::timestamptz) AS at
       FROM generate_series(1, $4::int) i, generate_series(0, 1) n`,
      [organization.k, organization.measured, NOISE_ORGANIZATIONS, count, start, now],
    );
    await client.query(
      `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
         status, creation_state, provider, provider_request, provider_payment_id, provider_status, card_brand,
         card_last4, finalized_at, expires_at, created_at, updated_at)
       SELECT id, org, $1, 10000, 'TRY', CASE WHEN i % 5 = 0 THEN 'credit_card_international' ELSE 'credit_card_tr' END,
         id, 'succeeded', 'created', 'sandbox', '{}'::jsonb, 'pay_' || id, 'succeeded', brand, '4242', at,
         at + interval '1 hour', at - interval '1 minute', at
       FROM bench_seed ORDER BY at`,
      [ENVIRONMENT],
    );
    await client.query(
      `INSERT INTO disputes (id, organization_id, environment, charge_id, provider, provider_dispute_id, amount,
         currency, reason, reason_code, network, status, stage, rank, provider_created_at, provider_updated_at,
         created_at, updated_at)
       SELECT 'dp_' || substr(id, 4), org, $1, id, 'sandbox', 'sdp_' || id, 10000, 'TRY', 'fraudulent', '10.4',
         brand, CASE WHEN i % 500 = 0 THEN 'warning_needs_response' ELSE 'needs_response' END,
         CASE WHEN i % 500 = 0 THEN 'inquiry' ELSE 'chargeback' END, 11,
         least(at + interval '1 day', $2::timestamptz), at, at, at
       FROM bench_seed WHERE n = 0 AND i % 50 = 0`,
      [ENVIRONMENT, now],
    );
    await client.query(
      `INSERT INTO fraud_warnings (id, organization_id, environment, charge_id, provider, provider_warning_id,
         reason, reason_code, network, provider_created_at, created_at, updated_at)
       SELECT 'efw_' || substr(id, 4), org, $1, id, 'sandbox', 'sfw_' || id, 'fraudulent', '10.4', brand,
         least(at + interval '12 hours', $2::timestamptz), at, at
       FROM bench_seed WHERE n = 0 AND (i % 100 = 0 OR i % 100 = 25)`,
      [ENVIRONMENT, now],
    );
    await client.query(`DROP TABLE bench_seed`);
    if (replica) await client.query(`RESET session_replication_role`);
  });
}

/** The organization's counts per month and scheme, in plain SQL: what the answer must say. */
async function expectedCounts(client: pg.Client, organizationId: string, start: Date) {
  const result = await client.query<{ kind: string; month: string; scheme: string; n: string }>(
    `SELECT 'sales' AS kind, to_char(finalized_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, card_brand AS scheme,
         count(*)::text AS n
       FROM charges WHERE organization_id = $1 AND environment = $2 AND status = 'succeeded'
         AND finalized_at >= $3 GROUP BY 1, 2, 3
     UNION ALL
     SELECT 'disputes', to_char(coalesce(d.escalated_at, d.provider_created_at) AT TIME ZONE 'UTC', 'YYYY-MM'),
         c.card_brand, count(*)::text
       FROM disputes d JOIN charges c ON c.id = d.charge_id
       WHERE d.organization_id = $1 AND d.environment = $2 AND d.stage <> 'inquiry'
         AND coalesce(d.escalated_at, d.provider_created_at) >= $3 GROUP BY 1, 2, 3
     UNION ALL
     SELECT 'fraudWarnings', to_char(f.provider_created_at AT TIME ZONE 'UTC', 'YYYY-MM'), c.card_brand,
         count(*)::text
       FROM fraud_warnings f JOIN charges c ON c.id = f.charge_id
       WHERE f.organization_id = $1 AND f.environment = $2 AND f.provider_created_at >= $3 GROUP BY 1, 2, 3`,
    [organizationId, ENVIRONMENT, start],
  );
  return new Map(result.rows.map((row) => [`${row.kind} ${row.month} ${row.scheme}`, Number(row.n)]));
}

interface Counted {
  sales: number;
  disputes: number;
  fraudWarnings: number;
}
interface RatiosAnswer {
  month: string;
  schemes: Array<{
    scheme: string;
    visaStyle: Counted;
    history: Array<{ month: string; visaStyle: Counted }>;
  }>;
}

/** Every count of the answer that differs from the rows' (the oldest month's sales are only a divisor). */
function mismatchesOf(answer: RatiosAnswer, expected: Map<string, number>): string[] {
  const found: string[] = [];
  for (const scheme of answer.schemes) {
    const months = [
      ...scheme.history.map((entry) => ({ month: entry.month, figure: entry.visaStyle })),
      { month: answer.month, figure: scheme.visaStyle },
    ];
    for (const { month, figure } of months)
      for (const kind of ['sales', 'disputes', 'fraudWarnings'] as const) {
        const want = expected.get(`${kind} ${month} ${scheme.scheme}`) ?? 0;
        if (figure[kind] !== want)
          found.push(`${month} ${scheme.scheme} ${kind}: ${figure[kind]}, rows ${want}`);
      }
  }
  return found;
}

interface Merchant {
  size: number;
  organizationId: string;
  api: () => Promise<{ status: number; text: string; json: unknown }>;
  page: () => Promise<{ status: number; text: string }>;
  floor: () => Promise<unknown>;
  statements: Statement[];
}

/** `calls` rounds after `warmup`, each timing `pick`'s request of every merchant in turn. */
async function rounds(
  merchants: Merchant[],
  pick: (merchant: Merchant) => () => Promise<unknown>,
  calls: number,
  warmup: number,
): Promise<Latency[]> {
  const samples = merchants.map(() => [] as number[]);
  for (let round = 0; round < warmup + calls; round++) {
    for (const [index, merchant] of merchants.entries()) {
      const started = performance.now();
      await pick(merchant)();
      if (round >= warmup) samples[index]?.push(performance.now() - started);
    }
  }
  return samples.map(latencyOf);
}

export async function benchDisputesPage(options: DisputesPageBenchOptions) {
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const calls = options.calls ?? 200;
  const warmup = options.warmup ?? 20;
  const url = await createFreshDatabase();
  let gateway: Gateway | undefined;
  try {
    const now = systemClock.now();
    // The month before the oldest month of history: its sales are that month's Mastercard-style divisor.
    const start = monthOf(now, -7).start;
    const migrated = await openDatabase({ databaseUrl: url, poolSize: 2 });
    const keys: string[] = [];
    let seedMs = 0;
    try {
      await migrate(migrated, readMigrations(migrationsDir));
      await seedOrganizations(url, sizes.length, start);
      for (const [index, size] of sizes.entries()) {
        log(`seeding ${size} charges of organization ${index + 1} and as many of others`);
        seedMs += (
          await timed(() => seedCharges(url, { k: index + 1, measured: sizes.length }, size, start, now))
        ).ms;
        const key = await issueKey(migrated.db, systemClock, orgId(index + 1), {
          environment: ENVIRONMENT,
          scopes: ['all'],
        });
        keys.push(key.secret);
      }
      await withClient(url, (client) => client.query(`VACUUM ANALYZE charges, disputes, fraud_warnings`));
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
    const merchants: Merchant[] = [];
    const firsts: number[] = [];
    const mismatches: string[] = [];
    for (const [index, size] of sizes.entries()) {
      const web = new WebClient(gateway.urls.web ?? '');
      const login = await web.login(emailOf(index + 1), PASSWORD);
      if (login.status !== 302 && login.status !== 303)
        throw new Error(`signing in answered ${login.status}: ${login.text.slice(0, 500)}`);
      const api = new WebClient(gateway.urls.sandboxApi ?? '');
      const headers = { 'x-api-key': keys[index] ?? '' };
      const merchant: Merchant = {
        size,
        organizationId: orgId(index + 1),
        api: () => api.get('/v1/dispute-ratios', headers),
        page: () => web.get(PAGE_PATH),
        floor: () => api.get('/v1/charges/ch_none', headers),
        statements: [],
      };
      // The first request summarises the closed days; the next one sends what every later one sends.
      const first = await timed(merchant.api);
      if (first.value.status !== 200)
        throw new Error(
          `GET /v1/dispute-ratios answered ${first.value.status}: ${first.value.text.slice(0, 500)}`,
        );
      firsts.push(first.ms);
      const probe = await capture(merchant.api);
      merchant.statements = probe.statements.filter((statement) => RATIO_TABLES.test(statement.text));
      const expected = await withClient(url, (client) =>
        expectedCounts(client, merchant.organizationId, start),
      );
      const wrong = mismatchesOf(probe.value.json as RatiosAnswer, expected);
      mismatches.push(...wrong.map((line) => `${size}: ${line}`));
      if (wrong.length > 0) log(`MISMATCH at ${size}: ${wrong.slice(0, 5).join('; ')}`);
      merchants.push(merchant);
    }
    const pageBuilt = (await merchants[0]?.page())?.status === 200;
    if (!pageBuilt) log(`${PAGE_PATH} does not answer 200: the page is not built, measuring the API alone`);

    log(`${calls} rounds of GET /v1/dispute-ratios, one request of each merchant in turn`);
    const api = await rounds(merchants, (merchant) => merchant.api, calls, warmup);
    const page = pageBuilt ? await rounds(merchants, (merchant) => merchant.page, calls, warmup) : null;
    const floor = await rounds(merchants, (merchant) => merchant.floor, calls, warmup);
    const sqlCeiling = await withClient(url, (client) =>
      rounds(
        merchants,
        (merchant) => async () => {
          for (const statement of merchant.statements) await client.query(statement.text, statement.values);
        },
        calls,
        warmup,
      ),
    );
    const results = merchants.map((merchant, index) => ({
      organizationCharges: merchant.size,
      'first GET /v1/dispute-ratios (summarises the closed days, ms)': firsts[index],
      'GET /v1/dispute-ratios': api[index],
      [PAGE_PATH]: page?.[index] ?? 'not built when the bench ran',
      floors: { 'GET /v1/charges/{unknown id}': floor[index] },
      sqlCeiling: { ...sqlCeiling[index], statements: merchants[index]?.statements.length },
    }));
    const growth = (figures: Latency[] | null) => {
      const from = figures?.[0];
      const to = figures?.at(-1);
      if (!from || !to) return null;
      return { p50: round(to.p50Ms / from.p50Ms), p99: round(to.p99Ms / from.p99Ms) };
    };
    const apiGrowth = growth(api);
    const pageGrowth = growth(page);
    return {
      correctness: mismatches.length === 0 ? 'ok' : mismatches,
      sizes: results,
      [`largest to smallest (${sizes.at(-1)} to ${sizes[0]} charges)`]: {
        'GET /v1/dispute-ratios': apiGrowth,
        [PAGE_PATH]: pageGrowth ?? 'not built when the bench ran',
        sqlCeiling: growth(sqlCeiling),
      },
      target: `flat: p50 of the largest merchant within ${FLAT_FACTOR}x of the smallest's`,
      flat:
        apiGrowth !== null &&
        apiGrowth.p50 <= FLAT_FACTOR &&
        (pageGrowth === null || pageGrowth.p50 <= FLAT_FACTOR),
      settings: {
        environment: ENVIRONMENT,
        chargesInDatabase: sizes.reduce((sum, size) => sum + size, 0) * 2,
        noiseOrganizations: NOISE_ORGANIZATIONS,
        seedMs: round(seedMs),
        calls,
        warmup,
      },
    };
  } finally {
    await gateway?.close();
    await dropDatabase(url);
  }
}
