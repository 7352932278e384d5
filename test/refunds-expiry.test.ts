/**
 * Refunds (POST/GET /v1/charges/{id}/refunds) and checkout expiry (product decision 13) through the
 * running gateway, the sandbox acquirer over its socket, the ledger and the events outbox.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { DAY, MINUTE } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { payByCard, postRefund } from './helpers/charges.js';

interface ChargeBody {
  id: string;
  amount: string;
  amountRefunded: string;
  status: string;
  providerStatus: string;
  providerPaymentId: string;
}
interface RefundBody {
  id: string;
  chargeId: string;
  amount: string;
  status: string;
  reason: string | null;
}
type Body = RefundBody & ErrorBody;

let t: TestGateway;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({ env: { ACQUIRER_TIMEOUT_MS: '500', ACQUIRER_MAX_ATTEMPTS: '2' } });
  merchant = await createMerchant(t);
});
afterAll(async () => t?.close());
afterEach(async () => acquirerControl(t.sandboxAcquirer).clearFaults());

const db = () => t.gateway.database.db;
const api = <T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; key?: string } = {},
) => apiRequest<T>(t.urls, path, { ...init, key: init.key ?? merchant.keys.sandbox.secret });

async function createCharge(amount = 10_000): Promise<ChargeBody> {
  const res = await api<ChargeBody>('/v1/charges', { method: 'POST', body: validCharge({ amount }) });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A charge paid with a test card, its success applied as the checkout applies the acquirer's answer. */
async function paidCharge(amount = 10_000): Promise<ChargeBody> {
  const charge = await createCharge(amount);
  await payByCard(t.gateway.services, charge, 'Refund Test');
  return (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
}

/** Pays at the acquirer directly with the Visa test card (no holder name), as a late customer would. */
const authorizeAtAcquirer = (paymentId: string) =>
  request(`${t.sandboxAcquirer.url}/v1/payments/${paymentId}/authorize`, {
    body: {
      number: TEST_CARDS.visa.number,
      expMonth: 12,
      expYear: 2030,
      cvc: '123',
      returnUrl: 'https://x.example/',
    },
    headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` },
  });

const refund = (chargeId: string, body: unknown, headers: Record<string, string> = {}) =>
  postRefund<Body>(t, merchant, chargeId, body, headers);

async function balance(): Promise<{ pending: string }> {
  const res = await api<{ balances: Array<{ currency: string; pending: string }> }>('/v1/balance');
  return res.body.balances.find((row) => row.currency === 'TRY') as { pending: string };
}

describe('refunds', () => {
  it('refunds part then the rest of a succeeded charge, through the acquirer, the ledger and events', async () => {
    const before = BigInt((await balance()).pending);
    const charge = await paidCharge(10_000);
    const afterPayment = BigInt((await balance()).pending);
    expect(afterPayment - before).toBeGreaterThan(0n);

    const partial = await refund(charge.id, { amount: 2500, reason: 'damaged item' });
    expect(partial.status, partial.text).toBe(201);
    expect(partial.body).toMatchObject({
      chargeId: charge.id,
      amount: '2500',
      status: 'succeeded',
      reason: 'damaged item',
    });
    expect(partial.body.id).toMatch(/^re_/);
    let view = (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
    expect([view.status, view.amountRefunded, view.providerStatus]).toEqual([
      'succeeded',
      '2500',
      'partially_refunded',
    ]);
    expect(BigInt((await balance()).pending)).toBe(afterPayment - 2500n);

    t.clock.advance(1000);
    const rest = await refund(charge.id, {});
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.amount).toBe('7500');
    view = (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
    expect([view.amountRefunded, view.providerStatus]).toEqual(['10000', 'refunded']);

    const listed = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(listed.body.data.map((item) => item.amount)).toEqual(['7500', '2500']);
    const events = await db()
      .selectFrom('events')
      .select('type')
      .where('resource_id', '=', charge.id)
      .orderBy('created_at')
      .execute();
    expect(events.map((event) => event.type).sort()).toEqual([
      'charge.refunded',
      'charge.refunded',
      'charge.succeeded',
    ]);
    const entries = await db()
      .selectFrom('journal_entries')
      .select('kind')
      .where('source_id', 'in', [partial.body.id, rest.body.id])
      .execute();
    expect(entries).toHaveLength(2);
    const atAcquirer = await acquirerControl(t.sandboxAcquirer).payment(charge.providerPaymentId);
    expect(atAcquirer.refundedAmount).toBe('10000');
  });

  it('refuses more than what remains, and anything on a fully refunded charge', async () => {
    const charge = await paidCharge(5000);
    const over = await refund(charge.id, { amount: 5001 });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('validation_failed');
    expect(over.body.error.details?.issues?.[0]).toMatchObject({ path: 'amount', code: 'too_large' });
    expect(over.body.error.message).toContain('5000');
    expect((await refund(charge.id, { amount: 5000 })).status).toBe(201);
    const more = await refund(charge.id, { amount: 1 });
    expect(more.status).toBe(409);
    expect(more.body.error.code).toBe('invalid_state_transition');
  });

  it('never refunds more than the charge under concurrent requests', async () => {
    const charge = await paidCharge(3000);
    const results = await Promise.all(Array.from({ length: 6 }, () => refund(charge.id, { amount: 1000 })));
    expect(results.filter((res) => res.status === 201)).toHaveLength(3);
    const view = (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
    expect(view.amountRefunded).toBe('3000');
  });

  it('refuses a pending charge with 409 and validates the body', async () => {
    const charge = await createCharge();
    const pending = await refund(charge.id, { amount: 100 });
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('invalid_state_transition');
    const paid = await paidCharge();
    for (const body of [{ amount: 0 }, { amount: 1.5 }, { amount: '100' }, { extra: true }]) {
      const res = await refund(paid.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('is idempotent with X-Idempotency-Key, and continues the same refund after an acquirer outage', async () => {
    const charge = await paidCharge(4000);
    const replayed = [await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-1' })];
    replayed.push(await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-1' }));
    expect(replayed.map((res) => res.status)).toEqual([201, 201]);
    expect(replayed[1]?.body.id).toBe(replayed[0]?.body.id);

    await acquirerControl(t.sandboxAcquirer).addFault(errorFault('refund', 503, 'down'));
    const outage = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-2' });
    expect(outage.status).toBe(502);
    expect(outage.body.error.code).toBe('provider_unavailable');
    await acquirerControl(t.sandboxAcquirer).clearFaults();
    const retry = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-2' });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.status).toBe('succeeded');
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => item.status)).toEqual(['succeeded', 'succeeded']);
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('2000');
  });

  /** The first request of `body` under `key` ends in 502 provider_unavailable: the key is not remembered. */
  async function refundInOutage(chargeId: string, body: unknown, key: string): Promise<string> {
    await acquirerControl(t.sandboxAcquirer).addFault(errorFault('refund', 503, 'down'));
    try {
      const outage = await refund(chargeId, body, { 'x-idempotency-key': key });
      expect(outage.status, outage.text).toBe(502);
      expect(outage.body.error.code).toBe('provider_unavailable');
      return String((outage.body.error.details as { refundId?: string } | undefined)?.refundId);
    } finally {
      await acquirerControl(t.sandboxAcquirer).clearFaults();
    }
  }

  it('after provider_unavailable, the same key with another body is 409 idempotency_key_reuse, never the earlier refund', async () => {
    const charge = await paidCharge(4000);
    const first = { amount: 1000, reason: 'damaged' };
    const pendingId = await refundInOutage(charge.id, first, 'rf-reuse-body');
    const stored = await db()
      .selectFrom('refunds')
      .select('request_fingerprint')
      .where('id', '=', pendingId)
      .executeTakeFirstOrThrow();
    // Keyed (ADR 0054): never the plain SHA-256 of the body.
    expect(stored.request_fingerprint).toBe(
      t.gateway.services.idempotencyStore.fingerprints.of(canonicalJson(first)).value,
    );
    expect(stored.request_fingerprint).toMatch(/^h1:v1:[0-9a-f]{64}$/);
    for (const other of [{ amount: 3000, reason: 'damaged' }, { amount: 1000 }, { reason: 'damaged' }, {}]) {
      const res = await refund(charge.id, other, { 'x-idempotency-key': 'rf-reuse-body' });
      expect([res.status, res.body.error?.code], JSON.stringify(other)).toEqual([
        409,
        'idempotency_key_reuse',
      ]);
      expect(res.text).not.toContain(pendingId);
    }
    // The refusal answers that body, not the key: the first request's retry still gets its own refund.
    const retried = await refund(
      charge.id,
      { reason: 'damaged', amount: 1000 },
      { 'x-idempotency-key': 'rf-reuse-body' },
    );
    expect(retried.status, retried.text).toBe(201);
    expect([retried.body.id, retried.body.amount, retried.body.status]).toEqual([
      pendingId,
      '1000',
      'succeeded',
    ]);
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => item.id)).toEqual([pendingId]);
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('1000');
  });

  it("after provider_unavailable, another API key of the organization with the same key gets 409, never the first key's refund", async () => {
    const charge = await paidCharge(4000);
    const pendingId = await refundInOutage(charge.id, { amount: 1000 }, 'rf-reuse-key');
    const second = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read', 'write'] });
    const stolen = await api<Body>(`/v1/charges/${charge.id}/refunds`, {
      method: 'POST',
      body: { amount: 1000 },
      headers: { 'x-idempotency-key': 'rf-reuse-key' },
      key: second.secret,
    });
    expect([stolen.status, stolen.body.error?.code], stolen.text).toEqual([409, 'idempotency_key_reuse']);
    expect(stolen.body.error.details).toEqual({ reason: 'other_api_key' });
    expect(stolen.text).not.toContain(pendingId);
    const retried = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-reuse-key' });
    expect([retried.status, retried.body.id]).toEqual([201, pendingId]);
  });

  it('continues a refund written before its request fingerprint was recorded only for the request it recorded', async () => {
    const charge = await paidCharge(4000);
    const pendingId = await refundInOutage(charge.id, { amount: 1000, reason: 'late' }, 'rf-reuse-legacy');
    // As a refund made before migration 0033, or by the previous release during a deploy.
    await sql`update refunds set request_fingerprint = null where id = ${pendingId}`.execute(db());
    for (const other of [
      { amount: 1001, reason: 'late' },
      { amount: 1000 },
      { amount: 1000, reason: 'early' },
    ]) {
      const res = await refund(charge.id, other, { 'x-idempotency-key': 'rf-reuse-legacy' });
      expect([res.status, res.body.error?.code], JSON.stringify(other)).toEqual([
        409,
        'idempotency_key_reuse',
      ]);
    }
    const retried = await refund(
      charge.id,
      { reason: 'late', amount: 1000 },
      { 'x-idempotency-key': 'rf-reuse-legacy' },
    );
    expect([retried.status, retried.body.id, retried.body.amount]).toEqual([201, pendingId, '1000']);
  });

  it('continues a refund whose fingerprint is the plain SHA-256 of the previous release only for its own request (ADR 0054)', async () => {
    const charge = await paidCharge(4000);
    const first = { amount: 1000, reason: 'late' };
    const pendingId = await refundInOutage(charge.id, first, 'rf-plain-hash');
    // As a refund made within the last 24 hours by the release before keyed fingerprints.
    await sql`update refunds set request_fingerprint = ${sha256Hex(canonicalJson(first))} where id = ${pendingId}`.execute(
      db(),
    );
    const other = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'rf-plain-hash' });
    expect([other.status, other.body.error?.code]).toEqual([409, 'idempotency_key_reuse']);
    const retried = await refund(charge.id, first, { 'x-idempotency-key': 'rf-plain-hash' });
    expect([retried.status, retried.body.id, retried.body.amount]).toEqual([201, pendingId, '1000']);
  });

  /** Moves a refund, and the idempotency store's memory of its key, 25 hours into the past. */
  async function rememberedFor25Hours(refundId: string, key: string): Promise<void> {
    await sql`update refunds set created_at = created_at - interval '25 hours' where id = ${refundId}`.execute(
      db(),
    );
    await sql`update idempotency_keys set created_at = created_at - interval '25 hours',
        expires_at = expires_at - interval '25 hours' where key = ${key}`.execute(db());
  }

  it('forgets a refund key after 24 hours: the same key is then a new refund, within what remains (spec section 4)', async () => {
    const charge = await paidCharge(4000);
    const key = 'rf-forgotten';
    const first = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    await rememberedFor25Hours(first.body.id, key);

    const second = await refund(charge.id, { amount: 500, reason: 'again' }, { 'x-idempotency-key': key });
    expect(second.status, second.text).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect([second.body.amount, second.body.status]).toEqual(['500', 'succeeded']);
    // The new refund holds the key now, for its own 24 hours.
    const reused = await refund(charge.id, { amount: 700 }, { 'x-idempotency-key': key });
    expect([reused.status, reused.body.error?.code]).toEqual([409, 'idempotency_key_reuse']);

    // Once forgotten again, the same key is a new refund of what remains, and then there is nothing left.
    await rememberedFor25Hours(second.body.id, key);
    const rest = await refund(charge.id, {}, { 'x-idempotency-key': key });
    expect([rest.status, rest.body.amount], rest.text).toEqual([201, '2500']);
    await rememberedFor25Hours(rest.body.id, key);
    const nothing = await refund(charge.id, { amount: 1 }, { 'x-idempotency-key': key });
    expect([nothing.status, nothing.body.error?.code], nothing.text).toEqual([
      409,
      'invalid_state_transition',
    ]);
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => item.amount).sort()).toEqual(['1000', '2500', '500']);
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('4000');
  });

  it('a refund left pending more than 24 hours ago does not answer its key: the same request is a new refund', async () => {
    const charge = await paidCharge(4000);
    const key = 'rf-forgotten-pending';
    const pendingId = await refundInOutage(charge.id, { amount: 1000 }, key);
    await rememberedFor25Hours(pendingId, key);
    const again = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': key });
    expect(again.status, again.text).toBe(201);
    expect([again.body.id === pendingId, again.body.amount]).toEqual([false, '1000']);
    // What the pending refund holds back still counts: 2000 remain.
    await rememberedFor25Hours(again.body.id, key);
    const tooMuch = await refund(charge.id, { amount: 2001 }, { 'x-idempotency-key': key });
    expect([tooMuch.status, tooMuch.body.error?.code], tooMuch.text).toEqual([400, 'validation_failed']);
    expect(tooMuch.body.error.details?.issues?.[0]?.code).toBe('too_large');
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => [item.id === pendingId, item.status]).sort()).toEqual([
      [false, 'succeeded'],
      [true, 'pending'],
    ]);
  });

  it('finishes a refund left pending by an outage in the background', async () => {
    const charge = await paidCharge(4000);
    await acquirerControl(t.sandboxAcquirer).addFault(errorFault('refund', 503, 'down'));
    expect((await refund(charge.id, { amount: 500 })).status).toBe(502);
    await acquirerControl(t.sandboxAcquirer).clearFaults();
    t.clock.advance(2 * MINUTE);
    expect(await t.gateway.services.refunds.retryPending()).toBeGreaterThanOrEqual(1);
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => [item.amount, item.status])).toEqual([['500', 'succeeded']]);
  });

  it('keeps a refund pending after a "not now" 4xx on every attempt, retries it later, and rides out one', async () => {
    const charge = await paidCharge(4000);
    await acquirerControl(t.sandboxAcquirer).addFault(errorFault('refund', 429, 'rate_limited'));
    const throttled = await refund(charge.id, { amount: 500 });
    expect(throttled.status, throttled.text).toBe(502);
    expect(throttled.body.error.code).toBe('provider_unavailable');
    let listed = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(listed.body.data.map((item) => [item.amount, item.status])).toEqual([['500', 'pending']]);
    // Still reserved: no more than what remains can be asked for meanwhile.
    const over = await refund(charge.id, { amount: 3501 });
    expect(over.status, over.text).toBe(400);
    // The background retry, once the acquirer takes requests again, finishes it.
    await acquirerControl(t.sandboxAcquirer).clearFaults();
    t.clock.advance(2 * MINUTE);
    expect(await t.gateway.services.refunds.retryPending()).toBeGreaterThanOrEqual(1);
    listed = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(listed.body.data.map((item) => [item.amount, item.status])).toEqual([['500', 'succeeded']]);

    // One 429 among the attempts is ridden out within the request.
    await acquirerControl(t.sandboxAcquirer).addFault(
      errorFault('refund', 429, 'rate_limited', { times: 1 }),
    );
    const second = await refund(charge.id, { amount: 700 });
    expect(second.status, second.text).toBe(201);
    expect(second.body.status).toBe('succeeded');
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('1200');
  });

  it('records an acquirer refusal as a failed refund and answers provider_rejected', async () => {
    const charge = await paidCharge(4000);
    await acquirerControl(t.sandboxAcquirer).addFault(
      errorFault('refund', 422, 'refund_window_closed', {
        message: 'Refund window closed at /srv/psp/refunds.js:12',
      }),
    );
    const res = await refund(charge.id, { amount: 500 });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_rejected');
    expect(res.body.error.message).not.toContain('/srv/');
    const refunds = await api<{ data: RefundBody[] }>(`/v1/charges/${charge.id}/refunds`);
    expect(refunds.body.data.map((item) => item.status)).toEqual(['failed']);
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('0');
  });

  it("is 404 for another organization's charge and needs write", async () => {
    const charge = await paidCharge();
    const other = await createMerchant(t);
    const foreign = await api<Body>(`/v1/charges/${charge.id}/refunds`, {
      method: 'POST',
      body: {},
      key: other.keys.sandbox.secret,
    });
    expect(foreign.status).toBe(404);
    const reader = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    const denied = await api<Body>(`/v1/charges/${charge.id}/refunds`, {
      method: 'POST',
      body: {},
      key: reader.secret,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
  });

  it('lists the refunds a page at a time, newest first, each cursor bound to its charge', async () => {
    const charge = await paidCharge(10_000);
    const made: string[] = [];
    for (const amount of [1000, 2000, 3000]) {
      t.clock.advance(1000);
      const res = await refund(charge.id, { amount });
      expect(res.status, res.text).toBe(201);
      made.push(res.body.id);
    }
    type Page = { data: RefundBody[]; nextCursor: string | null };
    const list = (query: string) => api<Page & ErrorBody>(`/v1/charges/${charge.id}/refunds${query}`);

    const all = await list('');
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.map((item) => item.id)).toEqual([...made].reverse());
    expect(all.body.nextCursor).toBeNull();

    const first = await list('?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((item) => item.amount)).toEqual(['3000', '2000']);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.body.nextCursor ?? '');
    const second = await list(`?limit=2&cursor=${cursor}`);
    expect(second.status, second.text).toBe(200);
    expect(second.body.data.map((item) => item.amount)).toEqual(['1000']);
    expect(second.body.nextCursor).toBeNull();

    // A cursor of this charge's list is refused on another charge's, as is one this API never issued.
    const other = await paidCharge(5000);
    const elsewhere = await api<ErrorBody>(`/v1/charges/${other.id}/refunds?cursor=${cursor}`);
    expect(elsewhere.status, elsewhere.text).toBe(400);
    expect(elsewhere.body.error.code).toBe('validation_failed');
    expect(elsewhere.body.error.details?.issues?.[0]).toMatchObject({
      path: 'cursor',
      code: 'invalid_value',
    });
    const forged = await list(`?cursor=${cursor.slice(0, -2)}xx`);
    expect(forged.status, forged.text).toBe(400);
    expect(forged.body.error.details?.issues?.[0]).toMatchObject({ path: 'cursor' });
    for (const query of ['?limit=0', '?limit=101', '?limit=two', '?page=2']) {
      const refused = await list(query);
      expect(refused.status, `${query}: ${refused.text}`).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
    }

    // Another organization's charge is 404 with or without a cursor; its key cannot read this list.
    const stranger = await createMerchant(t);
    for (const query of ['', `?cursor=${cursor}`]) {
      const foreign = await api<ErrorBody>(`/v1/charges/${charge.id}/refunds${query}`, {
        key: stranger.keys.sandbox.secret,
      });
      expect(foreign.status, foreign.text).toBe(404);
      expect(foreign.body.error.code).toBe('not_found');
    }
  });
});

describe('expiry', () => {
  it('expires unpaid charges past expiresAt: canceled at the acquirer, charge.expired recorded', async () => {
    const charge = await createCharge();
    t.clock.advance(DAY - MINUTE);
    await t.gateway.services.completion.expireDue();
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.status).toBe('pending');
    t.clock.advance(2 * MINUTE);
    expect(await t.gateway.services.completion.expireDue()).toBeGreaterThanOrEqual(1);
    const view = (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
    expect([view.status, view.providerStatus]).toEqual(['expired', 'canceled']);
    const events = await db()
      .selectFrom('events')
      .select('type')
      .where('resource_id', '=', charge.id)
      .execute();
    expect(events.map((event) => event.type)).toEqual(['charge.expired']);
    // Nothing can pay it any more.
    const late = await authorizeAtAcquirer(charge.providerPaymentId);
    expect(late.status).toBe(409);
  });

  it('a payment completed just before expiry succeeds instead, even when its notification was lost', async () => {
    const control = acquirerControl(t.sandboxAcquirer);
    const charge = await createCharge();
    await control.addFault({ operation: 'notification', action: 'drop' });
    const payment = await authorizeAtAcquirer(charge.providerPaymentId);
    expect(payment.status).toBe(200);
    t.clock.advance(DAY + MINUTE);
    await t.gateway.services.completion.expireDue();
    const view = (await api<ChargeBody>(`/v1/charges/${charge.id}`)).body;
    expect([view.status, view.providerStatus]).toEqual(['succeeded', 'succeeded']);
    const ledger = await db()
      .selectFrom('journal_entries')
      .select('kind')
      .where('source_id', '=', charge.id)
      .execute();
    expect(ledger).toHaveLength(1);
  });
});
