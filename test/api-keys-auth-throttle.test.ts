/**
 * Failed API-key authentications are limited per client address (429 `too_many_requests` with
 * Retry-After; decisions 0012 and 0066). While an address is over its limit only a key that already
 * authenticated from that address is checked: the merchant's servers behind the address keep working,
 * and every other key (garbage, a guess, a valid key new to the address) gets the same 429 without a
 * lookup; other addresses are unaffected. With REDIS_URL the count and the proofs are shared by every
 * instance.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../src/modules/api-keys/key-format.js';
import { SECOND } from '../src/shared/clock.js';
import { createFreshDatabase, dropDatabase } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createOrganization, issueKey, revokeKeyInDatabase } from './helpers/merchants.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = { API_KEY_FAILURE_LIMIT_MAX: '3', API_KEY_FAILURE_LIMIT_WINDOW_MS: '60000' };
// X-Forwarded-For from loopback is believed, so each test speaks from addresses of its own.
const PROXY = { TRUSTED_PROXIES: '127.0.0.1' };

let t: TestGateway;
const shared: TestGateway[] = [];
const prefix = `test:${randomBytes(6).toString('hex')}:`;
let redis: Redis;
let sharedDatabaseUrl: string | undefined;
let counter = 0;
const nextAddress = () => `198.51.100.${++counter}`;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  t = await startTestGateway({ env: { ...LIMIT, ...PROXY } });
  const env = { ...LIMIT, ...PROXY, REDIS_URL, REDIS_KEY_PREFIX: prefix };
  // One database for both, as in a deployment: a key issued through one is valid on the other (the
  // local PostgreSQL server even in the PGlite pass, since PGlite cannot be shared).
  sharedDatabaseUrl = await createFreshDatabase();
  shared.push(
    await startTestGateway({ env, sharedDatabaseUrl }),
    await startTestGateway({ env, sharedDatabaseUrl }),
  );
  // Each instance connects to Redis in the background: wait until its failures reach Redis.
  for (const gateway of shared) {
    const probe = nextAddress();
    for (let attempt = 0; ; attempt++) {
      await call(gateway, probe, wrongKey());
      if ((await redis.get(`${prefix}auth-fail:${probe}:${windowOf(gateway)}`)) !== null) break;
      if (attempt > 100) throw new Error('the gateway never counted in Redis');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 180_000);
afterAll(async () => {
  await Promise.all([t, ...shared].map((gateway) => gateway?.close()));
  if (sharedDatabaseUrl !== undefined) await dropDatabase(sharedDatabaseUrl);
  redis?.disconnect();
});

const windowOf = (gateway: TestGateway) => Math.floor(gateway.clock.now().getTime() / 60_000);
/** A well-formed sandbox key (right checksum) that no organization holds. */
const wrongKey = () => generateApiKey('sandbox').secret;

function call(gateway: TestGateway, address: string, secret?: string) {
  return request<ErrorBody>(`${gateway.urls.sandboxApi}/v1/charges`, {
    headers: { 'x-forwarded-for': address, ...(secret !== undefined ? { 'x-api-key': secret } : {}) },
  });
}

async function validKey(gateway: TestGateway) {
  const db = gateway.gateway.database.db;
  return (await issueKey(db, gateway.clock, await createOrganization(db, gateway.clock))).secret;
}

describe('failed API-key authentications per address', () => {
  it('count an IPv6 client by its /64, and an IPv4-mapped address as its IPv4 address', async () => {
    // A host holds a whole /64 and can send every request from a fresh address in it (ADR 0072).
    const block = `2001:db8:${(++counter).toString(16)}:7`;
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++)
      statuses.push((await call(t, `${block}::${i.toString(16)}`, wrongKey())).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Written another way, the same /64 is the same client; the next /64 is another.
    expect((await call(t, `${block}:0:0:0:abcd`, wrongKey())).status).toBe(429);
    expect((await call(t, `2001:db8:${counter.toString(16)}:8::1`, wrongKey())).status).toBe(401);

    const v4 = nextAddress();
    const mapped: number[] = [];
    for (let i = 0; i < 2; i++) mapped.push((await call(t, v4, wrongKey())).status);
    for (let i = 0; i < 2; i++) mapped.push((await call(t, `::ffff:${v4}`, wrongKey())).status);
    expect(mapped).toEqual([401, 401, 401, 429]);
  });

  it('answers 429 with Retry-After past the limit, to every key of that address only', async () => {
    const good = await validKey(t);
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(t, address, wrongKey())).status);
    expect(statuses).toEqual([401, 401, 401]);

    const refused = await call(t, address, wrongKey());
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_requests');
    expect(refused.body.error.requestId).toBe(refused.headers.get('x-request-id'));
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // A valid key that never authenticated from this address is refused the same way: a right guess
    // looks like a wrong one.
    const valid = await call(t, address, good);
    expect(valid.status).toBe(429);
    expect(valid.body.error.code).toBe('too_many_requests');
    // A revoked-looking, malformed or expired key too.
    expect((await call(t, address, 'sk_test_nonsense')).status).toBe(429);

    // Other addresses are not affected.
    const elsewhere = nextAddress();
    expect((await call(t, elsewhere, good)).status).toBe(200);
    expect((await call(t, elsewhere, wrongKey())).status).toBe(401);

    // After the window the address may try again.
    t.clock.advance(retryAfter * SECOND);
    expect((await call(t, address, good)).status).toBe(200);
    expect((await call(t, address, wrongKey())).status).toBe(401);
  });

  it('keeps answering a key the address already used, while its failures stay throttled', async () => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const merchant = (await issueKey(db, t.clock, organizationId)).secret;
    const laterRevoked = await issueKey(db, t.clock, organizationId);
    const neverUsedHere = (await issueKey(db, t.clock, organizationId)).secret;
    const revoked = (await issueKey(db, t.clock, organizationId, { revoked: true })).secret;
    const address = nextAddress();
    // The merchant's servers work from the address; then a neighbour behind it fails past the limit.
    expect((await call(t, address, merchant)).status).toBe(200);
    expect((await call(t, address, laterRevoked.secret)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(t, address, wrongKey())).status).toBe(401);
    const refused = await call(t, address, wrongKey());
    expect(refused.status).toBe(429);

    // The merchant's key still answers, again and again.
    for (let i = 0; i < 5; i++) expect((await call(t, address, merchant)).status).toBe(200);
    // Every other key gets one answer, whatever it is: a guess, garbage, a revoked key, a valid key that
    // never authenticated from here, or a key that did and was revoked since (which counts, and stays
    // throttled).
    await revokeKeyInDatabase(db, t.clock, laterRevoked.id);
    const others = [
      wrongKey(),
      'sk_test_nonsense',
      'x'.repeat(200),
      revoked,
      neverUsedHere,
      laterRevoked.secret,
    ];
    const answers = [];
    for (const secret of others) answers.push(await call(t, address, secret));
    const shape = (answer: typeof refused) => ({
      status: answer.status,
      code: answer.body.error.code,
      message: answer.body.error.message,
      retryAfter: answer.headers.get('retry-after'),
    });
    expect(answers.map(shape)).toEqual(others.map(() => shape(refused)));
    // The merchant is unaffected by all that.
    expect((await call(t, address, merchant)).status).toBe(200);

    t.clock.advance(Number(refused.headers.get('retry-after')) * SECOND);
    expect((await call(t, address, neverUsedHere)).status).toBe(200);
    expect((await call(t, address, wrongKey())).status).toBe(401);
  });

  it('does not count successful requests or requests without a key', async () => {
    const good = await validKey(t);
    const address = nextAddress();
    for (let i = 0; i < 10; i++) expect((await call(t, address, good)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await call(t, address)).status).toBe(401);
    expect((await call(t, address, wrongKey())).status).toBe(401);
  });

  it('is shared by every instance through Redis', async () => {
    const [a, b] = shared as [TestGateway, TestGateway];
    const good = await validKey(a);
    const address = nextAddress();
    expect((await call(a, address, wrongKey())).status).toBe(401);
    expect((await call(b, address, wrongKey())).status).toBe(401);
    expect((await call(a, address, wrongKey())).status).toBe(401);
    // The limit is reached across both: b refuses, although it saw a single failure itself.
    const refused = await call(b, address, good);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(a, address, good)).status).toBe(429);
    expect((await call(a, nextAddress(), good)).status).toBe(200);
  });

  it('shares through Redis which keys an address already used', async () => {
    const [a, b] = shared as [TestGateway, TestGateway];
    const merchant = await validKey(a);
    const newcomer = await validKey(a);
    const address = nextAddress();
    // Only a saw the merchant's key from this address; b has never met it.
    expect((await call(a, address, merchant)).status).toBe(200);
    expect((await call(b, address, wrongKey())).status).toBe(401);
    expect((await call(a, address, wrongKey())).status).toBe(401);
    expect((await call(b, address, wrongKey())).status).toBe(401);
    expect((await call(b, address, wrongKey())).status).toBe(429);
    expect((await call(a, address, wrongKey())).status).toBe(429);
    // Both instances answer the merchant, b from the proof a left in Redis.
    expect((await call(b, address, merchant)).status).toBe(200);
    expect((await call(a, address, merchant)).status).toBe(200);
    // A key new to the address waits for the window on both.
    expect((await call(b, address, newcomer)).status).toBe(429);
    expect((await call(a, address, newcomer)).status).toBe(429);
  });
});
