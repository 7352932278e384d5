/**
 * Every route of the API listeners against every way a request can fail authentication or
 * authorization (spec 5 and 7, product decisions 1, 3, 8). A new route joins by adding a row to ROUTES;
 * the failure cases then run against it on both listeners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import type { ApiKeyScope, Environment, FeatureFlag } from '../src/db/schema.js';
import type { RouteAuth } from '../src/http/route-config.js';
import { generateApiKey } from '../src/modules/api-keys/key-format.js';
import type { IssuedApiKey } from '../src/modules/api-keys/issue.js';
import { HOUR } from '../src/shared/clock.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication, validCharge, type ErrorBody } from './helpers/http.js';
import { apiUrl, createOrganization, issueKey, type OrganizationOptions } from './helpers/merchants.js';

/** What a route needs to be called: resources of the caller's organization are made on demand. */
interface RouteFixture {
  environment: Environment;
  /** A fresh key of the calling organization in this environment (a resource routes can act on). */
  ownKeyId(): Promise<string>;
  /** A key of another organization in this environment: must be invisible (404). */
  foreignKeyId: string;
  /** A fresh charge of the calling organization in this environment (paid at the acquirer when asked). */
  ownChargeId(options?: { paid?: boolean }): Promise<string>;
  /** A charge of another organization in this environment: must be invisible (404). */
  foreignChargeId: string;
}

/** A key and the organization it belongs to. */
type CallerKey = IssuedApiKey & { organizationId: string };

interface RouteCase {
  method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  path: (fixture: RouteFixture) => string | Promise<string>;
  body?: (fixture: RouteFixture) => unknown;
  auth: RouteAuth;
  feature?: FeatureFlag;
  /** The status of a successful call. */
  success: number;
  /** The path names a resource, so another organization's id must answer 404 `not_found`. */
  foreignPath?: (fixture: RouteFixture) => string;
}

const ROUTES: Record<string, RouteCase> = {
  'POST /v1/applications': {
    method: 'POST',
    path: () => '/v1/applications',
    body: () => validApplication(),
    auth: 'public',
    success: 201,
  },
  'POST /v1/api-keys': {
    method: 'POST',
    path: () => '/v1/api-keys',
    body: () => ({ scopes: ['read'] }),
    auth: 'write',
    feature: 'apiKeys',
    success: 201,
  },
  'GET /v1/api-keys': {
    method: 'GET',
    path: () => '/v1/api-keys',
    auth: 'read',
    feature: 'apiKeys',
    success: 200,
  },
  'GET /v1/api-keys/{id}': {
    method: 'GET',
    path: async (f) => `/v1/api-keys/${await f.ownKeyId()}`,
    foreignPath: (f) => `/v1/api-keys/${f.foreignKeyId}`,
    auth: 'read',
    feature: 'apiKeys',
    success: 200,
  },
  'GET /v1/api-keys/{id}/requests': {
    method: 'GET',
    path: async (f) => `/v1/api-keys/${await f.ownKeyId()}/requests`,
    foreignPath: (f) => `/v1/api-keys/${f.foreignKeyId}/requests`,
    auth: 'read',
    feature: 'apiKeys',
    success: 200,
  },
  'POST /v1/api-keys/{id}/revoke': {
    method: 'POST',
    path: async (f) => `/v1/api-keys/${await f.ownKeyId()}/revoke`,
    foreignPath: (f) => `/v1/api-keys/${f.foreignKeyId}/revoke`,
    auth: 'write',
    feature: 'apiKeys',
    success: 200,
  },
  'POST /v1/charges': {
    method: 'POST',
    path: () => '/v1/charges',
    body: () => validCharge(),
    auth: 'write',
    success: 201,
  },
  'GET /v1/settlements': {
    method: 'GET',
    path: () => '/v1/settlements',
    auth: 'read',
    success: 200,
  },
  'GET /v1/exports/charges.csv': {
    method: 'GET',
    path: () => '/v1/exports/charges.csv?from=2026-11-01&to=2026-11-30',
    auth: 'read',
    success: 200,
  },
  'GET /v1/exports/refunds.csv': {
    method: 'GET',
    path: () => '/v1/exports/refunds.csv?from=2026-11-01&to=2026-11-30',
    auth: 'read',
    success: 200,
  },
  'GET /v1/exports/payouts.csv': {
    method: 'GET',
    path: () => '/v1/exports/payouts.csv?from=2026-11-01&to=2026-11-30',
    auth: 'read',
    success: 200,
  },
  'GET /v1/charges': {
    method: 'GET',
    path: () => '/v1/charges',
    auth: 'read',
    success: 200,
  },
  'GET /v1/charges/{id}': {
    method: 'GET',
    path: async (f) => `/v1/charges/${await f.ownChargeId()}`,
    foreignPath: (f) => `/v1/charges/${f.foreignChargeId}`,
    auth: 'read',
    success: 200,
  },
  'GET /v1/charges/{id}/refunds': {
    method: 'GET',
    path: async (f) => `/v1/charges/${await f.ownChargeId()}/refunds`,
    foreignPath: (f) => `/v1/charges/${f.foreignChargeId}/refunds`,
    auth: 'read',
    success: 200,
  },
  'POST /v1/charges/{id}/refunds': {
    method: 'POST',
    path: async (f) => `/v1/charges/${await f.ownChargeId({ paid: true })}/refunds`,
    foreignPath: (f) => `/v1/charges/${f.foreignChargeId}/refunds`,
    body: () => ({ amount: 100 }),
    auth: 'write',
    success: 201,
  },
  'GET /v1/balance': {
    method: 'GET',
    path: () => '/v1/balance',
    auth: 'read',
    success: 200,
  },
  'POST /v1/webhook-endpoints': {
    method: 'POST',
    path: () => '/v1/webhook-endpoints',
    body: () => ({ url: 'https://hooks.example/receive', enabledEvents: ['*'] }),
    auth: 'write',
    success: 201,
  },
  'GET /v1/webhook-endpoints': {
    method: 'GET',
    path: () => '/v1/webhook-endpoints',
    auth: 'read',
    success: 200,
  },
  'GET /v1/webhook-endpoints/{id}': {
    method: 'GET',
    path: async (f) => `/v1/webhook-endpoints/${await webhookEndpointOf(f)}`,
    foreignPath: (f) => `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}`,
    auth: 'read',
    success: 200,
  },
  'POST /v1/webhook-endpoints/{id}': {
    method: 'POST',
    path: async (f) => `/v1/webhook-endpoints/${await webhookEndpointOf(f)}`,
    foreignPath: (f) => `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}`,
    body: () => ({ description: 'matrix' }),
    auth: 'write',
    success: 200,
  },
  'DELETE /v1/webhook-endpoints/{id}': {
    method: 'DELETE',
    path: async (f) => `/v1/webhook-endpoints/${await webhookEndpointOf(f)}`,
    foreignPath: (f) => `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}`,
    auth: 'write',
    success: 200,
  },
  'POST /v1/webhook-endpoints/{id}/rotate-secret': {
    method: 'POST',
    path: async (f) => `/v1/webhook-endpoints/${await webhookEndpointOf(f)}/rotate-secret`,
    foreignPath: (f) => `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}/rotate-secret`,
    body: () => ({}),
    auth: 'write',
    success: 200,
  },
  'POST /v1/webhook-endpoints/{id}/switch-secret': {
    method: 'POST',
    path: async (f) => `/v1/webhook-endpoints/${await rotatingEndpointOf(f)}/switch-secret`,
    foreignPath: (f) => `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}/switch-secret`,
    body: () => ({}),
    auth: 'write',
    success: 200,
  },
  'POST /v1/webhook-endpoints/{id}/resume-deliveries': {
    method: 'POST',
    path: async (f) => `/v1/webhook-endpoints/${await webhookEndpointOf(f)}/resume-deliveries`,
    foreignPath: (f) =>
      `/v1/webhook-endpoints/${foreignWebhooks[f.environment].endpointId}/resume-deliveries`,
    auth: 'write',
    success: 200,
  },
  'GET /v1/charges/{id}/webhook-deliveries': {
    method: 'GET',
    path: async (f) => `/v1/charges/${await f.ownChargeId()}/webhook-deliveries`,
    foreignPath: (f) => `/v1/charges/${f.foreignChargeId}/webhook-deliveries`,
    auth: 'key',
    success: 200,
  },
  'POST /v1/webhook-deliveries/{id}/retry': {
    method: 'POST',
    path: async (f) => `/v1/webhook-deliveries/${await webhookDeliveryOf(f)}/retry`,
    foreignPath: (f) => `/v1/webhook-deliveries/${foreignWebhooks[f.environment].deliveryId}/retry`,
    auth: 'write',
    success: 202,
  },
  'GET /v1/events': {
    method: 'GET',
    path: async (f) => {
      await withEventsFeature(f);
      return '/v1/events';
    },
    auth: 'read',
    feature: 'events',
    success: 200,
  },
  'GET /v1/events/{id}': {
    method: 'GET',
    path: async (f) => {
      await withEventsFeature(f);
      return `/v1/events/${await webhookDeliveryOf(f, 'eventId')}`;
    },
    foreignPath: (f) => `/v1/events/${foreignWebhooks[f.environment].eventId}`,
    auth: 'read',
    feature: 'events',
    success: 200,
  },
};

/** Webhook rows: the organization of the caller, found through a key issued to it. */
async function organizationOf(f: RouteFixture): Promise<string> {
  const keyId = await f.ownKeyId();
  const row = await t.gateway.database.db
    .selectFrom('api_keys')
    .select('organization_id')
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  return row.organization_id;
}

async function endpointIn(organizationId: string, environment: Environment): Promise<string> {
  const created = await t.gateway.services.webhooks.endpoints.create(
    { organizationId, environment },
    { url: 'https://hooks.example/receive', enabledEvents: ['*'] },
  );
  if (!created.ok) throw new Error(`could not create a webhook endpoint: ${created.error}`);
  return created.value.id;
}

async function webhookEndpointOf(f: RouteFixture): Promise<string> {
  return endpointIn(await organizationOf(f), f.environment);
}

/** A fresh endpoint whose secret was just rotated: the replaced one still signs until a switch. */
async function rotatingEndpointOf(f: RouteFixture): Promise<string> {
  const organizationId = await organizationOf(f);
  const id = await endpointIn(organizationId, f.environment);
  const rotated = await t.gateway.services.webhooks.endpoints.rotateSecret(
    { organizationId, environment: f.environment },
    id,
    {},
  );
  if (!rotated.ok) throw new Error(`could not rotate a webhook endpoint's secret: ${rotated.error.code}`);
  return id;
}

/** A delivery (and its event) of a fresh endpoint and a paid charge of the organization. */
async function deliveryIn(
  organizationId: string,
  environment: Environment,
): Promise<{ deliveryId: string; eventId: string }> {
  const endpointId = await endpointIn(organizationId, environment);
  await chargeOf(organizationId, environment, { paid: true });
  const row = await t.gateway.database.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id'])
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return { deliveryId: row.id, eventId: row.event_id };
}

async function webhookDeliveryOf(f: RouteFixture, which: 'deliveryId' | 'eventId' = 'deliveryId') {
  return (await deliveryIn(await organizationOf(f), f.environment))[which];
}

/** The events feed needs its flag: given to the caller's organization, unless it is the one without. */
async function withEventsFeature(f: RouteFixture): Promise<void> {
  const organizationId = await organizationOf(f);
  if (organizationId === keys[f.environment].withoutFeature.organizationId) return;
  await t.gateway.database.db
    .updateTable('organizations')
    .set({ feature_flags: ['apiKeys', 'events'] })
    .where('id', '=', organizationId)
    .execute();
}

/** Another organization's endpoint, delivery and event in each environment: must be invisible (404). */
const foreignWebhooks = {} as Record<
  Environment,
  { endpointId: string; deliveryId: string; eventId: string }
>;

/** A key that lacks what `auth` asks for, or undefined when any valid key is enough. */
const SCOPES_LACKING: Record<Exclude<RouteAuth, 'public'>, ApiKeyScope[] | undefined> = {
  key: undefined,
  read: ['write', 'payouts'],
  write: ['read', 'payouts'],
  payouts: ['read', 'write'],
  all: ['read', 'write', 'payouts'],
};

interface EnvironmentKeys {
  all: CallerKey;
  otherEnvironment: CallerKey;
  revoked: CallerKey;
  expired: CallerKey;
  ipRestricted: CallerKey;
  reviewing: CallerKey;
  frozen: CallerKey;
  withoutFeature: CallerKey;
  lacking: Record<string, CallerKey>;
  foreignKeyId: string;
  foreignChargeId: string;
}

let t: TestGateway;
const keys = {} as Record<Environment, EnvironmentKeys>;

function fixture(environment: Environment, organizationId: string): RouteFixture {
  return {
    environment,
    ownKeyId: async () =>
      (await issueKey(t.gateway.database.db, t.clock, organizationId, { environment, scopes: ['read'] })).id,
    foreignKeyId: keys[environment].foreignKeyId,
    ownChargeId: (options) => chargeOf(organizationId, environment, options),
    foreignChargeId: keys[environment].foreignChargeId,
  };
}

/** A charge made through the charge service itself: the caller's organization may be frozen or in review. */
async function chargeOf(
  organizationId: string,
  environment: Environment,
  options: { paid?: boolean } = {},
): Promise<string> {
  const { services } = t.gateway;
  const created = await services.charges.create(
    { organizationId, environment },
    validCharge() as Parameters<typeof services.charges.create>[1],
    { idempotencyKey: undefined },
  );
  if (!created.ok) throw new Error(`could not create a charge: ${created.error}`);
  if (options.paid) {
    // Paid at the acquirer with a test card, and the answer applied, as the checkout does.
    const acquirer = services.acquirers[environment]?.acquirer;
    if (!acquirer) throw new Error(`no ${environment} acquirer`);
    const payment = await acquirer.authorize(
      created.value.providerPaymentId,
      { number: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Matrix' },
      'https://shop.example/back',
    );
    await services.completion.apply(created.value.id, payment);
  }
  return created.value.id;
}
const ENVIRONMENTS: Environment[] = ['sandbox', 'live'];
const other = (environment: Environment): Environment => (environment === 'sandbox' ? 'live' : 'sandbox');

beforeAll(async () => {
  // No worker: nothing here is delivered, and a worker's attempts to the fixtures' unreachable endpoints
  // (hooks.example) held the gateway's graceful close for the webhook timeout.
  t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } });
  const db = t.gateway.database.db;
  const org = (options: OrganizationOptions = {}) => createOrganization(db, t.clock, options);
  const main = await org();
  const reviewing = await org({ kycStatus: 'REVIEWING' });
  const frozen = await org({ frozen: true });
  const withoutFeature = await org({ featureFlags: [] });
  const foreign = await org();
  for (const environment of ENVIRONMENTS) {
    const key = async (organizationId: string, options: Parameters<typeof issueKey>[3] = {}) => ({
      ...(await issueKey(db, t.clock, organizationId, { environment, ...options })),
      organizationId,
    });
    const lacking: Record<string, CallerKey> = {};
    for (const [need, scopes] of Object.entries(SCOPES_LACKING)) {
      if (scopes) lacking[need] = await key(main, { scopes });
    }
    keys[environment] = {
      all: await key(main),
      otherEnvironment: await key(main, { environment: other(environment) }),
      revoked: await key(main, { revoked: true }),
      expired: await key(main, { expiresAt: new Date(t.clock.now().getTime() - HOUR) }),
      ipRestricted: await key(main, { allowedIps: ['10.0.0.0/8', '2001:db8::/32'] }),
      reviewing: await key(reviewing),
      frozen: await key(frozen),
      withoutFeature: await key(withoutFeature),
      lacking,
      foreignKeyId: (await key(foreign)).id,
      foreignChargeId: await chargeOf(foreign, environment),
    };
  }
});
beforeAll(async () => {
  for (const environment of ENVIRONMENTS) {
    const charge = await t.gateway.database.db
      .selectFrom('charges')
      .select('organization_id')
      .where('id', '=', keys[environment].foreignChargeId)
      .executeTakeFirstOrThrow();
    const delivery = await deliveryIn(charge.organization_id, environment);
    const endpointId = await endpointIn(charge.organization_id, environment);
    foreignWebhooks[environment] = { endpointId, ...delivery };
  }
});
afterAll(async () => t?.close());

/**
 * The path of a call that must be refused, per route, environment and organization: a refused call
 * changes nothing, so one resource of the caller's organization serves every refusal of the route (a
 * fresh one each time made a paid charge, an endpoint and its delivery per call). Calls that must
 * succeed make their own.
 */
const refusalPaths = new WeakMap<RouteCase, Map<string, Promise<string>>>();

/**
 * Calls the route on one listener; resources in the path belong to the caller's organization. `path`:
 * a given path, or `'refusal'` for the route's shared refusal path.
 */
async function call(
  environment: Environment,
  route: RouteCase,
  caller: CallerKey | string | undefined,
  path?: string | 'refusal',
) {
  const organizationId =
    typeof caller === 'object' ? caller.organizationId : keys[environment].all.organizationId;
  const routeFixture = fixture(environment, organizationId);
  const secret = typeof caller === 'object' ? caller.secret : caller;
  let target: string;
  if (path === 'refusal') {
    const paths = refusalPaths.get(route) ?? new Map<string, Promise<string>>();
    refusalPaths.set(route, paths);
    const made = paths.get(`${environment} ${organizationId}`) ?? Promise.resolve(route.path(routeFixture));
    paths.set(`${environment} ${organizationId}`, made);
    target = await made;
  } else {
    target = path ?? (await route.path(routeFixture));
  }
  return apiRequest<ErrorBody>(t.urls, target, {
    environment,
    method: route.method,
    ...(route.body ? { body: route.body(routeFixture) } : {}),
    ...(secret === undefined ? {} : { key: secret }),
  });
}

function expectRefused(res: { status: number; body: ErrorBody }, status: number, code: string) {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  expect(res.body.error.requestId).toMatch(/^req_/);
}

const protectedRoutes = Object.entries(ROUTES).filter(([, route]) => route.auth !== 'public');

describe.each(ENVIRONMENTS)('every protected route on the %s API', (environment) => {
  const key = () => keys[environment];

  it.each(protectedRoutes)('%s: succeeds with a key holding `all`', async (_name, route) => {
    const res = await call(environment, route, key().all);
    expect(res.status).toBe(route.success);
  });

  it.each(protectedRoutes)('%s: no X-API-Key is 401 missing_api_key', async (_name, route) => {
    expectRefused(await call(environment, route, undefined, 'refusal'), 401, 'missing_api_key');
  });

  it.each(protectedRoutes)(
    '%s: a malformed key, a bad checksum or an unknown key is 401 invalid_api_key',
    async (_name, route) => {
      const genuine = key().all.secret;
      const lastChar = genuine.slice(-1);
      const badChecksum = genuine.slice(0, -1) + (lastChar === 'a' ? 'b' : 'a');
      for (const candidate of [
        'sk_test_nope',
        'Bearer ' + genuine,
        genuine.toUpperCase(),
        badChecksum,
        generateApiKey(environment).secret,
        `${genuine}, ${genuine}`,
      ]) {
        expectRefused(await call(environment, route, candidate, 'refusal'), 401, 'invalid_api_key');
      }
    },
  );

  it.each(protectedRoutes)('%s: a revoked key is 401 invalid_api_key', async (_name, route) => {
    expectRefused(await call(environment, route, key().revoked.secret, 'refusal'), 401, 'invalid_api_key');
  });

  it.each(protectedRoutes)('%s: an expired key is 401 api_key_expired', async (_name, route) => {
    expectRefused(await call(environment, route, key().expired.secret, 'refusal'), 401, 'api_key_expired');
  });

  it.each(protectedRoutes)("%s: the other environment's key is 401 unauthorized", async (_name, route) => {
    expectRefused(
      await call(environment, route, key().otherEnvironment.secret, 'refusal'),
      401,
      'unauthorized',
    );
  });

  it.each(protectedRoutes)('%s: a caller outside allowedIps is 401 ip_not_allowed', async (_name, route) => {
    expectRefused(
      await call(environment, route, key().ipRestricted.secret, 'refusal'),
      401,
      'ip_not_allowed',
    );
  });

  it.each(protectedRoutes)(
    environment === 'live'
      ? '%s: a live key of an organization in KYC review is 401 unauthorized'
      : '%s: a sandbox key of an organization in KYC review works',
    async (_name, route) => {
      const res = await call(environment, route, key().reviewing);
      if (environment === 'live') expectRefused(res, 401, 'unauthorized');
      else expect(res.status).toBe(route.success);
    },
  );

  it.each(protectedRoutes)('%s: a frozen organization is 403 organization_frozen', async (_name, route) => {
    expectRefused(await call(environment, route, key().frozen.secret, 'refusal'), 403, 'organization_frozen');
  });

  it.each(protectedRoutes.filter(([, route]) => SCOPES_LACKING[route.auth as Exclude<RouteAuth, 'public'>]))(
    '%s: a key without the scope is 403 insufficient_scope',
    async (_name, route) => {
      const lacking = key().lacking[route.auth];
      expect(lacking).toBeDefined();
      expectRefused(await call(environment, route, lacking, 'refusal'), 403, 'insufficient_scope');
    },
  );

  it.each(protectedRoutes.filter(([, route]) => route.feature !== undefined))(
    '%s: an organization without the feature flag is 403 forbidden',
    async (_name, route) => {
      expectRefused(await call(environment, route, key().withoutFeature.secret, 'refusal'), 403, 'forbidden');
    },
  );

  it.each(protectedRoutes.filter(([, route]) => route.foreignPath !== undefined))(
    "%s: another organization's resource is 404 not_found",
    async (_name, route) => {
      const path = route.foreignPath?.(fixture(environment, key().all.organizationId));
      expectRefused(await call(environment, route, key().all, path), 404, 'not_found');
    },
  );
});

describe('the order of the checks', () => {
  it('refuses with the first failing check when several fail at once', async () => {
    const db = t.gateway.database.db;
    const frozenReviewing = await createOrganization(db, t.clock, { kycStatus: 'REVIEWING', frozen: true });
    const route = ROUTES['POST /v1/api-keys'] as RouteCase;
    const past = new Date(t.clock.now().getTime() - HOUR);
    const cases: Array<[Parameters<typeof issueKey>[3], Environment, number, string]> = [
      // revoked beats expired, expired beats the environment, the environment beats the address...
      [{ environment: 'live', revoked: true, expiresAt: past }, 'live', 401, 'invalid_api_key'],
      [
        { environment: 'live', expiresAt: past, allowedIps: ['10.0.0.0/8'] },
        'sandbox',
        401,
        'api_key_expired',
      ],
      [{ environment: 'live', allowedIps: ['10.0.0.0/8'] }, 'sandbox', 401, 'unauthorized'],
      [{ environment: 'live', allowedIps: ['10.0.0.0/8'] }, 'live', 401, 'ip_not_allowed'],
      // ...KYC (401) beats the freeze (403), the freeze beats the scope.
      [{ environment: 'live', scopes: ['read'] }, 'live', 401, 'unauthorized'],
      [{ environment: 'sandbox', scopes: ['read'] }, 'sandbox', 403, 'organization_frozen'],
    ];
    for (const [options, listener, status, code] of cases) {
      const issued = await issueKey(db, t.clock, frozenReviewing, options);
      expectRefused(
        await call(listener, route, { ...issued, organizationId: frozenReviewing }),
        status,
        code,
      );
    }
  });
});

describe('public routes', () => {
  it.each(ENVIRONMENTS)(
    'POST /v1/applications on the %s API needs no key and ignores a bad one',
    async (environment) => {
      const route = ROUTES['POST /v1/applications'] as RouteCase;
      expect((await call(environment, route, undefined)).status).toBe(201);
      expect((await call(environment, route, 'sk_test_garbage')).status).toBe(201);
      expect((await call(environment, route, keys[environment].revoked.secret)).status).toBe(201);
    },
  );

  it.each(ENVIRONMENTS)(
    'health checks and the OpenAPI document on the %s API need no key',
    async (environment) => {
      for (const path of ['/healthz', '/readyz', '/v1/openapi.json']) {
        expect((await request(`${apiUrl(t.urls, environment)}${path}`)).status).toBe(200);
      }
    },
  );

  it('an unknown path answers 404 not_found with or without a key', async () => {
    for (const headers of [{}, { 'x-api-key': 'sk_test_garbage' }] as Record<string, string>[]) {
      const res = await request<ErrorBody>(`${t.urls.sandboxApi}/v1/nothing-here`, { headers });
      expectRefused(res, 404, 'not_found');
    }
  });

  it('refuses before reading the body: a bad key with a malformed body is still 401', async () => {
    const res = await request<ErrorBody>(`${t.urls.sandboxApi}/v1/api-keys`, {
      method: 'POST',
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expectRefused(res, 401, 'missing_api_key');
  });
});
