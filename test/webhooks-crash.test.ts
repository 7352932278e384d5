/**
 * The crash case of issue 7 with a real process kill: the worker is killed (SIGKILL) while a webhook
 * delivery is in flight, and after a restart the same event (same `id`) is still delivered, signed, once
 * the dead worker's lease has lapsed. Runs the real program on the pass's database: the embedded one in
 * a data directory on the PGlite pass, PostgreSQL on the other.
 *
 * The lease is twice WEBHOOK_TIMEOUT_MS plus 10 seconds (docs/decisions/0010-merchant-webhooks.md), so
 * each case waits about 20 seconds of real time for the redelivery.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquirerControl } from './helpers/acquirer.js';
import { apiAt } from './helpers/client.js';
import { startSandboxAcquirer, type SandboxAcquirer } from '../sandbox-acquirer/server.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createOrganization, issueKey } from './helpers/merchants.js';
import {
  eventually,
  gatewayEnv,
  killAllGateways,
  programDatabases,
  spawnGateway,
} from './helpers/process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllGateways();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => killAllGateways());

const CREDENTIALS = {
  apiKey: 'sa_webhook_crash_key',
  notificationSecret: 'webhook-crash-notification-secret',
};
/** Short, so the lease (twice this plus 10 s) is short, yet long enough to kill the sender in time. */
const WEBHOOK_TIMEOUT_MS = 5000;

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/**
 * A real receiver on loopback that records every request. It holds requests open (never answers) until
 * `answerFromNow` is called; from then on, and for the held ones, it answers 200.
 */
async function startReceiver() {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  let answering = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      if (answering) res.end('ok');
      else held.push(res);
      for (const waiter of waiters.splice(0)) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answerFromNow: () => {
      answering = true;
    },
    /** Resolves as soon as `count` requests have arrived (no polling delay); rejects after `timeoutMs`. */
    waitForRequests: (count: number, timeoutMs: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out after ${timeoutMs} ms waiting for webhook request ${count}`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verification as spec section 6 says: HMAC-SHA256 of `${timestamp}.${rawBody}`, constant time. */
function verifies(received: Received, secret: string): boolean {
  const signature = received.headers['service-signature'];
  const timestamp = received.headers['service-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(received.raw).digest('hex');
  const a = Buffer.from(signature);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// The program on the pass's database: the embedded one on the PGlite pass, PostgreSQL on the other.
const targets = programDatabases({
  embeddedName: 'the embedded database',
  cleanup: (work) => cleanups.push(work),
});

describe.each(targets)('a worker killed mid-delivery, on $name', (target) => {
  it('after a restart, the event is still delivered with the same id', { timeout: 240_000 }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gw-webhook-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const acquirer: SandboxAcquirer = await startSandboxAcquirer({
      port: 0,
      ...CREDENTIALS,
      clock: systemClock,
    });
    cleanups.push(() => acquirer.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { env: targetEnv, open } = await target.prepare(dataDir);

    // A merchant and its key, written before the program owns the database.
    const seeded = await open();
    await migrate(seeded, readMigrations(migrationsDir));
    const organizationId = await createOrganization(seeded.db, systemClock, {
      featureFlags: ['apiKeys', 'events'],
    });
    const key = await issueKey(seeded.db, systemClock, organizationId, { scopes: ['all'] });
    await seeded.close();

    const env = gatewayEnv({
      DATA_DIR: dataDir,
      ROLES: 'api,worker',
      SANDBOX_ACQUIRER_URL: acquirer.url,
      SANDBOX_ACQUIRER_API_KEY: CREDENTIALS.apiKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: CREDENTIALS.notificationSecret,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      ...targetEnv,
    });
    const api = <T>(base: string, route: string, body?: unknown): Promise<HttpResult<T & ErrorBody>> =>
      apiAt<T & ErrorBody>(base, route, { body, key: key.secret });

    const first = spawnGateway({ env });
    const firstApi = (await first.waitForBanner(90_000)).sandboxApi ?? '';
    const endpoint = await api<{ id: string; secret: string }>(firstApi, '/v1/webhook-endpoints', {
      url: receiver.url,
      enabledEvents: ['charge.succeeded'],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const secret = endpoint.body.secret;
    expect(secret).toMatch(/^whsec_/);

    const charge = await api<{ id: string; providerPaymentId: string }>(
      firstApi,
      '/v1/charges',
      validCharge(),
    );
    expect(charge.status, charge.text).toBe(201);
    // The payment succeeds at the acquirer, which notifies the gateway (signed) at the URL it was given.
    const authorized = await acquirerControl({ url: acquirer.url, apiKey: CREDENTIALS.apiKey }).authorize(
      charge.body.providerPaymentId,
    );
    expect(authorized.status, authorized.text).toBeLessThan(300);

    // The worker sends the event; the receiver holds the request; the process dies mid-delivery.
    await receiver.waitForRequests(1, 30_000);
    first.child.kill('SIGKILL');
    const killed = await first.waitForExit(20_000);
    expect(killed.signal).toBe('SIGKILL');
    expect(receiver.received).toHaveLength(1);
    receiver.answerFromNow();

    const second = spawnGateway({ env });
    const secondApi = (await second.waitForBanner(90_000)).sandboxApi ?? '';
    // Redelivered once the dead worker's lease (twice WEBHOOK_TIMEOUT_MS plus 10 s) has lapsed.
    await receiver.waitForRequests(2, 100_000);

    const [held, redelivered] = receiver.received as [Received, Received];
    const heldEvent = JSON.parse(held.raw.toString('utf8')) as { id: string; eventType: string };
    const redeliveredEvent = JSON.parse(redelivered.raw.toString('utf8')) as { id: string };
    expect(heldEvent.eventType).toBe('charge.succeeded');
    expect(heldEvent.id).toMatch(/\S/);
    expect(redeliveredEvent.id).toBe(heldEvent.id);
    expect(redelivered.raw.equals(held.raw)).toBe(true);
    expect(verifies(held, secret)).toBe(true);
    expect(verifies(redelivered, secret)).toBe(true);

    // The restarted worker records the outcome; then a clean stop.
    await eventually(
      async () => {
        const log = await api<{ data: Array<{ eventId: string; deliveryStatus: string }> }>(
          secondApi,
          `/v1/charges/${encodeURIComponent(charge.body.id)}/webhook-deliveries`,
        );
        expect(log.status, log.text).toBe(200);
        return log.body.data.some(
          (attempt) => attempt.eventId === heldEvent.id && attempt.deliveryStatus === 'succeeded',
        );
      },
      20_000,
      'the delivery to be recorded as succeeded',
      250,
    );
    second.child.kill('SIGTERM');
    await second.waitForExit(30_000);

    const database = await open();
    try {
      const deliveries = await database.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'endpoint_id', 'status'])
        .where('organization_id', '=', organizationId)
        .execute();
      expect(deliveries).toEqual([
        { event_id: heldEvent.id, endpoint_id: endpoint.body.id, status: 'succeeded' },
      ]);
    } finally {
      await database.close();
    }
    // Exactly two requests: the one the dead worker never saw answered, and the redelivery.
    expect(receiver.received).toHaveLength(2);
  });
});
