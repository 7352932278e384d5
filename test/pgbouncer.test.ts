/**
 * The gateway behind PgBouncer in transaction pooling mode (issue 16 item 2;
 * docs/decisions/0035-pgbouncer.md). An api process and a worker process run the built program with
 * DATABASE_URL through a pgbouncer of the test's own (two server connections for the database, handed
 * out in turn, so consecutive transactions of one client land on different sessions) and
 * DATABASE_MIGRATION_URL straight to PostgreSQL: both migrate the fresh database at once on the direct
 * connection, then a charge is created and paid, its webhooks reach a receiver signed, it is refunded,
 * and the settlement schedule runs its period. The admin console then shows the traffic went through
 * the pooler, and every session the database has is one of the pooler's.
 *
 * It needs a PostgreSQL server on both passes (the pooler is in front of one): the PGlite pass uses the
 * local server every machine that runs the suite has (`postgresServerUrl`), in a database of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxAcquirer, type SandboxAcquirer } from '../sandbox-acquirer/server.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateThrough, readMigrations } from '../src/db/migrator.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { systemClock } from '../src/shared/clock.js';
import { acquirerControl } from './helpers/acquirer.js';
import { createFreshDatabase, dropDatabase, postgresServerUrl } from './helpers/database.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createOrganization, issueKey } from './helpers/merchants.js';
import { startPgBouncer, type PgBouncer } from './helpers/pgbouncer.js';
import {
  eventually,
  gatewayEnv,
  killAllGateways,
  spawnGateway,
  type BannerUrls,
  type GatewayProcess,
} from './helpers/process.js';
import { signedWith } from './helpers/receivers.js';

const CREDENTIALS = {
  apiKey: 'sa_pgbouncer_test_key',
  notificationSecret: 'pgbouncer-test-notification-secret',
};
/** Server connections the pooler opens for the database: far fewer than the two processes' pools. */
const SERVER_CONNECTIONS = 2;

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}
interface EventBody {
  id: string;
  eventType: string;
  data: { id: string };
}

const cleanups: Array<() => Promise<void> | void> = [];
let bouncer: PgBouncer;
let acquirer: SandboxAcquirer;
let database: Database;
let databaseName: string;
/** A second database behind the pooler, for the migrations' own case. */
let migrationTarget: string;
let api: BannerUrls;
let workerProcess: GatewayProcess;
let apiKey: string;
const received: Received[] = [];
let receiverUrl: string;

beforeAll(async () => {
  const directUrl = await createFreshDatabase();
  cleanups.push(() => dropDatabase(directUrl));
  databaseName = new URL(directUrl).pathname.slice(1);
  migrationTarget = await createFreshDatabase();
  cleanups.push(() => dropDatabase(migrationTarget));
  bouncer = await startPgBouncer({
    serverUrl: postgresServerUrl,
    databases: [databaseName, new URL(migrationTarget).pathname.slice(1)],
    poolSize: SERVER_CONNECTIONS,
  });
  cleanups.push(() => bouncer.close());
  acquirer = await startSandboxAcquirer({ port: 0, ...CREDENTIALS, clock: systemClock });
  cleanups.push(() => acquirer.close());
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        receiver.closeAllConnections();
        receiver.close(() => resolve());
      }),
  );
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gw-pgbouncer-data-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

  // One key for both processes: the worker opens the webhook secrets the api sealed.
  const encryptionKeys = generateEncryptionKeys();
  const env = (roles: string) =>
    gatewayEnv({
      DATA_DIR: dataDir,
      ROLES: roles,
      DATABASE_URL: bouncer.url(databaseName),
      DATABASE_MIGRATION_URL: directUrl,
      ENCRYPTION_KEYS: encryptionKeys,
      SANDBOX_ACQUIRER_URL: acquirer.url,
      SANDBOX_ACQUIRER_API_KEY: CREDENTIALS.apiKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: CREDENTIALS.notificationSecret,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      // The settlement schedule's latest period (03:00 UTC) runs as the worker starts; no reconciliation.
      SETTLEMENT_CRON: '0 3 * * *',
      RECONCILIATION_CRON: 'off',
      // node-postgres names its connections after it: the pooler's clients say which process they are.
      PGAPPNAME: `gateway-${roles}`,
    });
  // Both start on the empty database at once: the migrations run once, on the direct connection.
  const apiProcess = spawnGateway({ env: env('api') });
  workerProcess = spawnGateway({ env: env('worker') });
  cleanups.push(() => killAllGateways());
  [api] = await Promise.all([apiProcess.waitForBanner(45_000), workerProcess.waitForBanner(45_000)]);

  // The test's own statements go through the pooler too: the database keeps no session of its own.
  database = await openDatabase({ databaseUrl: bouncer.url(databaseName), poolSize: 2 });
  cleanups.push(() => database.close());
  const organizationId = await createOrganization(database.db, systemClock);
  apiKey = (await issueKey(database.db, systemClock, organizationId, { scopes: ['all'] })).secret;
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const call = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
  request<T & ErrorBody>(`${api.sandboxApi ?? ''}${path}`, {
    ...init,
    headers: { 'x-api-key': apiKey },
  });

const signedBy = signedWith;

const eventsOf = (chargeId: string) =>
  received
    .map((delivery) => ({ delivery, event: JSON.parse(delivery.raw.toString('utf8')) as EventBody }))
    .filter(({ event }) => event.data.id === chargeId);

describe('the gateway behind PgBouncer in transaction pooling mode', () => {
  it('creates, pays and refunds a charge and delivers its webhooks signed, api and worker through the pooler', async () => {
    const endpoint = await call<{ id: string; secret: string }>('/v1/webhook-endpoints', {
      method: 'POST',
      body: { url: receiverUrl, enabledEvents: ['charge.succeeded', 'charge.refunded'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);

    const created = await call<{ id: string; providerPaymentId: string; status: string }>('/v1/charges', {
      method: 'POST',
      body: validCharge(),
    });
    expect(created.status, created.text).toBe(201);
    const charge = created.body;
    // Paid at the acquirer as the checkout pays; its signed notification completes the charge.
    const control = acquirerControl({ url: acquirer.url, apiKey: CREDENTIALS.apiKey });
    const paid = await control.authorize(charge.providerPaymentId);
    expect(paid.status, paid.text).toBe(200);
    let status = '';
    await eventually(
      async () => {
        status = (await call<{ status: string }>(`/v1/charges/${charge.id}`)).body.status;
        return status === 'succeeded';
      },
      15_000,
      'the charge to succeed',
    );

    const refund: HttpResult<{ id: string; status: string; amount: string } & ErrorBody> = await call(
      `/v1/charges/${charge.id}/refunds`,
      { method: 'POST', body: {} },
    );
    expect(refund.status, refund.text).toBe(201);
    expect(refund.body.status).toBe('succeeded');

    // The worker delivers both events to the receiver, each signed with the endpoint's secret.
    await eventually(async () => eventsOf(charge.id).length >= 2, 15_000, 'the webhooks of the charge');
    const deliveries = eventsOf(charge.id);
    expect(deliveries.map(({ event }) => event.eventType).sort()).toEqual([
      'charge.refunded',
      'charge.succeeded',
    ]);
    for (const { delivery } of deliveries) expect(signedBy(delivery, endpoint.body.secret)).toBe(true);
    // The worker records each attempt once the receiver answered: both, succeeded.
    let attempts: Array<{ succeeded: boolean }> = [];
    await eventually(
      async () => {
        attempts = await database.db
          .selectFrom('webhook_attempts')
          .select(['succeeded'])
          .where('endpoint_id', '=', endpoint.body.id)
          .execute();
        return attempts.length >= 2;
      },
      10_000,
      'the attempts to be recorded',
    );
    expect(attempts.every((attempt) => attempt.succeeded)).toBe(true);
  });

  it("runs the settlement schedule's period once, recorded in the run log", async () => {
    let periods: Array<{ state: string; attempts: number }> = [];
    let runs: Array<{ outcome: string; period_start: Date | null }> = [];
    // The run log's row is written after the run returns, so after the period's own commit: both are
    // waited for.
    await eventually(
      async () => {
        periods = await database.db
          .selectFrom('job_periods')
          .select(['state', 'attempts'])
          .where('job', '=', 'settlement-daily')
          .execute();
        runs = await database.db
          .selectFrom('job_runs')
          .select(['outcome', 'period_start'])
          .where('job', '=', 'settlement-daily')
          .execute();
        return periods.some((period) => period.state === 'done') && runs.length > 0;
      },
      15_000,
      'the settlement period to be done and its run recorded',
    );
    expect(periods).toEqual([{ state: 'done', attempts: 1 }]);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.outcome).toBe('succeeded');
  });

  it('went through the pooler: its pool and statistics, and no session of the database but its own', async () => {
    const pools = await bouncer.admin('SHOW POOLS');
    const pool = pools.find((row) => row.database === databaseName);
    expect(pool?.pool_mode).toBe('transaction');
    const stats = (await bouncer.admin('SHOW STATS')).find((row) => row.database === databaseName);
    // Both processes' jobs and requests: the flow above alone commits dozens of transactions.
    expect(Number(stats?.total_xact_count)).toBeGreaterThan(20);
    expect(Number(stats?.total_query_count)).toBeGreaterThanOrEqual(Number(stats?.total_xact_count));

    // More clients (the api's and the worker's pools, and the test's) than server connections.
    const clients = (await bouncer.admin('SHOW CLIENTS')).filter((row) => row.database === databaseName);
    expect(clients.length).toBeGreaterThan(SERVER_CONNECTIONS);
    const names = new Set(clients.map((row) => row.application_name));
    expect(names).toContain('gateway-api');
    expect(names).toContain('gateway-worker');

    // Every session the database has is one of the pooler's server connections: the processes keep no
    // direct connection (the migrations' was closed once they were done).
    const direct = new pg.Client({ connectionString: postgresServerUrl });
    await direct.connect();
    let backends: number[];
    try {
      const result = await direct.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
        [databaseName],
      );
      backends = result.rows.map((row) => row.pid);
    } finally {
      await direct.end();
    }
    const servers = (await bouncer.admin('SHOW SERVERS')).filter((row) => row.database === databaseName);
    // The worker, which serves no listener, is still running (it used to exit once its connections idled).
    expect(workerProcess.exited).toBe(false);
    expect(servers.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    expect(backends.length).toBeGreaterThan(0);
    expect(servers.map((row) => Number(row.remote_pid))).toEqual(expect.arrayContaining(backends));
  });
});

describe('DATABASE_MIGRATION_URL', () => {
  it('migrates on that direct connection, closed afterwards; unset, on a session of the pool', async () => {
    const name = new URL(migrationTarget).pathname.slice(1);
    const pooled = await openDatabase({ databaseUrl: bouncer.url(name), poolSize: 2 });
    try {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-pgbouncer-migrations-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      // Each migration records the server session it ran on.
      writeFileSync(
        path.join(dir, '0001_direct.sql'),
        'CREATE TABLE sessions AS SELECT 1 AS step, pg_backend_pid() AS pid;',
      );
      expect(await migrateThrough(pooled, migrationTarget, readMigrations(dir))).toEqual(['0001_direct.sql']);
      writeFileSync(path.join(dir, '0002_pooled.sql'), 'INSERT INTO sessions SELECT 2, pg_backend_pid();');
      expect(await migrateThrough(pooled, undefined, readMigrations(dir))).toEqual(['0002_pooled.sql']);

      const sessions = await sql<{ step: number; pid: number }>`
        select step, pid from sessions order by step`.execute(pooled.db);
      const servers = (await bouncer.admin('SHOW SERVERS'))
        .filter((row) => row.database === name)
        .map((row) => Number(row.remote_pid));
      const [direct, throughPool] = sessions.rows;
      // The first ran on a session of its own, not one of the pooler's; the second on one of the pooler's.
      expect(servers).not.toContain(direct?.pid);
      expect(servers).toContain(throughPool?.pid);
      // The direct connection is closed once the migrations are done (its backend then exits).
      const admin = new pg.Client({ connectionString: postgresServerUrl });
      await admin.connect();
      try {
        await eventually(
          async () =>
            (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [direct?.pid])).rowCount ===
            0,
          5000,
          "the migrations' connection to close",
        );
      } finally {
        await admin.end();
      }
    } finally {
      await pooled.close();
    }
  });

  it('is read beside DATABASE_URL, unset by default, and needs DATABASE_URL', () => {
    const pooled = 'postgres://gateway@pgbouncer.internal:6432/gateway';
    const direct = 'postgres://gateway@db.internal:5432/gateway';
    expect(loadConfig({ DATABASE_URL: pooled }).databaseMigrationUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: pooled, DATABASE_MIGRATION_URL: direct })).toMatchObject({
      databaseUrl: pooled,
      databaseMigrationUrl: direct,
    });
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems({ DATABASE_MIGRATION_URL: direct })).toEqual([
      'DATABASE_MIGRATION_URL needs DATABASE_URL: it is a second way into the same PostgreSQL database',
    ]);
    expect(problems({ DATABASE_URL: pooled, DATABASE_MIGRATION_URL: 'mysql://db/gateway' })).toEqual([
      expect.stringMatching(/^DATABASE_MIGRATION_URL must be a URL starting with postgres:\/\//),
    ]);
  });
});
