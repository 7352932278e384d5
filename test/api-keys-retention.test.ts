/** Spec 5.8 and product decision 11: a revoked key's audit trail is kept 30 days, then purged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { apiKeyRetentionJob } from '../src/modules/api-keys/index.js';
import { countAuditTrail } from '../src/modules/api-keys/repository.js';
import { DAY, MINUTE } from '../src/shared/clock.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, issueKey } from './helpers/merchants.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

describe('the api-key-audit-purge job', () => {
  it('purges the trail of keys revoked 30 days ago, once, and leaves everything else', async () => {
    const db = t.gateway.database.db;
    const merchant = await createMerchant(t);
    const api = (path: string, secret: string, body?: unknown) =>
      apiRequest<{ id: string; secret: string }>(t.urls, path, { method: 'POST', body, key: secret });

    // `worker` creates a key (its activity) and is later revoked; `child` and `bystander` stay active.
    const worker = (await api('/v1/api-keys', merchant.keys.sandbox.secret, { scopes: ['read', 'write'] }))
      .body;
    const child = (await api('/v1/api-keys', worker.secret, { scopes: ['read'] })).body;
    const bystander = await issueKey(db, t.clock, merchant.organizationId);
    await api(`/v1/api-keys/${worker.id}/revoke`, merchant.keys.sandbox.secret);
    const revokedAt = t.clock.now();
    const recentlyRevoked = (await api('/v1/api-keys', merchant.keys.sandbox.secret, { scopes: ['read'] }))
      .body;

    // created + revoked about the worker, plus the child's creation made by the worker.
    expect(await countAuditTrail(db, worker.id)).toBe(3);
    const job = apiKeyRetentionJob(t.gateway.services);
    expect(job.name).toBe('api-key-audit-purge');

    t.clock.advance(30 * DAY - MINUTE);
    await job.run();
    expect(await countAuditTrail(db, worker.id)).toBe(3);

    await api(`/v1/api-keys/${recentlyRevoked.id}/revoke`, merchant.keys.sandbox.secret);
    t.clock.advance(MINUTE);
    await job.run();
    expect(await countAuditTrail(db, worker.id)).toBe(0);
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', worker.id)
      .executeTakeFirstOrThrow();
    expect(row.audit_purged_at).toEqual(t.clock.now());
    // The key row stays, so its prefix is never issued again, and still refuses the key.
    expect(row.revoked_at).toEqual(revokedAt);
    expect((await api('/v1/api-keys', worker.secret, { scopes: ['read'] })).body).toMatchObject({
      error: { code: 'invalid_api_key' },
    });

    // Untouched: a key revoked less than 30 days ago, active keys, and the audit of other keys' creation
    // not made by the purged key.
    expect(await countAuditTrail(db, recentlyRevoked.id)).toBe(2);
    expect(await countAuditTrail(db, bystander.id)).toBe(0);
    const childEntries = await db
      .selectFrom('audit_log')
      .select('actor')
      .where('target_id', '=', child.id)
      .execute();
    expect(childEntries).toEqual([]); // its creation was the purged key's activity

    // A second run has nothing left to do.
    await job.run();
    expect(await countAuditTrail(db, recentlyRevoked.id)).toBe(2);
  });
});
