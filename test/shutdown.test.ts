/**
 * Issue 17: a shutdown that always finishes. The real program (src/main.ts through tsx) is stopped the way
 * a process supervisor stops it, with its stdout to a pipe nobody reads, with the reader gone, in the
 * middle of a burst of webhook deliveries, past its deadline, and by SIGKILL; on the pass's database (the
 * embedded one in a data directory on the PGlite pass, PostgreSQL on the other).
 */
import { readFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  authorizedCharge,
  prepareProgramRun,
  programCleanups,
  programTargets,
  startProgram,
  tempDir,
  withDatabase,
} from './helpers/crash.js';
import { describeOnPass, seedDataDir } from './helpers/database.js';
import { request, validApplication, validCharge } from './helpers/http.js';
import { startTestGateway } from './helpers/gateway.js';
import { createMerchant } from './helpers/merchants.js';
import {
  eventually,
  gatewayEnv,
  stallStdout,
  waitForProcessExit,
  type GatewayProcess,
  type ProgramDatabase,
} from './helpers/process.js';
import { startWebhookReceiver } from './helpers/receivers.js';
import { payByCard } from './helpers/charges.js';

const cleanups = programCleanups();

const ACQUIRER = { apiKey: 'sa_shutdown_key', notificationSecret: 'shutdown-notification-secret' };

/** Short enough to keep the suite quick, long enough for a graceful stop on a loaded machine. */
const SHUTDOWN_TIMEOUT_MS = 8000;
/** What the exit may take beyond the deadline: the process's own exit and the test's observation of it. */
const EXIT_SLACK_MS = 2000;

const targets = programTargets(cleanups, 'PGlite');

const dataDirOfTest = () => tempDir(cleanups, 'gw-shutdown-');

/** What every program of these tests runs with, before its data directory and the test's own. */
const PROGRAM_SETTINGS = {
  LOG_LEVEL: 'info',
  APPLICATION_RATE_LIMIT_MAX: '1000000',
  SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  // The smallest buffer: a stalled reader makes the program drop lines after a few hundred requests.
  LOG_BUFFER_BYTES: '16384',
};

function programEnv(dataDir: string, extra: Record<string, string>): Record<string, string> {
  return gatewayEnv({ ...PROGRAM_SETTINGS, DATA_DIR: dataDir, ...extra });
}

/** The program on a data directory of its own and the pass's database, `extra` in its environment. */
async function startOn(target: ProgramDatabase, extra: Record<string, string> = {}) {
  const dataDir = dataDirOfTest();
  const { env } = await target.prepare(dataDir);
  const { program: gateway, urls } = await startProgram(programEnv(dataDir, { ...env, ...extra }));
  return { dataDir, gateway, urls };
}

/** A stop releases the DATA_DIR lock (PGlite only: PostgreSQL takes none). */
function expectLockReleased(target: ProgramDatabase, dataDir: string): void {
  if (target.name === 'PGlite') expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
}

/**
 * Enough requests that their log lines overflow the pipe (64 KiB) and the program's buffer (16 KiB) several
 * times over (each request logs its URL, some 4 KB: 120 requests are about 500 KB); every one must still
 * be answered, which shows logging never waits for the reader.
 */
async function burstOfRequests(baseUrl: string, count = 120): Promise<void> {
  const padding = 'x'.repeat(4000);
  for (let sent = 0; sent < count; sent += 20) {
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => (await fetch(`${baseUrl}/healthz?pad=${padding}`)).status),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
  }
}

async function sigterm(gateway: GatewayProcess) {
  const exited = waitForProcessExit(gateway.child, SHUTDOWN_TIMEOUT_MS + 60_000);
  gateway.child.kill('SIGTERM');
  return exited;
}

describe.each(targets)('stopping the program on $name', { timeout: 300_000 }, (target) => {
  it('exits within SHUTDOWN_TIMEOUT_MS on SIGTERM while nobody reads its stdout; drops, never waits', async () => {
    const { dataDir, gateway, urls } = await startOn(target);
    const api = urls.sandboxApi ?? '';

    // A first stall: the API keeps answering, and once the reader is back, one warning counts the loss.
    const stall = stallStdout(gateway);
    await burstOfRequests(api);
    stall.resume();
    const warning = await gateway.waitFor(
      /\{[^\n]*"droppedLines":(\d+)[^\n]*"msg":"log stream recovered[^\n]*\}/,
      { timeoutMs: 30_000 },
    );
    expect(Number(warning[1])).toBeGreaterThan(0);
    expect(gateway.stdout().match(/log stream recovered/g)).toHaveLength(1);

    // A second stall, this time for good: SIGTERM, and the process is gone within the deadline.
    stallStdout(gateway);
    await burstOfRequests(api);
    const exit = await sigterm(gateway);
    expect(exit.code).toBe(0);
    expect(exit.afterMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
    expectLockReleased(target, dataDir);
  });

  it('exits on SIGTERM after the reader of its stdout went away', async () => {
    const { dataDir, gateway, urls } = await startOn(target);
    gateway.child.stdout?.destroy();
    // Writes now fail with EPIPE: the program must neither crash nor stall on them.
    await burstOfRequests(urls.sandboxApi ?? '', 40);
    const exit = await sigterm(gateway);
    expect(exit.code).toBe(0);
    expect(exit.afterMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
    expectLockReleased(target, dataDir);
  });

  it('forces the exit at SHUTDOWN_TIMEOUT_MS when a request never finishes, releasing the lock', async () => {
    const { dataDir, gateway, urls } = await startOn(target, { SHUTDOWN_TIMEOUT_MS: '3000' });
    // Half a request body, never finished: the graceful close waits for it until the deadline.
    const { hostname, port } = new URL(urls.sandboxApi ?? '');
    const socket = net.connect({ host: hostname, port: Number(port) });
    cleanups.push(() => void socket.destroy());
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const body = JSON.stringify(validApplication());
    socket.write(
      `POST /v1/applications HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await gateway.waitFor(/"url":"\/v1\/applications"[^\n]*"msg":"incoming request"/);
    stallStdout(gateway);

    const exit = await sigterm(gateway);
    expect(exit.code).toBe(1);
    expect(exit.afterMs).toBeGreaterThanOrEqual(2500);
    expect(exit.afterMs).toBeLessThan(3000 + EXIT_SLACK_MS);
    expectLockReleased(target, dataDir);
  });

  it('stops during a burst of webhook deliveries: every attempt sent is recorded, none is sent twice', async () => {
    const run = await prepareProgramRun(target, cleanups, {
      prefix: 'gw-shutdown-',
      credentials: ACQUIRER,
      organization: { featureFlags: ['apiKeys'] },
    });
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());

    const env = run.env({
      ...PROGRAM_SETTINGS,
      ROLES: 'api,worker',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // Fewer slots than deliveries (the defaults before ADR 0036), so the stop finds some claimed and unsent.
      WEBHOOK_CONCURRENCY: '10',
      WEBHOOK_PER_ENDPOINT: '2',
      // A lease of 2 x 20 s + 10 s: the restart below finishes long before a lapsed lease could matter.
      WEBHOOK_TIMEOUT_MS: '20000',
      SHUTDOWN_TIMEOUT_MS: '20000',
      LOG_LEVEL: 'info',
    });
    const { api } = run;

    // The receiver holds every request until released: the first attempts stay on the wire, and with at
    // most two per endpoint in flight nothing more is sent, until the stop has begun.
    receiver.holdFrom(1);
    const { program: first, url: firstApi } = await startProgram(env);
    const ENDPOINTS = 3;
    const CHARGES = 6;
    for (let index = 0; index < ENDPOINTS; index++) {
      const endpoint = await api(firstApi, '/v1/webhook-endpoints', {
        url: `${receiver.url}/${index}`,
        enabledEvents: ['charge.succeeded'],
      });
      expect(endpoint.status, endpoint.text).toBe(201);
    }
    const chargeIds: string[] = [];
    for (let index = 0; index < CHARGES; index++) {
      const { charge, authorized } = await authorizedCharge(run, firstApi);
      chargeIds.push(charge.id);
      expect(authorized.status, authorized.text).toBeLessThan(300);
    }
    const total = ENDPOINTS * CHARGES;
    // Every charge succeeded (the acquirer's notification reached this process), so every delivery exists.
    await eventually(
      async () => {
        const statuses = await Promise.all(
          chargeIds.map(
            async (id) => (await api<{ status: string }>(firstApi, `/v1/charges/${id}`)).body.status,
          ),
        );
        return statuses.every((status) => status === 'succeeded');
      },
      60_000,
      'every charge to succeed',
      200,
    );

    // Stop while attempts are on the wire; they are answered once the stop has begun.
    await receiver.waitForRequests(2, 60_000);
    const exited = sigterm(first);
    await first.waitFor(/shutting down: finishing requests in flight/);
    receiver.release();
    const exit = await exited;
    expect(exit.code, `${first.stdout()}\n${first.stderr()}`).toBe(0);
    const sentBeforeStop = receiver.received.length;
    expect(sentBeforeStop).toBeLessThan(total);

    // Every request the receiver got has its attempt recorded (and succeeded); nothing is left leased.
    await withDatabase(run.open, async ({ db }) => {
      const attempts = await db
        .selectFrom('webhook_attempts')
        .select(['delivery_id', 'succeeded'])
        .where('organization_id', '=', run.organizationId)
        .execute();
      expect(attempts).toHaveLength(sentBeforeStop);
      expect(attempts.every((attempt) => attempt.succeeded)).toBe(true);
      const leased = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('organization_id', '=', run.organizationId)
        .where('lease_token', 'is not', null)
        .execute();
      expect(leased).toEqual([]);
    });

    // A restart sends the rest at once (no lease to wait for), and no delivery reaches the receiver twice.
    // The last attempt is held on the wire: the stop waits for it and records it.
    receiver.holdFrom(total);
    const { program: second } = await startProgram(env);
    await receiver.waitForRequests(total, 45_000);
    const secondExited = sigterm(second);
    await second.waitFor(/shutting down: finishing requests in flight/);
    receiver.release();
    const secondExit = await secondExited;
    expect(secondExit.code).toBe(0);
    const keys = receiver.received.map((received) => `${received.path} ${received.eventId}`);
    expect(new Set(keys).size).toBe(total);
    expect(receiver.received).toHaveLength(total);

    await withDatabase(run.open, async ({ db }) => {
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('organization_id', '=', run.organizationId)
        .execute();
      expect(deliveries).toHaveLength(total);
      expect(deliveries.every((row) => row.status === 'succeeded' && row.attempts === 1)).toBe(true);
      const attempts = await db
        .selectFrom('webhook_attempts')
        .select('id')
        .where('organization_id', '=', run.organizationId)
        .execute();
      expect(attempts).toHaveLength(total);
    });
  });
});

describeOnPass('embedded')('the data directory lock', { timeout: 300_000 }, () => {
  it('left behind by SIGKILL is recovered on the next start, with a message naming the dead process', async () => {
    const dataDir = dataDirOfTest();
    seedDataDir(dataDir);
    const env = programEnv(dataDir, {});
    const { program: first } = await startProgram(env);
    expect((await first.stop('SIGKILL', 30_000)).signal).toBe('SIGKILL');
    const lockFile = path.join(dataDir, 'gateway.lock');
    expect(readFileSync(lockFile, 'utf8')).toBe(String(first.pid));

    const { program: second, urls } = await startProgram(env);
    expect(second.stdout()).toMatch(
      new RegExp(
        `"msg":"recovered the DATA_DIR lock left by process ${first.pid}, which is no longer running`,
      ),
    );
    expect(readFileSync(lockFile, 'utf8')).toBe(String(second.pid));
    const applied = await request(`${urls.sandboxApi}/v1/applications`, { body: validApplication() });
    expect(applied.status).toBe(201);
    const exit = await sigterm(second);
    expect(exit.code).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });
});

describe('the webhook dispatcher stopped between its claim and the send', { timeout: 120_000 }, () => {
  it('hands the claimed deliveries back at once: due now, no lease, nothing sent, nothing recorded', async () => {
    // No worker role: this test drives the dispatcher itself.
    const t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer' } });
    cleanups.push(() => t.close());
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const merchant = await createMerchant(t);
    const key = merchant.keys.sandbox.secret;
    const endpoint = await request<{ id: string }>(`${t.urls.sandboxApi}/v1/webhook-endpoints`, {
      body: { url: receiver.url, enabledEvents: ['charge.succeeded'] },
      headers: { 'x-api-key': key },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    for (let index = 0; index < 2; index++) {
      const charge = await request<{ id: string; providerPaymentId: string }>(
        `${t.urls.sandboxApi}/v1/charges`,
        { body: validCharge(), headers: { 'x-api-key': key } },
      );
      expect(charge.status, charge.text).toBe(201);
      await payByCard(t.gateway.services, charge.body, 'Stop Test');
    }

    const dispatcher = t.gateway.services.webhooks.dispatcher;
    // The stop arrives while the claim's transaction is running: what it claims must not be sent.
    const pumping = dispatcher.pump();
    await dispatcher.stop(Date.now() + 10_000);
    await pumping;

    const db = t.gateway.database.db;
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['status', 'lease_token', 'next_attempt_at', 'attempts'])
      .where('endpoint_id', '=', endpoint.body.id)
      .execute();
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'pending', lease_token: null, attempts: 0 });
      expect(delivery.next_attempt_at.getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
    }
    expect(receiver.received).toEqual([]);
    expect(
      await db
        .selectFrom('webhook_attempts')
        .select('id')
        .where('endpoint_id', '=', endpoint.body.id)
        .execute(),
    ).toEqual([]);
    expect(t.logs.filter((line) => line.includes('released unsent webhook deliveries'))).toHaveLength(2);
  });
});

describe('a connection that never sent a request', { timeout: 120_000 }, () => {
  it('does not hold the close: the listeners close it at once instead of after the 30 s connection timeout', async () => {
    const t = await startTestGateway({ env: { ROLES: 'api,operator,sandbox-acquirer' } });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await t.close();
    });
    // A spare connection on every listener, as a load balancer or a client library keeps: open, silent.
    const urls = [t.urls.web, t.urls.sandboxApi, t.urls.liveApi, t.urls.operator];
    const sockets = await Promise.all(
      urls.map(
        (url) =>
          new Promise<net.Socket>((resolve, reject) => {
            const { hostname, port } = new URL(url);
            const socket = net.connect({ host: hostname, port: Number(port) }, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    const ended = sockets.map(
      (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())),
    );
    // The listeners are well meanwhile: a request on a connection of its own is answered.
    expect((await request(`${t.urls.sandboxApi}/healthz`)).status).toBe(200);

    const started = Date.now();
    await t.close();
    closed = true;
    expect(Date.now() - started).toBeLessThan(10_000);
    await Promise.all(ended);
  });
});
