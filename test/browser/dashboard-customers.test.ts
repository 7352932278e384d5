import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { expectStrictPhonePage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { validCharge } from '../helpers/http.js';
import { createMerchant, updateOrganization, type Merchant } from '../helpers/merchants.js';
import { merchantApi } from '../helpers/payouts.js';

// Customers in the dashboard, in a real Chromium at phone width (issue 15 item 5): a viewer signs in,
// opens Customers, searches by e-mail, opens the customer and sees its charge; the ID number is nowhere
// in the pages, a stranger's customer is 404, and without the `customers` flag there is neither a link
// nor a page.

const ID_NUMBER = '10000000146';

let t: TestGateway;
const { newPage, signIn, submit, expectProblems } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

async function newCustomer(merchant: Merchant, body: Record<string, unknown>) {
  t.clock.advance(1000);
  const res = await merchantApi<{ id: string }>(t, merchant, 'sandbox', '/v1/customers', body);
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function signInViewer(organizationId: string): Promise<Page> {
  const user = await createActiveUser(t, { organizationId, role: 'viewer' });
  const { page } = await newPage(PHONE);
  await signIn(page, user);
  expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
  return page;
}

describe('customers in Chromium', () => {
  it('a viewer: Customers -> search by e-mail -> the customer and its charge; a stranger’s is 404', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const ayse = await newCustomer(merchant, {
      name: '<script>alert(1)</script>Ayşe Yılmaz',
      email: 'ayse@example.com',
      phone: '+90 532 000 00 00',
      reference: 'crm-42',
      idNumber: ID_NUMBER,
    });
    const mehmet = await newCustomer(merchant, { name: 'Mehmet Kaya', email: 'mehmet@example.com' });
    t.clock.advance(1000);
    const charge = await merchantApi<{ id: string }>(
      t,
      merchant,
      'sandbox',
      '/v1/charges',
      validCharge({ amount: 250_000, customerId: ayse }),
    );
    expect(charge.status, charge.text).toBe(201);
    const stranger = await createMerchant(t, { featureFlags: ['customers'] });
    const theirs = await newCustomer(stranger, { name: 'Not yours', email: 'ayse@example.com' });

    const page = await signInViewer(merchant.organizationId);
    await submit(page, '#customers-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/customers?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Customers');
    const items = page.locator('#customers li');
    expect(await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-customer-id')))).toEqual([
      mehmet,
      ayse,
    ]);
    // The name is text, not markup: no dialog opened (the page watcher would record it).
    expect(await page.locator(`li[data-customer-id="${ayse}"] .customer-link`).textContent()).toBe(
      '<script>alert(1)</script>Ayşe Yılmaz',
    );
    expect(await page.locator(`li[data-customer-id="${ayse}"] .customer-id-number`).textContent()).toBe(
      'On file',
    );
    expect(await page.content()).not.toContain(ID_NUMBER);
    await expectStrictPhonePage(page, 'the list');

    await page.fill('#customer-email', 'AYSE@example.com');
    await submit(page, '#search-customers');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/customers?lang=en&email=AYSE%40example.com`);
    expect(await items.count()).toBe(1);
    expect(await items.first().getAttribute('data-customer-id')).toBe(ayse);
    expect(await page.locator('#customer-email').inputValue()).toBe('AYSE@example.com');

    await submit(page, `li[data-customer-id="${ayse}"] .customer-link`);
    expect(page.url()).toBe(`${t.urls.web}/dashboard/customers/${ayse}?lang=en`);
    expect(await page.title()).toBe('<script>alert(1)</script>Ayşe Yılmaz');
    expect(await page.locator('#customer-email').textContent()).toBe('ayse@example.com');
    expect(await page.locator('#customer-phone').textContent()).toBe('+90 532 000 00 00');
    expect(await page.locator('#customer-reference').textContent()).toBe('crm-42');
    expect(await page.locator('#customer-id-number').textContent()).toBe('On file');
    const charges = page.locator('#customer-charges li');
    expect(await charges.count()).toBe(1);
    expect(await charges.first().getAttribute('data-charge-id')).toBe(charge.body.id);
    expect(await charges.first().locator('.charge-amount').textContent()).toBe('TRY 2,500.00');
    expect(await charges.first().locator('.charge-status').textContent()).toBe('Pending');
    expect(await page.content()).not.toContain(ID_NUMBER);
    await expectStrictPhonePage(page, 'the customer');

    // In Turkish.
    await page.goto(`${t.urls.web}/dashboard/customers/${ayse}?lang=tr`);
    expect(await page.locator('#customer-id-number').textContent()).toBe('Kayıtlı');
    expect(await charges.first().locator('.charge-amount').textContent()).toBe('2.500,00 TRY');
    expect(await page.locator('#customers-link').textContent()).toBe('Müşteriler');
    expect(await page.content()).not.toContain(ID_NUMBER);
    await expectStrictPhonePage(page, 'the customer in Turkish');

    // Another organization's customer: the not-found page, nothing of it shown.
    expectProblems(/status of 404/);
    const answer = await page.goto(`${t.urls.web}/dashboard/customers/${theirs}?lang=en`);
    expect(answer?.status()).toBe(404);
    expect(await page.locator('#message-body').textContent()).toBe('This page does not exist.');
    expect(await page.content()).not.toContain('Not yours');
  });

  it('without the flag: no Customers link, and no page', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers'] });
    const customer = await newCustomer(merchant, { name: 'Hidden', idNumber: ID_NUMBER });
    await updateOrganization(t.gateway.database.db, merchant.organizationId, { featureFlags: ['apiKeys'] });

    const page = await signInViewer(merchant.organizationId);
    expect(await page.locator('#settlements-link').count()).toBe(1);
    expect(await page.locator('#customers-link').count()).toBe(0);
    expect(await page.locator('a[href^="/dashboard/customers"]').count()).toBe(0);

    expectProblems(/status of 404/);
    for (const path of ['/dashboard/customers', `/dashboard/customers/${customer}`]) {
      const answer = await page.goto(`${t.urls.web}${path}?lang=en`);
      expect(answer?.status(), path).toBe(404);
      expect(await page.locator('#message-body').textContent(), path).toBe('This page does not exist.');
      expect(await page.content(), path).not.toContain('Hidden');
    }
  });
});
