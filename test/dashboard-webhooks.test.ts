import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { SECOND } from '../src/shared/clock.js';
import {
  ACCOUNT_TEST_ENV,
  createActiveUser,
  createOrganization,
  csrfIn,
  textOf,
  WebClient,
} from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge } from './helpers/http.js';
import { issueKey } from './helpers/merchants.js';
import { payByCard } from './helpers/charges.js';
import { listedIn, type ListedItem } from './helpers/http-checks.js';

// Webhook endpoints in the merchant dashboard (issue 7): list, create (the secret once), enable and
// disable, delete after a confirmation, rotate with a grace period, the attempts of an endpoint and
// their retry; roles, CSRF, ownership and escaping.

let t: TestGateway;
let receiver: { url: string; close: () => Promise<void>; status: number; body: string; hits: number };

beforeAll(async () => {
  // No worker: deliveries are sent when a test says so.
  t = await startTestGateway({ env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,sandbox-acquirer' } });
  const state = { status: 200, body: 'ok', hits: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.hits += 1;
      res.writeHead(state.status, { 'content-type': 'text/plain' });
      res.end(state.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver = Object.assign(state, {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

type ListedEndpoint = ListedItem;
const endpointsIn = (html: string): ListedEndpoint[] => listedIn(html, 'endpoint');

async function signedIn(input: { organizationId?: string; role?: UserRole } = {}) {
  const organizationId = input.organizationId ?? (await createOrganization(t)).id;
  const user = await createActiveUser(t, { organizationId, role: input.role ?? 'owner' });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return { client, user, organizationId };
}

/** Posts a form whose fields may repeat (the event checkboxes). */
async function postForm(client: WebClient, path: string, fields: Array<[string, string]>) {
  const response = await fetch(`${t.urls.web}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': client.ip,
      cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: response.headers,
    location: response.headers.get('location'),
    text: await response.text(),
  };
}

async function createEndpoint(
  client: WebClient,
  form: { url?: string; events?: string[]; description?: string; lang?: string } = {},
) {
  const lang = form.lang ?? 'en';
  const page = await client.get(`/dashboard/webhooks?lang=${lang}`);
  expect(page.status).toBe(200);
  const fields: Array<[string, string]> = [
    ['_csrf', csrfIn(page.text)],
    ['url', form.url ?? receiver.url],
    ['description', form.description ?? ''],
  ];
  for (const kind of form.events ?? ['*']) fields.push(['enabledEvents', kind]);
  const response = await postForm(client, `/dashboard/webhooks?lang=${lang}`, fields);
  return { ...response, secret: textOf(response.text, 'webhook-secret') ?? '' };
}

async function listed(client: WebClient) {
  return endpointsIn((await client.get('/dashboard/webhooks?lang=en')).text);
}

async function onlyEndpoint(client: WebClient): Promise<ListedEndpoint> {
  const [endpoint] = await listed(client);
  if (!endpoint) throw new Error('no endpoint listed');
  return endpoint;
}

/** Posts a form of the endpoint page (status, rotate, delete) with the session's CSRF token. */
async function act(client: WebClient, id: string, action: string, form: Record<string, string> = {}) {
  return client.submit(
    `/dashboard/webhooks/${id}?lang=en`,
    form,
    `/dashboard/webhooks/${id}/${action}?lang=en`,
  );
}

/** A sandbox charge of the organization paid with a test card: its `charge.succeeded` event fans out. */
async function paidCharge(organizationId: string) {
  const key = await issueKey(t.gateway.database.db, t.clock, organizationId, { environment: 'sandbox' });
  const created = await request<{ id: string; providerPaymentId: string }>(
    `${t.urls.sandboxApi}/v1/charges`,
    {
      method: 'POST',
      body: validCharge(),
      headers: { 'x-api-key': key.secret },
    },
  );
  expect(created.status, created.text).toBe(201);
  await payByCard(t.gateway.services, created.body, 'X', { returnUrl: 'https://x.example/' });
  return created.body;
}

describe('the webhook endpoints pages', () => {
  it('need a session', async () => {
    const anonymous = new WebClient(t.urls.web);
    for (const path of [
      '/dashboard/webhooks',
      '/dashboard/webhooks/we_x',
      '/dashboard/webhooks/we_x/delete',
    ]) {
      const page = await anonymous.get(path);
      expect(page.status, path).toBe(303);
      expect(page.location).toMatch(/^\/login\?/);
    }
    const post = await anonymous.postForm('/dashboard/webhooks', { url: receiver.url, enabledEvents: '*' });
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/login\?/);
  });

  it('creates an endpoint and shows its secret once; the list never shows it', async () => {
    const { client, user, organizationId } = await signedIn();
    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain('href="/dashboard/webhooks?lang=en"');
    expect(textOf((await client.get('/dashboard/webhooks?lang=en')).text, 'no-endpoints')).toBe(
      'No webhook endpoints yet.',
    );

    const created = await createEndpoint(client, {
      events: ['charge.succeeded', 'charge.refunded'],
      description: 'orders',
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);
    expect(textOf(created.text, 'secret-endpoint-events')).toBe('charge.succeeded, charge.refunded');
    expect(created.text).not.toMatch(/<script|style=/);
    expect(created.text).not.toContain('class="lang"');

    const list = await client.get('/dashboard/webhooks?lang=en');
    expect(list.text).not.toContain(created.secret);
    const endpoint = await onlyEndpoint(client);
    expect(endpoint.status).toBe('enabled');
    expect(endpoint.html).toContain(receiver.url);
    expect(endpoint.html).toContain('orders');
    const detail = await client.get(`/dashboard/webhooks/${endpoint.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain(created.secret);
    expect(textOf(detail.text, 'no-attempts')).toBe('No delivery attempts yet.');

    // Through the same service as the API: a sandbox endpoint of the organization.
    const fetched = await t.gateway.services.webhooks.endpoints.get(
      { organizationId, environment: 'sandbox' },
      endpoint.id,
    );
    expect(fetched.ok && fetched.value.enabledEvents).toEqual(['charge.succeeded', 'charge.refunded']);
    const audit = await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', '=', endpoint.id)
      .execute();
    expect(audit).toEqual([{ actor: `user:${user.userId}`, action: 'webhook_endpoint.created' }]);
  });

  it('shows form errors in the page language and keeps what was typed', async () => {
    const { client } = await signedIn();
    const noEvents = await createEndpoint(client, { events: [], description: 'kept' });
    expect(noEvents.status).toBe(400);
    expect(textOf(noEvents.text, 'form-error')).toBe('Choose at least one event.');
    expect(noEvents.text).toContain(`value="${receiver.url}"`);
    expect(noEvents.text).toContain('value="kept"');

    const badUrl = await createEndpoint(client, { url: 'ftp://shop.example/x' });
    expect(badUrl.status).toBe(400);
    expect(textOf(badUrl.text, 'form-error')).toBe('The URL must be an absolute http or https URL.');
    const credentials = await createEndpoint(client, { url: 'http://u:p@127.0.0.1/x', lang: 'tr' });
    expect(credentials.status).toBe(400);
    expect(textOf(credentials.text, 'form-error')).toBe('URL kullanıcı adı ya da şifre içermemelidir.');
    expect(await listed(client)).toEqual([]);

    // Live endpoints must use https.
    await client.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    const live = await createEndpoint(client);
    expect(live.status).toBe(400);
    expect(textOf(live.text, 'form-error')).toBe('Live endpoints must use https.');
    const https = await createEndpoint(client, { url: 'https://127.0.0.1:9/hooks' });
    expect(https.status).toBe(200);
    expect(await listed(client)).toHaveLength(1);
    // Each environment lists its own.
    await client.submit('/dashboard?lang=en', { environment: 'sandbox' }, '/dashboard/environment?lang=en');
    expect(await listed(client)).toEqual([]);
  });

  it('says in the page language that the environment has the most endpoints it may have', async () => {
    const { client } = await signedIn();
    for (let i = 0; i < 16; i++) expect((await createEndpoint(client)).status).toBe(200);
    const full = await createEndpoint(client, { description: 'one too many' });
    expect(full.status).toBe(409);
    expect(textOf(full.text, 'form-error')).toBe(
      'This environment already has the most webhook endpoints an organization may have (16): delete one first.',
    );
    expect(full.text).toContain('value="one too many"');
    const inTurkish = await createEndpoint(client, { lang: 'tr' });
    expect(textOf(inTurkish.text, 'form-error')).toBe(
      'Bu ortamda bir kuruluşun sahip olabileceği en fazla webhook uç noktası (16) zaten var: önce birini silin.',
    );
    expect(await listed(client)).toHaveLength(16);
  });

  it('disables and enables, rotates with a grace period, deletes after a confirmation', async () => {
    const { client } = await signedIn({ role: 'developer' });
    const created = await createEndpoint(client);
    const { id } = await onlyEndpoint(client);

    const disabled = await act(client, id, 'status', { disabled: 'true' });
    expect(disabled.status).toBe(303);
    expect(disabled.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=disabled`);
    expect((await onlyEndpoint(client)).status).toBe('disabled');
    const enabled = await act(client, id, 'status', { disabled: 'false' });
    expect(enabled.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=enabled`);
    expect((await onlyEndpoint(client)).status).toBe('enabled');

    const rotated = await act(client, id, 'rotate', { gracePeriodSeconds: '3600' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const secret = textOf(rotated.text, 'webhook-secret') ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    const until = new Date(t.clock.now().getTime() + 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    // The page says what to verify until the merchant switches: the current secret, as before.
    expect(textOf(rotated.text, 'rotation-grace')).toBe(
      `Until you switch, and at the latest until ${until} UTC, Service-Signature is made with your current secret, as before: keep verifying it with that secret. Each delivery also carries Service-Signature-Next, made with this new one. From the switch on, Service-Signature is made with this new secret only.`,
    );
    expect(textOf(rotated.text, 'secret-warning')).toContain(
      'Do not verify with it yet: Service-Signature is made with your current secret until you switch to this one.',
    );
    const detail = await client.get(`/dashboard/webhooks/${id}?lang=en`);
    expect(textOf(detail.text, 'endpoint-grace')).toBe(`${until} UTC`);
    expect(textOf(detail.text, 'endpoint-signing')).toBe('the previous secret, until you switch');
    expect(detail.text).toContain('id="switch-form"');
    expect(detail.text).not.toContain('id="resume-form"');
    expect(detail.text).not.toContain(secret);

    // The merchant chooses the switch: the new secret signs, deliveries wait for the pause chosen.
    const switched = await act(client, id, 'switch', { pauseSeconds: '900' });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=switched`);
    const paused = await client.get(switched.location ?? '');
    expect(textOf(paused.text, 'notice')).toBe(
      'Service-Signature is now made with the new secret, and deliveries wait: deploy your receiver with the new secret, then resume them.',
    );
    expect(textOf(paused.text, 'endpoint-signing')).toBe('the newest secret');
    const pausedUntil = new Date(t.clock.now().getTime() + 900_000)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    expect(textOf(paused.text, 'endpoint-paused')).toBe(`${pausedUntil} UTC`);
    expect(paused.text).not.toContain('id="endpoint-grace"');
    expect(paused.text).not.toContain('id="switch-form"');
    expect(paused.text).toContain('id="resume-form"');
    const resumed = await act(client, id, 'resume');
    expect(resumed.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=resumed`);
    const running = await client.get(resumed.location ?? '');
    expect(textOf(running.text, 'notice')).toBe('Deliveries are resumed, signed with the new secret.');
    expect(running.text).not.toContain('id="endpoint-paused"');
    expect(running.text).not.toContain('id="resume-form"');
    // Nothing left to switch to.
    const again = await act(client, id, 'switch', { pauseSeconds: '0' });
    expect(again.status).toBe(409);
    expect(textOf(again.text, 'form-error')).toBe(
      'There is no new secret waiting to sign: rotate the secret first.',
    );

    const rotatedNow = await act(client, id, 'rotate', { gracePeriodSeconds: '0' });
    expect(textOf(rotatedNow.text, 'rotation-grace')).toContain('stopped signing at once');

    const confirm = await client.get(`/dashboard/webhooks/${id}/delete?lang=en`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text, 'delete-warning')).toContain('cannot be undone');
    // Only the confirmation page's form deletes.
    expect(await listed(client)).toHaveLength(1);
    const removed = await client.submit(
      `/dashboard/webhooks/${id}/delete?lang=en`,
      {},
      `/dashboard/webhooks/${id}/delete?lang=en`,
    );
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/dashboard/webhooks?lang=en&notice=deleted');
    expect(await listed(client)).toEqual([]);
    expect((await client.get(`/dashboard/webhooks/${id}?lang=en`)).status).toBe(404);

    const actions = await t.gateway.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', id)
      .orderBy('id')
      .execute();
    expect(actions.map((row) => row.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.secret_switched',
      'webhook_endpoint.deliveries_resumed',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.deleted',
    ]);
  });

  it('lets a viewer read the pages only: every change is 403', async () => {
    const { client: owner, organizationId } = await signedIn();
    await createEndpoint(owner);
    const { id } = await onlyEndpoint(owner);

    const { client: viewer } = await signedIn({ organizationId, role: 'viewer' });
    const list = await viewer.get('/dashboard/webhooks?lang=en');
    expect(list.status).toBe(200);
    expect(endpointsIn(list.text).map((endpoint) => endpoint.id)).toEqual([id]);
    expect(list.text).not.toContain('id="create-endpoint-form"');
    expect(textOf(list.text, 'read-only')).toBe('Your role can see the endpoints but not change them.');
    const detail = await viewer.get(`/dashboard/webhooks/${id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toMatch(/id="(status-form|rotate-form|switch-form|resume-form|delete-link)"/);

    const create = await createEndpoint(viewer);
    expect(create.status).toBe(403);
    expect(create.secret).toBe('');
    expect((await act(viewer, id, 'status', { disabled: 'true' })).status).toBe(403);
    const rotate = await act(viewer, id, 'rotate', { gracePeriodSeconds: '0' });
    expect(rotate.status).toBe(403);
    expect(textOf(rotate.text, 'webhook-secret')).toBeUndefined();
    expect((await viewer.get(`/dashboard/webhooks/${id}/delete?lang=en`)).status).toBe(403);
    expect((await act(viewer, id, 'delete')).status).toBe(403);
    expect((await act(viewer, id, 'deliveries/whd_x/retry')).status).toBe(403);
    expect((await act(viewer, id, 'switch', { pauseSeconds: '900' })).status).toBe(403);
    expect((await act(viewer, id, 'resume')).status).toBe(403);
    expect(await listed(owner)).toMatchObject([{ id, status: 'enabled' }]);
    expect(
      await t.gateway.database.db
        .selectFrom('webhook_endpoints')
        .select(['previous_secret_enc'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ previous_secret_enc: null });

    const { client: admin } = await signedIn({ organizationId, role: 'admin' });
    expect((await createEndpoint(admin)).status).toBe(200);
  });

  it('refuses forms without the CSRF token (403)', async () => {
    const { client } = await signedIn();
    await createEndpoint(client);
    const { id } = await onlyEndpoint(client);
    const posts: Array<[string, Record<string, string>]> = [
      ['/dashboard/webhooks', { url: receiver.url, enabledEvents: '*' }],
      [`/dashboard/webhooks/${id}/status`, { disabled: 'true' }],
      [`/dashboard/webhooks/${id}/rotate`, { gracePeriodSeconds: '0' }],
      [`/dashboard/webhooks/${id}/switch`, { pauseSeconds: '900' }],
      [`/dashboard/webhooks/${id}/resume`, {}],
      [`/dashboard/webhooks/${id}/delete`, {}],
      [`/dashboard/webhooks/${id}/deliveries/whd_x/retry`, {}],
    ];
    for (const [path, form] of posts) {
      const missing = await client.postForm(`${path}?lang=en`, form);
      expect(missing.status, path).toBe(403);
      expect(textOf(missing.text, 'message-body')).toBe(
        'The form has expired or did not come from this site. Reload the page and try again.',
      );
      const wrong = await client.postForm(`${path}?lang=en`, { _csrf: 'x'.repeat(43), ...form });
      expect(wrong.status, path).toBe(403);
    }
    expect(await listed(client)).toMatchObject([{ id, status: 'enabled' }]);
  });

  it("answers 404 for another organization's or environment's endpoint", async () => {
    const { client: other } = await signedIn();
    await createEndpoint(other);
    const { id } = await onlyEndpoint(other);

    const { client } = await signedIn();
    expect((await client.get(`/dashboard/webhooks/${id}?lang=en`)).status).toBe(404);
    expect((await client.get(`/dashboard/webhooks/${id}/delete?lang=en`)).status).toBe(404);
    const csrf = await client.sessionCsrf();
    for (const [action, form] of [
      ['status', { disabled: 'true' }],
      ['rotate', { gracePeriodSeconds: '0' }],
      ['switch', { pauseSeconds: '900' }],
      ['resume', {}],
      ['delete', {}],
      ['deliveries/whd_x/retry', {}],
    ] as const) {
      const response = await client.postForm(`/dashboard/webhooks/${id}/${action}?lang=en`, {
        _csrf: csrf,
        ...form,
      });
      expect(response.status, action).toBe(404);
      expect(textOf(response.text, 'message-body')).toBe('This page does not exist.');
    }
    expect(await listed(other)).toMatchObject([{ id, status: 'enabled' }]);
    const row = await t.gateway.database.db
      .selectFrom('webhook_endpoints')
      .select(['previous_secret_enc', 'deleted_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ previous_secret_enc: null, deleted_at: null });

    // The same organization in the other environment: 404 too.
    await other.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    expect((await other.get(`/dashboard/webhooks/${id}?lang=en`)).status).toBe(404);
  });

  it('escapes a hostile URL, description and response excerpt', async () => {
    const { client, organizationId } = await signedIn();
    const url = `${receiver.url}/"><script>alert(1)</script>?q='x'&y=<b>`;
    const description = `<img src=x onerror=alert(2)> "quoted" & 'single'`;
    const created = await createEndpoint(client, { url, description });
    expect(created.status).toBe(200);
    const { id } = await onlyEndpoint(client);

    receiver.status = 500;
    receiver.body = '<script>alert(3)</script>"&';
    try {
      await paidCharge(organizationId);
      expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBeGreaterThan(0);
    } finally {
      receiver.status = 200;
      receiver.body = 'ok';
    }

    const pages = [
      created.text,
      (await client.get('/dashboard/webhooks?lang=en')).text,
      (await client.get(`/dashboard/webhooks/${id}?lang=en`)).text,
      (await client.get(`/dashboard/webhooks/${id}/delete?lang=en`)).text,
      (await act(client, id, 'rotate', { gracePeriodSeconds: '0' })).text,
    ];
    for (const html of pages) {
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<img src=x');
      expect(html).not.toContain('<b>');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
    }
    const detail = pages[2] ?? '';
    expect(detail).toContain('&lt;script&gt;alert(3)&lt;/script&gt;&quot;&amp;');
    expect(detail).toContain('http_500');
  });
});

/** Posts the edit form of the endpoint page; `csrf: false` leaves the token out. */
async function edit(
  client: WebClient,
  id: string,
  form: { url: string; events: string[]; description: string; lang?: string; csrf?: boolean },
) {
  const lang = form.lang ?? 'en';
  const fields: Array<[string, string]> = [];
  if (form.csrf !== false) {
    const page = await client.get(`/dashboard/webhooks/${id}?lang=${lang}`);
    fields.push(['_csrf', csrfIn(page.text)]);
  }
  fields.push(['url', form.url], ['description', form.description]);
  for (const kind of form.events) fields.push(['enabledEvents', kind]);
  return postForm(client, `/dashboard/webhooks/${id}/edit?lang=${lang}`, fields);
}

async function endpointRow(id: string) {
  return t.gateway.database.db
    .selectFrom('webhook_endpoints')
    .select(['url', 'enabled_events', 'description'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function auditOf(id: string) {
  return t.gateway.database.db
    .selectFrom('audit_log')
    .select(['actor', 'action', 'after'])
    .where('target_id', '=', id)
    .orderBy('created_at')
    .execute();
}

describe('editing an endpoint', () => {
  it('lets an owner change the URL, the events and the description; the change shows and is audited', async () => {
    const { client, user } = await signedIn();
    await createEndpoint(client, { events: ['charge.succeeded'], description: 'orders' });
    const { id } = await onlyEndpoint(client);
    const page = await client.get(`/dashboard/webhooks/${id}?lang=en`);
    expect(page.text).toContain('id="edit-endpoint-form"');
    expect(page.text).toContain(`action="/dashboard/webhooks/${id}/edit?lang=en"`);
    expect(page.text).toMatch(/id="edit-event-charge-succeeded" checked/);
    expect(page.text).toContain(
      'id="edit-description" name="description" type="text" autocomplete="off" maxlength="500" value="orders"',
    );

    const newUrl = `${receiver.url}/v2`;
    const saved = await edit(client, id, {
      url: newUrl,
      events: ['charge.failed', 'charge.refunded'],
      description: 'refunds & <failures>',
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=updated`);

    const after = await client.get(saved.location ?? '');
    expect(textOf(after.text, 'notice')).toBe('The endpoint is updated.');
    expect(textOf(after.text, 'endpoint-url')).toBe(newUrl);
    expect(textOf(after.text, 'endpoint-events')).toBe('charge.failed, charge.refunded');
    expect(after.text).toContain('id="endpoint-description">refunds &amp; &lt;failures&gt;</dd>');
    expect(after.text).not.toContain('<failures>');
    expect(await endpointRow(id)).toEqual({
      url: newUrl,
      enabled_events: ['charge.failed', 'charge.refunded'],
      description: 'refunds & <failures>',
    });
    const audit = await auditOf(id);
    expect(audit.map((row) => [row.actor, row.action])).toEqual([
      [`user:${user.userId}`, 'webhook_endpoint.created'],
      [`user:${user.userId}`, 'webhook_endpoint.updated'],
    ]);
    expect(audit[1]?.after).toEqual({
      changed: ['url', 'enabledEvents', 'description'],
      url: newUrl,
      enabledEvents: ['charge.failed', 'charge.refunded'],
    });

    // An empty description clears it; `*` is kept alone.
    const cleared = await edit(client, id, { url: newUrl, events: ['*', 'charge.failed'], description: '' });
    expect(cleared.status).toBe(303);
    expect(await endpointRow(id)).toEqual({ url: newUrl, enabled_events: ['*'], description: null });
    // Nothing changed: no update, no audit.
    const same = await edit(client, id, { url: newUrl, events: ['*'], description: '' });
    expect(same.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=unchanged`);
    expect(await auditOf(id)).toHaveLength(3);
  });

  it('re-renders a bad form with the errors next to the fields, in the page language, and changes nothing', async () => {
    const { client } = await signedIn();
    await createEndpoint(client, { events: ['charge.succeeded'], description: 'orders' });
    const { id } = await onlyEndpoint(client);
    const before = await endpointRow(id);

    const badUrl = await edit(client, id, {
      url: 'ftp://shop.example/x',
      events: ['charge.failed'],
      description: 'typed',
    });
    expect(badUrl.status).toBe(400);
    expect(textOf(badUrl.text, 'edit-url-error')).toBe('The URL must be an absolute http or https URL.');
    expect(badUrl.text).toContain('value="ftp://shop.example/x"');
    expect(badUrl.text).toContain('value="typed"');
    expect(badUrl.text).toMatch(/id="edit-event-charge-failed" checked/);
    expect(badUrl.text).not.toMatch(/id="edit-event-charge-succeeded" checked/);

    const noEvents = await edit(client, id, {
      url: 'http://u:p@127.0.0.1/x',
      events: [],
      description: 'x'.repeat(501),
      lang: 'tr',
    });
    expect(noEvents.status).toBe(400);
    expect(textOf(noEvents.text, 'edit-events-error')).toBe('En az bir olay seçin.');
    expect(textOf(noEvents.text, 'edit-description-error')).toBe(
      'Açıklama çok uzun (en fazla 500 karakter).',
    );

    const credentials = await edit(client, id, {
      url: 'http://u:p@127.0.0.1/x',
      events: ['*'],
      description: '',
      lang: 'tr',
    });
    expect(credentials.status).toBe(400);
    expect(textOf(credentials.text, 'edit-url-error')).toBe('URL kullanıcı adı ya da şifre içermemelidir.');
    expect(credentials.text).not.toMatch(/<script|style=/);

    // Live endpoints must use https.
    await client.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    await createEndpoint(client, { url: 'https://127.0.0.1:9/hooks' });
    const [live] = await listed(client);
    if (!live) throw new Error('no live endpoint');
    const http = await edit(client, live.id, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['*'],
      description: '',
    });
    expect(http.status).toBe(400);
    expect(textOf(http.text, 'edit-url-error')).toBe('Live endpoints must use https.');
    expect((await endpointRow(live.id)).url).toBe('https://127.0.0.1:9/hooks');

    expect(await endpointRow(id)).toEqual(before);
    expect((await auditOf(id)).map((row) => row.action)).toEqual(['webhook_endpoint.created']);
  });

  it('refuses a viewer (403), a form without its CSRF token (403) and another organization (404)', async () => {
    const { client: owner, organizationId } = await signedIn();
    await createEndpoint(owner, { description: 'orders' });
    const { id } = await onlyEndpoint(owner);
    const before = await endpointRow(id);
    const form = { url: `${receiver.url}/other`, events: ['charge.failed'], description: 'changed' };

    const { client: viewer } = await signedIn({ organizationId, role: 'viewer' });
    expect((await viewer.get(`/dashboard/webhooks/${id}?lang=en`)).text).not.toContain(
      'id="edit-endpoint-form"',
    );
    const refused = await viewer.postForm(`/dashboard/webhooks/${id}/edit?lang=en`, {
      _csrf: await viewer.sessionCsrf(),
      url: form.url,
      enabledEvents: 'charge.failed',
      description: form.description,
    });
    expect(refused.status).toBe(403);
    expect(textOf(refused.text, 'form-error')).toBe('Your role may not change webhook endpoints.');

    const missing = await edit(owner, id, { ...form, csrf: false });
    expect(missing.status).toBe(403);
    expect(textOf(missing.text, 'message-body')).toBe(
      'The form has expired or did not come from this site. Reload the page and try again.',
    );

    const { client: stranger } = await signedIn();
    const foreign = await stranger.postForm(`/dashboard/webhooks/${id}/edit?lang=en`, {
      _csrf: await stranger.sessionCsrf(),
      url: form.url,
      enabledEvents: 'charge.failed',
      description: form.description,
    });
    expect(foreign.status).toBe(404);
    expect(textOf(foreign.text, 'message-body')).toBe('This page does not exist.');

    expect(await endpointRow(id)).toEqual(before);
    expect((await auditOf(id)).map((row) => row.action)).toEqual(['webhook_endpoint.created']);

    const { client: developer } = await signedIn({ organizationId, role: 'developer' });
    expect((await edit(developer, id, form)).status).toBe(303);
    expect((await endpointRow(id)).description).toBe('changed');
  });
});

describe('the attempts of an endpoint', () => {
  it('lists the attempts of a real delivery and retries a delivery with the same event', async () => {
    const { client, organizationId } = await signedIn();
    await createEndpoint(client, { events: ['charge.succeeded'] });
    const { id } = await onlyEndpoint(client);
    // An endpoint of another organization receives the same kind: its attempts are not listed here.
    const { client: other, organizationId: otherOrganization } = await signedIn();
    await createEndpoint(other);

    receiver.status = 503;
    receiver.body = 'busy';
    try {
      await paidCharge(organizationId);
      await paidCharge(otherOrganization);
      expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(2);
    } finally {
      receiver.status = 200;
      receiver.body = 'ok';
    }

    const page = await client.get(`/dashboard/webhooks/${id}?lang=en`);
    const attempts = [...page.text.matchAll(/<li data-attempt-id="([^"]+)" data-delivery-id="([^"]+)"/g)];
    expect(attempts).toHaveLength(1);
    const deliveryId = attempts[0]?.[2] ?? '';
    expect(page.text).toContain('<span class="attempt-event-type">charge.succeeded</span>');
    expect(page.text).toContain('<dd class="attempt-http-status">503</dd>');
    expect(page.text).toContain('<code class="attempt-response">busy</code>');
    expect(page.text).toContain('data-status="pending"');
    expect(page.text).toMatch(/<dd class="attempt-latency">\d+ ms<\/dd>/);
    expect(page.text).toMatch(/<code class="attempt-event-id">evt_[^<]+<\/code>/);

    // Another organization's delivery cannot be retried from this endpoint's page.
    const foreign = await t.gateway.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('organization_id', '=', otherOrganization)
      .executeTakeFirstOrThrow();
    const refused = await act(client, id, `deliveries/${foreign.id}/retry`);
    expect(refused.status).toBe(404);

    // Less than the first retry's wait (5 s less jitter): only the Retry button makes it due now.
    t.clock.advance(SECOND);
    const retried = await act(client, id, `deliveries/${deliveryId}/retry`);
    expect(retried.status).toBe(303);
    expect(retried.location).toBe(`/dashboard/webhooks/${id}?lang=en&notice=retried`);
    expect(await t.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);

    const after = await client.get(`/dashboard/webhooks/${id}?lang=en&notice=retried`);
    expect(textOf(after.text, 'notice')).toBe('The delivery is due again now, with the same event id.');
    const rows = [
      ...after.text.matchAll(
        /<li data-attempt-id="[^"]+" data-delivery-id="([^"]+)" data-succeeded="([^"]+)"/g,
      ),
    ];
    expect(rows.map((row) => [row[1], row[2]])).toEqual([
      [deliveryId, 'true'],
      [deliveryId, 'false'],
    ]);
    // One Retry button per delivery.
    expect(after.text.match(/class="retry-form"/g)).toHaveLength(1);
    const eventIds = [...after.text.matchAll(/<code class="attempt-event-id">([^<]+)<\/code>/g)].map(
      (match) => match[1],
    );
    expect(new Set(eventIds).size).toBe(1);
  });
});
