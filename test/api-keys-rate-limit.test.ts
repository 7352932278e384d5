/**
 * Product decision 35: per-key limits of 100 requests/s live and 25/s sandbox unless the organization
 * has its own, shared across instances through Redis when REDIS_URL is set, 429 `too_many_requests`
 * with Retry-After. Windows are wall-clock seconds, so each burst is fired at the start of a second and
 * fired again if it straddled two.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../src/db/schema.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, type ErrorBody, type HttpResult } from './helpers/http.js';
import { apiUrl, copyKey, createOrganization, issueKey } from './helpers/merchants.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

let t: TestGateway;
/** A second instance without Redis. */
let alone: TestGateway;
/** Two instances sharing one Redis key prefix. */
const shared: TestGateway[] = [];
/** An instance whose Redis is unreachable. */
let broken: TestGateway;
const prefix = `test:${randomBytes(6).toString('hex')}:`;
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix };
  // One after the other: several embedded databases starting at once in one process are slow.
  t = await startTestGateway();
  alone = await startTestGateway();
  shared.push(await startTestGateway({ env }), await startTestGateway({ env }));
  broken = await startTestGateway({
    env: { REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'test:broken:' },
  });
  // The gateways connect to Redis in the background (and count in memory until then): wait until each
  // one's counts reach Redis.
  for (const gateway of shared) {
    const probe = await keyLimitedTo(gateway, { sandbox: 1000 });
    for (let attempt = 0; ; attempt++) {
      await call(gateway.urls.sandboxApi, probe.secret);
      if ((await redis.keys(`${prefix}rate:api-key:${probe.id}:*`)).length > 0) break;
      if (attempt > 100) throw new Error('the gateway never counted in Redis');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([t, alone, ...shared, broken].map((gateway) => gateway?.close()));
  redis?.disconnect();
});

/** A key of a new organization with the given per-second limits (null: the environment default). */
async function keyLimitedTo(
  on: TestGateway,
  limits: { live?: number | null; sandbox?: number | null },
  environment: Environment = 'sandbox',
) {
  const organizationId = await createOrganization(on.gateway.database.db, on.clock, { rateLimits: limits });
  return issueKey(on.gateway.database.db, on.clock, organizationId, { environment });
}

const call = (url: string, secret: string) =>
  request<ErrorBody>(`${url}/v1/api-keys`, { headers: { 'x-api-key': secret } });

/** Waits for the start of the next wall-clock second. */
async function startOfSecond() {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

/** Sends all requests at once within one wall-clock second (retried if the burst straddled two). */
async function burst(calls: Array<() => Promise<HttpResult<ErrorBody>>>): Promise<HttpResult<ErrorBody>[]> {
  for (let attempt = 0; attempt < 10; attempt++) {
    await startOfSecond();
    const startedAt = Date.now();
    const results = await Promise.all(calls.map((send) => send()));
    if (Math.floor(Date.now() / 1000) === Math.floor(startedAt / 1000)) return results;
  }
  throw new Error('could not fit the burst into one second');
}

const times = (n: number, send: () => Promise<HttpResult<ErrorBody>>) =>
  Array.from({ length: n }, () => send);
const ok = (results: HttpResult<ErrorBody>[]) => results.filter((res) => res.status === 200).length;

describe('per-key rate limits in one process (no Redis)', () => {
  it('applies the defaults, 25/s sandbox and 100/s live, and says so in the headers', async () => {
    for (const [environment, expected] of [
      ['sandbox', '25'],
      ['live', '100'],
    ] as const) {
      const key = await keyLimitedTo(t, { live: null, sandbox: null }, environment);
      const res = await call(apiUrl(t.urls, environment), key.secret);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe(expected);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(Number(expected) - 1));
    }
    const sandboxDefault = await keyLimitedTo(t, { live: null, sandbox: null });
    const results = await burst(times(30, () => call(t.urls.sandboxApi, sandboxDefault.secret)));
    expect(ok(results)).toBe(25);
  });

  it("refuses beyond the organization's limit with 429 too_many_requests and Retry-After, then recovers", async () => {
    const key = await keyLimitedTo(t, { sandbox: 3 });
    const results = await burst(times(8, () => call(t.urls.sandboxApi, key.secret)));
    expect(ok(results)).toBe(3);
    const refused = results.filter((res) => res.status === 429);
    expect(refused).toHaveLength(5);
    for (const res of refused) {
      expect(res.body.error.code).toBe('too_many_requests');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    await startOfSecond();
    expect((await call(t.urls.sandboxApi, key.secret)).status).toBe(200);
  });

  it('counts each key on its own', async () => {
    const organizationId = await createOrganization(t.gateway.database.db, t.clock, {
      rateLimits: { sandbox: 2 },
    });
    const first = await issueKey(t.gateway.database.db, t.clock, organizationId);
    const second = await issueKey(t.gateway.database.db, t.clock, organizationId);
    const results = await burst([
      ...times(3, () => call(t.urls.sandboxApi, first.secret)),
      ...times(3, () => call(t.urls.sandboxApi, second.secret)),
    ]);
    expect(ok(results.slice(0, 3))).toBe(2);
    expect(ok(results.slice(3))).toBe(2);
  });

  it('without Redis, each instance counts alone', async () => {
    const key = await keyLimitedTo(t, { sandbox: 3 });
    await copyKey(t.gateway.database.db, alone.gateway.database.db, key.id);
    const results = await burst([
      ...times(4, () => call(t.urls.sandboxApi, key.secret)),
      ...times(4, () => call(alone.urls.sandboxApi, key.secret)),
    ]);
    expect(ok(results)).toBe(6);
  });
});

describe('per-key rate limits shared through Redis', () => {
  it('two instances share one count', async () => {
    const [first, second] = shared as [TestGateway, TestGateway];
    const key = await keyLimitedTo(first, { sandbox: 3 });
    await copyKey(first.gateway.database.db, second.gateway.database.db, key.id);
    const results = await burst([
      ...times(4, () => call(first.urls.sandboxApi, key.secret)),
      ...times(4, () => call(second.urls.sandboxApi, key.secret)),
    ]);
    expect(ok(results)).toBe(3);
    expect(results.filter((res) => res.status === 429)).toHaveLength(5);
    await startOfSecond();
    expect((await call(second.urls.sandboxApi, key.secret)).status).toBe(200);
    expect((await redis.keys(`${prefix}rate:api-key:${key.id}:*`)).length).toBeGreaterThan(0);
  });

  it('keeps limiting in the process when Redis is unreachable', async () => {
    const key = await keyLimitedTo(broken, { sandbox: 3 });
    const results = await burst(times(6, () => call(broken.urls.sandboxApi, key.secret)));
    expect(ok(results)).toBe(3);
    expect(broken.logs.some((line) => line.includes('counting in this process'))).toBe(true);
  });
});
