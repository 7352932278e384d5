/**
 * Idempotency of POST /v1/charges (spec section 4 rules 1 to 4, product decision 14): replays, conflicts,
 * in-flight duplicates, what is and is not remembered, and the 24-hour memory, driven by the clock.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { DAY } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { t, useTestGateway } from './helpers/suite.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { apiUrl, createMerchant, issueKey, type Merchant } from './helpers/merchants.js';

interface ChargeBody {
  id: string;
  amount: string;
  providerPaymentId: string;
  merchantReference: string;
}
type Body = ChargeBody & ErrorBody;

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
});

const acquirer = () => acquirerControl(t.sandboxAcquirer);

function post(
  body: unknown,
  idempotencyKey: string | undefined,
  init: { key?: string; rawBody?: string } = {},
): Promise<HttpResult<Body>> {
  return request<Body>(`${apiUrl(t.urls, 'sandbox')}/v1/charges`, {
    ...(init.rawBody !== undefined ? { rawBody: init.rawBody } : { body }),
    headers: {
      'x-api-key': init.key ?? merchant.keys.sandbox.secret,
      'content-type': 'application/json',
      ...(idempotencyKey !== undefined ? { 'x-idempotency-key': idempotencyKey } : {}),
    },
  });
}

async function chargesWithReference(reference: string) {
  return t.gateway.database.db
    .selectFrom('charges')
    .select(['id', 'creation_state'])
    .where('merchant_reference', '=', reference)
    .execute();
}

const uniqueKey = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe('idempotent charge creation', () => {
  it('replays the original 201 for the same key and body, and creates nothing new', async () => {
    const key = uniqueKey('replay');
    const body = validCharge({ metadata: { b: 2, a: 1 } });
    const first = await post(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body, whitespace and member order aside, is the same request.
    const reordered = JSON.stringify({
      metadata: { a: 1, b: 2 },
      merchantReference: body.merchantReference,
      paymentMethod: body.paymentMethod,
      currency: body.currency,
      amount: body.amount,
    }).replace(/,/g, ' ,\n ');
    const second = await post(undefined, key, { rawBody: reordered });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await chargesWithReference(String(body.merchantReference))).toHaveLength(1);
    expect(await acquirer().paymentsFor(first.body.id)).toHaveLength(1);
  });

  it('stores, with the acquirer ids, exactly the 201 it sends, which is the charge as stored (ADR 0046)', async () => {
    const key = uniqueKey('stored');
    const created = await post(validCharge({ metadata: { order: 'o-1' } }), key);
    expect(created.status, created.text).toBe(201);
    const stored = await t.gateway.database.db
      .selectFrom('idempotency_keys')
      .select(['state', 'response_status', 'response_body'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ state: 'completed', response_status: 201, response_body: created.text });
    const read = await request<Body>(`${apiUrl(t.urls, 'sandbox')}/v1/charges/${created.body.id}`, {
      method: 'GET',
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(created.body.providerPaymentId).toMatch(/\S/);
  });

  it('finishes a creation whose lease was taken over while it waited on the acquirer, and stores its 201', async () => {
    const key = uniqueKey('lease');
    const body = validCharge();
    await acquirer().addFault({ operation: 'create_payment', action: 'latency', latencyMs: 1500, times: 1 });
    const pending = post(body, key);
    // While the request waits on the acquirer, its lease changes hands (as when the recovery job or a
    // retry takes over a lapsed lease): the folded phase 2 must not apply, the lone one does.
    let taken = 0;
    for (let i = 0; i < 50 && taken === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const result = await t.gateway.database.db
        .updateTable('charges')
        .set({ creation_locked_until: new Date(t.clock.now().getTime() + 123_456) })
        .where('merchant_reference', '=', String(body.merchantReference))
        .where('creation_state', '=', 'creating')
        .executeTakeFirst();
      taken = Number(result.numUpdatedRows);
    }
    expect(taken).toBe(1);
    const created = await pending;
    expect(created.status, created.text).toBe(201);
    const rows = await chargesWithReference(String(body.merchantReference));
    expect(rows).toEqual([{ id: created.body.id, creation_state: 'created' }]);
    const stored = await t.gateway.database.db
      .selectFrom('idempotency_keys')
      .select(['state', 'response_body'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ state: 'completed', response_body: created.text });
    const replay = await post(body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);
  });

  it('answers 409 idempotency_key_reuse for the same key with another body', async () => {
    const key = uniqueKey('reuse');
    const body = validCharge();
    expect((await post(body, key)).status).toBe(201);
    const other = await post({ ...body, amount: 1 }, key);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
    expect(await chargesWithReference(String(body.merchantReference))).toHaveLength(1);
  });

  it('creates exactly one charge and one acquirer payment for 50 concurrent requests with one key', async () => {
    const key = uniqueKey('burst');
    const body = validCharge();
    const results = await Promise.all(Array.from({ length: 50 }, () => post(body, key)));
    const created = results.filter((res) => res.status === 201);
    const refused = results.filter((res) => res.status !== 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    for (const res of refused) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.error.code).toBe('duplicate_request');
    }
    const rows = await chargesWithReference(String(body.merchantReference));
    expect(rows).toHaveLength(1);
    expect(await acquirer().paymentsFor(rows[0]?.id ?? '')).toHaveLength(1);
    // Once the first has finished, every retry is a replay of it.
    const late = await post(body, key);
    expect(late.status).toBe(201);
    expect(late.body.id).toBe(created[0]?.body.id);
  });

  it('does not remember provider_unavailable: the retry with the same key runs again and succeeds', async () => {
    const key = uniqueKey('outage');
    const body = validCharge();
    await acquirer().addFault(errorFault('create_payment', 503, 'maintenance'));
    try {
      const failed = await post(body, key);
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('provider_unavailable');
      expect(failed.headers.get('retry-after')).toBe('30');
    } finally {
      await acquirer().clearFaults();
    }
    const retried = await post(body, key);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const rows = await chargesWithReference(String(body.merchantReference));
    expect(rows.map((row) => row.creation_state)).toEqual(['created']);
    expect(rows[0]?.id).toBe(retried.body.id);
    expect(await acquirer().paymentsFor(retried.body.id)).toHaveLength(1);
  });

  /** The first request of `body` under `key` ends in 502 provider_unavailable: nothing is remembered. */
  async function failWithOutage(body: unknown, key: string, apiKey?: string): Promise<void> {
    await acquirer().addFault(errorFault('create_payment', 503, 'maintenance'));
    try {
      const failed = await post(body, key, apiKey === undefined ? {} : { key: apiKey });
      expect(failed.status, failed.text).toBe(502);
      expect(failed.body.error.code).toBe('provider_unavailable');
    } finally {
      await acquirer().clearFaults();
    }
  }

  it('after provider_unavailable, the same key with another body is 409 idempotency_key_reuse, never the first charge', async () => {
    const key = uniqueKey('outage-reuse');
    const first = validCharge({ amount: 1000 });
    await failWithOutage(first, key);
    const second = validCharge({ amount: 999_999 });
    const reused = await post(second, key);
    expect(reused.status, reused.text).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reuse');
    expect(reused.text).not.toContain(String(first.merchantReference));
    expect(await chargesWithReference(String(second.merchantReference))).toEqual([]);
    // The refusal answers that body, not the key: it is not remembered, and the first request's retry
    // still finishes its own charge, for its own amount.
    const retried = await post(first, key);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect([retried.body.amount, retried.body.merchantReference]).toEqual(['1000', first.merchantReference]);
    expect(await acquirer().paymentsFor(retried.body.id)).toHaveLength(1);
    const again = await post(second, key);
    expect([again.status, again.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
  });

  it('a created charge whose stored outcome is missing answers only its own body under the key', async () => {
    const key = uniqueKey('created-holder');
    const first = validCharge();
    await failWithOutage(first, key);
    const retried = await post(first, key);
    expect(retried.status, retried.text).toBe(201);
    // The store no longer holds the 201 (its write failed, or the charge was finished by the recovery
    // job after the outage): the charge row itself tells a retry from another request.
    await t.gateway.database.db.deleteFrom('idempotency_keys').where('key', '=', key).execute();
    const other = await post(validCharge({ amount: 5 }), key);
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
    expect(other.text).not.toContain(retried.body.id);
    const same = await post(first, key);
    expect([same.status, same.body.id]).toEqual([201, retried.body.id]);
  });

  it('after provider_unavailable, another API key of the organization with the same key and body gets 409, not the charge', async () => {
    const key = uniqueKey('outage-other-key');
    const body = validCharge();
    await failWithOutage(body, key);
    const second = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId);
    const stolen = await post(body, key, { key: second.secret });
    expect(stolen.status, stolen.text).toBe(409);
    expect(stolen.body.error.code).toBe('idempotency_key_reuse');
    expect(stolen.body.error.details).toEqual({ reason: 'other_api_key' });
    const retried = await post(body, key);
    expect(retried.status, retried.text).toBe(201);
  });

  it('tells customer ID numbers apart under a key without keeping a hash of them', async () => {
    const key = uniqueKey('outage-id-number');
    const first = validCharge({ customer: { name: 'Ayşe Yılmaz', idNumber: '10000000146' } });
    await failWithOutage(first, key);
    const [row] = await chargesWithReference(String(first.merchantReference));
    const stored = await t.gateway.database.db
      .selectFrom('charges')
      .select('request_fingerprint')
      .where('id', '=', row?.id ?? '')
      .executeTakeFirstOrThrow();
    // Keyed (ADR 0054), and still without the ID number.
    expect(stored.request_fingerprint).toBe(
      t.gateway.services.idempotencyStore.fingerprints.of(
        canonicalJson({ ...first, customer: { name: 'Ayşe Yılmaz' } }),
      ).value,
    );
    expect(stored.request_fingerprint).toMatch(/^h1:v1:[0-9a-f]{64}$/);
    const other = await post({ ...first, customer: { name: 'Ayşe Yılmaz', idNumber: '10000000078' } }, key);
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
    const retried = await post(first, key);
    expect([retried.status, retried.body.id]).toEqual([201, row?.id]);
  });

  it('continues a charge written before its request fingerprint was recorded only for the request it recorded', async () => {
    const key = uniqueKey('outage-legacy');
    const first = validCharge({ amount: 1000, metadata: { order: 'o-7', lines: [1, 2] } });
    await failWithOutage(first, key);
    const [row] = await chargesWithReference(String(first.merchantReference));
    // As a charge made before migration 0032, or by the previous release during a deploy.
    await sql`update charges set request_fingerprint = null where id = ${row?.id}`.execute(
      t.gateway.database.db,
    );
    for (const changed of [
      { ...first, amount: 1001 },
      { ...first, metadata: { order: 'o-8', lines: [1, 2] } },
      { ...first, paymentMethod: 'bank_transfer' },
      { ...first, customer: { name: 'Someone Else' } },
      { ...first, customer: { idNumber: '10000000146' } },
    ]) {
      const res = await post(changed, key);
      expect([res.status, res.body.error.code], JSON.stringify(changed)).toEqual([
        409,
        'idempotency_key_reuse',
      ]);
    }
    // The same request, its members in another order, continues it.
    const retried = await post({ metadata: { lines: [1, 2], order: 'o-7' }, ...first }, key);
    expect(retried.status, retried.text).toBe(201);
    expect([retried.body.id, retried.body.amount]).toEqual([row?.id, '1000']);
  });

  it('a charge whose fingerprint is the plain SHA-256 of the previous release continues only for its own request (ADR 0054)', async () => {
    const key = uniqueKey('outage-plain-hash');
    const first = validCharge({ amount: 1000 });
    await failWithOutage(first, key);
    const [row] = await chargesWithReference(String(first.merchantReference));
    // As a charge made within the last 24 hours by the release before keyed fingerprints.
    await sql`update charges set request_fingerprint = ${sha256Hex(canonicalJson(first))} where id = ${row?.id}`.execute(
      t.gateway.database.db,
    );
    const other = await post({ ...first, amount: 1001 }, key);
    expect([other.status, other.body.error?.code]).toEqual([409, 'idempotency_key_reuse']);
    const retried = await post(first, key);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body.id).toBe(row?.id);
  });

  it('an outcome stored under the plain SHA-256 of the previous release is still replayed to its own request (ADR 0054)', async () => {
    const key = uniqueKey('store-plain-hash');
    const body = validCharge({ customer: { name: 'Ayşe Yılmaz', idNumber: '10000000146' } });
    const first = await post(body, key);
    expect(first.status, first.text).toBe(201);
    const db = t.gateway.database.db;
    const plain = sha256Hex(`POST /v1/charges\n${canonicalJson(body)}`);
    const stored = await db
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    // Keyed: a dump does not give the body's ID number back to whoever hashes every candidate.
    expect(stored.fingerprint).toMatch(/^h1:v1:[0-9a-f]{64}$/);
    expect(stored.fingerprint).not.toBe(plain);
    // As the previous release stored it, within its 24 hours.
    await db.updateTable('idempotency_keys').set({ fingerprint: plain }).where('key', '=', key).execute();
    const replayed = await post(body, key);
    expect(replayed.status, replayed.text).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(first.body.id);
    const other = await post({ ...body, customer: { name: 'Ayşe Yılmaz', idNumber: '10000000078' } }, key);
    expect([other.status, other.body.error?.code]).toEqual([409, 'idempotency_key_reuse']);
  });

  it('remembers provider_rejected, and the refused charge does not hold its merchantReference', async () => {
    const key = uniqueKey('rejected');
    const body = validCharge();
    await acquirer().addFault(
      errorFault('create_payment', 422, 'merchant_limit_exceeded', {
        message: 'Monthly limit exceeded for merchant 9f8e7d6c5b4a39281706f5e4d3c2b1a0',
        times: 1,
      }),
    );
    const first = await post(body, key);
    expect(first.status).toBe(502);
    expect(first.body.error.code).toBe('provider_rejected');
    const callsBefore = (await acquirer().calls('create_payment')).length;
    const replay = await post(body, key);
    expect(replay.status).toBe(502);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // The stored answer, except that a replayed error names the request that received it (issue 11).
    expect(replay.body.error.requestId).toBe(replay.headers.get('x-request-id'));
    expect(replay.body.error.requestId).not.toBe(first.body.error.requestId);
    expect({
      ...replay.body,
      error: { ...replay.body.error, requestId: first.body.error.requestId },
    }).toEqual(first.body);
    expect((await acquirer().calls('create_payment')).length).toBe(callsBefore);
    // A new request (new key) may use the reference: the rejected charge never held it.
    const again = await post(body, uniqueKey('after-rejection'));
    expect(again.status, again.text).toBe(201);
  });

  it('scopes keys to the organization and environment', async () => {
    const key = uniqueKey('scoped');
    const other = await createMerchant(t);
    const mine = await post(validCharge(), key);
    const theirs = await post(validCharge(), key, { key: other.keys.sandbox.secret });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('forgets keys after 24 hours', async () => {
    const key = uniqueKey('forgotten');
    const first = await post(validCharge(), key);
    expect(first.status).toBe(201);
    t.clock.advance(DAY - 1);
    expect((await post(validCharge(), key)).body.error.code).toBe('idempotency_key_reuse');
    t.clock.advance(2);
    const later = await post(validCharge(), key);
    expect(later.status, later.text).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
    // The purge job removes what was forgotten.
    expect(await t.gateway.services.idempotencyStore.purgeExpired(t.clock.now())).toBeGreaterThan(0);
  });

  it('refuses a malformed key with 400 and stores nothing', async () => {
    for (const key of ['has space', 'x'.repeat(256), 'ünicode']) {
      const res = await post(validCharge(), key);
      expect(res.status).toBe(400);
      expect(res.body.error.details?.issues?.[0]?.path).toBe('X-Idempotency-Key');
    }
  });

  it('without a key, a retry creates a second charge (spec section 4 rule 1) unless the reference repeats', async () => {
    const body = validCharge();
    expect((await post(body, undefined)).status).toBe(201);
    const retry = await post(body, undefined);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('duplicate_merchant_reference');
  });
});
