import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { createActiveUser, createOrganization, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { request, type ErrorBody } from './helpers/http.js';
import { updateOrganization } from './helpers/merchants.js';

// API keys in the merchant dashboard (issue 4): create (the secret once), list, revoke, roles, CSRF,
// environments, and the rotation procedure of spec section 5.7.

useTestGateway(accountGateway());

interface ListedKey {
  id: string;
  prefix: string;
  state: string;
  lastUsedAt: string;
  html: string;
}

/** The keys of the list page, in page order. */
function keysIn(html: string): ListedKey[] {
  const items = [
    ...html.matchAll(
      /<li data-key-id="([^"]+)" data-prefix="([^"]+)" data-state="([^"]+)">([\s\S]*?)<\/li>/g,
    ),
  ];
  return items.map((match) => ({
    id: match[1] ?? '',
    prefix: match[2] ?? '',
    state: match[3] ?? '',
    lastUsedAt: /class="key-last-used" data-value="([^"]*)"/.exec(match[4] ?? '')?.[1] ?? '',
    html: match[4] ?? '',
  }));
}

async function signedIn(input: { organizationId?: string; role?: UserRole; apiKeysFlag?: boolean } = {}) {
  const organizationId = input.organizationId ?? (await createOrganization(t)).id;
  if (input.apiKeysFlag) {
    await updateOrganization(
      t.gateway.database.db,
      organizationId,
      { featureFlags: ['apiKeys'] },
      t.clock.now(),
    );
  }
  const user = await createActiveUser(t, { organizationId, role: input.role ?? 'owner' });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  expect(login.location).toBe('/dashboard?lang=en');
  return { client, user, organizationId };
}

/** The key form posted as the browser posts it: the client's cookies and address, a form body. */
const postKeyForm = (
  client: WebClient,
  lang: string,
  body: URLSearchParams,
  init: Pick<RequestInit, 'redirect'> = {},
) =>
  fetch(`${t.urls.web}/dashboard/api-keys?lang=${lang}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': client.ip,
      cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    },
    body: body.toString(),
    ...init,
  });

async function createKey(
  client: WebClient,
  form: { name?: string; scopes?: string[]; allowedIps?: string; expiresAt?: string } = {},
) {
  const page = await client.get('/dashboard/api-keys?lang=en');
  expect(page.status).toBe(200);
  const body = new URLSearchParams({ _csrf: csrfIn(page.text), name: form.name ?? 'deploys' });
  for (const scope of form.scopes ?? ['all']) body.append('scopes', scope);
  body.set('allowedIps', form.allowedIps ?? '');
  body.set('expiresAt', form.expiresAt ?? '');
  const response = await postKeyForm(client, 'en', body, { redirect: 'manual' });
  const text = await response.text();
  return {
    status: response.status,
    text,
    secret: textOf(text, 'api-key-secret') ?? '',
    headers: response.headers,
  };
}

async function revokeKey(client: WebClient, id: string) {
  return client.submit('/dashboard/api-keys?lang=en', {}, `/dashboard/api-keys/${id}/revoke?lang=en`);
}

function sandbox<T = ErrorBody>(secret: string, path = '/v1/api-keys') {
  return request<T>(`${t.urls.sandboxApi}${path}`, { headers: { 'x-api-key': secret } });
}

describe('the API keys page', () => {
  it('needs a session', async () => {
    const anonymous = new WebClient(t.urls.web);
    const page = await anonymous.get('/dashboard/api-keys');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/^\/login\?/);
    const post = await anonymous.postForm('/dashboard/api-keys', { scopes: 'all' });
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/login\?/);
  });

  it('creates a key and shows its secret once; the key works on the sandbox API (the flag gates /v1/api-keys)', async () => {
    const { client, user, organizationId } = await signedIn();
    const nav = await client.get('/dashboard?lang=en');
    expect(nav.text).toContain('href="/dashboard/api-keys?lang=en"');

    const created = await createKey(client, {
      name: 'CI deploys',
      scopes: ['read', 'write'],
      allowedIps: '127.0.0.1\n10.1.2.3/8\n',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.secret).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    expect(created.text).not.toMatch(/<script>|style=/);

    // Authenticated: without the organization's `apiKeys` flag the key management API says 403 forbidden.
    const withoutFlag = await sandbox(created.secret);
    expect(withoutFlag.status).toBe(403);
    expect(withoutFlag.body.error.code).toBe('forbidden');
    await updateOrganization(
      t.gateway.database.db,
      organizationId,
      { featureFlags: ['apiKeys'] },
      t.clock.now(),
    );
    const withFlag = await sandbox<{ data: Array<{ id: string; name: string; createdAt: string }> }>(
      created.secret,
    );
    expect(withFlag.status).toBe(200);
    expect(withFlag.body.data).toHaveLength(1);
    expect(withFlag.body.data[0]?.name).toBe('CI deploys');

    // The list shows the key, never the secret.
    const list = await client.get('/dashboard/api-keys?lang=en');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.secret);
    expect(list.text).not.toContain(created.secret.slice(16));
    const [key] = keysIn(list.text);
    expect(key?.prefix).toBe(created.secret.slice(0, 16));
    expect(key?.state).toBe('active');
    expect(key?.html).toContain('read, write');
    expect(key?.html).toContain('127.0.0.1/32, 10.0.0.0/8');
    expect(key?.html).toContain('CI deploys');

    // Audited as the user.
    const audit = await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', '=', key?.id ?? '')
      .execute();
    expect(audit).toEqual([{ actor: `user:${user.userId}`, action: 'api_key.created' }]);
    const row = await t.gateway.database.db
      .selectFrom('api_keys')
      .select('created_by')
      .where('id', '=', key?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(row.created_by).toBe(`user:${user.userId}`);
  });

  it('revokes a key: its next API request is 401 invalid_api_key', async () => {
    const { client, user } = await signedIn({ apiKeysFlag: true });
    const created = await createKey(client);
    expect((await sandbox(created.secret)).status).toBe(200);
    const [key] = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    if (!key) throw new Error('no key listed');

    const revoked = await revokeKey(client, key.id);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/dashboard/api-keys?lang=en&notice=revoked');
    const after = await sandbox(created.secret);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_api_key');

    const list = await client.get('/dashboard/api-keys?lang=en&notice=revoked');
    expect(textOf(list.text, 'notice')).toBe('The key is revoked: its next request is refused.');
    expect(keysIn(list.text)[0]?.state).toBe('revoked');
    expect(list.text).not.toContain(`/dashboard/api-keys/${key.id}/revoke`);
    const row = await t.gateway.database.db
      .selectFrom('api_keys')
      .select('revoked_by')
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_by).toBe(`user:${user.userId}`);
  });

  it('shows validation errors next to the form, in the page language', async () => {
    const { client } = await signedIn();
    const noScope = await createKey(client, { scopes: [] });
    expect(noScope.status).toBe(400);
    expect(textOf(noScope.text, 'form-error')).toBe('Choose at least one scope.');
    expect(noScope.secret).toBe('');

    const badCidr = await createKey(client, { allowedIps: '10.0.0.0/33' });
    expect(badCidr.status).toBe(400);
    expect(badCidr.text).toContain('Not an IPv4 or IPv6 address or CIDR range: 10.0.0.0/33');

    const today = t.clock.now().toISOString().slice(0, 10);
    const past = await createKey(client, { expiresAt: today });
    expect(past.status).toBe(400);
    expect(past.text).toContain('The expiry date must be in the future.');
    // The form keeps what was typed.
    expect(past.text).toContain(`value="${today}"`);

    const page = await client.get('/dashboard/api-keys?lang=tr');
    const body = new URLSearchParams({ _csrf: csrfIn(page.text), allowedIps: 'not-an-ip' });
    const turkish = await postKeyForm(client, 'tr', body);
    const text = await turkish.text();
    expect(turkish.status).toBe(400);
    expect(text).toContain('En az bir yetki seçin.');
    expect(text).toContain('Geçerli bir IPv4 veya IPv6 adresi ya da CIDR aralığı değil: not-an-ip');
    expect(keysIn((await client.get('/dashboard/api-keys?lang=en')).text)).toEqual([]);

    const future = await createKey(client, { expiresAt: '2027-01-01' });
    expect(future.status).toBe(200);
    const [key] = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    expect(key?.html).toContain('2027-01-01 00:00 UTC');
  });

  it('lets a viewer see the list read-only: create and revoke are 403', async () => {
    const { client: owner, organizationId } = await signedIn();
    await createKey(owner);
    const [key] = keysIn((await owner.get('/dashboard/api-keys?lang=en')).text);
    if (!key) throw new Error('no key listed');

    const { client: viewer } = await signedIn({ organizationId, role: 'viewer' });
    const page = await viewer.get('/dashboard/api-keys?lang=en');
    expect(page.status).toBe(200);
    expect(keysIn(page.text).map((listed) => listed.id)).toEqual([key.id]);
    expect(page.text).not.toContain('id="create-key-form"');
    expect(page.text).not.toContain('/revoke');
    expect(textOf(page.text, 'read-only')).toBe('Your role can see the keys but not create or revoke them.');

    const create = await createKey(viewer);
    expect(create.status).toBe(403);
    expect(create.secret).toBe('');
    const revoke = await revokeKey(viewer, key.id);
    expect(revoke.status).toBe(403);
    expect(keysIn((await owner.get('/dashboard/api-keys?lang=en')).text)).toHaveLength(1);
    expect(keysIn((await owner.get('/dashboard/api-keys?lang=en')).text)[0]?.state).toBe('active');

    for (const role of ['admin', 'developer'] as const) {
      const { client } = await signedIn({ organizationId, role });
      expect((await createKey(client)).status).toBe(200);
    }
  });

  it('refuses a form without its CSRF token (403)', async () => {
    const { client } = await signedIn();
    await createKey(client);
    const [key] = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    if (!key) throw new Error('no key listed');

    const create = await client.postForm('/dashboard/api-keys?lang=en', { scopes: 'all' });
    expect(create.status).toBe(403);
    const wrong = await client.postForm('/dashboard/api-keys?lang=en', {
      _csrf: 'x'.repeat(43),
      scopes: 'all',
    });
    expect(wrong.status).toBe(403);
    const revoke = await client.postForm(`/dashboard/api-keys/${key.id}/revoke?lang=en`, {});
    expect(revoke.status).toBe(403);
    const keys = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    expect(keys.map((listed) => listed.state)).toEqual(['active']);
  });

  it('lists the keys of the session environment only', async () => {
    const { client } = await signedIn();
    const sandboxKey = await createKey(client, { name: 'sandbox one' });
    expect(sandboxKey.secret).toMatch(/^sk_test_/);

    const switched = await client.submit(
      '/dashboard?lang=en',
      { environment: 'live' },
      '/dashboard/environment?lang=en',
    );
    expect(switched.status).toBe(303);
    const livePage = await client.get('/dashboard/api-keys?lang=en');
    expect(textOf(livePage.text, 'environment')).toContain('Live');
    expect(keysIn(livePage.text)).toEqual([]);

    const liveKey = await createKey(client, { name: 'live one' });
    expect(liveKey.secret).toMatch(/^sk_live_/);
    const live = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    expect(live.map((key) => key.prefix)).toEqual([liveKey.secret.slice(0, 16)]);

    await client.submit('/dashboard?lang=en', { environment: 'sandbox' }, '/dashboard/environment?lang=en');
    const sandboxList = keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    expect(sandboxList.map((key) => key.prefix)).toEqual([sandboxKey.secret.slice(0, 16)]);
  });

  it("answers 404 for another organization's key", async () => {
    const { client: other } = await signedIn();
    await createKey(other);
    const [foreign] = keysIn((await other.get('/dashboard/api-keys?lang=en')).text);
    if (!foreign) throw new Error('no key listed');

    const { client } = await signedIn();
    const revoke = await revokeKey(client, foreign.id);
    expect(revoke.status).toBe(404);
    expect(keysIn((await other.get('/dashboard/api-keys?lang=en')).text)[0]?.state).toBe('active');
    const unknown = await revokeKey(client, 'key_doesnotexist');
    expect(unknown.status).toBe(404);
  });
});

describe('rotation (spec 5.7)', () => {
  it('new key with the same scopes, switch, check lastUsedAt of both, revoke the old one', async () => {
    const { client } = await signedIn({ apiKeysFlag: true });
    const listed = async () => keysIn((await client.get('/dashboard/api-keys?lang=en')).text);
    const old = await createKey(client, { name: 'old', scopes: ['read', 'write'] });
    const [oldKey] = await listed();
    if (!oldKey) throw new Error('no key listed');

    // The integration uses the old key.
    expect((await sandbox(old.secret)).status).toBe(200);
    const oldUsedAt = t.clock.now().toISOString();
    expect((await listed())[0]?.lastUsedAt).toBe(oldUsedAt);

    // 1. Issue a new key with the same scopes.
    t.clock.advance(5 * MINUTE);
    const fresh = await createKey(client, { name: 'new', scopes: ['read', 'write'] });
    expect(fresh.status).toBe(200);
    let keys = await listed();
    const newKey = keys.find((key) => key.prefix === fresh.secret.slice(0, 16));
    if (!newKey) throw new Error('new key not listed');
    expect(newKey.html).toContain('read, write');
    expect(newKey.lastUsedAt).toBe('');

    // 2. Deploy it: the integration now uses the new key only.
    t.clock.advance(2 * MINUTE);
    expect((await sandbox(fresh.secret)).status).toBe(200);
    const newUsedAt = t.clock.now().toISOString();
    t.clock.advance(3 * MINUTE + 10 * SECOND);
    expect((await sandbox(fresh.secret)).status).toBe(200);
    const newUsedAgain = t.clock.now().toISOString();

    // 3. Verify via lastUsedAt: the new key's moves, the old one's stays where the switch left it.
    keys = await listed();
    expect(keys.find((key) => key.id === newKey.id)?.lastUsedAt).toBe(newUsedAgain);
    expect(newUsedAgain > newUsedAt).toBe(true);
    expect(keys.find((key) => key.id === oldKey.id)?.lastUsedAt).toBe(oldUsedAt);

    // 4. Revoke the old key.
    expect((await revokeKey(client, oldKey.id)).status).toBe(303);
    const refused = await sandbox(old.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    t.clock.advance(MINUTE);
    expect((await sandbox(fresh.secret)).status).toBe(200);
    keys = await listed();
    expect(keys.find((key) => key.id === oldKey.id)).toMatchObject({
      state: 'revoked',
      lastUsedAt: oldUsedAt,
    });
    expect(keys.find((key) => key.id === newKey.id)).toMatchObject({
      state: 'active',
      lastUsedAt: t.clock.now().toISOString(),
    });
  });
});
