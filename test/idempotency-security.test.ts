/**
 * Issue 11, items 1 and 19: an idempotent outcome is replayed only to the API key that produced it
 * (another key of the organization gets 409 `idempotency_key_reuse`, never the stored answer and never
 * a secret), authorization runs before any replay, and a replayed error carries the current request's
 * id in `error.requestId` as in `X-Request-Id`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyScope } from '../src/db/schema.js';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody } from './helpers/http.js';
import { apiUrl, createOrganization, issueKey, updateOrganization } from './helpers/merchants.js';

let t: TestGateway;
let base: string;

beforeAll(async () => {
  t = await startTestGateway();
  base = apiUrl(t.urls, 'sandbox');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function organizationWithKeys(scopes: Record<string, ApiKeyScope[]>, allowedIps: string[] = []) {
  const db = t.gateway.database.db;
  const organizationId = await createOrganization(db, t.clock, { featureFlags: ['apiKeys'] });
  const keys: Record<string, string> = {};
  const ids: Record<string, string> = {};
  for (const [name, keyScopes] of Object.entries(scopes)) {
    const issued = await issueKey(db, t.clock, organizationId, { scopes: keyScopes });
    keys[name] = issued.secret;
    ids[name] = issued.id;
  }
  const restricted = await issueKey(db, t.clock, organizationId, {
    scopes: ['all'],
    allowedIps: allowedIps.length > 0 ? allowedIps : ['203.0.113.0/24'],
  });
  return { organizationId, keys, ids, restricted: restricted.secret };
}

const post = (path: string, secret: string, idempotencyKey: string, body: unknown) =>
  request<ErrorBody & Record<string, unknown>>(`${base}${path}`, {
    method: 'POST',
    body,
    headers: { 'x-api-key': secret, 'x-idempotency-key': idempotencyKey },
  });

const freshKey = () => `idem-${randomBytes(8).toString('hex')}`;

describe('a stored outcome is replayed to the key that produced it only', () => {
  it('POST /v1/api-keys: another key of the organization gets 409, never the stored secret', async () => {
    const { keys } = await organizationWithKeys({ admin: ['all'], writer: ['write'] });
    const idem = freshKey();
    const first = await post('/v1/api-keys', keys.admin!, idem, { scopes: ['all'] });
    expect(first.status).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^sk_test_/);

    const stolen = await post('/v1/api-keys', keys.writer!, idem, { scopes: ['all'] });
    expect(stolen.status).toBe(409);
    expect(stolen.body.error.code).toBe('idempotency_key_reuse');
    expect(stolen.headers.get('idempotent-replayed')).toBeNull();
    expect(stolen.text).not.toContain(secret);
    expect(stolen.text).not.toContain('sk_test_');

    // The key that made it still gets its own answer back, secret included.
    const own = await post('/v1/api-keys', keys.admin!, idem, { scopes: ['all'] });
    expect(own.status).toBe(201);
    expect(own.headers.get('idempotent-replayed')).toBe('true');
    expect(own.body.secret).toBe(secret);
  });

  it('POST /v1/webhook-endpoints and rotate-secret: the whsec_ secret never reaches another key', async () => {
    const { keys } = await organizationWithKeys({ admin: ['all'], writer: ['write'] });
    const idem = freshKey();
    const body = { url: 'https://hooks.merchant.example/a', enabledEvents: ['charge.succeeded'] };
    const first = await post('/v1/webhook-endpoints', keys.admin!, idem, body);
    expect(first.status).toBe(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const stolen = await post('/v1/webhook-endpoints', keys.writer!, idem, body);
    expect(stolen.status).toBe(409);
    expect(stolen.body.error.code).toBe('idempotency_key_reuse');
    expect(stolen.text).not.toContain('whsec_');

    const rotateKey = freshKey();
    const path = `/v1/webhook-endpoints/${first.body.id as string}/rotate-secret`;
    const rotated = await post(path, keys.admin!, rotateKey, {});
    expect(rotated.status).toBe(200);
    const again = await post(path, keys.writer!, rotateKey, {});
    expect(again.status).toBe(409);
    expect(again.text).not.toContain('whsec_');
  });

  it('POST /v1/charges: another key gets 409 and no second charge; the same key gets the replay', async () => {
    const { organizationId, keys } = await organizationWithKeys({ a: ['write'], b: ['write'] });
    const idem = freshKey();
    const charge = validCharge();
    const first = await post('/v1/charges', keys.a!, idem, charge);
    expect(first.status).toBe(201);

    const other = await post('/v1/charges', keys.b!, idem, charge);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
    expect(other.text).not.toContain(first.body.id as string);

    const replay = await post('/v1/charges', keys.a!, idem, charge);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    const count = await t.gateway.database.db
      .selectFrom('charges')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('a card number as the idempotency key is 400, and nothing of it is stored', async () => {
    const { organizationId, keys } = await organizationWithKeys({ a: ['write'] });
    for (const key of ['4242424242424242', 'order-4111-1111-1111-1111']) {
      const res = await post('/v1/charges', keys.a!, key, validCharge());
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details).toMatchObject({
        issues: [{ path: 'X-Idempotency-Key', in: 'header', code: 'invalid_value' }],
      });
      expect(res.text).not.toContain(key);
    }
    const db = t.gateway.database.db;
    expect(
      await db.selectFrom('idempotency_keys').select('key').where('key', 'like', '%4242%').execute(),
    ).toEqual([]);
    const charges = await db
      .selectFrom('charges')
      .select('id')
      .where('organization_id', '=', organizationId)
      .execute();
    expect(charges).toEqual([]);
  });

  it('an in-flight claim of another key is refused the same way, not reported as in flight', async () => {
    const { organizationId, keys, ids } = await organizationWithKeys({ a: ['write'], b: ['write'] });
    const idem = freshKey();
    // A claim left in flight by key a for the very same request, as a request still running leaves it.
    const charge = validCharge();
    await t.gateway.services.idempotencyStore.claim({
      scope: `org:${organizationId}:sandbox`,
      key: idem,
      fingerprint: sha256Hex(`POST /v1/charges\n${canonicalJson(charge)}`),
      caller: `key:${ids.a!}`,
      now: t.clock.now(),
    });
    const other = await post('/v1/charges', keys.b!, idem, charge);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_key_reuse');
    // The key that holds the claim is told it is still in flight.
    const own = await post('/v1/charges', keys.a!, idem, charge);
    expect(own.status).toBe(409);
    expect(own.body.error.code).toBe('duplicate_request');
  });
});

describe('authorization runs before any replay', () => {
  it('a key without the scope, outside its allowedIps or without the flag never sees a replay', async () => {
    const { organizationId, keys, restricted } = await organizationWithKeys({
      admin: ['all'],
      reader: ['read'],
    });
    const idem = freshKey();
    const first = await post('/v1/api-keys', keys.admin!, idem, { scopes: ['read'] });
    expect(first.status).toBe(201);

    const reader = await post('/v1/api-keys', keys.reader!, idem, { scopes: ['read'] });
    expect(reader.status).toBe(403);
    expect(reader.body.error.code).toBe('insufficient_scope');

    const outside = await post('/v1/api-keys', restricted, idem, { scopes: ['read'] });
    expect(outside.status).toBe(401);
    expect(outside.body.error.code).toBe('ip_not_allowed');

    await updateOrganization(t.gateway.database.db, organizationId, { featureFlags: [] });
    const flagless = await post('/v1/api-keys', keys.admin!, idem, { scopes: ['read'] });
    expect(flagless.status).toBe(403);
    expect(flagless.body.error.code).toBe('forbidden');
    expect(flagless.text).not.toContain('sk_test_');
  });
});

describe('a replayed error carries the current request id', () => {
  it('error.requestId equals X-Request-Id on the replay', async () => {
    const { keys } = await organizationWithKeys({ writer: ['write'] });
    const idem = freshKey();
    // A business refusal (a scope the key does not hold) is a final outcome: stored and replayed.
    const first = await post('/v1/api-keys', keys.writer!, idem, { scopes: ['all'] });
    expect(first.status).toBe(403);
    expect(first.body.error.requestId).toBe(first.headers.get('x-request-id'));

    const replay = await post('/v1/api-keys', keys.writer!, idem, { scopes: ['all'] });
    expect(replay.status).toBe(403);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.error.code).toBe('insufficient_scope');
    const header = replay.headers.get('x-request-id');
    expect(header).toMatch(/^req_/);
    expect(header).not.toBe(first.headers.get('x-request-id'));
    expect(replay.body.error.requestId).toBe(header);
  });
});
