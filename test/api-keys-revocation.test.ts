/**
 * Spec 5.8 and product decision 11: a revoked key fails on the very next request, on every instance,
 * although each instance caches key lookups. On PostgreSQL two gateway instances share one database;
 * on PGlite (one process per database) the same steps run against one instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { coalesced, KEY_CACHE_TTL_MS } from '../src/modules/api-keys/authenticator.js';
import { onPostgres } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, type ErrorBody } from './helpers/http.js';
import {
  createMerchant,
  issueKey,
  revokeKeyInDatabase,
  startPeerGateway,
  updateOrganization,
  type PeerGateway,
} from './helpers/merchants.js';

let t: TestGateway;
let peer: PeerGateway | undefined;
/** The sandbox API of every running instance: two on PostgreSQL, one on PGlite. */
let instances: string[];

beforeAll(async () => {
  t = await startTestGateway();
  if (onPostgres) peer = await startPeerGateway(t);
  instances = [t.urls.sandboxApi, ...(peer ? [peer.urls.sandboxApi] : [])];
});
afterAll(async () => {
  await peer?.close();
  await t?.close();
});

const db = () => t.gateway.database.db;

async function status(base: string, secret: string) {
  const res = await request<ErrorBody>(`${base}/v1/api-keys`, { headers: { 'x-api-key': secret } });
  return { status: res.status, code: res.body.error?.code };
}

/** Uses the key on every instance, so that each holds it in its cache. */
async function warm(secret: string) {
  for (const base of instances) {
    expect(await status(base, secret)).toEqual({ status: 200, code: undefined });
    expect(await status(base, secret)).toEqual({ status: 200, code: undefined });
  }
}

describe('revocation', () => {
  it(`runs on ${onPostgres ? 'two instances sharing one PostgreSQL database' : 'one instance (PGlite)'}`, () => {
    expect(instances).toHaveLength(onPostgres ? 2 : 1);
  });

  it('through the API on one instance, refuses the key on the next request on every instance', async () => {
    const merchant = await createMerchant(t);
    const victim = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    await warm(victim.secret);

    const revokeOn = instances[0] as string;
    const res = await request(`${revokeOn}/v1/api-keys/${victim.id}/revoke`, {
      method: 'POST',
      headers: { 'x-api-key': merchant.keys.sandbox.secret },
    });
    expect(res.status).toBe(200);
    // The very next request, on the other instance first.
    for (const base of [...instances].reverse()) {
      expect(await status(base, victim.secret)).toEqual({ status: 401, code: 'invalid_api_key' });
    }
    // Other keys are unaffected.
    for (const base of instances) expect((await status(base, merchant.keys.sandbox.secret)).status).toBe(200);
  });

  it('straight in the database (an operator, a script), refuses the key on the next request everywhere', async () => {
    const merchant = await createMerchant(t);
    await warm(merchant.keys.sandbox.secret);
    await revokeKeyInDatabase(db(), t.clock, merchant.keys.sandbox.id);
    for (const base of instances) {
      expect(await status(base, merchant.keys.sandbox.secret)).toEqual({
        status: 401,
        code: 'invalid_api_key',
      });
    }
  });

  it('holds under concurrent traffic: no request that starts after the revocation succeeds', async () => {
    const merchant = await createMerchant(t);
    const victim = merchant.keys.sandbox;
    await warm(victim.secret);
    const burst = () =>
      Promise.all(instances.flatMap((base) => Array.from({ length: 10 }, () => status(base, victim.secret))));
    const before = burst(); // in flight while the revocation commits: either answer is fine
    await revokeKeyInDatabase(db(), t.clock, victim.id);
    const after = await burst();
    await before;
    expect(after.every((result) => result.code === 'invalid_api_key')).toBe(true);
  });
});

describe('organization changes reach cached keys at once', () => {
  it('freezing and unfreezing', async () => {
    const merchant = await createMerchant(t);
    await warm(merchant.keys.sandbox.secret);
    await updateOrganization(db(), merchant.organizationId, { frozen: true });
    for (const base of instances) {
      expect(await status(base, merchant.keys.sandbox.secret)).toEqual({
        status: 403,
        code: 'organization_frozen',
      });
    }
    await updateOrganization(db(), merchant.organizationId, { frozen: false });
    for (const base of instances) expect((await status(base, merchant.keys.sandbox.secret)).status).toBe(200);
  });

  it('KYC status and feature flags', async () => {
    const merchant = await createMerchant(t);
    const liveApis = [t.urls.liveApi, ...(peer ? [peer.urls.liveApi] : [])];
    for (const base of liveApis) expect((await status(base, merchant.keys.live.secret)).status).toBe(200);
    await updateOrganization(db(), merchant.organizationId, { kycStatus: 'REVIEWING' });
    for (const base of liveApis) {
      expect(await status(base, merchant.keys.live.secret)).toEqual({ status: 401, code: 'unauthorized' });
    }
    await updateOrganization(db(), merchant.organizationId, { featureFlags: [] });
    for (const base of instances) {
      expect(await status(base, merchant.keys.sandbox.secret)).toEqual({ status: 403, code: 'forbidden' });
    }
  });
});

describe('the cache is real', () => {
  it('serves a cached key without reading it again: only the epoch makes revocation visible', async () => {
    // Negative control: with the epoch trigger off, a revocation no longer moves the epoch, and an
    // instance that cached the key keeps accepting it until the entry expires.
    const merchant = await createMerchant(t);
    const victim = merchant.keys.sandbox;
    await warm(victim.secret);
    await sql`ALTER TABLE api_keys DISABLE TRIGGER api_keys_auth_epoch_update`.execute(db());
    try {
      await revokeKeyInDatabase(db(), t.clock, victim.id);
      for (const base of instances) expect((await status(base, victim.secret)).status).toBe(200);
      // A new lookup (the cache entry has expired) reads the revocation.
      t.clock.advance(KEY_CACHE_TTL_MS);
      for (const base of instances) {
        expect(await status(base, victim.secret)).toEqual({ status: 401, code: 'invalid_api_key' });
      }
    } finally {
      await sql`ALTER TABLE api_keys ENABLE TRIGGER api_keys_auth_epoch_update`.execute(db());
    }
  });
});

describe('coalesced epoch reads', () => {
  it('shares one read between callers, but never hands a caller a read that started before it', async () => {
    let reads = 0;
    const gates: Array<() => void> = [];
    const read = coalesced(
      () =>
        new Promise<number>((resolve) => {
          const n = ++reads;
          gates.push(() => resolve(n));
        }),
    );
    const first = read(); // starts read 1
    const second = read(); // arrives while 1 runs: must get read 2
    const third = read(); // shares read 2 with the second
    expect(reads).toBe(1);
    gates[0]?.();
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toBe(2);
    gates[1]?.();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    const fourth = read(); // nothing running: a read of its own
    expect(reads).toBe(3);
    gates[2]?.();
    expect(await fourth).toBe(3);
  });
});
