/**
 * Issue 11, items 10 and 19: every write names the key that made it, each key's requests are logged
 * (method, route template, object, status, request id, address, time; never a body or a secret) and
 * kept 30 days, visible through the API, the dashboard's key page and the operator API, revoked keys
 * included; and `lastUsedAt` moves only for a request the key was allowed to make.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { apiKeyRetentionJob } from '../src/modules/api-keys/index.js';
import { DAY, MINUTE } from '../src/shared/clock.js';
import { ACCOUNT_TEST_ENV, createActiveUser, WebClient } from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge, type ErrorBody } from './helpers/http.js';
import { createOrganization, issueKey, revokeKeyInDatabase } from './helpers/merchants.js';
import { createStaffUser, loginStaff } from './helpers/operator.js';
import { payByCard } from './helpers/charges.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ env: ACCOUNT_TEST_ENV });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

interface LoggedRequest {
  method: string;
  route: string;
  resourceId: string | null;
  statusCode: number;
  requestId: string;
  ip: string | null;
  createdAt: string;
}
type Page = { data: LoggedRequest[]; nextCursor: string | null };

const api = <T = Record<string, unknown>>(
  secret: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
) => apiRequest<T & ErrorBody>(t.urls, path, { ...init, key: secret });

/** The key's log as the API shows it, once it holds at least `count` entries (batches land within a second). */
async function logOf(reader: string, keyId: string, count: number): Promise<LoggedRequest[]> {
  for (let attempt = 0; ; attempt++) {
    const page = await api<Page>(reader, `/v1/api-keys/${keyId}/requests?limit=100`);
    expect(page.status).toBe(200);
    const own = page.body.data.filter((entry) => entry.route !== '/v1/api-keys/:id/requests');
    if (own.length >= count || attempt > 60) return own;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The key a charge, an endpoint or a refund names as its creator, as stored. */
const createdByKeyOf = (table: 'charges' | 'webhook_endpoints' | 'refunds', id: string) =>
  t.gateway.database.db
    .selectFrom(table)
    .select('created_by_key_id')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('lastUsedAt', () => {
  it('does not move for a request refused with 403, and moves for an allowed one', async () => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const reader = await issueKey(db, t.clock, organizationId, { scopes: ['read'] });
    const lastUsed = async () =>
      (
        await db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', reader.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;

    const refused = await api(reader.secret, '/v1/charges', { body: validCharge() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect(await lastUsed()).toBeNull();

    expect((await api(reader.secret, '/v1/charges')).status).toBe(200);
    expect(await lastUsed()).toEqual(t.clock.now());
  });
});

describe('the activity of a key', () => {
  it('names the key on what it writes and logs its requests, visible after revocation for 30 days', async () => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const admin = await issueKey(db, t.clock, organizationId, { scopes: ['all'] });
    const worker = await issueKey(db, t.clock, organizationId, { scopes: ['read', 'write'] });

    const charge = await api<{ id: string }>(worker.secret, '/v1/charges', { body: validCharge() });
    expect(charge.status).toBe(201);
    const fetched = await api(worker.secret, `/v1/charges/${charge.body.id}`);
    expect(fetched.status).toBe(200);
    const endpoint = await api<{ id: string; secret: string }>(worker.secret, '/v1/webhook-endpoints', {
      body: { url: 'https://hooks.merchant.example/activity', enabledEvents: ['*'] },
    });
    expect(endpoint.status).toBe(201);
    const created = await api<{ id: string; secret: string }>(worker.secret, '/v1/api-keys', {
      body: { scopes: ['read'] },
    });
    expect(created.status).toBe(201);
    const refused = await api(worker.secret, '/v1/api-keys', { body: { scopes: ['all'] } });
    expect(refused.status).toBe(403);

    // Each write names its key.
    const chargeRow = await createdByKeyOf('charges', charge.body.id);
    expect(chargeRow.created_by_key_id).toBe(worker.id);
    const endpointRow = await createdByKeyOf('webhook_endpoints', endpoint.body.id);
    expect(endpointRow.created_by_key_id).toBe(worker.id);
    const keyRow = await db
      .selectFrom('api_keys')
      .select('created_by')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(keyRow.created_by).toBe(`key:${worker.id}`);

    // Revoked, the key's log is still there for the merchant.
    await revokeKeyInDatabase(db, t.clock, worker.id);
    const log = await logOf(admin.secret, worker.id, 5);
    expect(log.map((entry) => [entry.method, entry.route, entry.statusCode, entry.resourceId])).toEqual([
      ['POST', '/v1/api-keys', 403, null],
      ['POST', '/v1/api-keys', 201, created.body.id],
      ['POST', '/v1/webhook-endpoints', 201, endpoint.body.id],
      ['GET', '/v1/charges/:id', 200, charge.body.id],
      ['POST', '/v1/charges', 201, charge.body.id],
    ]);
    expect(log[0]?.requestId).toBe(refused.headers.get('x-request-id'));
    expect(log[4]?.requestId).toBe(charge.headers.get('x-request-id'));
    expect(log.every((entry) => entry.ip === '127.0.0.1')).toBe(true);
    // No body, no secret in the log table.
    const stored = JSON.stringify(
      await db.selectFrom('api_key_requests').selectAll().where('key_id', '=', worker.id).execute(),
    );
    expect(stored).not.toContain(created.body.secret);
    expect(stored).not.toContain(endpoint.body.secret);
    expect(stored).not.toContain('hooks.merchant.example');
    expect(stored).not.toContain(worker.secret);

    // The dashboard's key page.
    const user = await createActiveUser(t, { organizationId, role: 'viewer' });
    const client = new WebClient(t.urls.web);
    expect((await client.login(user.email, user.password)).status).toBe(303);
    const page = await client.get(`/dashboard/api-keys/${worker.id}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-state="revoked"');
    for (const entry of log) expect(page.text).toContain(`data-request-id="${entry.requestId}"`);
    expect(page.text).toContain('/v1/charges/:id');
    const list = await client.get('/dashboard/api-keys?lang=en');
    expect(list.text).toContain(`/dashboard/api-keys/${worker.id}?lang=en`);
    // Another organization's key is not found.
    const strangerOrg = await createOrganization(db, t.clock);
    const stranger = await issueKey(db, t.clock, strangerOrg);
    expect((await client.get(`/dashboard/api-keys/${stranger.id}?lang=en`)).status).toBe(404);
    expect((await api(admin.secret, `/v1/api-keys/${stranger.id}/requests`)).status).toBe(404);

    // The operator API.
    const staff = await loginStaff(t, await createStaffUser(t, 'support'));
    const keys = await staff.get<{ data: Array<{ id: string; revokedAt: string | null }> }>(
      `/operator/v1/organizations/${organizationId}/api-keys`,
    );
    expect(keys.status).toBe(200);
    expect(keys.body.data.map((key) => key.id)).toEqual(
      expect.arrayContaining([admin.id, worker.id, created.body.id]),
    );
    expect(JSON.stringify(keys.body)).not.toContain('sk_test_' + worker.secret.slice(16));
    const operatorLog = await staff.get<Page & { organizationId: string }>(
      `/operator/v1/api-keys/${worker.id}/requests?limit=100`,
    );
    expect(operatorLog.status).toBe(200);
    expect(operatorLog.body.organizationId).toBe(organizationId);
    expect(operatorLog.body.data.map((entry) => entry.requestId)).toEqual(
      log.map((entry) => entry.requestId),
    );
    expect((await staff.get('/operator/v1/api-keys/key_unknown/requests')).status).toBe(404);
    // The operator console: the organization lists its keys, a key's page shows its requests.
    const orgPage = await staff.get(`/organizations/${organizationId}`);
    expect(orgPage.status).toBe(200);
    expect(orgPage.text).toContain(`href="/api-keys/${worker.id}"`);
    const keyPage = await staff.get(`/api-keys/${worker.id}`);
    expect(keyPage.status).toBe(200);
    expect(keyPage.text).toContain('REVOKED');
    for (const entry of log) expect(keyPage.text).toContain(`data-request-id="${entry.requestId}"`);

    // Pages of the log.
    const first = await api<Page>(admin.secret, `/v1/api-keys/${worker.id}/requests?limit=2`);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.nextCursor).not.toBeNull();
    const second = await api<Page>(
      admin.secret,
      `/v1/api-keys/${worker.id}/requests?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`,
    );
    expect(second.body.data.map((entry) => entry.requestId)).toEqual(
      log.slice(2, 4).map((entry) => entry.requestId),
    );

    // 30 days on, the log is gone (hidden at once, deleted by the retention job); the writes keep their key.
    t.clock.advance(30 * DAY + MINUTE);
    expect((await api<Page>(admin.secret, `/v1/api-keys/${worker.id}/requests`)).body.data).toEqual([]);
    await apiKeyRetentionJob(t.gateway.services).run();
    const left = await db
      .selectFrom('api_key_requests')
      .select('id')
      .where('key_id', '=', worker.id)
      .execute();
    expect(left).toEqual([]);
    const stillNamed = await createdByKeyOf('charges', charge.body.id);
    expect(stillNamed.created_by_key_id).toBe(worker.id);
  });
});

describe('the request log and card data', () => {
  it('never stores a card number sent where an id belongs in the path', async () => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const key = await issueKey(db, t.clock, organizationId, { scopes: ['all'] });
    for (const path of ['/v1/charges/4242424242424242', '/v1/charges/ch_missing']) {
      expect((await apiRequest(t.urls, path, { key: key.secret })).status).toBe(404);
    }
    let rows: Array<{ resource_id: string | null }> = [];
    for (let i = 0; i < 60 && rows.length < 2; i++) {
      rows = await db
        .selectFrom('api_key_requests')
        .select('resource_id')
        .where('key_id', '=', key.id)
        .execute();
      if (rows.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The misplaced card number is recorded as no id; an ordinary id as sent.
    expect(rows.map((row) => row.resource_id).sort()).toEqual(['ch_missing', null]);
  });
});

describe('a refund', () => {
  it('names the key that asked for it', async () => {
    const db = t.gateway.database.db;
    const { services } = t.gateway;
    const organizationId = await createOrganization(db, t.clock);
    const key = await issueKey(db, t.clock, organizationId, { scopes: ['write'] });
    const charge = await api<{ id: string; providerPaymentId: string }>(key.secret, '/v1/charges', {
      body: validCharge(),
    });
    expect(charge.status).toBe(201);
    // Paid at the acquirer with a test card, and the answer applied, as the checkout does.
    await payByCard(services, charge.body, 'Activity');
    const refund = await api<{ id: string }>(key.secret, `/v1/charges/${charge.body.id}/refunds`, {
      body: { amount: 100 },
    });
    expect(refund.status, refund.text).toBe(201);
    const row = await createdByKeyOf('refunds', refund.body.id);
    expect(row.created_by_key_id).toBe(key.id);
  });
});
