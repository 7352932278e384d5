/**
 * Issue 11 item 9: a list cursor is bound to its list, its organization and its environment (and, on the
 * operator's lists, to its filters). A cursor of another list, merchant or environment is 400
 * `validation_failed` on every list endpoint, never a page of something else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import type { Environment } from '../src/db/schema.js';
import { t, useTestGateway } from './helpers/suite.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import {
  approvedOrganization,
  submitApplication,
  type ApprovalView,
  type OperatorClient,
  cliClient,
} from './helpers/operator.js';
import { payByCard, serviceCharge } from './helpers/charges.js';

let a: Merchant;
let b: Merchant;
let cli: OperatorClient;

type Page = { data: unknown[]; nextCursor: string | null } & ErrorBody;

const MERCHANT_LISTS = ['/v1/charges', '/v1/api-keys', '/v1/webhook-endpoints', '/v1/events'] as const;
type MerchantList = (typeof MERCHANT_LISTS)[number];

const api = (m: Merchant, environment: Environment, path: string) =>
  apiRequest<Page>(t.urls, path, { environment, key: m.keys[environment].secret });

const withCursor = (path: string, cursor: string) =>
  `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;

async function paidCharge(m: Merchant): Promise<void> {
  const charge = await serviceCharge(t.gateway.services, m.organizationId);
  await payByCard(t.gateway.services, charge, 'Cursor');
}

/** Gives merchant `m` two items in every sandbox list. */
async function fill(m: Merchant): Promise<void> {
  for (let i = 0; i < 2; i += 1) {
    t.clock.advance(1);
    await paidCharge(m);
    await issueKey(t.gateway.database.db, t.clock, m.organizationId, { environment: 'sandbox' });
    const endpoint = await request(`${t.urls.sandboxApi}/v1/webhook-endpoints`, {
      body: { url: 'https://hooks.example/in', enabledEvents: ['*'] },
      headers: { 'x-api-key': m.keys.sandbox.secret },
    });
    expect(endpoint.status).toBe(201);
  }
}

/** The `nextCursor` of the first one-item page of `path` for merchant `m` in sandbox. */
async function cursorOf(m: Merchant, path: MerchantList): Promise<string> {
  const first = await api(m, 'sandbox', `${path}?limit=1`);
  expect(first.status, path).toBe(200);
  expect(first.body.nextCursor, path).toEqual(expect.any(String));
  return first.body.nextCursor as string;
}

function expectRefused(res: { status: number; body: ErrorBody }, label: string) {
  expect(res.status, label).toBe(400);
  expect(res.body.error.code, label).toBe('validation_failed');
  expect(res.body.error.details?.issues?.[0], label).toMatchObject({ path: 'cursor', in: 'query' });
}

useTestGateway({}, async () => {
  a = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
  b = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
  await fill(a);
  await fill(b);
  cli = cliClient(t);
});

describe('merchant lists', () => {
  it.each(MERCHANT_LISTS)('%s: its own cursor pages on', async (path) => {
    const cursor = await cursorOf(a, path);
    const next = await api(a, 'sandbox', withCursor(`${path}?limit=1`, cursor));
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(1);
  });

  it.each(MERCHANT_LISTS)('%s: a cursor of another merchant is refused', async (path) => {
    const foreign = await cursorOf(b, path);
    expectRefused(await api(a, 'sandbox', withCursor(path, foreign)), path);
  });

  it.each(MERCHANT_LISTS)('%s: a cursor of the other environment is refused', async (path) => {
    const sandbox = await cursorOf(a, path);
    expectRefused(await api(a, 'live', withCursor(path, sandbox)), path);
  });

  it.each(MERCHANT_LISTS)('%s: a cursor of every other list is refused', async (path) => {
    for (const other of MERCHANT_LISTS.filter((list) => list !== path)) {
      const cursor = await cursorOf(a, other);
      expectRefused(await api(a, 'sandbox', withCursor(path, cursor)), `${other} -> ${path}`);
    }
  });

  it('an events cursor is bound to its type filter', async () => {
    const first = await api(a, 'sandbox', '/v1/events?limit=1&type=charge.succeeded');
    const cursor = first.body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const same = await api(a, 'sandbox', withCursor('/v1/events?limit=1&type=charge.succeeded', cursor));
    expect(same.status).toBe(200);
    expectRefused(await api(a, 'sandbox', withCursor('/v1/events?type=charge.failed', cursor)), 'type');
  });
});

describe('operator lists', () => {
  const OPERATOR_LISTS = [
    '/operator/v1/applications',
    '/operator/v1/organizations',
    '/operator/v1/audit-log',
    '/operator/v1/emails',
  ] as const;
  const operatorCursor = async (path: string): Promise<string> => {
    const page = await cli.get<Page>(`${path}${path.includes('?') ? '&' : '?'}limit=1`);
    expect(page.status, path).toBe(200);
    expect(page.body.nextCursor, path).toEqual(expect.any(String));
    return page.body.nextCursor as string;
  };

  const approved: ApprovalView[] = [];

  beforeAll(async () => {
    // Applications, organizations, audit entries and approval e-mails, two or more of each.
    for (let i = 0; i < 2; i += 1) {
      t.clock.advance(1);
      await submitApplication(t);
      t.clock.advance(1);
      approved.push(await approvedOrganization(t, cli));
    }
  });

  it.each(OPERATOR_LISTS)(
    '%s: a cursor of every other operator or merchant list is refused',
    async (path) => {
      const own = await operatorCursor(path);
      expect((await cli.get<Page>(withCursor(`${path}?limit=1`, own))).status).toBe(200);
      for (const other of OPERATOR_LISTS.filter((list) => list !== path)) {
        const cursor = await operatorCursor(other);
        expectRefused(await cli.get<Page>(withCursor(path, cursor)), `${other} -> ${path}`);
      }
      expectRefused(
        await cli.get<Page>(withCursor(path, await cursorOf(a, '/v1/charges'))),
        `charges -> ${path}`,
      );
    },
  );

  it('an audit-log cursor is bound to its organization and target filters', async () => {
    for (const m of [a, b]) {
      for (const enabled of [false, true]) {
        const res = await cli.put(`/operator/v1/organizations/${m.organizationId}/feature-flags/events`, {
          enabled,
        });
        expect(res.status).toBe(200);
      }
    }
    for (const filter of ['organizationId', 'targetId']) {
      const [x, y] = [a, b].map((m) => `/operator/v1/audit-log?${filter}=${m.organizationId}`) as [
        string,
        string,
      ];
      const ofX = await operatorCursor(x);
      expect((await cli.get<Page>(withCursor(x, ofX))).status).toBe(200);
      expectRefused(await cli.get<Page>(withCursor(y, ofX)), `${filter}: x -> y`);
      expectRefused(await cli.get<Page>(withCursor('/operator/v1/audit-log', ofX)), `${filter}: x -> all`);
    }
  });
});
