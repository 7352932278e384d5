/**
 * `npm run bench`: throughput and latency of the charge endpoints on the real PostgreSQL, beside the
 * machine's own ceilings measured in the same run (docs/benchmarks.md):
 * - an empty Fastify route in a process of its own (the HTTP ceiling);
 * - the charges (bench/charges.ts): `POST /v1/charges`, `GET /v1/charges/{id}` and `GET /v1/charges?limit=20`
 *   at BENCH_CHARGE_SIZES charges in the table (default 1000,100000), each beside the SQL that one such
 *   request sends, recorded and replayed through node-postgres without HTTP (its database ceiling), on
 *   copies of one seeded database so that no phase measures another's rows.
 * - the hosted checkout (bench/checkout.ts): `GET /c/{paymentId}` of an unpaid card charge and the card
 *   form's `POST /c/{paymentId}/card` paying it through the sandbox acquirer, at BENCH_CHECKOUT_SIZES
 *   charges in the table (default 1000,100000), each beside the SQL one such request sends, replayed.
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
 * cost at 1k and 100k due beside the claim statement it replaced. Then the disputes (bench/disputes.ts): the
 * month's ratios of every merchant beside the bare SQL counting the same rows, one merchant's ratio page at
 * 1k to 100k card sales, and disputes raised at 50/s through the sandbox acquirer to the merchant's webhooks.
 * Prints one JSON document on stdout. BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_PAYOUT_ORGANIZATIONS (default 50), BENCH_BALANCE_SIZES (default 1000,10000,100000),
 * BENCH_SETTLEMENT_CHARGES (default 1 000 000), BENCH_SETTLEMENT_ORGANIZATIONS (default 10 000) and
 * BENCH_SETTLEMENT_HISTORY (default 1: the previous business day settled first; 0: empty settlement
 * tables), BENCH_DASHBOARD_SIZES (default 1000,10000,100000), BENCH_CHARGE_SIZES, BENCH_CHARGE_RUNS
 * (default 1: measurements of the POST per size, the median printed), BENCH_CHECKOUT_SIZES,
 * BENCH_WEBHOOK_BACKLOG (default 20 000), BENCH_DISPUTES_CHARGES (default 100 000; 1000000 for the large
 * size), BENCH_DISPUTES_ORGANIZATIONS (default 10 000), BENCH_DISPUTES_RUNS (default 5),
 * BENCH_DISPUTES_PAGE_SIZES (default 1000,10000,100000), BENCH_DISPUTES_RATE (default 50 disputes a second,
 * for BENCH_DURATION_S) and BENCH_DISPUTES_PARTS (default month,page,webhooks) tune it;
 * BENCH_ONLY=disputes, BENCH_ONLY=charges, BENCH_ONLY=checkout,
 * BENCH_ONLY=balance, BENCH_ONLY=settlement, BENCH_ONLY=dashboard or BENCH_ONLY=webhooks runs that section
 * alone; DATABASE_URL names the server (default the local one). The gateway processes run from dist/,
 * built first (incrementally), as `npm start` runs them.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { createFreshDatabase, dropDatabase, postgresServerUrl } from '../test/helpers/database.js';
import { buildProgram } from '../scripts/build.js';
import { benchBalance } from './balance.js';
import { benchCharges } from './charges.js';
import { benchCheckout } from './checkout.js';
import { benchDashboard } from './dashboard.js';
import { benchDisputes, DISPUTE_PARTS, type DisputePart } from './disputes.js';
import { load, ratio } from './measure.js';
import { benchPayouts } from './payouts.js';
import { benchSettlement } from './settlement.js';
import { benchWebhooks } from './webhooks.js';
import { spawnListening } from './spawn.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PAYOUT_ORGANIZATIONS = Number(process.env.BENCH_PAYOUT_ORGANIZATIONS ?? 50);
const SETTLEMENT_CHARGES = Number(process.env.BENCH_SETTLEMENT_CHARGES ?? 1_000_000);
const SETTLEMENT_ORGANIZATIONS = Number(process.env.BENCH_SETTLEMENT_ORGANIZATIONS ?? 10_000);
const SETTLEMENT_HISTORY = (process.env.BENCH_SETTLEMENT_HISTORY ?? '1').trim();
const sizesOf = (text: string) => text.split(',').map((size) => Number(size.trim().replace(/_/g, '')));
const BALANCE_SIZES = sizesOf(process.env.BENCH_BALANCE_SIZES?.trim() || '1000,10000,100000');
const DASHBOARD_SIZES = sizesOf(process.env.BENCH_DASHBOARD_SIZES?.trim() || '1000,10000,100000');
const CHARGE_SIZES = sizesOf(process.env.BENCH_CHARGE_SIZES?.trim() || '1000,100000');
const CHARGE_RUNS = Number(process.env.BENCH_CHARGE_RUNS?.trim() || '1');
const CHECKOUT_SIZES = sizesOf(process.env.BENCH_CHECKOUT_SIZES?.trim() || '1000,100000');
const DISPUTES_CHARGES = Number(process.env.BENCH_DISPUTES_CHARGES?.trim() || '100000');
const DISPUTES_ORGANIZATIONS = Number(process.env.BENCH_DISPUTES_ORGANIZATIONS?.trim() || '10000');
const DISPUTES_RUNS = Number(process.env.BENCH_DISPUTES_RUNS?.trim() || '5');
const DISPUTES_PAGE_SIZES = sizesOf(process.env.BENCH_DISPUTES_PAGE_SIZES?.trim() || '1000,10000,100000');
const DISPUTES_RATE = Number(process.env.BENCH_DISPUTES_RATE?.trim() || '50');
const DISPUTES_PARTS = (process.env.BENCH_DISPUTES_PARTS?.trim() || DISPUTE_PARTS.join(','))
  .split(',')
  .map((part) => part.trim());
if (DISPUTES_PARTS.some((part) => !(DISPUTE_PARTS as readonly string[]).includes(part)))
  throw new Error(
    `BENCH_DISPUTES_PARTS must name some of ${DISPUTE_PARTS.join(', ')}, got "${DISPUTES_PARTS}"`,
  );
const SECTIONS = [
  'charges',
  'checkout',
  'balance',
  'settlement',
  'dashboard',
  'webhooks',
  'disputes',
] as const;
const ONLY = process.env.BENCH_ONLY?.trim() || undefined;
if (SETTLEMENT_HISTORY !== '0' && SETTLEMENT_HISTORY !== '1')
  throw new Error(`BENCH_SETTLEMENT_HISTORY must be 0 or 1, got "${SETTLEMENT_HISTORY}"`);
if (ONLY !== undefined && !(SECTIONS as readonly string[]).includes(ONLY))
  throw new Error(
    `BENCH_ONLY must be "charges", "checkout", "balance", "settlement", "dashboard", "webhooks" or "disputes" (or unset for every section), got "${ONLY}"`,
  );
for (const [name, value] of [
  ['BENCH_SETTLEMENT_CHARGES', SETTLEMENT_CHARGES],
  ['BENCH_SETTLEMENT_ORGANIZATIONS', SETTLEMENT_ORGANIZATIONS],
  ['BENCH_CHARGE_RUNS', CHARGE_RUNS],
  ['BENCH_DISPUTES_CHARGES', DISPUTES_CHARGES],
  ['BENCH_DISPUTES_ORGANIZATIONS', DISPUTES_ORGANIZATIONS],
  ['BENCH_DISPUTES_RUNS', DISPUTES_RUNS],
  ['BENCH_DISPUTES_RATE', DISPUTES_RATE],
  ...DISPUTES_PAGE_SIZES.map((size) => ['BENCH_DISPUTES_PAGE_SIZES (each, comma-separated)', size] as const),
  ...BALANCE_SIZES.map((size) => ['BENCH_BALANCE_SIZES (each, comma-separated)', size] as const),
  ...DASHBOARD_SIZES.map((size) => ['BENCH_DASHBOARD_SIZES (each, comma-separated)', size] as const),
  ...CHARGE_SIZES.map((size) => ['BENCH_CHARGE_SIZES (each, comma-separated)', size] as const),
  ...CHECKOUT_SIZES.map((size) => ['BENCH_CHECKOUT_SIZES (each, comma-separated)', size] as const),
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}

const machine = () => ({
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  database: new URL(postgresServerUrl).host,
});

const chargesSection = () =>
  benchCharges({ sizes: CHARGE_SIZES, durationS: DURATION_S, connections: CONNECTIONS, runs: CHARGE_RUNS });

const checkoutSection = () =>
  benchCheckout({ sizes: CHECKOUT_SIZES, durationS: DURATION_S, connections: CONNECTIONS });

const balanceSection = () => benchBalance({ sizes: BALANCE_SIZES });

const dashboardSection = () => benchDashboard({ sizes: DASHBOARD_SIZES });

const disputesSection = () =>
  benchDisputes({
    parts: DISPUTES_PARTS as DisputePart[],
    month: { charges: DISPUTES_CHARGES, organizations: DISPUTES_ORGANIZATIONS, runs: DISPUTES_RUNS },
    page: { sizes: DISPUTES_PAGE_SIZES },
    webhooks: { rate: DISPUTES_RATE, durationS: DURATION_S },
  });

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

const spawnEmptyServer = () => spawnListening('empty-server.ts', 'empty server');

async function main(): Promise<void> {
  let empty: ChildProcess | undefined;
  try {
    const emptyServer = await spawnEmptyServer();
    empty = emptyServer.child;
    const emptyRoute = await loadFor({ url: `${emptyServer.url}/empty` });
    empty.kill('SIGTERM');
    empty = undefined;

    // The charges, each size on copies of a database of its own (bench/charges.ts).
    const charges = await chargesSection();

    // The hosted checkout, each size on copies of a database of its own (bench/checkout.ts).
    const checkout = await checkoutSection();

    // Payouts on a database of their own.
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
    const disputes = await disputesSection();

    console.log(
      JSON.stringify(
        {
          machine: machine(),
          settings: { durationSeconds: DURATION_S, connections: CONNECTIONS },
          ceilings: { emptyFastifyRoute: emptyRoute },
          charges: charges.map((size) => ({
            ...size,
            ratiosToEmptyFastify: {
              'POST /v1/charges': ratio(
                size['POST /v1/charges'].requestsPerSecond,
                emptyRoute.requestsPerSecond,
              ),
              'GET /v1/charges/{id}': ratio(
                size['GET /v1/charges/{id}'].requestsPerSecond,
                emptyRoute.requestsPerSecond,
              ),
              'GET /v1/charges?limit=20': ratio(
                size['GET /v1/charges?limit=20'].requestsPerSecond,
                emptyRoute.requestsPerSecond,
              ),
            },
          })),
          checkout: checkout.map((size) => ({
            ...size,
            ratiosToEmptyFastify: {
              'GET /c/{paymentId}': ratio(
                size['GET /c/{paymentId}'].requestsPerSecond,
                emptyRoute.requestsPerSecond,
              ),
              'POST /c/{paymentId}/card': ratio(
                size['POST /c/{paymentId}/card'].requestsPerSecond,
                emptyRoute.requestsPerSecond,
              ),
            },
          })),
          payouts: {
            ...payouts,
            ratioToEmptyFastify: ratio(
              payouts['POST /v1/payouts, spread over the organizations'].requestsPerSecond,
              emptyRoute.requestsPerSecond,
            ),
          },
          balance,
          settlement,
          dashboard,
          webhooks,
          disputes,
        },
        null,
        2,
      ),
    );
  } finally {
    empty?.kill('SIGTERM');
  }
}

// The gateway processes the sections spawn run from dist/, as `npm start` runs them (`npm run build`'s
// transpilation).
await buildProgram();

if (ONLY === 'charges') {
  console.log(JSON.stringify({ machine: machine(), charges: await chargesSection() }, null, 2));
} else if (ONLY === 'checkout') {
  console.log(JSON.stringify({ machine: machine(), checkout: await checkoutSection() }, null, 2));
} else if (ONLY === 'settlement') {
  console.log(JSON.stringify({ machine: machine(), settlement: await settlementSection() }, null, 2));
} else if (ONLY === 'dashboard') {
  console.log(JSON.stringify({ machine: machine(), dashboard: await dashboardSection() }, null, 2));
} else if (ONLY === 'webhooks') {
  console.log(JSON.stringify({ machine: machine(), webhooks: await webhooksSection() }, null, 2));
} else if (ONLY === 'disputes') {
  console.log(JSON.stringify({ machine: machine(), disputes: await disputesSection() }, null, 2));
} else if (ONLY === 'balance') {
  console.log(JSON.stringify({ machine: machine(), balance: await balanceSection() }, null, 2));
} else {
  await main();
}
