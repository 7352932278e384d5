/**
 * The webhooks guide's receiver (examples/webhook-receiver.ts) against real deliveries (issue 7 item 7):
 * a charge paid through the hosted checkout produces a `charge.succeeded` delivery that the receiver
 * verifies over the raw body, with `metadata` echoed; duplicates are handled once; and during a secret
 * rotation a receiver that follows docs/webhooks.md section 4 never fails verification.
 */
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

const api = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
  apiRequest<T>(t.urls, path, { ...init, key: merchant.keys.sandbox.secret });

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
