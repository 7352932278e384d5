/**
 * Customers in the merchant dashboard (issue 15 item 5, flag `customers`): the customers of the session's
 * environment, newest first and cursor paged, found by e-mail, and each customer with its charges. Every
 * role reads them; the ID number never reaches a page; what a merchant wrote is shown escaped; another
 * organization's or environment's customer, an unknown and a deleted one are 404; without the flag the
 * pages are 404 and the navigation has no link to them.
 */
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, textOf, WebClient } from './helpers/accounts.js';
import { merchantRequest, type ApiInit } from './helpers/client.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, updateOrganization, type Merchant } from './helpers/merchants.js';
import { expectLoginFirst } from './helpers/http-checks.js';

interface CustomerBody {
  id: string;
  name: string | null;
  email: string | null;
}
interface ChargeBody {
  id: string;
  status: string;
}

const ID_NUMBER = '10000000146';
const SCRIPT_NAME = '<script>alert("name")</script> Ayşe';

useTestGateway(accountGateway('api,sandbox-acquirer'));

const api = <T>(merchant: Merchant, path: string, init: ApiInit = {}) =>
  merchantRequest<T>(t.urls, merchant, path, init);

async function newCustomer(
  merchant: Merchant,
  body: Record<string, unknown>,
  environment: 'sandbox' | 'live' = 'sandbox',
) {
  // Apart in time, so that "newest first" is the order they were made in.
  t.clock.advance(1000);
  const res = await api<CustomerBody>(merchant, '/v1/customers', { body, environment });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function newCharge(merchant: Merchant, customerId: string, overrides: Record<string, unknown> = {}) {
  t.clock.advance(1000);
  const res = await api<ChargeBody>(merchant, '/v1/charges', {
    body: validCharge({ customerId, ...overrides }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function signedIn(organizationId: string, role: UserRole = 'viewer') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return client;
}

function customersIn(html: string): string[] {
  return [...html.matchAll(/<li data-customer-id="([^"]+)">/g)].map((match) => match[1] ?? '');
}
function chargesIn(html: string): string[] {
  return [...html.matchAll(/<li data-charge-id="([^"]+)"/g)].map((match) => match[1] ?? '');
}
function linkOf(html: string, id: string): string {
  return (new RegExp(`<a id="${id}" href="([^"]+)"`).exec(html)?.[1] ?? '').replaceAll('&amp;', '&');
}

describe('the customer pages', () => {
  it('need a session', async () => {
    await expectLoginFirst(t.urls.web, ['/dashboard/customers', '/dashboard/customers/cus_x']);
  });

  it('list the customers, find one by e-mail, show its details and charges, never its ID number', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const ayse = await newCustomer(merchant, {
      name: SCRIPT_NAME,
      email: 'Ayse@Example.com',
      phone: '+90 532 000 00 00',
      reference: 'crm-<b>42</b>',
      idNumber: ID_NUMBER,
    });
    const bare = await newCustomer(merchant, { email: 'bare@example.com' });
    const charge = await newCharge(merchant, ayse.id, {
      amount: 123450,
      merchantReference: 'order-<img src=x onerror=alert(1)>',
    });
    await newCharge(merchant, bare.id);

    const client = await signedIn(merchant.organizationId, 'viewer');
    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain('<a href="/dashboard/customers?lang=en" id="customers-link">Customers</a>');
    expect((await client.get('/dashboard?lang=tr')).text).toContain('id="customers-link">Müşteriler</a>');

    const list = await client.get('/dashboard/customers?lang=en');
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('no-store');
    expect(list.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(list.text).not.toMatch(/<script|style=|<b>/);
    expect(list.text).not.toContain(ID_NUMBER);
    expect(customersIn(list.text)).toEqual([bare.id, ayse.id]);
    expect(list.text).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; Ayşe');
    expect(list.text).toContain('crm-&lt;b&gt;42&lt;/b&gt;');
    const row = (id: string) =>
      new RegExp(`<li data-customer-id="${id}">([\\s\\S]*?)</li>`).exec(list.text)?.[1] ?? '';
    expect(row(ayse.id)).toContain('data-on-file="true">On file</dd>');
    expect(row(ayse.id)).toContain('+90 532 000 00 00');
    expect(row(bare.id)).toContain('data-on-file="false">None</dd>');
    expect(row(bare.id)).toContain('>No name</a>');
    expect(row(ayse.id)).toMatch(/class="customer-created">\d{4}-\d\d-\d\d \d\d:\d\d UTC</);

    // The e-mail search: exact, whatever the case; the form keeps the language.
    expect(list.text).toContain('<form method="get" action="/dashboard/customers" id="customer-search"');
    expect(list.text).toContain('<input type="hidden" name="lang" value="en">');
    const found = await client.get('/dashboard/customers?lang=en&email=ayse%40example.COM');
    expect(found.status).toBe(200);
    expect(customersIn(found.text)).toEqual([ayse.id]);
    expect(textOf(found.text, 'searching-for')).toBe('Customers with the e-mail address ayse@example.COM.');
    expect(found.text).toContain('value="ayse@example.COM"');
    const partial = await client.get('/dashboard/customers?lang=en&email=example.com');
    expect(customersIn(partial.text)).toEqual([]);
    expect(textOf(partial.text, 'no-customers')).toBe('No customer with the e-mail address example.com.');
    const empty = await client.get('/dashboard/customers?lang=en&email=');
    expect(customersIn(empty.text)).toEqual([bare.id, ayse.id]);
    // What is searched for is shown escaped.
    const hostile = await client.get(
      `/dashboard/customers?lang=en&email=${encodeURIComponent('"><script>x')}`,
    );
    expect(hostile.status).toBe(200);
    expect(hostile.text).not.toContain('<script>x');
    expect(hostile.text).toContain('value="&quot;&gt;&lt;script&gt;x"');

    const detail = await client.get(`/dashboard/customers/${ayse.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toMatch(/<script|style=|<img|<b>/);
    expect(detail.text).not.toContain(ID_NUMBER);
    expect(textOf(detail.text, 'customer-id')).toBe(ayse.id);
    expect(textOf(detail.text, 'customer-name')).toBe(
      '&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; Ayşe',
    );
    expect(detail.text).toContain('<title>&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; Ayşe</title>');
    expect(textOf(detail.text, 'customer-email')).toBe('Ayse@Example.com');
    expect(textOf(detail.text, 'customer-reference')).toBe('crm-&lt;b&gt;42&lt;/b&gt;');
    expect(textOf(detail.text, 'customer-id-number')).toBe('On file');
    expect(chargesIn(detail.text)).toEqual([charge.id]);
    expect(detail.text).toContain('TRY 1,234.50');
    expect(detail.text).toContain('class="charge-status">Pending</dd>');
    expect(detail.text).toContain('order-&lt;img src=x onerror=alert(1)&gt;');
    expect(detail.text).not.toContain('id="older-charges"');

    const turkish = await client.get(`/dashboard/customers/${ayse.id}?lang=tr`);
    expect(textOf(turkish.text, 'customer-id-number')).toBe('Kayıtlı');
    expect(turkish.text).toContain('1.234,50 TRY');
    expect(turkish.text).toContain('class="charge-status">Beklemede</dd>');
    const turkishBare = await client.get(`/dashboard/customers/${bare.id}?lang=tr`);
    expect(textOf(turkishBare.text, 'customer-id-number')).toBe('Yok');
  });

  it('page the customers newest first, within a search too, and a customer’s charges', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const made: CustomerBody[] = [];
    for (let i = 0; i < 22; i += 1) {
      const email = i === 5 ? 'other@example.com' : 'same@example.com';
      made.push(await newCustomer(merchant, { name: `C${i}`, email }));
    }
    const newestFirst = made.map((customer) => customer.id).reverse();

    const client = await signedIn(merchant.organizationId, 'developer');
    const first = await client.get('/dashboard/customers?lang=en');
    expect(customersIn(first.text)).toEqual(newestFirst.slice(0, 20));
    expect(first.text).not.toContain('id="newest-customers"');
    const older = linkOf(first.text, 'older-customers');
    expect(older).toMatch(/^\/dashboard\/customers\?lang=en&cursor=/);
    const second = await client.get(older);
    expect(customersIn(second.text)).toEqual(newestFirst.slice(20));
    expect(second.text).not.toContain('id="older-customers"');
    expect(linkOf(second.text, 'newest-customers')).toBe('/dashboard/customers?lang=en');

    // 21 customers with one e-mail: the search pages too, and its cursor keeps the filter.
    const same = made
      .filter((_, i) => i !== 5)
      .map((customer) => customer.id)
      .reverse();
    expect(await searchedCustomers(client, 'SAME@example.com')).toEqual({ ids: same, pages: 2 });

    // A cursor the list did not issue is no page.
    expect((await client.get('/dashboard/customers?lang=en&cursor=nonsense')).status).toBe(404);

    // 21 charges for one customer: the first 20, and a link to the rest.
    const customer = made[0]?.id ?? '';
    const charges: string[] = [];
    for (let i = 0; i < 21; i += 1) charges.push((await newCharge(merchant, customer)).id);
    const detail = await client.get(`/dashboard/customers/${customer}?lang=en`);
    expect(chargesIn(detail.text)).toEqual(charges.slice().reverse().slice(0, 20));
    const more = linkOf(detail.text, 'older-charges');
    expect(more).toMatch(new RegExp(`^/dashboard/customers/${customer}\\?lang=en&cursor=`));
    const rest = await client.get(more);
    expect(rest.status).toBe(200);
    expect(chargesIn(rest.text)).toEqual([charges[0]]);
    expect(linkOf(rest.text, 'newest-charges')).toBe(`/dashboard/customers/${customer}?lang=en`);
    expect((await client.get(`/dashboard/customers/${customer}?lang=en&cursor=nonsense`)).status).toBe(404);
  });

  it('are read by every role, and refuse another organization’s, environment’s, unknown and deleted customers', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const customer = await newCustomer(merchant, { name: 'Mine', idNumber: ID_NUMBER });
    const doomed = await newCustomer(merchant, { name: 'Doomed' });
    const live = await newCustomer(merchant, { name: 'Live one' }, 'live');
    const deleted = await api(merchant, `/v1/customers/${doomed.id}`, { method: 'DELETE' });
    expect(deleted.status, deleted.text).toBe(200);

    for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
      const reader = await signedIn(merchant.organizationId, role);
      const list = await reader.get('/dashboard/customers?lang=en');
      expect(list.status, role).toBe(200);
      expect(customersIn(list.text), role).toEqual([customer.id]);
      expect((await reader.get(`/dashboard/customers/${customer.id}?lang=en`)).status, role).toBe(200);
    }

    const owner = await signedIn(merchant.organizationId, 'owner');
    for (const id of [doomed.id, live.id, 'cus_nothere', 'x'.repeat(64)]) {
      const page = await owner.get(`/dashboard/customers/${id}?lang=en`);
      expect(page.status, id).toBe(404);
      expect(page.headers.get('content-type'), id).toContain('text/html');
      expect(textOf(page.text, 'message-body'), id).toBe('This page does not exist.');
    }

    // The live environment: its own customer, not the sandbox one.
    await owner.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    const liveList = await owner.get('/dashboard/customers?lang=en');
    expect(liveList.text).toContain('data-environment="live"');
    expect(customersIn(liveList.text)).toEqual([live.id]);
    expect((await owner.get(`/dashboard/customers/${live.id}?lang=en`)).status).toBe(200);
    expect((await owner.get(`/dashboard/customers/${customer.id}?lang=en`)).status).toBe(404);

    // Another organization, with the flag: its own (empty) list, and 404 for this customer.
    const stranger = await createMerchant(t, { featureFlags: ['customers'] });
    const other = await signedIn(stranger.organizationId, 'owner');
    const otherList = await other.get('/dashboard/customers?lang=en');
    expect(otherList.status).toBe(200);
    expect(customersIn(otherList.text)).toEqual([]);
    expect(textOf(otherList.text, 'no-customers')).toBe('No customers yet.');
    const theirs = await other.get(`/dashboard/customers/${customer.id}?lang=en`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain('Mine');
  });

  it('are not served, nor linked, without the flag', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const customer = await newCustomer(merchant, { name: 'Flagged' });
    await updateOrganization(t.gateway.database.db, merchant.organizationId, { featureFlags: ['apiKeys'] });

    const client = await signedIn(merchant.organizationId, 'owner');
    for (const path of [
      '/dashboard',
      '/dashboard/settlements',
      '/dashboard/wallets',
      '/dashboard/security',
    ]) {
      const page = await client.get(`${path}?lang=en`);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain('id="settlements-link"');
      expect(page.text, path).not.toContain('customers-link');
      expect(page.text, path).not.toContain('/dashboard/customers');
    }
    for (const path of ['/dashboard/customers', `/dashboard/customers/${customer.id}`]) {
      const page = await client.get(`${path}?lang=en`);
      expect(page.status, path).toBe(404);
      expect(textOf(page.text, 'message-body'), path).toBe('This page does not exist.');
      expect(page.text, path).not.toContain('Flagged');
    }

    // Turned on again, the link and the pages are back.
    await updateOrganization(t.gateway.database.db, merchant.organizationId, { featureFlags: ['customers'] });
    expect((await client.get('/dashboard?lang=en')).text).toContain('id="customers-link"');
    expect((await client.get(`/dashboard/customers/${customer.id}?lang=en`)).status).toBe(200);
  });
});

/** Every customer the e-mail search lists, following its older links. */
async function searchedCustomers(client: WebClient, email: string) {
  const ids: string[] = [];
  let path = `/dashboard/customers?lang=en&email=${encodeURIComponent(email)}`;
  for (let pages = 0; pages < 5; pages += 1) {
    const page = await client.get(path);
    expect(page.status, path).toBe(200);
    ids.push(...customersIn(page.text));
    const older = linkOf(page.text, 'older-customers');
    if (older === '') return { ids, pages: pages + 1 };
    expect(older).toContain(`email=${encodeURIComponent(email)}`);
    path = older;
  }
  throw new Error('too many pages');
}
