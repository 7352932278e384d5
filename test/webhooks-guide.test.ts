/**
 * The webhooks guide's receiver (examples/webhook-receiver.ts) against real deliveries (issue 7 item 7):
 * a charge paid through the hosted checkout produces a `charge.succeeded` delivery that the receiver
 * verifies over the raw body, with `metadata` echoed; duplicates are handled once; and during a secret
 * rotation a receiver that follows docs/webhooks.md section 4 never fails verification, whether it holds
 * both secrets (the example) or, written from the specification alone, one secret and `Service-Signature`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { createReceiver, verifyDelivery, type WebhookEvent } from '../examples/webhook-receiver.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let t: TestGateway;
let merchant: Merchant;
let receiver: http.Server;
let receiverUrl: string;
let secrets: string[] = [];
const handled: WebhookEvent[] = [];
const received: Received[] = [];

beforeAll(async () => {
  // No background worker: the test delivers when it means to, so it counts exactly what it caused.
  t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer' } });
  merchant = await createMerchant(t);
  const handle = createReceiver({
    secrets: () => secrets,
    handleEvent: (event) => {
      handled.push(event);
    },
    now: () => t.clock.now(),
  });
  // The example's handler, with the raw deliveries and its answers kept for the assertions.
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => {
      received.push({ status: res.statusCode, headers: req.headers, body: Buffer.concat(chunks) });
      return end(...args);
    }) as typeof res.end;
    handle(req, res);
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await t?.close();
});

const api = <T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) => apiRequest<T>(t.urls, path, { ...init, key: merchant.keys.sandbox.secret });

async function deliver() {
  for (let round = 0; round < 5; round++) {
    if ((await t.gateway.services.webhooks.dispatcher.deliverDue()) === 0) return;
  }
}

/** Pays the charge through the hosted checkout's card form, as a customer's browser posts it. */
async function payThroughCheckout(paymentId: string) {
  const form = new URLSearchParams({
    holderName: 'Ayşe Yılmaz',
    cardNumber: TEST_CARDS.visa.number,
    expiry: '12/30',
    cvc: '123',
  });
  const res = await fetch(`${t.urls.web}/c/${paymentId}/card`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.urls.web },
  });
  expect(res.status).toBe(303);
}

describe('the guide receiver against real deliveries', () => {
  let endpointId: string;

  it('verifies the charge.succeeded of a charge paid through the checkout, with metadata echoed', async () => {
    const created = await api<{ id: string; secret: string }>('/v1/webhook-endpoints', {
      method: 'POST',
      body: { url: receiverUrl, enabledEvents: ['charge.succeeded'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    endpointId = created.body.id;
    secrets = [created.body.secret];

    const charge = await api<{ id: string; providerPaymentId: string }>('/v1/charges', {
      method: 'POST',
      body: validCharge({ metadata: { cart: 'c-77', vip: true } }),
    });
    expect(charge.status).toBe(201);
    await payThroughCheckout(charge.body.providerPaymentId);
    await deliver();

    const event = handled.find((item) => item.payment?.id === charge.body.id);
    expect(event?.eventType).toBe('charge.succeeded');
    expect(event?.id).toMatch(/^evt_/);
    expect(event?.data.metadata).toEqual({ cart: 'c-77', vip: true });
    expect(event?.payment?.paymentId).toBe(charge.body.providerPaymentId);
    const delivery = received.find((item) => item.body.toString().includes(charge.body.id));
    expect(delivery?.status).toBe(200);
    // Exactly the spec's headers: lowercase hex HMAC-SHA256 and Unix seconds.
    expect(delivery?.headers['service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(delivery?.headers['service-timestamp']).toMatch(/^\d+$/);
    // The receiver refuses the same bytes under another secret, or altered, or from long ago.
    const raw = delivery?.body ?? Buffer.alloc(0);
    const headers = delivery?.headers ?? {};
    expect(verifyDelivery(raw, headers, secrets, t.clock.now()).ok).toBe(true);
    expect(verifyDelivery(raw, headers, ['whsec_wrong'], t.clock.now()).ok).toBe(false);
    expect(verifyDelivery(Buffer.concat([raw, Buffer.from(' ')]), headers, secrets, t.clock.now()).ok).toBe(
      false,
    );
    expect(verifyDelivery(raw, headers, secrets, new Date(t.clock.now().getTime() + 301_000)).ok).toBe(false);
  });

  it('handles a redelivered event once', async () => {
    const deliveries = await api<{ data: Array<{ deliveryId: string; eventId: string }> }>(
      `/v1/charges/${handled[0]?.payment?.id ?? ''}/webhook-deliveries`,
    );
    expect(deliveries.status).toBe(200);
    const first = deliveries.body.data[0];
    expect(first).toBeDefined();
    const before = handled.length;
    const retried = await api(`/v1/webhook-deliveries/${first?.deliveryId ?? ''}/retry`, {
      method: 'POST',
      body: {},
    });
    expect(retried.status).toBeLessThan(300);
    await deliver();
    expect(received.at(-1)?.status).toBe(200);
    expect(handled.length).toBe(before);
  });

  it('never fails verification during a rotation when the receiver follows the guide', async () => {
    const oldSecret = secrets[0] ?? '';
    const rotated = await api<{ secret: string }>(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
      method: 'POST',
      body: { gracePeriodSeconds: 3600 },
    });
    expect(rotated.status).toBeLessThan(300);
    const newSecret = rotated.body.secret;

    const payAndDeliver = async () => {
      const charge = await api<{ id: string; providerPaymentId: string }>('/v1/charges', {
        method: 'POST',
        body: validCharge(),
      });
      await payThroughCheckout(charge.body.providerPaymentId);
      const count = received.length;
      await deliver();
      return received.slice(count);
    };

    // Not yet updated: the old secret alone still verifies during the grace period.
    secrets = [oldSecret];
    for (const delivery of await payAndDeliver()) expect(delivery.status).toBe(200);
    // Step 2 of the guide: both secrets.
    secrets = [oldSecret, newSecret];
    for (const delivery of await payAndDeliver()) expect(delivery.status).toBe(200);
    // After the grace period: only the new secret is used, and the receiver drops the old one.
    t.clock.advance(3601 * 1000);
    secrets = [newSecret];
    const after = await payAndDeliver();
    expect(after.length).toBeGreaterThan(0);
    for (const delivery of after) {
      expect(delivery.status).toBe(200);
      expect(delivery.headers['service-signature-next']).toBeUndefined();
    }
  });
});

/**
 * A receiver written from the specification's webhooks section alone: `Service-Signature` is the lowercase
 * hex HMAC-SHA256 of "<Service-Timestamp>.<raw body>" keyed with the endpoint's secret (the one secret it
 * is configured with), compared in constant time with equal lengths; a timestamp more than 300 s away is
 * refused; 200 acknowledges. It knows nothing of `Service-Signature-Next`.
 */
function specReceiver(now: () => Date) {
  const state = { secret: '', answers: [] as Array<{ status: number; body: string }> };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const timestamp = String(req.headers['service-timestamp'] ?? '');
      const signature = Buffer.from(String(req.headers['service-signature'] ?? ''));
      const expected = Buffer.from(
        createHmac('sha256', state.secret).update(`${timestamp}.`).update(raw).digest('hex'),
      );
      const fresh = Math.abs(now().getTime() / 1000 - Number(timestamp)) <= 300;
      const valid = fresh && expected.length === signature.length && timingSafeEqual(expected, signature);
      const status = valid ? 200 : 401;
      state.answers.push({ status, body: raw.toString() });
      res.writeHead(status).end();
    });
  });
  return { state, server };
}

describe('a receiver written from the specification alone, across a rotation', () => {
  it('fails no delivery when it follows the one-secret steps of docs/webhooks.md section 4', async () => {
    const spec = specReceiver(() => t.clock.now());
    await new Promise<void>((resolve) => spec.server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(spec.server.address() as AddressInfo).port}/hooks`;
    try {
      const created = await api<{ id: string; secret: string }>('/v1/webhook-endpoints', {
        method: 'POST',
        body: { url, enabledEvents: ['charge.succeeded'] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const endpointId = created.body.id;
      spec.state.secret = created.body.secret;

      const charged = async () => {
        const charge = await api<{ id: string; providerPaymentId: string }>('/v1/charges', {
          method: 'POST',
          body: validCharge(),
        });
        await payThroughCheckout(charge.body.providerPaymentId);
        return charge.body.id;
      };
      const answersFor = async (chargeId: string) => {
        await deliver();
        return spec.state.answers.filter((answer) => answer.body.includes(chargeId));
      };
      const endpoint = async () =>
        (
          await api<{ pausedUntil: string | null; previousSecretExpiresAt: string | null }>(
            `/v1/webhook-endpoints/${endpointId}`,
          )
        ).body;

      expect(await answersFor(await charged())).toEqual([expect.objectContaining({ status: 200 })]);

      // 1. Rotate: the new secret is kept aside; the receiver goes on with the current one.
      const rotated = await api<{ secret: string; previousSecretExpiresAt: string | null }>(
        `/v1/webhook-endpoints/${endpointId}/rotate-secret`,
        { method: 'POST', body: { gracePeriodSeconds: 86_400 } },
      );
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      expect(rotated.body.previousSecretExpiresAt).not.toBeNull();
      const newSecret = rotated.body.secret;
      expect(await answersFor(await charged())).toEqual([expect.objectContaining({ status: 200 })]);
      t.clock.advance(3600 * 1000);
      expect(await answersFor(await charged())).toEqual([expect.objectContaining({ status: 200 })]);

      // 2. Switch, with a pause: what happens meanwhile waits, queued.
      const switchOnce = () =>
        api<{ pausedUntil: string | null; previousSecretExpiresAt: string | null }>(
          `/v1/webhook-endpoints/${endpointId}/switch-secret`,
          { method: 'POST', body: { pauseSeconds: 600 }, headers: { 'x-idempotency-key': 'switch-1' } },
        );
      const switched = await switchOnce();
      expect(switched.status, JSON.stringify(switched.body)).toBe(200);
      expect(switched.body).toMatchObject({ previousSecretExpiresAt: null });
      expect(switched.body.pausedUntil).toBe(new Date(t.clock.now().getTime() + 600_000).toISOString());
      const waiting = await charged();
      expect(await answersFor(waiting)).toEqual([]);
      t.clock.advance(60_000);
      expect(await answersFor(waiting)).toEqual([]);
      // The answer was lost on the way and the client retries with its key: the first answer again,
      // not a 409 for the rotation it already ended, and the pause ends when it said.
      const retried = await switchOnce();
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body).toEqual(switched.body);
      expect((await endpoint()).pausedUntil).toBe(switched.body.pausedUntil);

      // 3. Deploy the receiver with the new secret, 4. resume: the waiting delivery arrives, verified.
      spec.state.secret = newSecret;
      const resumed = await api<{ pausedUntil: string | null }>(
        `/v1/webhook-endpoints/${endpointId}/resume-deliveries`,
        { method: 'POST' },
      );
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      expect(resumed.body.pausedUntil).toBeNull();
      expect(await answersFor(waiting)).toEqual([expect.objectContaining({ status: 200 })]);
      expect(await answersFor(await charged())).toEqual([expect.objectContaining({ status: 200 })]);
      // Long after the grace period would have ended: still the new secret.
      t.clock.advance(2 * 86_400 * 1000);
      expect(await answersFor(await charged())).toEqual([expect.objectContaining({ status: 200 })]);
      expect(await endpoint()).toMatchObject({ pausedUntil: null, previousSecretExpiresAt: null });

      // Every request the receiver got verified, and every delivery succeeded at its first attempt.
      expect(spec.state.answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const deliveries = await t.gateway.database.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('endpoint_id', '=', endpointId)
        .execute();
      expect(deliveries).toHaveLength(6);
      for (const delivery of deliveries) expect(delivery).toEqual({ status: 'succeeded', attempts: 1 });

      // Nothing left to switch: the endpoint signs with one secret.
      const again = await api<{ error: { code: string } }>(
        `/v1/webhook-endpoints/${endpointId}/switch-secret`,
        {
          method: 'POST',
          body: {},
        },
      );
      expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state_transition']);
    } finally {
      spec.server.closeAllConnections();
      await new Promise((resolve) => spec.server.close(resolve));
    }
  });
});
