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
import { describe, expect, it } from 'vitest';
import {
  authorizedCharge,
  prepareProgramRun,
  programCleanups,
  programTargets,
  startProgram,
  withDatabase,
} from './helpers/crash.js';
import { eventually } from './helpers/process.js';
import { startWebhookReceiver, type ReceivedWebhook } from './helpers/receivers.js';

const cleanups = programCleanups();

const CREDENTIALS = {
  apiKey: 'sa_webhook_crash_key',
  notificationSecret: 'webhook-crash-notification-secret',
};
/** Short, so the lease (twice this plus 10 s) is short, yet long enough to kill the sender in time. */
const WEBHOOK_TIMEOUT_MS = 5000;

/** Verification as spec section 6 says: HMAC-SHA256 of `${timestamp}.${rawBody}`, constant time. */
function verifies(received: ReceivedWebhook, secret: string): boolean {
  const signature = received.headers['service-signature'];
  const timestamp = received.headers['service-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(received.raw).digest('hex');
  const a = Buffer.from(signature);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// The program on the pass's database: the embedded one on the PGlite pass, PostgreSQL on the other.
const targets = programTargets(cleanups);

describe.each(targets)('a worker killed mid-delivery, on $name', (target) => {
  it('after a restart, the event is still delivered with the same id', { timeout: 240_000 }, async () => {
    // A merchant and its key, written before the program owns the database.
    const run = await prepareProgramRun(target, cleanups, {
      prefix: 'gw-webhook-crash-',
      credentials: CREDENTIALS,
      organization: { featureFlags: ['apiKeys', 'events'] },
    });
    // The receiver holds every request open (never answers) until it is released.
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    receiver.holdFrom(1);
    const env = run.env({
      ROLES: 'api,worker',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    });
    const { api } = run;

    const first = await startProgram(env, { timeoutMs: 90_000 });
    const firstApi = first.url;
    const endpoint = await api<{ id: string; secret: string }>(firstApi, '/v1/webhook-endpoints', {
      url: receiver.url,
      enabledEvents: ['charge.succeeded'],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const secret = endpoint.body.secret;
    expect(secret).toMatch(/^whsec_/);

    // The payment succeeds at the acquirer, which notifies the gateway (signed) at the URL it was given.
    const { charge, authorized } = await authorizedCharge(run, firstApi);
    expect(authorized.status, authorized.text).toBeLessThan(300);

    // The worker sends the event; the receiver holds the request; the process dies mid-delivery.
    await receiver.waitForRequests(1, 30_000);
    const killed = await first.program.stop('SIGKILL', 20_000);
    expect(killed.signal).toBe('SIGKILL');
    expect(receiver.received).toHaveLength(1);
    receiver.release();

    const second = await startProgram(env, { timeoutMs: 90_000 });
    const secondApi = second.url;
    // Redelivered once the dead worker's lease (twice WEBHOOK_TIMEOUT_MS plus 10 s) has lapsed.
    await receiver.waitForRequests(2, 100_000);

    const [held, redelivered] = receiver.received as [ReceivedWebhook, ReceivedWebhook];
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
          `/v1/charges/${encodeURIComponent(charge.id)}/webhook-deliveries`,
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
    await second.program.stop('SIGTERM', 30_000);

    await withDatabase(run.open, async ({ db }) => {
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'endpoint_id', 'status'])
        .where('organization_id', '=', run.organizationId)
        .execute();
      expect(deliveries).toEqual([
        { event_id: heldEvent.id, endpoint_id: endpoint.body.id, status: 'succeeded' },
      ]);
    });
    // Exactly two requests: the one the dead worker never saw answered, and the redelivery.
    expect(receiver.received).toHaveLength(2);
  });
});
