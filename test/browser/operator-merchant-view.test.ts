import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_TEST_ENV } from '../helpers/accounts.js';
import { accessibilityProblems, expectStrictPhonePage, type PageProblem } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { validCharge } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { createStaffUser, type StaffAccount } from '../helpers/operator.js';
import { merchantApi } from '../helpers/payouts.js';
import { payByCard, postCharge } from '../helpers/charges.js';

// The operator console's merchant view and payment search in a real Chromium (issue 15 item 7): a
// support member signs in, finds a customer's charge by e-mail across organizations, opens its
// organization and reads every section, with no action form; no serious or critical accessibility
// violation on either page, at desktop and phone widths.

let t: TestGateway;
let support: StaffAccount;
let merchant: Merchant;
let other: Merchant;
let chargeId = '';
const email = `Deniz.Musteri-${Date.now().toString(36)}@Example.test`;

const { newPage, signInOperator } = useBrowserSuite({
  gateway: { env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer' } },
  async setUp(started) {
    t = started;
    support = await createStaffUser(t, 'support');
    merchant = await createMerchant(t, { name: 'Kapadokya Crafts' });
    other = await createMerchant(t, { name: 'Ege Olive Oil' });
    const res = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, {
      amount: 48_000,
      customer: { name: 'Deniz Müşteri', email },
    });
    chargeId = res.id;
    await payByCard(t.gateway.services, res, 'Deniz Musteri');
    // The other organization's charge has another customer: the search must not show it.
    const foreign = await merchantApi(
      t,
      other,
      'sandbox',
      '/v1/charges',
      validCharge({ customer: { email: 'someone@else.example' } }),
    );
    expect(foreign.status, foreign.text).toBe(201);
  },
  allowed: [isRefusedSearch],
  timeout: 30_000,
});

/** Chromium's own console line for the search page answered 400 (the refusal is the point). */
function isRefusedSearch(problem: PageProblem): boolean {
  return (
    problem.kind === 'console' &&
    /\/payments\?/.test(problem.url ?? '') &&
    problem.text === 'Failed to load resource: the server responded with a status of 400 (Bad Request)'
  );
}

async function signIn(account: StaffAccount, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const { page } = await newPage({ viewport });
  await signInOperator(page, account, '/payments');
  return page;
}

/** The main content fits the viewport: nothing in it runs past the right edge. */
async function mainFits(page: Page): Promise<void> {
  const [innerWidth, mainScroll, mainWidth, overflowing] = (await page.evaluate(
    `[window.innerWidth, document.querySelector('main').scrollWidth, document.querySelector('main').clientWidth,
      Array.from(document.querySelectorAll('main *'))
        .filter((element) => !element.closest('.table-wrap') && element.getBoundingClientRect().right > window.innerWidth)
        .map((element) => element.tagName)]`,
  )) as [number, number, number, string[]];
  expect(innerWidth).toBe(375);
  expect(mainScroll).toBeLessThanOrEqual(mainWidth);
  expect(overflowing).toEqual([]);
}

describe('the merchant view for support', () => {
  it(
    'searches by e-mail, opens the organization and reads every section, with no action form',
    { timeout: 90_000 },
    async () => {
      const page = await signIn(support);
      expect(await page.locator('nav.op-nav a[href="/payments"]').textContent()).toBe('Payment search');
      expect(await accessibilityProblems(page)).toEqual([]);

      // Too short: the page says why (400), nothing listed.
      await page.fill('#payment-query', 'ab');
      await page.click('#payment-search button[type="submit"]');
      await page.waitForURL(/q=ab/);
      expect(await page.locator('[role="alert"]').textContent()).toContain('Too short to search');
      expect(await page.locator('#payment-results').count()).toBe(0);

      // By e-mail in another letter case: exactly the customer's charge, with its organization.
      await page.fill('#payment-query', email.toLowerCase());
      await page.selectOption('#payment-kind', 'email');
      await page.click('#payment-search button[type="submit"]');
      await page.waitForURL(/kind=email/);
      expect(await page.locator('#search-summary').textContent()).toBe('1 charge by customer e-mail.');
      const found = page.locator(`#payment-results tr[data-charge-id="${chargeId}"]`);
      expect(await page.locator('#payment-results tbody tr').count()).toBe(1);
      expect(await found.textContent()).toContain('TRY 480.00');
      expect(await found.textContent()).toContain('visa •••• 4242');
      expect(await accessibilityProblems(page)).toEqual([]);

      await Promise.all([
        page.waitForURL(new RegExp(`/organizations/${merchant.organizationId}$`)),
        found.locator(`a[href="/organizations/${merchant.organizationId}"]`).click(),
      ]);
      expect(await page.locator('h1').textContent()).toBe('Kapadokya Crafts');
      for (const heading of [
        'Charges of the last 30 days',
        'Balance',
        'Settlement batches',
        'Payouts',
        'API keys',
        'Webhook health',
        'Recent audit entries',
      ]) {
        expect(await page.locator(`h2:text-is("${heading}")`).count(), heading).toBe(1);
      }
      const sandbox = page.locator('#activity tr[data-environment="sandbox"]');
      expect(await sandbox.locator('[data-figure="succeeded"]').textContent()).toBe('1');
      expect(await sandbox.locator('[data-figure="success-rate"]').textContent()).toBe('100.0 %');
      expect(await sandbox.locator('[data-figure="volume"]').textContent()).toBe('TRY 480.00');
      expect(await page.locator(`#api-keys tr[data-key-id="${merchant.keys.sandbox.id}"]`).count()).toBe(1);
      expect(await page.locator('#webhook-summary').textContent()).toBe(
        '0 endpoints, 0 failing, 0 undelivered.',
      );
      expect(await page.locator('form[method="post"]:not([action="/logout"])').count()).toBe(0);
      expect(await page.locator('#read-only-note').textContent()).toContain('(support)');
      expect(await accessibilityProblems(page)).toEqual([]);
    },
  );

  it('fits a phone: the search and the organization page', { timeout: 60_000 }, async () => {
    const page = await signIn(support, { width: 375, height: 667 });
    await page.goto(`${t.urls.operator}/payments?q=${encodeURIComponent(email)}`);
    expect(await page.locator('#payment-results tbody tr').count()).toBe(1);
    await mainFits(page);
    await expectStrictPhonePage(page, 'the payment search');
    await page.goto(`${t.urls.operator}/organizations/${merchant.organizationId}`);
    await mainFits(page);
    await expectStrictPhonePage(page, 'the organization page');
  });
});
