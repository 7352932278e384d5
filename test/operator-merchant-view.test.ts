/**
 * Issue 15 item 7: the operator console's merchant view (`/organizations/:id`) and the cross-merchant
 * payment search (`/payments`), over HTTP through the operator listener: the figures the merchant's own
 * API reports, keys with their last use, a failing webhook endpoint's backlog, the recent audit entries;
 * the search by each kind across two organizations; odd input answered with a 400 page; the support role
 * reads everything and changes nothing; signed out, the login page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { ACCOUNT_TEST_ENV } from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import { merchantApi, TRON_ADDRESS } from './helpers/payouts.js';
import { payByCard } from './helpers/charges.js';

interface Charge {
  id: string;
  providerPaymentId: string;
  merchantReference: string;
  status: string;
}

let t: TestGateway;
let admin: StaffSession;
let underwriter: StaffSession;
let support: StaffSession;
let a: Merchant;
let b: Merchant;
let receiver: { url: string; close(): Promise<void> };
let endpointId = '';
const charges: Record<'aPaid' | 'aOther' | 'aPending' | 'bPaid' | 'bShared', Charge> = {} as never;
const sharedReference = `shared-${Date.now().toString(36)}`;
const emailOfA = `Ayse.Buyer+${Date.now().toString(36)}@Example.test`;
const emailOfB = `kemal-${Date.now().toString(36)}@example.test`;

/** A receiver on loopback that answers every delivery 500: its endpoint fails. */
async function startFailingReceiver() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 500;
      res.end('down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A sandbox charge; paid with `card` at the sandbox acquirer and completed unless `card` is null. */
async function charge(
  merchant: Merchant,
  card: keyof typeof TEST_CARDS | null,
  overrides: Record<string, unknown> = {},
): Promise<Charge> {
  t.clock.advance(1000); // newest first is then one order, whatever the ids' random part
  const res = await merchantApi<Charge>(t, merchant, 'sandbox', '/v1/charges', validCharge(overrides));
  expect(res.status, res.text).toBe(201);
  if (card === null) return res.body;
  await payByCard(t.gateway.services, res.body, 'Merchant View', { number: TEST_CARDS[card].number });
  return res.body;
}

/** A console page as `who` sees it (a staff session, or nobody), redirects not followed. */
async function view(who: StaffSession | null, path: string) {
  const response = await fetch(`${t.urls.operator}${path}`, {
    redirect: 'manual',
    headers: who ? { cookie: who.cookie } : {},
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** A console form posted as `who`, with the session's CSRF token in the form. */
async function postForm(who: StaffSession, path: string, fields: Record<string, string>) {
  const response = await fetch(`${t.urls.operator}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, _csrf: who.csrfToken }).toString(),
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** The `<tr>` of `html` carrying `attribute="value"`, or undefined. */
function row(html: string, attribute: string, value: string): string | undefined {
  return new RegExp(`<tr ${attribute}="${value}"[^>]*>([\\s\\S]*?)</tr>`).exec(html)?.[1];
}

/** The cell of a row with `data-figure="name"`: its text and its `data-minor` when it has one. */
function figure(rowHtml: string, name: string): { text: string; minor: string | undefined } {
  const match = new RegExp(`<td[^>]*data-figure="${name}"([^>]*)>([\\s\\S]*?)</td>`).exec(rowHtml);
  if (!match) throw new Error(`no figure ${name} in ${rowHtml}`);
  return { text: (match[2] ?? '').trim(), minor: /data-minor="([^"]*)"/.exec(match[1] ?? '')?.[1] };
}

/** The section of the page with this id. */
function section(html: string, id: string): string {
  const match = new RegExp(`<section class="panel" id="${id}"[\\s\\S]*?</section>`).exec(html);
  if (!match) throw new Error(`no section ${id}`);
  return match[0];
}

const chargeIdsIn = (html: string) => [...html.matchAll(/<tr data-charge-id="([^"]+)"/g)].map((m) => m[1]);

beforeAll(async () => {
  t = await startTestGateway({
    env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' },
  });
  receiver = await startFailingReceiver();
  a = await createMerchant(t, { name: 'Anatolia Market', featureFlags: ['apiKeys', 'payouts', 'wallets'] });
  b = await createMerchant(t, { name: 'Bosphorus Books' });
  const wallet = await merchantApi(t, a, 'sandbox', '/v1/wallets', {
    network: 'tron',
    address: TRON_ADDRESS,
  });
  expect(wallet.status, wallet.text).toBe(201);
  const endpoint = await merchantApi<{ id: string }>(t, a, 'sandbox', '/v1/webhook-endpoints', {
    url: receiver.url,
    enabledEvents: ['*'],
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  endpointId = endpoint.body.id;

  charges.aPaid = await charge(a, 'visa', {
    merchantReference: sharedReference,
    customer: { name: 'Ayşe Alıcı', email: emailOfA },
  });
  charges.aOther = await charge(a, 'visa');
  charges.aPending = await charge(a, null, { customer: { email: emailOfA } });
  charges.bPaid = await charge(b, 'mastercard', { customer: { email: emailOfB } });
  charges.bShared = await charge(b, null, { merchantReference: sharedReference });
  // Today's credits batched now and paid out on the sandbox chain: a batch and a payout to show.
  const settled = await merchantApi<{ batch: { id: string } | null }>(
    t,
    a,
    'sandbox',
    '/v1/test-helpers/settle',
    {},
  );
  expect(settled.status, settled.text).toBe(200);
  expect(settled.body.batch).not.toBeNull();
  // The endpoint's first attempts fail (500): it is failing, its deliveries wait for their retry.
  await t.gateway.services.webhooks.dispatcher.deliverDue();

  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
  underwriter = await loginStaff(t, await createStaffUser(t, 'underwriter'));
  support = await loginStaff(t, await createStaffUser(t, 'support'));
});

afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('the merchant view of an organization', () => {
  it('shows the charges, volume, success rate and balance the merchant’s API reports', async () => {
    const listed = await merchantApi<{ data: Array<{ status: string; amount: string }> }>(
      t,
      a,
      'sandbox',
      '/v1/charges?limit=100',
    );
    expect(listed.status, listed.text).toBe(200);
    const count = (status: string) => listed.body.data.filter((c) => c.status === status).length;
    const volume = listed.body.data
      .filter((c) => c.status === 'succeeded')
      .reduce((sum, c) => sum + BigInt(c.amount), 0n);
    const balance = await merchantApi<{ balances: Array<Record<string, string>> }>(
      t,
      a,
      'sandbox',
      '/v1/balance',
    );
    expect(balance.status, balance.text).toBe(200);
    const try_ = balance.body.balances.find((x) => x.currency === 'TRY');
    if (!try_) throw new Error('no TRY balance');

    const page = await view(support, `/organizations/${a.organizationId}`);
    expect(page.status, page.html).toBe(200);
    const activity = row(section(page.html, 'activity'), 'data-environment', 'sandbox') ?? '';
    expect(figure(activity, 'charges').text).toBe(String(listed.body.data.length));
    expect(listed.body.data).toHaveLength(3);
    expect(figure(activity, 'succeeded').text).toBe(String(count('succeeded')));
    expect(figure(activity, 'pending').text).toBe(String(count('pending')));
    expect(figure(activity, 'unsuccessful').text).toBe(String(count('failed') + count('expired')));
    expect(figure(activity, 'success-rate').text).toBe('100.0 %');
    expect(figure(activity, 'volume').minor).toBe(volume.toString());
    expect(figure(activity, 'volume').text).toBe('TRY 251.00');
    const live = row(section(page.html, 'activity'), 'data-environment', 'live') ?? '';
    expect(figure(live, 'charges').text).toBe('0');
    expect(figure(live, 'success-rate').text).toBe('—');

    const balanceRow = row(section(page.html, 'balance'), 'data-environment', 'sandbox') ?? '';
    for (const key of ['pending', 'available', 'inTransit', 'reserve', 'debt']) {
      expect(figure(balanceRow, key).minor, key).toBe(try_[key]);
    }
    expect(page.html).toContain('Anatolia Market');
    expect(page.html).toMatch(/<dd id="kyc-status">APPROVED<\/dd>/);
    expect(page.html).toMatch(/<dd id="feature-flags">apiKeys, payouts, wallets<\/dd>/);
  });

  it('lists the batches and payouts the API lists, and the keys with their last use', async () => {
    const batches = await merchantApi<{ data: Array<{ id: string }> }>(t, a, 'sandbox', '/v1/settlements');
    const payouts = await merchantApi<{ data: Array<{ id: string; status: string }> }>(
      t,
      a,
      'sandbox',
      '/v1/payouts',
    );
    expect(batches.body.data.length).toBeGreaterThan(0);
    expect(payouts.body.data.length).toBeGreaterThan(0);
    // The key's use is recorded after the answer: read the page until it shows.
    await expect
      .poll(async () => {
        const page = await view(support, `/organizations/${a.organizationId}`);
        return /class="last-used">\d{4}-/.test(row(page.html, 'data-key-id', a.keys.sandbox.id) ?? '');
      })
      .toBe(true);
    const page = await view(support, `/organizations/${a.organizationId}`);
    for (const batch of batches.body.data) expect(row(page.html, 'data-batch-id', batch.id)).toBeDefined();
    for (const payout of payouts.body.data) {
      expect(row(section(page.html, 'payouts'), 'data-payout-id', payout.id)).toContain(payout.status);
    }
    const liveKey = row(page.html, 'data-key-id', a.keys.live.id) ?? '';
    expect(liveKey).toContain('class="last-used">never<');
    const stored = await t.gateway.services.apiKeys.listForOrganization(a.organizationId);
    const sandboxKey = stored.find((k) => k.id === a.keys.sandbox.id);
    expect(row(page.html, 'data-key-id', a.keys.sandbox.id)).toContain(
      `class="last-used">${sandboxKey?.lastUsedAt?.toISOString()}<`,
    );
    // Another organization's objects are not on this page.
    expect(page.html).not.toContain(b.keys.sandbox.id);
    expect(page.html).not.toContain(b.organizationId);
  });

  it('shows the failing endpoint with its backlog', async () => {
    const pending = await t.gateway.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    expect(Number(pending.count)).toBeGreaterThan(0);
    const page = await view(support, `/organizations/${a.organizationId}`);
    const webhooks = section(page.html, 'webhooks');
    const endpoint = row(webhooks, 'data-endpoint-id', endpointId) ?? '';
    expect(endpoint).toContain('failing, enabled');
    expect(figure(endpoint, 'backlog').text).toBe(String(Number(pending.count)));
    expect(webhooks).toContain(`1 endpoint, 1 failing, ${Number(pending.count)} undelivered.`);
    expect(webhooks).toContain(receiver.url);
    // The other organization has none.
    const other = await view(support, `/organizations/${b.organizationId}`);
    expect(section(other.html, 'webhooks')).toContain('0 endpoints, 0 failing, 0 undelivered.');
  });

  it('shows the organization’s newest audit entries', async () => {
    const changed = await postForm(admin, `/organizations/${a.organizationId}/rate-limits`, {
      live: '40',
      sandbox: '',
    });
    expect(changed.status, changed.html).toBe(303);
    const audit = await t.gateway.services.audit.list(t.gateway.database.db, {
      limit: 10,
      organizationId: a.organizationId,
    });
    if (!audit.ok) throw new Error('audit list refused');
    expect(audit.value.data.length).toBeGreaterThan(0);
    const page = await view(support, `/organizations/${a.organizationId}`);
    const recent = section(page.html, 'recent-audit');
    for (const entry of audit.value.data) {
      expect(row(recent, 'data-audit-id', entry.id), entry.action).toContain(entry.action);
    }
    expect(recent).toContain('organization.rate_limits');
  });

  it('shows a hostile name and webhook URL as text', async () => {
    const hostile = await createMerchant(t, { name: '<img src=x onerror=alert(1)>' });
    const endpoint = await merchantApi(t, hostile, 'sandbox', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks?a=<script>alert(2)</script>',
      enabledEvents: ['*'],
    });
    expect([201, 400]).toContain(endpoint.status);
    const page = await view(support, `/organizations/${hostile.organizationId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).not.toContain('<script>alert(2)');
  });

  it('answers 404 for an unknown organization', async () => {
    const page = await view(support, '/organizations/org_00000000000000000000000000000');
    expect(page.status).toBe(404);
  });
});

describe('the cross-merchant payment search', () => {
  it('finds a charge by its id, and only it', async () => {
    const page = await view(support, `/payments?q=${charges.bPaid.id}`);
    expect(page.status, page.html).toBe(200);
    expect(chargeIdsIn(page.html)).toEqual([charges.bPaid.id]);
    const found = row(page.html, 'data-charge-id', charges.bPaid.id) ?? '';
    expect(found).toContain(`href="/organizations/${b.organizationId}"`);
    expect(found).toContain('sandbox');
    expect(found).toContain('succeeded');
    expect(found).toContain('TRY 125.50');
  });

  it('finds a reference in every organization that used it', async () => {
    const page = await view(support, `/payments?q=${sharedReference}`);
    expect(page.status).toBe(200);
    expect(chargeIdsIn(page.html).sort()).toEqual([charges.aPaid.id, charges.bShared.id].sort());
    expect(row(page.html, 'data-charge-id', charges.bShared.id)).toContain(b.organizationId);
    const unique = await view(support, `/payments?q=${charges.aOther.merchantReference}&kind=reference`);
    expect(chargeIdsIn(unique.html)).toEqual([charges.aOther.id]);
  });

  it('finds the charges paid with a card by its last four', async () => {
    const visa = await view(support, `/payments?q=${TEST_CARDS.visa.number.slice(-4)}`);
    const visaIds = chargeIdsIn(visa.html);
    expect(visaIds).toEqual(expect.arrayContaining([charges.aPaid.id, charges.aOther.id]));
    expect(visaIds).not.toContain(charges.bPaid.id);
    expect(visaIds).not.toContain(charges.aPending.id);
    const mastercard = await view(
      support,
      `/payments?q=${TEST_CARDS.mastercard.number.slice(-4)}&kind=last4`,
    );
    expect(chargeIdsIn(mastercard.html)).toEqual([charges.bPaid.id]);
    expect(mastercard.html).toContain('mastercard •••• 4444');
    // Never more of a card number than the last four.
    expect(mastercard.html).not.toContain(TEST_CARDS.mastercard.number.slice(0, 6));
  });

  it('finds a customer’s charges by e-mail whatever the letter case, and audits it without the address', async () => {
    const page = await view(support, `/payments?q=${encodeURIComponent(emailOfA.toUpperCase())}`);
    expect(page.status).toBe(200);
    expect(chargeIdsIn(page.html)).toEqual([charges.aPending.id, charges.aPaid.id]);
    const other = await view(support, `/payments?q=${encodeURIComponent(emailOfB)}&kind=email`);
    expect(chargeIdsIn(other.html)).toEqual([charges.bPaid.id]);

    const audit = await t.gateway.services.audit.list(t.gateway.database.db, { limit: 20 });
    if (!audit.ok) throw new Error('audit list refused');
    const searches = audit.value.data.filter((e) => e.action === 'operator.payments_searched');
    const byEmail = searches.filter((e) => e.targetId === 'email');
    expect(byEmail.length).toBeGreaterThanOrEqual(2);
    expect(byEmail[1]).toMatchObject({
      actor: `staff:${support.account.id}`,
      targetType: 'charge_search',
      after: { kind: 'email', results: 2, more: false, chargeIds: [charges.aPending.id, charges.aPaid.id] },
    });
    const trail = JSON.stringify(searches);
    expect(trail.toLowerCase()).not.toContain(emailOfA.toLowerCase());
    expect(trail).not.toContain(emailOfB);
    const byId = searches.find((e) => e.targetId === 'id');
    expect(byId?.after).toMatchObject({ kind: 'id', query: charges.bPaid.id, results: 1 });
  });

  it('says so when nothing matches', async () => {
    const page = await view(support, '/payments?q=nobody%40nowhere.example');
    expect(page.status).toBe(200);
    expect(chargeIdsIn(page.html)).toEqual([]);
    expect(page.html).toContain('No charge by customer e-mail');
  });

  it('answers odd input with a 400 page that says why, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['q=ab', 'Too short to search'],
      ['q=%20a%20', 'Too short to search'],
      [`q=${'x'.repeat(400)}`, 'too long'],
      ['q=abc%0Adef', 'control characters'],
      ['q=123&kind=last4', 'exactly four digits'],
      ['q=abcd&kind=email', 'whole e-mail address'],
      ['q=not-a-charge&kind=id', 'starts with ch_'],
      ['q=1234&kind=nonsense', 'Choose what to search by'],
      ['q=a&q=b', 'one search at a time'],
      ['q=%27%3B%20drop%20table%20charges%3B--', ''],
      ['q=%25%25%25', ''],
      ['q=%3Cscript%3Ealert(1)%3C%2Fscript%3E', ''],
    ];
    for (const [query, message] of cases) {
      const page = await view(support, `/payments?${query}`);
      if (message === '') {
        // Searched as a reference that no charge has: an empty answer, the text escaped.
        expect(page.status, query).toBe(200);
        expect(page.html, query).not.toContain('<script>alert(1)');
        expect(chargeIdsIn(page.html), query).toEqual([]);
      } else {
        expect(page.status, query).toBe(400);
        expect(page.html, query).toContain('role="alert"');
        expect(page.html, query).toContain(message);
      }
    }
    // A NUL is refused by every listener before any route (the JSON validation envelope), still a 400.
    expect((await view(support, '/payments?q=ref%00erence')).status).toBe(400);
    const empty = await view(support, '/payments?q=');
    expect(empty.status).toBe(200);
    expect(empty.html).not.toContain('role="alert"');
  });
});

describe('roles and sessions', () => {
  it('shows support no action form, and refuses a support post', async () => {
    const page = await view(support, `/organizations/${a.organizationId}`);
    expect(page.html).not.toMatch(/<form method="post" action="\/organizations\//);
    expect(page.html).toContain('id="read-only-note"');
    const search = await view(support, '/payments');
    expect(search.html).not.toMatch(/<form method="post" action="\/payments/);
    for (const [path, fields] of [
      [`/organizations/${a.organizationId}/freeze`, { reason: 'support tries' }],
      [`/organizations/${a.organizationId}/kyc-status`, { kycStatus: 'REVIEWING' }],
      [`/organizations/${a.organizationId}/feature-flags/customers`, { enabled: 'true' }],
    ] as const) {
      const res = await postForm(support, path, fields);
      expect(res.status, path).toBe(403);
    }
    const after = await t.gateway.services.organizations.get(a.organizationId);
    expect(after.ok && after.value).toMatchObject({ frozen: false, kycStatus: 'APPROVED' });
  });

  it('gives an underwriter the KYC form only, and an admin every form', async () => {
    const forUnderwriter = await view(underwriter, `/organizations/${a.organizationId}`);
    const posts = (html: string) =>
      [...html.matchAll(/<form method="post" action="\/organizations\/[^/]+\/([^"/]+)/g)].map((m) => m[1]);
    expect(posts(forUnderwriter.html)).toEqual(['kyc-status']);
    const forAdmin = await view(admin, `/organizations/${a.organizationId}`);
    // The organization has no fee schedule rows of its own (the gateway's defaults): no fee form.
    expect(new Set(posts(forAdmin.html))).toEqual(
      new Set(['kyc-status', 'feature-flags', 'rate-limits', 'freeze', 'three-d-secure']),
    );
  });

  it('sends a signed-out visitor to the login page', async () => {
    for (const path of [`/organizations/${a.organizationId}`, `/payments?q=${charges.aPaid.id}`]) {
      const res = await view(null, path);
      expect(res.status, path).toBe(303);
      expect(res.location, path).toBe(`/login?next=${encodeURIComponent(path)}`);
      expect(res.html).not.toContain(charges.aPaid.id.slice(3));
    }
  });

  it('refuses a post without the CSRF token', async () => {
    const response = await fetch(`${t.urls.operator}/organizations/${a.organizationId}/freeze`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'reason=no+token',
    });
    expect(response.status).toBe(403);
  });
});
