/**
 * Webhook delivery under faults (issue 7, "Done when"): a receiver that answers 500, 404, 301, sleeps past
 * the timeout or resets the connection; the retry schedule driven by the manual clock; exhaustion and
 * the 5-day auto-disable with its e-mail; a worker that dies mid-delivery; a slow endpoint beside a
 * healthy one; two workers at once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, SECOND } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import {
  MAX_ATTEMPTS,
  RETRY_SCHEDULE_MS,
  type HostResolver,
  type WebhookDispatcher,
} from '../src/modules/webhooks/index.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import {
  createEndpoint as createEndpointOf,
  dispatcherOf,
  paidCharge as paidChargeOf,
  recordEvents,
  retireEndpoints,
} from './helpers/webhook-dispatch.js';

type Behaviour = 'ok' | 'status500' | 'status404' | 'redirect' | 'sleep' | 'reset' | 'hang';
interface Received {
  eventId: string;
  at: number;
}

const TIMEOUT_MS = 800;

/** A real receiver on loopback whose answers follow a script (the last entry repeats). */
async function startReceiver(script: Behaviour[]) {
  const received: Received[] = [];
  const hanging: http.ServerResponse[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string };
      received.push({ eventId: body.id, at: performance.now() });
      const behaviour = script[Math.min(next, script.length - 1)] as Behaviour;
      next += 1;
      switch (behaviour) {
        case 'ok':
          res.end('thanks');
          return;
        case 'status500':
          res.writeHead(500).end('internal error\u0000 at /srv/app.js:1');
          return;
        case 'status404':
          res.writeHead(404).end('no such hook');
          return;
        case 'redirect':
          res.writeHead(301, { location: `${redirectTarget.url}` }).end();
          return;
        case 'sleep':
          setTimeout(() => {
            if (!res.destroyed) res.end('too late');
          }, TIMEOUT_MS + 400).unref();
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          hanging.push(res);
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    setScript(replacement: Behaviour[]) {
      script = replacement;
      next = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let t: TestGateway;
let merchant: Merchant;
let redirectTarget: Receiver;

beforeAll(async () => {
  t = await startTestGateway({
    env: { ROLES: 'api,sandbox-acquirer', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
  });
  merchant = await createMerchant(t);
  redirectTarget = await startReceiver(['ok']);
});
afterAll(async () => {
  await redirectTarget?.close();
  await t?.close();
});
beforeEach(async () => retireEndpoints(t, db()));

const db = () => t.gateway.database.db;
const dispatcher = () => t.gateway.services.webhooks.dispatcher;

const createEndpoint = (url: string, m: Merchant = merchant) => createEndpointOf(t, m, url);
const paidCharge = (m: Merchant = merchant) => paidChargeOf(t, m, 'Faults');

const deliveryOf = (endpointId: string) =>
  db()
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
const attemptsOf = (endpointId: string) =>
  db()
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();

/** Checks the wait after the `failures`-th failure, then moves the clock to just before and to the due time. */
async function expectNextOnSchedule(endpointId: string, failures: number): Promise<void> {
  const delivery = await deliveryOf(endpointId);
  expect(delivery.status).toBe('pending');
  const wait = delivery.next_attempt_at.getTime() - t.clock.now().getTime();
  const base = RETRY_SCHEDULE_MS[failures - 1] as number;
  expect(wait).toBeGreaterThanOrEqual(Math.floor(base * 0.85));
  expect(wait).toBeLessThanOrEqual(Math.ceil(base * 1.15));
  t.clock.set(new Date(delivery.next_attempt_at.getTime() - 1));
  expect(await dispatcher().deliverDue()).toBe(0);
  t.clock.set(delivery.next_attempt_at);
}

describe('faults and the retry schedule', () => {
  it('retries 500, 404, 301 (not followed), a timeout and a reset on schedule, logging each attempt', async () => {
    const receiver = await startReceiver(['status500', 'status404', 'redirect', 'sleep', 'reset', 'ok']);
    try {
      const endpoint = await createEndpoint(receiver.url);
      await paidCharge();
      const redirectedBefore = redirectTarget.received.length;
      for (let failures = 1; failures <= 5; failures += 1) {
        expect(await dispatcher().deliverDue()).toBe(1);
        await expectNextOnSchedule(endpoint.id, failures);
      }
      expect(await dispatcher().deliverDue()).toBe(1);
      expect(redirectTarget.received.length).toBe(redirectedBefore);

      const delivery = await deliveryOf(endpoint.id);
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 6 });
      const attempts = await attemptsOf(endpoint.id);
      expect(
        attempts.map((a) => ({ succeeded: a.succeeded, status: a.status_code, error: a.error })),
      ).toEqual([
        { succeeded: false, status: 500, error: 'http_500' },
        { succeeded: false, status: 404, error: 'http_404' },
        { succeeded: false, status: 301, error: 'redirect_not_followed' },
        { succeeded: false, status: null, error: 'timeout' },
        { succeeded: false, status: null, error: 'connection_reset' },
        { succeeded: true, status: 200, error: null },
      ]);
      for (const attempt of attempts) {
        expect(attempt.id).toMatch(/^whd_/);
        expect(attempt.url).toBe(receiver.url);
        expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
      }
      expect(attempts[3]?.latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      // The excerpt is sanitised (control characters removed) and short.
      expect(attempts[0]?.response_excerpt).toBe('internal error at /srv/app.js:1');
      expect(attempts[5]?.response_excerpt).toBe('thanks');
      // Every attempt carried the same event.
      const ids = new Set(receiver.received.map((r) => r.eventId));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toBe(delivery.event_id);
      // Acknowledged: the endpoint is healthy again.
      const row = await db()
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(row.failing_since).toBeNull();
    } finally {
      await receiver.close();
    }
  });

  it('counts a refused connection as a failure', async () => {
    const receiver = await startReceiver(['ok']);
    const url = receiver.url;
    await receiver.close();
    const endpoint = await createEndpoint(url);
    await paidCharge();
    expect(await dispatcher().deliverDue()).toBe(1);
    const [attempt] = await attemptsOf(endpoint.id);
    expect(attempt).toMatchObject({ succeeded: false, error: 'connection_refused', status_code: null });
    await expectNextOnSchedule(endpoint.id, 1);
  });

  it('gives up after the whole schedule, then disables the endpoint after 5 days and e-mails the owner', async () => {
    const m = await createMerchant(t);
    const now = t.clock.now();
    const ownerEmail = `owner-${m.organizationId}@merchant.example`;
    await db()
      .insertInto('users')
      .values([
        {
          id: newId('usr', now),
          organization_id: m.organizationId,
          email: ownerEmail,
          name: 'Owner',
          role: 'owner',
          status: 'active',
          password_hash: 'x',
          created_at: now,
          updated_at: now,
        },
        {
          id: newId('usr', now),
          organization_id: m.organizationId,
          email: `dev-${m.organizationId}@merchant.example`,
          name: 'Developer',
          role: 'developer',
          status: 'active',
          password_hash: 'x',
          created_at: now,
          updated_at: now,
        },
      ])
      .execute();
    const receiver = await startReceiver(['status500']);
    try {
      const endpoint = await createEndpoint(receiver.url, m);
      await paidCharge(m);
      const firstFailure = t.clock.now();
      for (let failures = 1; failures < MAX_ATTEMPTS; failures += 1) {
        expect(await dispatcher().deliverDue()).toBe(1);
        await expectNextOnSchedule(endpoint.id, failures);
      }
      expect(await dispatcher().deliverDue()).toBe(1);
      const delivery = await deliveryOf(endpoint.id);
      expect(delivery).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
      expect(await attemptsOf(endpoint.id)).toHaveLength(MAX_ATTEMPTS);
      // About 2 to 3 days of retries; nothing more is due.
      const span = t.clock.now().getTime() - firstFailure.getTime();
      expect(span).toBeGreaterThan(1.8 * DAY);
      expect(span).toBeLessThan(3 * DAY);
      t.clock.advance(DAY);
      expect(await dispatcher().deliverDue()).toBe(0);

      // Still enabled just before 5 days of failure; disabled at 5 days, and the owner only is e-mailed.
      t.clock.set(new Date(firstFailure.getTime() + 5 * DAY - SECOND));
      expect(await dispatcher().disableFailing()).toBe(0);
      t.clock.set(new Date(firstFailure.getTime() + 5 * DAY));
      expect(await dispatcher().disableFailing()).toBe(1);
      const view = await request<{ status: string; disabledReason: string }>(
        `${t.urls.sandboxApi}/v1/webhook-endpoints/${endpoint.id}`,
        { headers: { 'x-api-key': m.keys.sandbox.secret } },
      );
      expect(view.body).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
      const emails = await db()
        .selectFrom('emails')
        .selectAll()
        .where('template', '=', 'webhook_endpoint_disabled')
        .where('to_address', 'like', `%${m.organizationId}%`)
        .execute();
      expect(emails.map((e) => e.to_address)).toEqual([ownerEmail]);
      const stored = await t.gateway.services.mailer.read(emails[0]?.id as string);
      expect(stored?.text).toContain(receiver.url);
      expect(stored?.text).toContain('5 gün');
      expect(stored?.text).toContain('5 days');
      // Disabled endpoints receive nothing; enabling again starts afresh.
      await paidCharge(m);
      expect(await dispatcher().deliverDue()).toBe(0);
      const enabled = await request<{ status: string }>(
        `${t.urls.sandboxApi}/v1/webhook-endpoints/${endpoint.id}`,
        {
          body: { disabled: false },
          headers: { 'x-api-key': m.keys.sandbox.secret },
        },
      );
      expect(enabled.body.status).toBe('enabled');
      expect(await dispatcher().disableFailing()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('disables at the attempt that fails past 5 days, without waiting for the job', async () => {
    const receiver = await startReceiver(['status500']);
    try {
      const endpoint = await createEndpoint(receiver.url);
      await db()
        .updateTable('webhook_endpoints')
        .set({ failing_since: new Date(t.clock.now().getTime() - 5 * DAY) })
        .where('id', '=', endpoint.id)
        .execute();
      await paidCharge();
      expect(await dispatcher().deliverDue()).toBe(1);
      const row = await db()
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    } finally {
      await receiver.close();
    }
  });
});

describe('crashes, isolation and concurrency', () => {
  const extraDispatcher = (timeoutMs: number, resolver?: HostResolver): WebhookDispatcher =>
    dispatcherOf(t, { timeoutMs, concurrency: 10, resolver });

  it('redelivers the same event after a worker dies mid-delivery (its lease lapses)', async () => {
    const receiver = await startReceiver(['hang', 'ok']);
    try {
      const endpoint = await createEndpoint(receiver.url);
      await paidCharge();
      // The "dying" worker sends, and never gets to record an outcome (its attempt hangs).
      const dying = extraDispatcher(60_000);
      const zombie = dying.deliverDue();
      await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(1);
      // While its lease holds, nobody else takes the delivery.
      expect(await dispatcher().deliverDue()).toBe(0);
      // The restarted worker, once the lease has lapsed.
      // The lease: twice the attempt timeout plus 10 seconds.
      t.clock.advance(2 * 60_000 + 10 * SECOND + 1);
      expect(await dispatcher().deliverDue()).toBe(1);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.eventId).toBe(receiver.received[0]?.eventId);
      const delivery = await deliveryOf(endpoint.id);
      expect(delivery).toMatchObject({ status: 'succeeded', event_id: receiver.received[0]?.eventId });
      // The dead worker's late outcome is only logged: it no longer holds the claim.
      await receiver.close();
      await zombie;
      expect((await deliveryOf(endpoint.id)).status).toBe('succeeded');
      expect((await attemptsOf(endpoint.id)).map((a) => a.succeeded).sort()).toEqual([false, true]);
    } finally {
      await receiver.close();
    }
  });

  it('one endpoint that always times out does not delay a healthy endpoint', async () => {
    const slow = await startReceiver(['hang']);
    const healthy = await startReceiver(['ok']);
    try {
      await createEndpoint(slow.url);
      // A backlog at the slow endpoint, due before anything else: more than a claim looks at.
      await recordEvents(t, merchant, 50, 'backlog');
      t.clock.advance(SECOND);
      await createEndpoint(healthy.url);
      for (let i = 0; i < 6; i += 1) await paidCharge();
      // A worker whose attempts time out after 5 s: the slow endpoint's attempts hang that long.
      const worker = extraDispatcher(5000);
      const started = performance.now();
      const pump = worker.pump(15_000);
      await expect.poll(() => healthy.received.length, { timeout: 5000 }).toBe(6);
      // Every healthy delivery arrived while the slow endpoint's first attempts were still hanging,
      // and those hold at most 2 of the worker's slots.
      expect(healthy.received[5]!.at - started).toBeLessThan(2500);
      expect(slow.received.length).toBeLessThanOrEqual(2);
      const slowAttempts = await db()
        .selectFrom('webhook_attempts')
        .select('id')
        .where('url', '=', slow.url)
        .execute();
      expect(slowAttempts).toHaveLength(0);
      // A new event while they still hang goes out at once.
      const before = performance.now();
      await paidCharge();
      await expect.poll(() => healthy.received.length, { timeout: 5000 }).toBe(7);
      expect(healthy.received[6]!.at - before).toBeLessThan(2500);
      await slow.close();
      await pump;
    } finally {
      await slow.close();
      await healthy.close();
    }
  });

  it('ends an attempt whose host name never resolves at the timeout, and retries it on schedule', async () => {
    // The receiver's name servers answer nothing: the attempt must not hold the worker's slot (nor
    // outlive its lease) waiting for them.
    const endpoint = await createEndpoint('http://unanswered-dns.example/hooks');
    await paidCharge();
    const worker = extraDispatcher(TIMEOUT_MS, { resolve: () => new Promise(() => {}) });
    const started = performance.now();
    const sent = await Promise.race([
      worker.deliverDue(),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), TIMEOUT_MS + 3000).unref()),
    ]);
    expect(sent).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const attempts = await attemptsOf(endpoint.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ succeeded: false, error: 'dns_failure', status_code: null });
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    await expectNextOnSchedule(endpoint.id, 1);
  });

  it('two workers at once deliver each event exactly once', async () => {
    const receiver = await startReceiver(['ok']);
    try {
      await createEndpoint(receiver.url);
      for (let i = 0; i < 8; i += 1) await paidCharge();
      const second = extraDispatcher(TIMEOUT_MS);
      await Promise.all([dispatcher().pump(5000), second.pump(5000)]);
      expect(receiver.received).toHaveLength(8);
      expect(new Set(receiver.received.map((r) => r.eventId)).size).toBe(8);
    } finally {
      await receiver.close();
    }
  });
});

describe('retention', () => {
  it('purges attempts and finished deliveries after 30 days', async () => {
    const receiver = await startReceiver(['ok']);
    try {
      const endpoint = await createEndpoint(receiver.url);
      await paidCharge();
      await dispatcher().deliverDue();
      expect(await attemptsOf(endpoint.id)).toHaveLength(1);
      t.clock.advance(30 * DAY - SECOND);
      await dispatcher().purgeExpired();
      expect(await attemptsOf(endpoint.id)).toHaveLength(1);
      t.clock.advance(2 * SECOND);
      expect(await dispatcher().purgeExpired()).toBeGreaterThan(0);
      expect(await attemptsOf(endpoint.id)).toHaveLength(0);
      const left = await db()
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      expect(left).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});
