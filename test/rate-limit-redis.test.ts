import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE } from '../src/http/login-throttle.js';
import { OPERATOR_LOGIN_LIMITS } from '../src/modules/operator/auth.js';
import { createManualClock, MINUTE } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { nextIp, uniqueEmail, WebClient } from './helpers/accounts.js';
import { createFreshDatabase, dropDatabase } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication } from './helpers/http.js';
import { createStaffUser, postLogin } from './helpers/operator.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const started: TestGateway[] = [];
const databases: string[] = [];
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
  for (const url of databases) await dropDatabase(url);
});

// Applications are counted in the database (issue 11 item 18), so instances of one deployment share the
// limit through the PostgreSQL they share, with or without Redis: two gateways on one database here
// (the local PostgreSQL server even in the PGlite pass, since PGlite cannot be shared).
describe('the public application limit of a deployment with REDIS_URL', () => {
  // Two whole gateways start inside the test: give them the time a loaded CI machine needs.
  it('is shared by two instances and by every listener of each', { timeout: 120_000 }, async () => {
    const sharedDatabaseUrl = await createFreshDatabase();
    databases.push(sharedDatabaseUrl);
    const prefix = `gw-test-${randomBytes(4).toString('hex')}:`;
    const env = {
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      APPLICATION_RATE_LIMIT_MAX: '4',
      APPLICATION_RATE_LIMIT_WINDOW_MS: '60000',
    };
    const a = await startTestGateway({ env, sharedDatabaseUrl });
    started.push(a);
    const b = await startTestGateway({ env, sharedDatabaseUrl });
    started.push(b);

    const targets = [
      a.urls.sandboxApi,
      b.urls.sandboxApi,
      a.urls.web,
      b.urls.liveApi,
      a.urls.sandboxApi,
      b.urls.web,
    ];
    const statuses: number[] = [];
    for (const base of targets)
      statuses.push((await request(`${base}/v1/applications`, { body: validApplication() })).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
  });
});

/**
 * What the instances of one deployment share: a fresh database, and the environment of Redis under a key
 * prefix of their own, the address of the proxy they trust and their keys (the counters' names are keyed
 * with them).
 */
async function oneDeployment() {
  const sharedDatabaseUrl = await createFreshDatabase();
  databases.push(sharedDatabaseUrl);
  const env = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `gw-test-${randomBytes(4).toString('hex')}:`,
    TRUSTED_PROXIES: '127.0.0.1',
    ENCRYPTION_KEYS: generateEncryptionKeys(),
  };
  return { sharedDatabaseUrl, env };
}

// The login forms' post limit counts per client address and typed e-mail, in Redis when REDIS_URL is
// set; the proof that an account signed in from an address lives in the database (decision 0066).
describe('the login limits of a deployment with REDIS_URL', () => {
  it(
    'count one account from one address across instances, and never keep another account out',
    { timeout: 120_000 },
    async () => {
      const { sharedDatabaseUrl, env } = await oneDeployment();
      // One clock for both: the login throttle's waits are compared across instances.
      const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
      const a = await startTestGateway({ env, sharedDatabaseUrl, clock });
      started.push(a);
      const b = await startTestGateway({ env, sharedDatabaseUrl, clock });
      started.push(b);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const owner = await createStaffUser(a, 'admin');
      const other = await createStaffUser(a, 'support');

      // A neighbour sprays from the owner's office, through both instances.
      const office = nextIp();
      expect((await postLogin(a, owner.email, owner.password, from(office))).status).toBe(200);
      const sprayed: number[] = [];
      for (let i = 0; i < OPERATOR_LOGIN_LIMITS.perAccount.max + 5; i++) {
        const gateway = i % 2 === 0 ? a : b;
        sprayed.push(
          (await postLogin(gateway, uniqueEmail('spray'), 'not-the-password', from(office))).status,
        );
      }
      const free = LOGIN_THROTTLE.address.freeFailures;
      expect(sprayed.slice(0, free)).toEqual(Array(free).fill(401));
      expect(new Set(sprayed.slice(free))).toEqual(new Set([429]));
      expect((await postLogin(b, owner.email, owner.password, from(office))).status).toBe(200);
      expect((await postLogin(a, owner.email, owner.password, from(office))).status).toBe(200);

      // One account's posts from one address are counted across both instances.
      const ip = nextIp();
      const statuses: number[] = [];
      for (let i = 0; i < OPERATOR_LOGIN_LIMITS.perAccount.max; i++) {
        clock.advance(LOGIN_THROTTLE.pair.maxMs); // past the throttle's waits: this is about the limit
        statuses.push((await postLogin(i % 2 === 0 ? a : b, owner.email, 'wrong-password', from(ip))).status);
      }
      expect(statuses).toEqual(Array(OPERATOR_LOGIN_LIMITS.perAccount.max).fill(401));
      clock.advance(LOGIN_THROTTLE.pair.maxMs);
      for (const gateway of [a, b]) {
        const limited = await postLogin(gateway, owner.email, owner.password, from(ip));
        expect(limited.status).toBe(429);
        expect(limited.body.error.code).toBe('too_many_requests');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(MINUTE / 1000);
      }
      // Another account from that address is not limited by them.
      expect((await postLogin(b, other.email, other.password, from(ip))).status).toBe(200);
    },
  );
});

// The console login's flood guard counts an address (an IPv6 client by its /64) in Redis, and keeps the
// proof that an account signed in from it there too: an instance that never saw the sign-in lets that
// account through a neighbour's flood, and nobody else (decisions 0066 and 0072).
describe('the login flood guard of a deployment with REDIS_URL', () => {
  it('shares its count and its proofs between instances', { timeout: 120_000 }, async () => {
    const { sharedDatabaseUrl, env } = await oneDeployment();
    const a = await startTestGateway({ env, sharedDatabaseUrl });
    started.push(a);
    const b = await startTestGateway({ env, sharedDatabaseUrl });
    started.push(b);
    const account = await createStaffUser(a, 'admin');
    const newcomer = await createStaffUser(a, 'support');
    // One office's /64: the member of staff, and a neighbour on other addresses of the same block.
    const block = `2001:db8:${randomBytes(2).toString('hex')}:1`;
    const signIn = (gateway: TestGateway, email: string, password: string) =>
      new WebClient(gateway.urls.operator, `${block}::10`).submit('/login', { email, password, next: '/' });
    expect((await signIn(a, account.email, account.password)).status).toBe(303);

    const flood = OPERATOR_LOGIN_LIMITS.flood.max - 1;
    for (let sent = 0; sent < flood; sent += 20) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(20, flood - sent) }, (_, i) =>
          new WebClient(
            (i % 2 === 0 ? a : b).urls.operator,
            `${block}::${(sent + i + 100).toString(16)}`,
          ).postForm('/login', { email: uniqueEmail('flood'), password: 'garbage' }),
        ),
      );
      expect(new Set(statuses.map((res) => res.status))).toEqual(new Set([403]));
    }
    for (const gateway of [a, b]) {
      const garbage = await new WebClient(gateway.urls.operator, `${block}::ffff`).postForm('/login', {
        email: uniqueEmail('flood'),
        password: 'garbage',
      });
      expect(garbage.status).toBe(429);
    }
    // B never saw the sign-in: it finds the proof in Redis. The newcomer waits with the neighbour.
    expect((await signIn(b, newcomer.email, newcomer.password)).status).toBe(429);
    const again = await signIn(b, account.email, account.password);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/');

    // Redis names the e-mail by a keyed hash: no plain SHA-256 of an address to test guesses against.
    const redis = new Redis(redisUrl);
    try {
      const names = await redis.keys(`${env.REDIS_KEY_PREFIX}*`);
      expect(names.some((name) => name.includes(':login-ok:'))).toBe(true);
      for (const email of [account.email, newcomer.email]) {
        const plain = [sha256Hex(email), sha256Hex(`login-ok:${email}`)].map((hash) => hash.slice(0, 32));
        expect(names.filter((name) => plain.some((hash) => name.includes(hash)))).toEqual([]);
      }
    } finally {
      redis.disconnect();
    }
  });
});
