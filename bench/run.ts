/**
 * `npm run bench`: throughput and latency of the charge endpoints on the real PostgreSQL, beside the
 * machine's own ceilings measured in the same run (docs/benchmarks.md):
 * - an empty Fastify route in a process of its own (the HTTP ceiling);
 * - the SQL of a charge creation (idempotency claim, phase 1 insert, phase 2 update, outcome) through
 *   node-postgres without HTTP (the database ceiling).
 * Then the payouts (bench/payouts.ts): creation through HTTP and through the service, and the engine's
 * send-and-confirm throughput against the sandbox chain. Then the ledger balance (bench/balance.ts):
 * `ledger.balance` of one owner at BENCH_BALANCE_SIZES entries, without a checkpoint, after one and with a
 * tail, beside the plain SUM and `select 1`. Then the daily settlement batch (bench/settlement.ts):
 * BENCH_SETTLEMENT_CHARGES paid charges of BENCH_SETTLEMENT_ORGANIZATIONS organizations, beside the bare
 * SQL that reads and writes the same rows. Then the dashboard lists (bench/dashboard.ts): the Payments
 * list, its filters and cursor, the overview, the charge exports and `GET /v1/charges?limit=100` of one
 * organization at BENCH_DASHBOARD_SIZES charges, through an in-process gateway and a signed-in session,
 * beside the SQL of each request replayed through node-postgres and the plans of the list statements.
 * Then the webhooks (bench/webhooks.ts): deliveries/s draining a backlog to a keep-alive loopback receiver
 * beside that receiver's own ceiling, commit-to-first-attempt latency at 150 events/s, and the claim's
 * cost at 1k and 100k due beside the claim statement it replaced.
 * Prints one JSON document on stdout. BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_PAYOUT_ORGANIZATIONS (default 50), BENCH_BALANCE_SIZES (default 1000,10000,100000),
 * BENCH_SETTLEMENT_CHARGES (default 1 000 000), BENCH_SETTLEMENT_ORGANIZATIONS (default 10 000) and
 * BENCH_SETTLEMENT_HISTORY (default 1: the previous business day settled first; 0: empty settlement
 * tables), BENCH_DASHBOARD_SIZES (default 1000,10000,100000), BENCH_WEBHOOK_BACKLOG (default 20 000) tune
 * it; BENCH_ONLY=balance, BENCH_ONLY=settlement, BENCH_ONLY=dashboard or BENCH_ONLY=webhooks runs that
 * section alone; DATABASE_URL
 * names the server (default the local one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir, projectRoot } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { createFreshDatabase, dropDatabase, postgresServerUrl } from '../test/helpers/database.js';
import { createOrganization, issueKey } from '../test/helpers/merchants.js';
import { baseEnv, spawnGateway, type GatewayProcess } from '../test/helpers/process.js';
import { benchBalance } from './balance.js';
import { benchDashboard } from './dashboard.js';
import { load, round, type Measurement } from './measure.js';
import { benchPayouts } from './payouts.js';
import { benchSettlement } from './settlement.js';
import { benchWebhooks } from './webhooks.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PAYOUT_ORGANIZATIONS = Number(process.env.BENCH_PAYOUT_ORGANIZATIONS ?? 50);
const SETTLEMENT_CHARGES = Number(process.env.BENCH_SETTLEMENT_CHARGES ?? 1_000_000);
const SETTLEMENT_ORGANIZATIONS = Number(process.env.BENCH_SETTLEMENT_ORGANIZATIONS ?? 10_000);
const SETTLEMENT_HISTORY = (process.env.BENCH_SETTLEMENT_HISTORY ?? '1').trim();
const sizesOf = (text: string) => text.split(',').map((size) => Number(size.trim().replace(/_/g, '')));
const BALANCE_SIZES = sizesOf(process.env.BENCH_BALANCE_SIZES?.trim() || '1000,10000,100000');
const DASHBOARD_SIZES = sizesOf(process.env.BENCH_DASHBOARD_SIZES?.trim() || '1000,10000,100000');
const SECTIONS = ['balance', 'settlement', 'dashboard', 'webhooks'] as const;
const ONLY = process.env.BENCH_ONLY?.trim() || undefined;
if (SETTLEMENT_HISTORY !== '0' && SETTLEMENT_HISTORY !== '1')
  throw new Error(`BENCH_SETTLEMENT_HISTORY must be 0 or 1, got "${SETTLEMENT_HISTORY}"`);
if (ONLY !== undefined && !(SECTIONS as readonly string[]).includes(ONLY))
  throw new Error(
    `BENCH_ONLY must be "balance", "settlement", "dashboard" or "webhooks" (or unset for every section), got "${ONLY}"`,
  );
for (const [name, value] of [
  ['BENCH_SETTLEMENT_CHARGES', SETTLEMENT_CHARGES],
  ['BENCH_SETTLEMENT_ORGANIZATIONS', SETTLEMENT_ORGANIZATIONS],
  ...BALANCE_SIZES.map((size) => ['BENCH_BALANCE_SIZES (each, comma-separated)', size] as const),
  ...DASHBOARD_SIZES.map((size) => ['BENCH_DASHBOARD_SIZES (each, comma-separated)', size] as const),
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}

const machine = () => ({
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  database: new URL(postgresServerUrl).host,
});

const balanceSection = () => benchBalance({ sizes: BALANCE_SIZES });

const dashboardSection = () => benchDashboard({ sizes: DASHBOARD_SIZES });

const webhooksSection = () =>
  benchWebhooks({
    durationS: DURATION_S,
    connections: CONNECTIONS,
    backlog: Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 20_000),
  });

const settlementSection = () =>
  benchSettlement({
    charges: SETTLEMENT_CHARGES,
    organizations: SETTLEMENT_ORGANIZATIONS,
    history: SETTLEMENT_HISTORY === '1',
  });

const loadFor = (options: Parameters<typeof load>[0]) =>
  load({ duration: DURATION_S, connections: CONNECTIONS, ...options });

/** The same SQL a charge creation runs, through node-postgres, CONNECTIONS at a time, for DURATION_S. */
async function sqlCeiling(databaseUrl: string, organizationId: string): Promise<Measurement> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + DURATION_S * 1000;
  const once = async () => {
    const client = await pool.connect();
    const started = performance.now();
    try {
      const now = new Date();
      const id = newId('ch', now);
      const key = randomUUID();
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO idempotency_keys (scope, key, fingerprint, state, locked_until, created_at, expires_at)
         VALUES ($1, $2, $3, 'in_flight', $4, $4, $4) ON CONFLICT DO NOTHING`,
        [`bench:${organizationId}`, key, randomBytes(32).toString('hex'), now],
      );
      await client.query('COMMIT');
      await client.query(
        `INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
           creation_state, creation_locked_until, idempotency_key, provider, provider_request, expires_at, created_at,
           updated_at)
         VALUES ($1, $2, 'sandbox', 12550, 'TRY', 'credit_card_tr', $3, 'creating', $4, $5, 'sandbox', $6, $4, $4, $4)`,
        [
          id,
          organizationId,
          `sql-${key}`,
          now,
          key,
          JSON.stringify({
            idempotencyKey: id,
            amount: '12550',
            currency: 'TRY',
            method: 'card',
            reference: id,
          }),
        ],
      );
      await client.query(
        `UPDATE charges SET creation_state = 'created', provider_payment_id = $2, provider_status = 'awaiting_payment',
           creation_locked_until = NULL WHERE id = $1 AND creation_state = 'creating'`,
        [id, `pay_${key}`],
      );
      await client.query(
        `UPDATE idempotency_keys SET state = 'completed', response_status = 201, response_body = $3
         WHERE scope = $1 AND key = $2`,
        [`bench:${organizationId}`, key, '{}'],
      );
      latencies.push(performance.now() - started);
    } catch {
      errors++;
      await client.query('ROLLBACK').catch(() => undefined);
    } finally {
      client.release();
    }
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await pool.end();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    requestsPerSecond: round(latencies.length / elapsedS),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    total: latencies.length,
    errors,
    non2xx: 0,
  };
}

function spawnEmptyServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/empty-server.ts'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (\S+)/.exec(output);
      if (match?.[1]) resolve({ url: match[1], child });
    });
    child.on('exit', (code) => reject(new Error(`the empty server exited with ${code}`)));
  });
}

/** A charge body; the reference is a UUID without dashes, so no digit run can look like a card number. */
const chargeBody = (reference: string) => ({
  amount: 12550,
  currency: 'TRY',
  paymentMethod: 'credit_card_tr',
  merchantReference: `bench-${reference}`,
});

const ratio = (value: number, ceiling: number) => (ceiling === 0 ? null : round(value / ceiling));

async function main(): Promise<void> {
  const databaseUrl = await createFreshDatabase();
  let gateway: GatewayProcess | undefined;
  let empty: ChildProcess | undefined;
  try {
    const database = await openDatabase({ databaseUrl, poolSize: 2 });
    await migrate(database, readMigrations(migrationsDir));
    const organizationId = await createOrganization(database.db, systemClock, { name: 'Bench merchant' });
    const key = await issueKey(database.db, systemClock, organizationId, { scopes: ['all'] });
    await database.close();

    const emptyServer = await spawnEmptyServer();
    empty = emptyServer.child;
    const emptyRoute = await loadFor({ url: `${emptyServer.url}/empty` });
    const sql = await sqlCeiling(databaseUrl, organizationId);

    gateway = spawnGateway({
      env: {
        ...baseEnv(),
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        WEB_PORT: '0',
        SANDBOX_API_PORT: '0',
        LIVE_API_PORT: '0',
        OPERATOR_PORT: '0',
        SANDBOX_ACQUIRER_PORT: '0',
        SANDBOX_CHAIN_PORT: '0',
        LOG_LEVEL: 'warn',
        ROLES: 'api,sandbox-acquirer',
        DATABASE_URL: databaseUrl,
        DATABASE_POOL_SIZE: String(CONNECTIONS),
      },
    });
    const urls = await gateway.waitForBanner(90_000);
    const api = urls.sandboxApi ?? '';
    const headers = { 'x-api-key': key.secret, 'content-type': 'application/json' };

    const probe = await fetch(`${api}/v1/charges`, {
      method: 'POST',
      headers: { ...headers, 'x-idempotency-key': randomUUID() },
      body: JSON.stringify(chargeBody(randomUUID())),
    });
    if (probe.status !== 201)
      throw new Error(`POST /v1/charges answered ${probe.status}: ${await probe.text()}`);
    const create = await loadFor({
      url: api,
      requests: [
        {
          method: 'POST',
          path: '/v1/charges',
          setupRequest: (request) => {
            const reference = randomUUID().replace(/-/g, '');
            request.headers = { ...headers, 'x-idempotency-key': reference };
            request.body = JSON.stringify(chargeBody(reference));
            return request;
          },
        },
      ],
    });
    const listed = (await (await fetch(`${api}/v1/charges?limit=1`, { headers })).json()) as {
      data: Array<{ id: string }>;
    };
    const chargeId = listed.data[0]?.id ?? 'ch_missing';
    const get = await loadFor({ url: `${api}/v1/charges/${chargeId}`, headers });
    const list = await loadFor({ url: `${api}/v1/charges?limit=20`, headers });

    // Payouts on a database of their own, after the charge figures (the gateway above is stopped first).
    gateway.child.kill('SIGTERM');
    await gateway.waitForExit(30_000);
    const payoutsDatabase = await createFreshDatabase();
    let payouts: Awaited<ReturnType<typeof benchPayouts>>;
    try {
      const migrated = await openDatabase({ databaseUrl: payoutsDatabase, poolSize: 2 });
      await migrate(migrated, readMigrations(migrationsDir));
      await migrated.close();
      payouts = await benchPayouts({
        databaseUrl: payoutsDatabase,
        durationS: DURATION_S,
        connections: CONNECTIONS,
        organizations: PAYOUT_ORGANIZATIONS,
      });
    } finally {
      await dropDatabase(payoutsDatabase);
    }

    // The ledger balance on a database of its own, then the settlement batch last, on databases of its own
    // (the gateway and the payout programs are stopped).
    const balance = await balanceSection();
    const settlement = await settlementSection();
    const dashboard = await dashboardSection();
    const webhooks = await webhooksSection();

    const withRatios = (measurement: Measurement) => ({
      ...measurement,
      ratioToEmptyFastify: ratio(measurement.requestsPerSecond, emptyRoute.requestsPerSecond),
      ratioToSqlTransaction: ratio(measurement.requestsPerSecond, sql.requestsPerSecond),
    });
    console.log(
      JSON.stringify(
        {
          machine: machine(),
          settings: { durationSeconds: DURATION_S, connections: CONNECTIONS },
          ceilings: { emptyFastifyRoute: emptyRoute, chargeSqlTransaction: sql },
          results: {
            'POST /v1/charges (idempotency key, acquirer call)': withRatios(create),
            'GET /v1/charges/{id}': withRatios(get),
            'GET /v1/charges?limit=20': withRatios(list),
          },
          payouts: {
            ...payouts,
            ratioToEmptyFastify: ratio(
              payouts['POST /v1/payouts, spread over the organizations'].requestsPerSecond,
              emptyRoute.requestsPerSecond,
            ),
            ratioToChargeSqlTransaction: ratio(
              payouts['POST /v1/payouts, spread over the organizations'].requestsPerSecond,
              sql.requestsPerSecond,
            ),
          },
          balance,
          settlement,
          dashboard,
          webhooks,
        },
        null,
        2,
      ),
    );
  } finally {
    if (gateway && !gateway.exited) {
      gateway.child.kill('SIGTERM');
      await gateway.waitForExit(30_000).catch(() => gateway?.child.kill('SIGKILL'));
    }
    empty?.kill('SIGTERM');
    await dropDatabase(databaseUrl);
  }
}

if (ONLY === 'settlement') {
  console.log(JSON.stringify({ machine: machine(), settlement: await settlementSection() }, null, 2));
} else if (ONLY === 'dashboard') {
  console.log(JSON.stringify({ machine: machine(), dashboard: await dashboardSection() }, null, 2));
} else if (ONLY === 'webhooks') {
  console.log(JSON.stringify({ machine: machine(), webhooks: await webhooksSection() }, null, 2));
} else if (ONLY === 'balance') {
  console.log(JSON.stringify({ machine: machine(), balance: await balanceSection() }, null, 2));
} else {
  await main();
}
