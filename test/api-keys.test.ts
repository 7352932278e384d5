import { describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import type { ApiKeyScope, Environment } from '../src/db/schema.js';
import { hashApiKey } from '../src/modules/api-keys/key-format.js';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { startTestGateway } from './helpers/gateway.js';
import { t, useTestGateway } from './helpers/suite.js';
import { request, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, createOrganization, issueKey, type Merchant } from './helpers/merchants.js';

interface ApiKeyBody {
  id: string;
  displayPrefix: string;
  environment: Environment;
  name: string | null;
  scopes: ApiKeyScope[];
  allowedIps: string[];
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
  secret?: string;
}
type Body = ApiKeyBody & ErrorBody;
interface ListBody {
  data: ApiKeyBody[];
  nextCursor: string | null;
}

const RECORD_FIELDS = [
  'allowedIps',
  'createdAt',
  'displayPrefix',
  'environment',
  'expiresAt',
  'id',
  'lastUsedAt',
  'name',
  'revokedAt',
  'scopes',
];

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
});

const db = () => t.gateway.database.db;

function api<T = Body>(
  secret: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; environment?: Environment } = {},
): Promise<HttpResult<T>> {
  return apiRequest<T>(t.urls, path, { ...init, key: secret });
}

async function keyWith(scopes: ApiKeyScope[], environment: Environment = 'sandbox') {
  return issueKey(db(), t.clock, merchant.organizationId, { environment, scopes });
}

function issueCodes(res: HttpResult<Body>) {
  return (res.body.error.details?.issues ?? []).map(({ path, code }) => ({ path, code }));
}

describe('POST /v1/api-keys', () => {
  it('creates a key, returns its secret once, stores only its hash, and audits the creation', async () => {
    const caller = merchant.keys.sandbox;
    const res = await api(caller.secret, '/v1/api-keys', {
      body: { scopes: ['read', 'write'], allowedIps: ['127.0.0.1'], name: '  CI deploys  ' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...RECORD_FIELDS, 'secret'].sort());
    expect(res.body).toMatchObject({
      environment: 'sandbox',
      name: 'CI deploys',
      scopes: ['read', 'write'],
      allowedIps: ['127.0.0.1/32'],
      lastUsedAt: null,
      expiresAt: null,
      createdAt: t.clock.now().toISOString(),
      revokedAt: null,
    });
    expect(res.body.id).toMatch(/^key_[0-9a-z]{29}$/);
    const secret = res.body.secret as string;
    expect(secret).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    expect(res.body.displayPrefix).toBe(secret.slice(0, 16));

    const row = await db()
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(hashApiKey(secret));
    expect(row.created_by).toBe(`key:${caller.id}`);

    const audit = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', res.body.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `key:${caller.id}`,
      action: 'api_key.created',
      target_type: 'api_key',
      organization_id: merchant.organizationId,
      request_id: res.headers.get('x-request-id'),
      ip: '127.0.0.1',
    });
    expect(JSON.stringify(audit[0])).not.toContain(secret);

    // The secret is never shown again.
    const fetched = await api(caller.secret, `/v1/api-keys/${res.body.id}`);
    expect(Object.keys(fetched.body).sort()).toEqual(RECORD_FIELDS);
    expect(fetched.text).not.toContain(secret);

    // And the new key works, with its own scopes.
    expect((await api(secret, `/v1/api-keys/${res.body.id}`)).status).toBe(200);
  });

  it('creates live keys on the live API', async () => {
    const res = await api(merchant.keys.live.secret, '/v1/api-keys', {
      environment: 'live',
      body: { scopes: ['read'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.environment).toBe('live');
    expect(res.body.secret).toMatch(/^sk_live_/);
    expect((await api(res.body.secret as string, '/v1/api-keys', { environment: 'live' })).status).toBe(200);
    expect((await api(res.body.secret as string, '/v1/api-keys')).body.error.code).toBe('unauthorized');
  });

  it('never grants a scope the creating key does not hold itself', async () => {
    const readWrite = await keyWith(['read', 'write']);
    const writeOnly = await keyWith(['write']);
    const all = merchant.keys.sandbox;
    const cases: Array<[string, ApiKeyScope[], number, ApiKeyScope[]?]> = [
      [readWrite.secret, ['read'], 201],
      [readWrite.secret, ['read', 'write'], 201],
      [readWrite.secret, ['all'], 403, ['all']],
      [readWrite.secret, ['read', 'payouts'], 403, ['payouts']],
      [writeOnly.secret, ['write'], 201],
      [writeOnly.secret, ['read'], 403, ['read']],
      [all.secret, ['all'], 201],
      [all.secret, ['payouts'], 201],
    ];
    for (const [secret, scopes, status, missing] of cases) {
      const res = await api(secret, '/v1/api-keys', { body: { scopes } });
      expect({ scopes, status: res.status }).toEqual({ scopes, status });
      if (status === 403) {
        expect(res.body.error.code).toBe('insufficient_scope');
        expect(res.body.error.details).toEqual({ missingScopes: missing });
      }
    }
  });

  it('validates every field and reports every problem at once', async () => {
    const secret = merchant.keys.sandbox.secret;
    const past = new Date(t.clock.now().getTime() - SECOND).toISOString();
    const res = await api(secret, '/v1/api-keys', {
      body: {
        scopes: ['read', 'admin'],
        allowedIps: 'x',
        expiresAt: 'tomorrow',
        name: 'n'.repeat(101),
        extra: 1,
      },
    });
    expect(res.status).toBe(400);
    expect(issueCodes(res)).toEqual(
      expect.arrayContaining([
        { path: 'scopes.1', code: 'invalid_value' },
        { path: 'allowedIps', code: 'invalid_type' },
        { path: 'expiresAt', code: 'invalid_format' },
        { path: 'name', code: 'too_long' },
        { path: 'extra', code: 'unknown_field' },
      ]),
    );

    const semantic = await api(secret, '/v1/api-keys', {
      body: {
        scopes: ['read'],
        allowedIps: ['10.0.0.0/8', '10.0.0.0/33', 'localhost', '127.1', 'fe80::1%eth0'],
        expiresAt: past,
      },
    });
    expect(semantic.status).toBe(400);
    expect(issueCodes(semantic)).toEqual([
      { path: 'allowedIps.1', code: 'invalid_format' },
      { path: 'allowedIps.2', code: 'invalid_format' },
      { path: 'allowedIps.3', code: 'invalid_format' },
      { path: 'allowedIps.4', code: 'invalid_format' },
      { path: 'expiresAt', code: 'invalid_value' },
    ]);

    for (const body of [{}, { scopes: [] }, { scopes: ['read', 'read'] }]) {
      expect((await api(secret, '/v1/api-keys', { body })).status).toBe(400);
    }
  });

  it('stores allowedIps in canonical form', async () => {
    const res = await api(merchant.keys.sandbox.secret, '/v1/api-keys', {
      body: {
        scopes: ['read'],
        allowedIps: [
          '10.1.2.3/8',
          '203.0.113.7',
          '2001:DB8:0::1/32',
          '::1',
          '::ffff:192.168.0.0/112',
          '10.0.0.0/8',
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.allowedIps).toEqual([
      '10.0.0.0/8',
      '203.0.113.7/32',
      '2001:db8::/32',
      '::1/128',
      '192.168.0.0/16',
    ]);
  });

  it('replays an idempotent creation with the same key, and never stores the secret in clear', async () => {
    const secret = merchant.keys.sandbox.secret;
    const headers = { 'x-idempotency-key': 'create-key-1' };
    const first = await api(secret, '/v1/api-keys', { body: { scopes: ['read'], name: 'idem' }, headers });
    const again = await api(secret, '/v1/api-keys', { body: { name: 'idem', scopes: ['read'] }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    const count = await db()
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('name', '=', 'idem')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);

    const stored = await db()
      .selectFrom('idempotency_keys')
      .select(['scope', 'response_body'])
      .where('key', '=', 'create-key-1')
      .executeTakeFirstOrThrow();
    expect(stored.scope).toBe(`org:${merchant.organizationId}:sandbox`);
    expect(stored.response_body).not.toContain(first.body.secret as string);
    expect(stored.response_body).toContain(first.body.id);

    const reuse = await api(secret, '/v1/api-keys', { body: { scopes: ['write'], name: 'idem' }, headers });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe('idempotency_key_reuse');

    // Scoped per organization: another merchant may use the same idempotency key.
    const stranger = await createMerchant(t);
    const theirs = await api(stranger.keys.sandbox.secret, '/v1/api-keys', {
      body: { scopes: ['read'], name: 'idem' },
      headers,
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });
});

describe('GET /v1/api-keys', () => {
  it('pages through the keys of the organization and environment, newest first', async () => {
    const owner = await createMerchant(t);
    const secret = owner.keys.sandbox.secret;
    const created: string[] = [owner.keys.sandbox.id];
    for (let i = 0; i < 4; i++) {
      t.clock.advance(SECOND);
      created.push((await issueKey(db(), t.clock, owner.organizationId, { scopes: ['read'] })).id);
    }
    await issueKey(db(), t.clock, merchant.organizationId); // another organization: never listed
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const res: HttpResult<ListBody> = await api<ListBody>(secret, `/v1/api-keys${query}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const item of res.body.data) {
        expect(Object.keys(item).sort()).toEqual(RECORD_FIELDS);
        expect(item.environment).toBe('sandbox');
      }
      seen.push(...res.body.data.map((item) => item.id));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());

    const defaults = await api<ListBody>(secret, '/v1/api-keys');
    expect(defaults.body.data).toHaveLength(5);
    expect(defaults.body.nextCursor).toBeNull();
    const live = await api<ListBody>(owner.keys.live.secret, '/v1/api-keys', { environment: 'live' });
    expect(live.body.data.map((item) => item.id)).toEqual([owner.keys.live.id]);
  });

  it('refuses a limit outside 1 to 100 and a cursor it did not issue', async () => {
    const secret = merchant.keys.sandbox.secret;
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?cursor=bm9wZQ', '?other=1']) {
      const res = await api(secret, `/v1/api-keys${query}`);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
      expect(res.body.error.details?.issues?.[0]?.in).toBe('query');
    }
    expect((await api(secret, '/v1/api-keys?limit=100')).status).toBe(200);
  });
});

describe('GET /v1/api-keys/{id}', () => {
  it('shows a key of the organization; 404 for other organizations, the other environment and unknown ids', async () => {
    const secret = merchant.keys.sandbox.secret;
    const own = await api(secret, `/v1/api-keys/${merchant.keys.sandbox.id}`);
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(merchant.keys.sandbox.id);
    const stranger = await createMerchant(t);
    for (const id of [stranger.keys.sandbox.id, merchant.keys.live.id, 'key_nope', 'x'.repeat(64)]) {
      const res = await api(secret, `/v1/api-keys/${id}`);
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({
        id,
        status: 404,
        code: 'not_found',
      });
    }
  });
});

describe('POST /v1/api-keys/{id}/revoke', () => {
  it('revokes at once, keeps the record, is idempotent, and audits', async () => {
    const caller = merchant.keys.sandbox;
    const victim = await keyWith(['read']);
    expect((await api(victim.secret, '/v1/api-keys')).status).toBe(200);

    const res = await api(caller.secret, `/v1/api-keys/${victim.id}/revoke`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.revokedAt).toBe(t.clock.now().toISOString());
    expect((await api(victim.secret, '/v1/api-keys')).body.error.code).toBe('invalid_api_key');

    t.clock.advance(SECOND);
    const again = await api(caller.secret, `/v1/api-keys/${victim.id}/revoke`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(res.body.revokedAt);

    const audit = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', victim.id)
      .where('action', '=', 'api_key.revoked')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `key:${caller.id}`,
      request_id: res.headers.get('x-request-id'),
    });
    const row = await db()
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', victim.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_by).toBe(`key:${caller.id}`);
  });

  it('lets a key revoke itself, but not a key holding scopes it lacks', async () => {
    const readWrite = await keyWith(['read', 'write']);
    const all = await keyWith(['all']);
    const refused = await api(readWrite.secret, `/v1/api-keys/${all.id}/revoke`, { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect((await api(all.secret, '/v1/api-keys')).status).toBe(200);

    const self = await api(readWrite.secret, `/v1/api-keys/${readWrite.id}/revoke`, { method: 'POST' });
    expect(self.status).toBe(200);
    expect((await api(readWrite.secret, '/v1/api-keys')).body.error.code).toBe('invalid_api_key');
  });

  it("answers 404 for another organization's key and leaves it working", async () => {
    const stranger = await createMerchant(t);
    const res = await api(merchant.keys.sandbox.secret, `/v1/api-keys/${stranger.keys.sandbox.id}/revoke`, {
      method: 'POST',
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await api(stranger.keys.sandbox.secret, '/v1/api-keys')).status).toBe(200);
  });
});

describe('lastUsedAt', () => {
  it('is kept to the minute, written at most once a minute', async () => {
    const key = await keyWith(['read']);
    const lastUsed = async () =>
      (
        await db()
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', key.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();

    const first = t.clock.now();
    await api(key.secret, '/v1/api-keys');
    expect(await lastUsed()).toEqual(first);

    t.clock.advance(30 * SECOND);
    await api(key.secret, '/v1/api-keys');
    expect(await lastUsed()).toEqual(first);

    t.clock.advance(30 * SECOND);
    const later = t.clock.now();
    const res = await api(key.secret, `/v1/api-keys/${key.id}`);
    expect(await lastUsed()).toEqual(later);
    expect(res.body.lastUsedAt).toBe(later.toISOString());

    // A request refused for its scope is not a use of the key (issue 11: lastUsedAt moves only for a
    // request the key was allowed to make; the refusal is in the key's request log instead)...
    t.clock.advance(2 * MINUTE);
    const scopeRes = await api(key.secret, '/v1/api-keys', { method: 'POST', body: { scopes: ['read'] } });
    expect(scopeRes.status).toBe(403);
    expect(await lastUsed()).toEqual(later);

    // ...nor is a request that fails authentication.
    await db()
      .updateTable('api_keys')
      .set({ allowed_ips: ['10.0.0.0/8'] })
      .where('id', '=', key.id)
      .execute();
    t.clock.advance(2 * MINUTE);
    expect((await api(key.secret, '/v1/api-keys')).body.error.code).toBe('ip_not_allowed');
    expect(await lastUsed()).toEqual(later);
  });
});

describe('expiresAt', () => {
  it('works until expiresAt and is refused with 401 api_key_expired from then on', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 10 * MINUTE);
    const created = await api(merchant.keys.sandbox.secret, '/v1/api-keys', {
      body: { scopes: ['read'], expiresAt: expiresAt.toISOString() },
    });
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(expiresAt.toISOString());
    const secret = created.body.secret as string;
    expect((await api(secret, '/v1/api-keys')).status).toBe(200);

    t.clock.advance(10 * MINUTE - 1);
    expect((await api(secret, '/v1/api-keys')).status).toBe(200);
    t.clock.advance(1);
    const refused = await api(secret, '/v1/api-keys');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('api_key_expired');
  });
});

describe('allowedIps', () => {
  it('allows 127.0.0.1/32, refuses 10.0.0.0/8, and ignores X-Forwarded-For without trusted proxies', async () => {
    const organizationId = await createOrganization(db(), t.clock);
    const loopback = await issueKey(db(), t.clock, organizationId, { allowedIps: ['127.0.0.1/32'] });
    const privateNet = await issueKey(db(), t.clock, organizationId, { allowedIps: ['10.0.0.0/8'] });
    expect((await api(loopback.secret, '/v1/api-keys')).status).toBe(200);
    for (const headers of [{}, { 'x-forwarded-for': '10.1.2.3' }] as Record<string, string>[]) {
      const res = await api(privateNet.secret, '/v1/api-keys', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('ip_not_allowed');
    }
  });

  it('takes the client address from X-Forwarded-For when the proxy is trusted', async () => {
    const proxied = await startTestGateway({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    try {
      const organizationId = await createOrganization(proxied.gateway.database.db, proxied.clock);
      const key = await issueKey(proxied.gateway.database.db, proxied.clock, organizationId, {
        allowedIps: ['10.0.0.0/8'],
      });
      const call = (forwardedFor?: string) =>
        request<ErrorBody>(`${proxied.urls.sandboxApi}/v1/api-keys`, {
          headers: { 'x-api-key': key.secret, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
        });
      expect((await call('10.1.2.3')).status).toBe(200);
      expect((await call('192.0.2.1')).body.error.code).toBe('ip_not_allowed');
      expect((await call()).body.error.code).toBe('ip_not_allowed');
    } finally {
      await proxied.close();
    }
  }, 90_000);

  it('matches IPv6 clients and IPv4 clients arriving on an IPv6 socket', async () => {
    const dual = await startTestGateway({ env: { HOST: '::' } });
    try {
      const dualDb = dual.gateway.database.db;
      const organizationId = await createOrganization(dualDb, dual.clock);
      const port = new URL(dual.urls.sandboxApi).port;
      const overIpv6 = `http://[::1]:${port}/v1/api-keys`;
      const overIpv4 = `http://127.0.0.1:${port}/v1/api-keys`; // seen as ::ffff:127.0.0.1
      const cases: Array<[string[], string, number]> = [
        [['::1/128'], overIpv6, 200],
        [['::1'], overIpv4, 401],
        [['127.0.0.1/32'], overIpv4, 200],
        [['127.0.0.1/32'], overIpv6, 401],
        [['::ffff:127.0.0.0/104'], overIpv4, 200],
        [['2001:db8::/32', '127.0.0.0/8'], overIpv4, 200],
        [['2001:db8::/32'], overIpv6, 401],
        [['10.0.0.0/8', '::1/128'], overIpv6, 200],
      ];
      for (const [allowedIps, url, status] of cases) {
        const key = await issueKey(dualDb, dual.clock, organizationId, { allowedIps });
        const res = await request<ErrorBody>(url, { headers: { 'x-api-key': key.secret } });
        expect({ allowedIps, url, status: res.status }).toEqual({ allowedIps, url, status });
        if (status === 401) expect(res.body.error.code).toBe('ip_not_allowed');
      }
    } finally {
      await dual.close();
    }
  }, 90_000);
});

describe('OpenAPI', () => {
  it('documents the key management routes with their schemas', async () => {
    const res = await request<{
      paths: Record<string, Record<string, { operationId: string; responses: object }>>;
    }>(`${t.urls.sandboxApi}/v1/openapi.json`);
    const paths = res.body.paths;
    expect(paths['/v1/api-keys']?.post?.operationId).toBe('createApiKey');
    expect(paths['/v1/api-keys']?.get?.operationId).toBe('listApiKeys');
    expect(paths['/v1/api-keys/{id}']?.get?.operationId).toBe('getApiKey');
    expect(paths['/v1/api-keys/{id}/revoke']?.post?.operationId).toBe('revokeApiKey');
    expect(Object.keys(paths['/v1/api-keys']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409', '429']),
    );
  });
});
