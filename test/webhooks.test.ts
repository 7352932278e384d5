/**
 * Merchant webhooks (issue 7): endpoint management, the URL rules, signed delivery of real events to a
 * real receiver on loopback, the delivery log of a charge, manual retry, secret rotation and the events
 * feed. Fault, crash and isolation cases are in webhooks-faults.test.ts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { HOUR } from '../src/shared/clock.js';
import { loadConfig } from '../src/config.js';
import { generateEncryptionKeys } from '../src/shared/secret-box.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { payByCard, serviceCharge } from './helpers/charges.js';
import { startReceiver, type Received } from './helpers/receivers.js';
import { dispatcherOf } from './helpers/webhook-dispatch.js';

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  status: string;
  disabledReason: string | null;
  livemode: boolean;
  previousSecretExpiresAt: string | null;
  secret?: string;
}
interface Attempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  url: string;
  attemptedAt: string;
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  deliveryStatus: string;
}
interface EventBody {
  id: string;
  eventType: string;
  createdAt: string;
  livemode: boolean;
  data: { id: string; metadata?: Record<string, unknown> };
  payment?: { id: string; paymentId: string; merchantReference: string };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Verification as spec section 6 says: raw body, constant time with a length check. */
function verifies(signature: string | undefined, timestamp: string, raw: Buffer, secret: string): boolean {
  if (signature === undefined) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex');
  const a = Buffer.from(signature);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The documented rotation procedure: accept when either header matches any secret held. */
function verifiesDuringRotation(received: Received, secrets: string[]): boolean {
  const timestamp = String(received.headers['service-timestamp']);
  const signatures = [
    received.headers['service-signature'],
    received.headers['service-signature-next'],
  ].filter((value): value is string => typeof value === 'string');
  return secrets.some((secret) =>
    signatures.some((signature) => verifies(signature, timestamp, received.raw, secret)),
  );
}

let t: TestGateway;
let merchant: Merchant;
let other: Merchant;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer', WEBHOOK_TIMEOUT_MS: '1000' } });
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
  other = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

const db = () => t.gateway.database.db;
const dispatcher = () => t.gateway.services.webhooks.dispatcher;
const api = <T>(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    headers?: Record<string, string>;
    key?: string;
    live?: boolean;
  } = {},
): Promise<HttpResult<T & ErrorBody>> =>
  apiRequest<T & ErrorBody>(t.urls, path, {
    ...init,
    environment: init.live ? 'live' : 'sandbox',
    key: init.key ?? (init.live ? merchant.keys.live.secret : merchant.keys.sandbox.secret),
  });

async function createEndpoint(body: Record<string, unknown> = {}, key?: string): Promise<Endpoint> {
  const res = await api<Endpoint>('/v1/webhook-endpoints', {
    method: 'POST',
    body: { url: receiver.url, enabledEvents: ['*'], ...body },
    ...(key ? { key } : {}),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function deleteAllEndpoints(m: Merchant = merchant): Promise<void> {
  await db()
    .updateTable('webhook_endpoints')
    .set({ deleted_at: t.clock.now(), status: 'disabled' })
    .where('organization_id', '=', m.organizationId)
    .execute();
}

/** A charge paid with a test card, its success applied as the checkout applies the acquirer's answer. */
async function paidCharge(metadata: Record<string, unknown> = { cart: 'c-1' }) {
  const res = await api<{ id: string; providerPaymentId: string; merchantReference: string }>('/v1/charges', {
    method: 'POST',
    body: validCharge({ metadata }),
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Webhook Test');
  return res.body;
}

describe('webhook endpoints', () => {
  it('creates an endpoint and shows its secret once; the secret is stored sealed', async () => {
    const created = await createEndpoint({ enabledEvents: ['charge.succeeded'], description: 'orders' });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);
    expect(created).toMatchObject({
      status: 'enabled',
      livemode: false,
      description: 'orders',
      disabledReason: null,
    });
    const fetched = await api<Endpoint>(`/v1/webhook-endpoints/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty('secret');
    const list = await api<{ data: Endpoint[] }>('/v1/webhook-endpoints');
    expect(list.body.data.map((e) => e.id)).toContain(created.id);
    expect(list.body.data.every((e) => !('secret' in e))).toBe(true);
    // No secret in clear anywhere in the endpoints table or the idempotency store.
    const rows = await db().selectFrom('webhook_endpoints').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('whsec_');
    const keys = await db().selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(keys)).not.toContain('whsec_');
  });

  it('replays an idempotent creation with the same secret, stored sealed', async () => {
    const headers = { 'x-idempotency-key': `we-${Date.now()}` };
    const body = { url: receiver.url, enabledEvents: ['charge.failed'] };
    const first = await api<Endpoint>('/v1/webhook-endpoints', { method: 'POST', body, headers });
    const second = await api<Endpoint>('/v1/webhook-endpoints', { method: 'POST', body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.secret).toBe(first.body.secret);
    const keys = await db().selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(keys)).not.toContain(first.body.secret);
  });

  it('updates, disables, enables and deletes an endpoint', async () => {
    const created = await createEndpoint();
    const updated = await api<Endpoint>(`/v1/webhook-endpoints/${created.id}`, {
      method: 'POST',
      body: { enabledEvents: ['charge.refunded', 'charge.expired'], description: null, disabled: true },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      enabledEvents: ['charge.refunded', 'charge.expired'],
      description: null,
      status: 'disabled',
      disabledReason: 'merchant',
    });
    const enabled = await api<Endpoint>(`/v1/webhook-endpoints/${created.id}`, {
      method: 'POST',
      body: { disabled: false },
    });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
    const removed = await api<{ id: string; deleted: boolean }>(`/v1/webhook-endpoints/${created.id}`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: created.id, deleted: true });
    expect((await api(`/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
    expect((await api(`/v1/webhook-endpoints/${created.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses bad bodies and unknown event kinds', async () => {
    const cases: unknown[] = [
      {},
      { url: receiver.url },
      { url: receiver.url, enabledEvents: [] },
      { url: receiver.url, enabledEvents: ['charge.exploded'] },
      { url: receiver.url, enabledEvents: ['*'], extra: 1 },
      { url: 'not a url', enabledEvents: ['*'] },
      { url: 'ftp://example.com/x', enabledEvents: ['*'] },
      { url: 'http://user:pass@127.0.0.1/x', enabledEvents: ['*'] },
    ];
    for (const body of cases) {
      const res = await api('/v1/webhook-endpoints', { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const created = await createEndpoint();
    const empty = await api(`/v1/webhook-endpoints/${created.id}`, { method: 'POST', body: {} });
    expect(empty.status).toBe(400);
  });

  it('requires https in live mode', async () => {
    const res = await api('/v1/webhook-endpoints', {
      method: 'POST',
      live: true,
      body: { url: receiver.url, enabledEvents: ['*'] },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('https');
  });

  it("keeps endpoints to their organization and environment: another's is 404", async () => {
    const created = await createEndpoint();
    const foreign = other.keys.sandbox.secret;
    expect((await api(`/v1/webhook-endpoints/${created.id}`, { key: foreign })).status).toBe(404);
    expect(
      (
        await api(`/v1/webhook-endpoints/${created.id}`, {
          key: foreign,
          method: 'POST',
          body: { disabled: true },
        })
      ).status,
    ).toBe(404);
    expect(
      (await api(`/v1/webhook-endpoints/${created.id}`, { key: foreign, method: 'DELETE' })).status,
    ).toBe(404);
    expect(
      (
        await api(`/v1/webhook-endpoints/${created.id}/rotate-secret`, {
          key: foreign,
          method: 'POST',
          body: {},
        })
      ).status,
    ).toBe(404);
    expect((await api(`/v1/webhook-endpoints/${created.id}`, { live: true })).status).toBe(404);
    const list = await api<{ data: Endpoint[] }>('/v1/webhook-endpoints', { key: foreign });
    expect(list.body.data.map((e) => e.id)).not.toContain(created.id);
  });

  it('limits an organization to 16 endpoints in an environment, simultaneous creations included', async () => {
    const crowded = await createMerchant(t);
    const create = (key = crowded.keys.sandbox.secret) =>
      api<Endpoint>('/v1/webhook-endpoints', {
        method: 'POST',
        body: { url: receiver.url, enabledEvents: ['*'] },
        key,
      });
    const made: string[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await create();
      expect(res.status, res.text).toBe(201);
      made.push(res.body.id);
    }
    // Four at once for the last two places: the count is taken under the owner's lock.
    const raced = await Promise.all([create(), create(), create(), create()]);
    expect(raced.map((res) => res.status).sort()).toEqual([201, 201, 409, 409]);
    for (const res of raced.filter((r) => r.status === 409)) {
      expect(res.body.error.code).toBe('limit_reached');
      expect(res.body.error.details).toEqual({ limit: 16 });
    }
    const live = await db()
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', crowded.organizationId)
      .where('deleted_at', 'is', null)
      .execute();
    expect(live).toHaveLength(16);
    // Another organization is not crowded; a deleted endpoint frees its place.
    expect((await create(other.keys.sandbox.secret)).status).toBe(201);
    const removed = await api(`/v1/webhook-endpoints/${made[0]}`, {
      method: 'DELETE',
      key: crowded.keys.sandbox.secret,
    });
    expect(removed.status).toBe(200);
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(409);
  });

  it('pages the list with signed cursors', async () => {
    const m = await createMerchant(t);
    for (let i = 0; i < 3; i += 1) {
      t.clock.advance(1);
      await createEndpoint({}, m.keys.sandbox.secret);
    }
    const first = await api<{ data: Endpoint[]; nextCursor: string }>('/v1/webhook-endpoints?limit=2', {
      key: m.keys.sandbox.secret,
    });
    expect(first.body.data).toHaveLength(2);
    const second = await api<{ data: Endpoint[]; nextCursor: string | null }>(
      `/v1/webhook-endpoints?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      { key: m.keys.sandbox.secret },
    );
    expect(second.body.data).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const forged = await api('/v1/webhook-endpoints?cursor=abc.def', { key: m.keys.sandbox.secret });
    expect(forged.status).toBe(400);
  });

  it('refuses private targets, including a public-looking name resolving to loopback, unless allowed', async () => {
    const strict = await startTestGateway({
      env: {
        ROLES: 'api,sandbox-acquirer',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    try {
      const m = await createMerchant(strict);
      const resolver = strict.gateway.services.webhooks.resolver;
      resolver.pin('public-looking.example', ['127.0.0.1']);
      resolver.pin('mapped.example', ['::ffff:10.0.0.7']);
      resolver.pin('good.example', ['93.184.216.34']);
      const register = (url: string) =>
        request<ErrorBody>(`${strict.urls.sandboxApi}/v1/webhook-endpoints`, {
          body: { url, enabledEvents: ['*'] },
          headers: { 'x-api-key': m.keys.sandbox.secret },
        });
      for (const url of [
        'http://127.0.0.1/x',
        'http://[::1]/x',
        'http://10.1.2.3/x',
        'http://192.168.0.1/x',
        'http://172.16.0.1/x',
        'http://169.254.169.254/latest/meta-data',
        'http://100.64.0.1/x',
        'http://0.0.0.0/x',
        'http://224.0.0.1/x',
        'http://[fd00::1]/x',
        'http://[fe80::1]/x',
        'http://[::ffff:127.0.0.1]/x',
        'http://public-looking.example/x',
        'http://mapped.example/x',
      ]) {
        const res = await register(url);
        expect(res.status, url).toBe(400);
        expect(res.body.error.code, url).toBe('validation_failed');
      }
      expect((await register('https://good.example/hooks')).status).toBe(201);

      // At delivery too: the name was public when registered and resolves to loopback now.
      const target = await startReceiver();
      try {
        resolver.pin('rebinding.example', ['93.184.216.34']);
        const created = await register(`http://rebinding.example:${target.port}/hooks`);
        expect(created.status).toBe(201);
        await strict.gateway.database.db
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled' })
          .where('url', '=', 'https://good.example/hooks')
          .execute();
        resolver.pin('rebinding.example', ['127.0.0.1']);
        const charge = await serviceCharge(strict.gateway.services, m.organizationId);
        await payByCard(strict.gateway.services, charge, 'Rebind');
        expect(await strict.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
        expect(target.received).toHaveLength(0);
        const attempts = await strict.gateway.database.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .execute();
        expect(attempts).toHaveLength(1);
        expect(attempts[0]).toMatchObject({ succeeded: false, error: 'private_target', status_code: null });
      } finally {
        await target.close();
      }
    } finally {
      await strict.close();
    }
  });

  it('lets a private origin named in WEBHOOK_PRIVATE_TARGET_ORIGINS be targeted, and no other', async () => {
    const target = await startReceiver();
    const origin = `http://127.0.0.1:${target.port}`;
    const listed = await startTestGateway({
      env: {
        ROLES: 'api,sandbox-acquirer',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
        WEBHOOK_PRIVATE_TARGET_ORIGINS: origin,
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    try {
      const m = await createMerchant(listed);
      const register = (url: string) =>
        request<ErrorBody>(`${listed.urls.sandboxApi}/v1/webhook-endpoints`, {
          body: { url, enabledEvents: ['*'] },
          headers: { 'x-api-key': m.keys.sandbox.secret },
        });
      // Another port of the same host, another loopback spelling, the operator listener: all refused.
      for (const url of [
        `http://127.0.0.1:${target.port + 1}/hooks`,
        `http://localhost:${target.port}/hooks`,
        `${listed.urls.operator}/operator/v1/staff`,
        'http://169.254.169.254/latest/meta-data',
      ]) {
        const res = await register(url);
        expect(res.status, url).toBe(400);
        expect(res.body.error.code, url).toBe('validation_failed');
      }
      expect((await register(`${origin}/hooks`)).status).toBe(201);
      const charge = await serviceCharge(listed.gateway.services, m.organizationId);
      await payByCard(listed.gateway.services, charge, 'Listed');
      expect(await listed.gateway.services.webhooks.dispatcher.deliverDue()).toBe(1);
      expect(target.received).toHaveLength(1);
    } finally {
      await listed.close();
      await target.close();
    }
  });

  it('never lets production configuration allow private targets', () => {
    const production = { NODE_ENV: 'production', ENCRYPTION_KEYS: generateEncryptionKeys('v1') };
    expect(() => loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS=true is for development and tests only/,
    );
    expect(
      loadConfig({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).webhooks.allowPrivateTargets,
    ).toBe(false);
    expect(loadConfig(production).webhooks.allowPrivateTargets).toBe(false);
    expect(
      loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allowPrivateTargets,
    ).toBe(true);
    // Origins named one by one are a deliberate exception production may make (ADR 0059).
    expect(
      loadConfig({
        ...production,
        WEBHOOK_PRIVATE_TARGET_ORIGINS: 'http://10.0.0.5:8080, https://hooks.internal',
      }).webhooks.privateTargetOrigins,
    ).toEqual(['http://10.0.0.5:8080', 'https://hooks.internal']);
    for (const bad of ['10.0.0.5', 'http://10.0.0.5:8080/path', 'ftp://10.0.0.5', 'http://10.0.0.0/8']) {
      expect(() => loadConfig({ ...production, WEBHOOK_PRIVATE_TARGET_ORIGINS: bad }), bad).toThrow(
        /WEBHOOK_PRIVATE_TARGET_ORIGINS must be a comma-separated list of origins/,
      );
    }
  });
});

describe('delivery', () => {
  it('delivers charge.succeeded signed over the raw body, with metadata and payment echoed', async () => {
    await deleteAllEndpoints();
    const endpoint = await createEndpoint({ enabledEvents: ['charge.succeeded'] });
    const charge = await paidCharge({ cart: 'c-42', note: 'ünïcode' });
    expect(await dispatcher().deliverDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received as [Received];
    expect(got.headers['content-type']).toBe('application/json');
    const timestamp = String(got.headers['service-timestamp']);
    expect(timestamp).toBe(String(Math.floor(t.clock.now().getTime() / 1000)));
    expect(got.headers['service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(got.headers['service-signature-next']).toBeUndefined();
    expect(
      verifies(got.headers['service-signature'] as string, timestamp, got.raw, endpoint.secret as string),
    ).toBe(true);
    const event = JSON.parse(got.raw.toString('utf8')) as EventBody;
    expect(event.id).toMatch(/^evt_/);
    expect(event).toMatchObject({
      eventType: 'charge.succeeded',
      livemode: false,
      data: { id: charge.id, metadata: { cart: 'c-42', note: 'ünïcode' } },
      payment: {
        id: charge.id,
        paymentId: charge.providerPaymentId,
        merchantReference: charge.merchantReference,
      },
    });
    // Delivered once: nothing is due any more.
    expect(await dispatcher().deliverDue()).toBe(0);
    const delivery = await db()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, event_id: event.id });
  });

  it('sends only the selected kinds, to enabled endpoints of the organization and environment', async () => {
    await deleteAllEndpoints();
    await deleteAllEndpoints(other);
    await createEndpoint({ enabledEvents: ['charge.failed'] });
    const disabled = await createEndpoint({ enabledEvents: ['*'] });
    await api(`/v1/webhook-endpoints/${disabled.id}`, { method: 'POST', body: { disabled: true } });
    const foreign = await startReceiver();
    try {
      await createEndpoint({ url: foreign.url, enabledEvents: ['*'] }, other.keys.sandbox.secret);
      await paidCharge();
      await dispatcher().deliverDue();
      expect(receiver.received).toHaveLength(0);
      expect(foreign.received).toHaveLength(0);
    } finally {
      await foreign.close();
    }
  });

  it('lists the last 20 attempts of a charge, newest first, and retries a delivery by hand', async () => {
    await deleteAllEndpoints();
    const failing = await startReceiver((res) => {
      res.statusCode = 500;
      res.end('{"error":"boom"}');
    });
    try {
      const endpoint = await createEndpoint({ url: failing.url, enabledEvents: ['*'] });
      const charge = await paidCharge();
      const unrelated = await paidCharge();
      for (let i = 0; i < 24; i += 1) {
        await dispatcher().deliverDue();
        // Manual retry makes it due now, whatever the schedule says; here by the delivery id.
        const deliveries = await db()
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .execute();
        for (const delivery of deliveries) {
          const retried = await api<{ id: string; status: string }>(
            `/v1/webhook-deliveries/${delivery.id}/retry`,
            {
              method: 'POST',
            },
          );
          expect(retried.status, retried.text).toBe(202);
        }
        t.clock.advance(1000);
      }
      const res = await api<{ data: Attempt[] }>(`/v1/charges/${charge.id}/webhook-deliveries`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toHaveLength(20);
      const times = res.body.data.map((a) => a.attemptedAt);
      expect([...times].sort().reverse()).toEqual(times);
      const events = await db()
        .selectFrom('events')
        .select('id')
        .where('resource_id', '=', charge.id)
        .execute();
      for (const attempt of res.body.data) {
        expect(events.map((e) => e.id)).toContain(attempt.eventId);
        expect(attempt).toMatchObject({
          endpointId: endpoint.id,
          url: failing.url,
          succeeded: false,
          statusCode: 500,
          error: 'http_500',
          responseExcerpt: '{"error":"boom"}',
          eventType: 'charge.succeeded',
        });
      }
      const unrelatedRes = await api<{ data: Attempt[] }>(`/v1/charges/${unrelated.id}/webhook-deliveries`);
      expect(unrelatedRes.body.data.every((a) => a.eventId !== res.body.data[0]?.eventId)).toBe(true);

      // A retry named by an attempt id, to a receiver that now answers 200: delivered, same event id.
      const latest = res.body.data[0] as Attempt;
      await api(`/v1/webhook-endpoints/${endpoint.id}`, { method: 'POST', body: { url: receiver.url } });
      const retried = await api<{ id: string; status: string; eventId: string }>(
        `/v1/webhook-deliveries/${latest.id}/retry`,
        { method: 'POST' },
      );
      expect(retried.status).toBe(202);
      expect(retried.body).toMatchObject({
        id: latest.deliveryId,
        status: 'pending',
        eventId: latest.eventId,
      });
      await dispatcher().deliverDue();
      const delivered = receiver.received.map((r) => (JSON.parse(r.raw.toString()) as EventBody).id);
      expect(delivered).toContain(latest.eventId);
      const after = await api<{ data: Attempt[] }>(`/v1/charges/${charge.id}/webhook-deliveries`);
      expect(after.body.data[0]).toMatchObject({
        succeeded: true,
        statusCode: 200,
        deliveryStatus: 'succeeded',
      });
    } finally {
      await failing.close();
    }
  });

  it('answers 404 for the attempts of an unknown or foreign charge, and for a foreign retry', async () => {
    const foreignCharge = await serviceCharge(t.gateway.services, other.organizationId);
    expect((await api(`/v1/charges/${foreignCharge.id}/webhook-deliveries`)).status).toBe(404);
    expect((await api('/v1/charges/ch_unknown/webhook-deliveries')).status).toBe(404);
    const delivery = await db().selectFrom('webhook_deliveries').select('id').executeTakeFirstOrThrow();
    const res = await api(`/v1/webhook-deliveries/${delivery.id}/retry`, {
      method: 'POST',
      key: other.keys.sandbox.secret,
    });
    expect(res.status).toBe(404);
    // Deleting an endpoint drops its waiting deliveries; they cannot be retried.
    await deleteAllEndpoints();
    const doomed = await createEndpoint({ enabledEvents: ['charge.succeeded'] });
    await paidCharge();
    const waiting = await db()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', doomed.id)
      .executeTakeFirstOrThrow();
    expect(waiting.status).toBe('pending');
    expect((await api(`/v1/webhook-endpoints/${doomed.id}`, { method: 'DELETE' })).status).toBe(200);
    const dropped = await db()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', waiting.id)
      .executeTakeFirstOrThrow();
    expect(dropped.status).toBe('failed');
    expect((await api(`/v1/webhook-deliveries/${waiting.id}/retry`, { method: 'POST' })).status).toBe(404);
    expect(await dispatcher().deliverDue()).toBe(0);
    // Any valid key may read the log, a write scope is needed to retry.
    const readOnly = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    expect(
      (await api(`/v1/webhook-deliveries/${delivery.id}/retry`, { method: 'POST', key: readOnly.secret }))
        .status,
    ).toBe(403);
  });
});

describe('an endpoint that stops selecting a kind (spec section 6)', () => {
  /** A receiver answering `status.code`, which the test changes. */
  async function switchableReceiver() {
    const status = { code: 500 };
    const switchable = await startReceiver((res) => {
      res.statusCode = status.code;
      res.end('x');
    });
    return { ...switchable, status };
  }
  const eventIdsOf = (received: Received[]) =>
    received.map((r) => (JSON.parse(r.raw.toString()) as EventBody).id);
  const setKinds = async (endpointId: string, enabledEvents: string[]) => {
    const res = await api<Endpoint>(`/v1/webhook-endpoints/${endpointId}`, {
      method: 'POST',
      body: { enabledEvents },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.enabledEvents).toEqual(enabledEvents);
  };

  it('never gets the waiting retry of a dropped kind: it is finished with the reason in the log', async () => {
    await deleteAllEndpoints();
    const flaky = await switchableReceiver();
    try {
      const endpoint = await createEndpoint({ url: flaky.url, enabledEvents: ['charge.succeeded'] });
      // Another endpoint that keeps the kind is not concerned.
      await createEndpoint({ url: receiver.url, enabledEvents: ['charge.succeeded'] });
      const charge = await paidCharge();
      expect(await dispatcher().deliverDue()).toBe(2);
      expect(flaky.received).toHaveLength(1); // answered 500: retried after about 5 s
      expect(receiver.received).toHaveLength(1);
      const health = async () =>
        (
          await db()
            .selectFrom('webhook_endpoints')
            .select('failing_since')
            .where('id', '=', endpoint.id)
            .executeTakeFirstOrThrow()
        ).failing_since;
      const failingSince = await health();
      expect(failingSince).not.toBeNull();

      await setKinds(endpoint.id, ['charge.failed']);
      flaky.status.code = 200;
      t.clock.advance(60_000);
      expect(await dispatcher().deliverDue()).toBe(0);
      expect(flaky.received).toHaveLength(1);

      const delivery = await db()
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      // Finished unsent: not retried again, and nothing counted as an attempt against the endpoint.
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lease_token: null });
      expect(await health()).toEqual(failingSince);
      const log = await api<{ data: Attempt[] }>(`/v1/charges/${charge.id}/webhook-deliveries`);
      expect(log.status, log.text).toBe(200);
      const own = log.body.data.filter((attempt) => attempt.endpointId === endpoint.id);
      expect(own).toHaveLength(2);
      expect(own[0]).toMatchObject({
        deliveryId: delivery.id,
        eventType: 'charge.succeeded',
        succeeded: false,
        statusCode: null,
        error: 'event_type_not_selected',
        responseExcerpt: null,
        deliveryStatus: 'failed',
        nextAttemptAt: null,
      });
      expect(own[1]).toMatchObject({ statusCode: 500, error: 'http_500' });
      // The dashboard's charge page offers no retry for it.
      const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
      const shown = await t.gateway.services.webhooks.endpoints.deliveriesForCharge(owner, charge.id);
      expect(shown.find((entry) => entry.id === delivery.id)).toMatchObject({
        status: 'failed',
        retryable: false,
      });

      // A manual retry is refused while the endpoint does not select the kind, by delivery or attempt id.
      for (const id of [delivery.id, own[0]?.id ?? '']) {
        const refused = await api(`/v1/webhook-deliveries/${id}/retry`, { method: 'POST' });
        expect(refused.status, refused.text).toBe(409);
        expect(refused.body.error.code).toBe('invalid_state_transition');
        expect(refused.body.error.message).toContain('charge.succeeded');
      }
      expect(await dispatcher().deliverDue()).toBe(0);
      expect(flaky.received).toHaveLength(1);

      // Selected again, the delivery can be retried by hand: the same event goes out.
      await setKinds(endpoint.id, ['charge.failed', 'charge.succeeded']);
      const retried = await api<{ status: string }>(`/v1/webhook-deliveries/${delivery.id}/retry`, {
        method: 'POST',
      });
      expect(retried.status, retried.text).toBe(202);
      expect(retried.body.status).toBe('pending');
      expect(await dispatcher().deliverDue()).toBe(1);
      expect(eventIdsOf(flaky.received)).toEqual([delivery.event_id, delivery.event_id]);
    } finally {
      await flaky.close();
    }
  });

  it('reads the selection when the delivery is due: a kind selected again by then is sent', async () => {
    await deleteAllEndpoints();
    const flaky = await switchableReceiver();
    try {
      const endpoint = await createEndpoint({ url: flaky.url, enabledEvents: ['charge.succeeded'] });
      await paidCharge();
      expect(await dispatcher().deliverDue()).toBe(1);
      await setKinds(endpoint.id, ['charge.failed']);
      await setKinds(endpoint.id, ['*']);
      flaky.status.code = 200;
      t.clock.advance(60_000);
      expect(await dispatcher().deliverDue()).toBe(1);
      expect(flaky.received).toHaveLength(2);
      const delivery = await db()
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('endpoint_id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(delivery).toEqual({ status: 'succeeded', attempts: 2 });
    } finally {
      await flaky.close();
    }
  });

  it('a pump finishes a backlog of dropped kinds beyond the endpoint window, then sends what is selected', async () => {
    await deleteAllEndpoints();
    const { services } = t.gateway;
    // Two slots per endpoint: five waiting deliveries of the dropped kind take three claims to finish.
    const worker = dispatcherOf(t, { timeoutMs: 1000, concurrency: 4, perEndpoint: 2 });
    try {
      const endpoint = await createEndpoint({ enabledEvents: ['charge.succeeded', 'charge.failed'] });
      const record = (type: 'charge.succeeded' | 'charge.failed', i: number) =>
        db()
          .transaction()
          .execute((trx) =>
            services.events.record(trx, {
              organizationId: merchant.organizationId,
              environment: 'sandbox',
              type,
              resourceId: `ch_dropped${i}`,
              data: { id: `ch_dropped${i}` },
            }),
          );
      // Fanned out one millisecond apart: the dropped kind's deliveries are due first.
      for (let i = 0; i < 5; i += 1) {
        await record('charge.succeeded', i);
        t.clock.advance(1);
      }
      await record('charge.failed', 5);
      await setKinds(endpoint.id, ['charge.failed']);
      // Without an idle poll, a pump returns when a round leaves nothing to do.
      expect(await worker.pump(10_000)).toBe(1);
      expect(receiver.received.map((r) => (JSON.parse(r.raw.toString()) as EventBody).eventType)).toEqual([
        'charge.failed',
      ]);
      const rows = await db()
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_attempts as a', 'a.delivery_id', 'd.id')
        .select(['d.status', 'a.error'])
        .where('d.endpoint_id', '=', endpoint.id)
        .execute();
      expect(rows.filter((row) => row.error === 'event_type_not_selected')).toHaveLength(5);
      expect(rows.filter((row) => row.status === 'failed')).toHaveLength(5);
      expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(1);
    } finally {
      await worker.stop();
    }
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the grace period, so a receiver following the steps never fails', async () => {
    await deleteAllEndpoints();
    const endpoint = await createEndpoint({ enabledEvents: ['charge.succeeded'] });
    const oldSecret = endpoint.secret as string;

    const rotated = await api<Endpoint>(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      method: 'POST',
      body: { gracePeriodSeconds: 3600 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.previousSecretExpiresAt).toBe(new Date(t.clock.now().getTime() + HOUR).toISOString());
    const rows = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .execute();
    expect(JSON.stringify(rows)).not.toContain('whsec_');

    // During the grace period: a receiver still on the old secret, one already on the new secret only,
    // and one holding both (step 2 of the procedure) all verify.
    await paidCharge();
    await dispatcher().deliverDue();
    const during = receiver.received.at(-1) as Received;
    expect(during.headers['service-signature-next']).toMatch(/^[0-9a-f]{64}$/);
    expect(verifiesDuringRotation(during, [oldSecret])).toBe(true);
    expect(verifiesDuringRotation(during, [newSecret])).toBe(true);
    expect(verifiesDuringRotation(during, [oldSecret, newSecret])).toBe(true);
    // A receiver reading the spec only (one header, old secret) keeps working during the grace period.
    const ts = String(during.headers['service-timestamp']);
    expect(verifies(during.headers['service-signature'] as string, ts, during.raw, oldSecret)).toBe(true);

    // After it: only the new secret signs `Service-Signature`.
    t.clock.advance(HOUR + 1000);
    await paidCharge();
    await dispatcher().deliverDue();
    const after = receiver.received.at(-1) as Received;
    expect(after.headers['service-signature-next']).toBeUndefined();
    expect(verifiesDuringRotation(after, [newSecret])).toBe(true);
    expect(verifiesDuringRotation(after, [oldSecret])).toBe(false);
    expect(
      verifies(
        after.headers['service-signature'] as string,
        String(after.headers['service-timestamp']),
        after.raw,
        newSecret,
      ),
    ).toBe(true);
    const view = await api<Endpoint>(`/v1/webhook-endpoints/${endpoint.id}`);
    expect(view.body.previousSecretExpiresAt).toBeNull();
  });

  it('with gracePeriodSeconds 0 switches at once; validates the grace period', async () => {
    await deleteAllEndpoints();
    const endpoint = await createEndpoint({ enabledEvents: ['charge.succeeded'] });
    const rotated = await api<Endpoint>(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      method: 'POST',
      body: { gracePeriodSeconds: 0 },
    });
    expect(rotated.body.previousSecretExpiresAt).toBeNull();
    await paidCharge();
    await dispatcher().deliverDue();
    const got = receiver.received.at(-1) as Received;
    expect(got.headers['service-signature-next']).toBeUndefined();
    expect(verifiesDuringRotation(got, [rotated.body.secret as string])).toBe(true);
    for (const gracePeriodSeconds of [-1, 604_801, 'x']) {
      const res = await api(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
        method: 'POST',
        body: { gracePeriodSeconds },
      });
      expect(res.status).toBe(400);
    }
  });
});

describe('events feed', () => {
  it('lists and retrieves the stored payloads behind the events flag', async () => {
    const charge = await paidCharge({ feed: 'yes' });
    const list = await api<{ data: EventBody[]; nextCursor: string | null }>('/v1/events?limit=1');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.nextCursor).not.toBeNull();
    const filtered = await api<{ data: EventBody[] }>('/v1/events?type=charge.succeeded&limit=100');
    expect(filtered.body.data.every((e) => e.eventType === 'charge.succeeded')).toBe(true);
    const mine = filtered.body.data.find((e) => e.data.id === charge.id) as EventBody;
    expect(mine.data.metadata).toEqual({ feed: 'yes' });
    const one = await api<EventBody>(`/v1/events/${mine.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(mine);
    const stored = await db()
      .selectFrom('events')
      .select('payload')
      .where('id', '=', mine.id)
      .executeTakeFirstOrThrow();
    expect(one.body).toEqual(stored.payload);
    expect((await api(`/v1/events/${mine.id}`, { key: other.keys.sandbox.secret })).status).toBe(404);
    expect((await api('/v1/events?type=charge.exploded')).status).toBe(400);

    const flagless = await createMerchant(t, { featureFlags: ['apiKeys'] });
    const refused = await api('/v1/events', { key: flagless.keys.sandbox.secret });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });
});
