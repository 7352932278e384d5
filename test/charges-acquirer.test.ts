/**
 * Charge creation against a misbehaving acquirer (spec section 7, product decisions 14, 15 and 19): the
 * sandbox acquirer is told over its socket to be slow, fail, refuse or hang, and the recovery job
 * finishes or abandons what a failed request left behind.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../src/shared/clock.js';
import { acquirerControl, errorFault, latencyFault } from './helpers/acquirer.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { apiUrl, createMerchant, type Merchant } from './helpers/merchants.js';

interface ChargeBody {
  id: string;
  providerPaymentId: string;
  merchantReference: string;
  providerStatus: string;
}
type Body = ChargeBody &
  ErrorBody & { error: { details?: { providerCode?: string; providerStatus?: number } } };

let t: TestGateway;
let merchant: Merchant;
const TIMEOUT_MS = 400;
const ATTEMPTS = 3;

beforeAll(async () => {
  t = await startTestGateway({
    env: {
      ACQUIRER_TIMEOUT_MS: String(TIMEOUT_MS),
      ACQUIRER_MAX_ATTEMPTS: String(ATTEMPTS),
      IDEMPOTENCY_LOCK_MS: '5000',
    },
  });
  merchant = await createMerchant(t);
});
afterAll(async () => t?.close());
afterEach(async () => acquirer().clearFaults());

const acquirer = () => acquirerControl(t.sandboxAcquirer);
const db = () => t.gateway.database.db;

function post(body: Record<string, unknown>, idempotencyKey?: string): Promise<HttpResult<Body>> {
  return request<Body>(`${apiUrl(t.urls, 'sandbox')}/v1/charges`, {
    body,
    headers: {
      'x-api-key': merchant.keys.sandbox.secret,
      ...(idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}),
    },
  });
}

async function rowFor(reference: string) {
  return db()
    .selectFrom('charges')
    .selectAll()
    .where('merchant_reference', '=', reference)
    .orderBy('created_at')
    .execute();
}

async function createCalls(reference: string) {
  return (await acquirer().calls('create_payment')).filter((call) => call.reference === reference);
}

describe('acquirer faults during charge creation', () => {
  it('rides out latency below the timeout', async () => {
    await acquirer().addFault(latencyFault('create_payment', TIMEOUT_MS / 2, { times: 1 }));
    const res = await post(validCharge());
    expect(res.status, res.text).toBe(201);
  });

  it('retries a 5xx internally with the charge id as the idempotency key, and pays once', async () => {
    const body = validCharge();
    await acquirer().addFault(errorFault('create_payment', 500, 'boom', { times: 2 }));
    const res = await post(body);
    expect(res.status, res.text).toBe(201);
    const calls = await createCalls(res.body.id);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((call) => call.idempotencyKey))).toEqual(new Set([res.body.id]));
    expect(await acquirer().paymentsFor(res.body.id)).toHaveLength(1);
  });

  it('answers 502 provider_unavailable with Retry-After 30 after the retries, and shows no charge', async () => {
    const body = validCharge();
    await acquirer().addFault({ operation: 'create_payment', action: 'error', status: 503, code: 'down' });
    const res = await post(body);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(res.headers.get('retry-after')).toBe('30');
    const [row] = await rowFor(String(body.merchantReference));
    expect(row?.creation_state).toBe('creating');
    expect((await createCalls(row?.id ?? '')).length).toBe(ATTEMPTS);
    const list = await request<{ data: ChargeBody[] }>(`${apiUrl(t.urls, 'sandbox')}/v1/charges?limit=100`, {
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });
    expect(list.body.data.map((charge) => charge.id)).not.toContain(row?.id);
  });

  it('answers 502 provider_unavailable when the acquirer never answers', async () => {
    await acquirer().addFault({ operation: 'create_payment', action: 'timeout' });
    const started = Date.now();
    const res = await post(validCharge());
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * ATTEMPTS + 2000);
  });

  it('turns a 4xx into 502 provider_rejected with the provider code and status and a sanitised message', async () => {
    const body = validCharge();
    await acquirer().addFault(
      errorFault('create_payment', 422, 'risk_blocked', {
        message:
          'Risk rule R17 blocked payment 5f2b9c1e7a3d4b6c8e0f1a2b3c4d5e6f\n    at Risk.check (/srv/acquirer/risk/engine.js:88:13)\n    at /srv/acquirer/node_modules/x/index.js:1:1',
        times: 1,
      }),
    );
    const res = await post(body);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_rejected');
    expect(res.body.error.details).toEqual({ providerCode: 'risk_blocked', providerStatus: 422 });
    expect(res.body.error.message).toContain('Risk rule R17 blocked payment');
    expect(res.body.error.message).not.toMatch(/5f2b9c1e|\/srv\/|engine\.js|node_modules|\bat Risk/);
    // A refusal is final: one call, no retries; the charge is marked rejected and never shown.
    const [row] = await rowFor(String(body.merchantReference));
    expect(row?.creation_state).toBe('rejected');
    expect(await createCalls(row?.id ?? '')).toHaveLength(1);
  });

  it('asks again after a "not now" 4xx (429, 408, 425): one is ridden out, pays once', async () => {
    for (const status of [429, 408, 425]) {
      await acquirer().addFault(errorFault('create_payment', status, 'slow_down', { times: 1 }));
      const res = await post(validCharge());
      expect(res.status, `${status}: ${res.text}`).toBe(201);
      const calls = await createCalls(res.body.id);
      expect(calls, String(status)).toHaveLength(2);
      expect(await acquirer().paymentsFor(res.body.id)).toHaveLength(1);
    }
  });

  it('answers a 429 heard on every attempt as 502 provider_rejected with its code and status (a 4xx)', async () => {
    const body = validCharge();
    await acquirer().addFault(
      errorFault('create_payment', 429, 'rate_limited', { message: 'Too many requests' }),
    );
    const res = await post(body);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_rejected');
    expect(res.body.error.details).toEqual({ providerCode: 'rate_limited', providerStatus: 429 });
    const [row] = await rowFor(String(body.merchantReference));
    expect(await createCalls(row?.id ?? '')).toHaveLength(ATTEMPTS);
  });

  it('answers provider_unavailable when the acquirer cannot be reached at all', async () => {
    const original = t.gateway.services.config.acquirers.sandbox.url;
    const closed = await import('node:net').then(
      (net) =>
        new Promise<number>((resolve) => {
          const server = net.createServer();
          server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
          });
        }),
    );
    t.gateway.services.config.acquirers.sandbox.url = `http://127.0.0.1:${closed}`;
    try {
      const res = await post(validCharge());
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('provider_unavailable');
    } finally {
      t.gateway.services.config.acquirers.sandbox.url = original;
    }
  });
});

describe('recovery of interrupted creations', () => {
  it('finishes a creation that reached the acquirer but whose answer never came back', async () => {
    const body = validCharge();
    const key = `recover-${Date.now()}`;
    // The acquirer creates the payment, then holds every answer past the gateway's timeout.
    await acquirer().addFault({
      operation: 'create_payment',
      action: 'delay_response',
      latencyMs: TIMEOUT_MS * 3,
    });
    const res = await post(body, key);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_unavailable');
    await acquirer().clearFaults();
    const [interrupted] = await rowFor(String(body.merchantReference));
    expect(interrupted?.creation_state).toBe('creating');
    const payments = await acquirer().paymentsFor(interrupted?.id ?? '');
    expect(payments).toHaveLength(1);

    // Too early: a request could still be at work on it.
    expect(await t.gateway.services.charges.recoverInterruptedCreations()).toMatchObject({ finished: 0 });
    t.clock.advance(MINUTE);
    expect(await t.gateway.services.charges.recoverInterruptedCreations()).toMatchObject({ finished: 1 });
    const [finished] = await rowFor(String(body.merchantReference));
    expect(finished?.creation_state).toBe('created');
    expect(finished?.provider_payment_id).toBe(payments[0]?.id);

    // The merchant's retry with the same key now gets that charge, and the acquirer made no other payment.
    const retry = await post(body, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.id).toBe(interrupted?.id);
    expect(retry.body.providerPaymentId).toBe(payments[0]?.id);
    expect(await acquirer().paymentsFor(retry.body.id)).toHaveLength(1);
  });

  it('abandons a creation the acquirer never received, which frees its merchantReference', async () => {
    const body = validCharge();
    await acquirer().addFault({ operation: 'create_payment', action: 'error', status: 503, code: 'down' });
    expect((await post(body)).status).toBe(502);
    await acquirer().clearFaults();
    t.clock.advance(MINUTE);
    const outcome = await t.gateway.services.charges.recoverInterruptedCreations();
    expect(outcome.abandoned).toBeGreaterThanOrEqual(1);
    const [abandoned] = await rowFor(String(body.merchantReference));
    expect(abandoned?.creation_state).toBe('abandoned');
    const again = await post(body);
    expect(again.status, again.text).toBe(201);
  });

  it('defers, and keeps the charge, while the acquirer cannot say', async () => {
    const body = validCharge();
    await acquirer().addFault({ operation: 'create_payment', action: 'error', status: 503, code: 'down' });
    expect((await post(body)).status).toBe(502);
    await acquirer().addFault({ operation: 'find_payments', action: 'error', status: 503, code: 'down' });
    t.clock.advance(MINUTE);
    const outcome = await t.gateway.services.charges.recoverInterruptedCreations();
    expect(outcome.deferred).toBeGreaterThanOrEqual(1);
    const [row] = await rowFor(String(body.merchantReference));
    expect(row?.creation_state).toBe('creating');
  });

  it('lets a retry with the same key take over a creation after a provider outage', async () => {
    const body = validCharge();
    const key = `takeover-${Date.now()}`;
    await acquirer().addFault({ operation: 'create_payment', action: 'error', status: 503, code: 'down' });
    expect((await post(body, key)).status).toBe(502);
    await acquirer().clearFaults();
    const retry = await post(body, key);
    expect(retry.status, retry.text).toBe(201);
    const rows = await rowFor(String(body.merchantReference));
    expect(rows.map((row) => [row.id, row.creation_state])).toEqual([[retry.body.id, 'created']]);
  });
});
