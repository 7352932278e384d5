import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_TEST_ENV, createActiveUser } from '../helpers/accounts.js';
import { expectPage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import { paidWithEach, RATIO_TEST_ENV } from '../helpers/dispute-ratio-data.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { createStaffUser, type StaffAccount } from '../helpers/operator.js';

// The ratio pages in a real Chromium (issue 37 item 7): a merchant with the `disputes` flag whose card
// payments through the sandbox acquirer drew a dispute and a fraud warning this month. Its owner follows
// the navigation to the chargeback-ratio page and finds the chart (this month's bar, the projection
// dashed, a line per level) under the strict CSP, in English at a laptop's width and in Turkish on a
// phone; a support member follows the console's navigation to the ratio watchlist and from its row to
// the merchant view's ratios. The suite fails a test on any CSP violation, console error or page error.

const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false };

let t: TestGateway;
let merchant: Merchant;
let support: StaffAccount;

const { newPage, signIn, signInOperator, submit } = useBrowserSuite({
  gateway: { env: { ...ACCOUNT_TEST_ENV, ...RATIO_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer' } },
  async setUp(started) {
    t = started;
    support = await createStaffUser(t, 'support');
    merchant = await createMerchant(t, { name: 'Gece Yayın Hizmetleri', featureFlags: ['disputes'] });
    await paidWithEach(t, merchant, { visa: 2, disputeFraudulent: 1, earlyFraudWarning: 1 });
  },
  timeout: 20_000,
});

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();

/** The computed dash pattern of the first element `selector` finds (`none` when solid). */
const dashesOf = async (page: Page, selector: string) =>
  (await page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).strokeDasharray`,
  )) as string;

/** The chart of the Visa-style ratio of Visa: its bars, projection and threshold lines, and their dashes. */
async function visaChart(page: Page) {
  const svg = '#chart-visa-visa-style svg.ratio-chart';
  const chart = page.locator(svg);
  return {
    shown: await chart.isVisible(),
    current: await chart.locator('rect.ratio-current').count(),
    projection: await chart.locator('rect.ratio-projection').getAttribute('data-percent'),
    projectionDashes: await dashesOf(page, `${svg} rect.ratio-projection`),
    barDashes: await dashesOf(page, `${svg} rect.ratio-current`),
    thresholds: await chart.locator('line.ratio-threshold').count(),
  };
}

describe('the ratio pages in Chromium', () => {
  it('the owner follows the link to the chart: projection dashed, levels drawn, strict CSP, English and Turkish', async () => {
    const owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    const { page } = await newPage(DESKTOP);
    await signIn(page, owner);
    await submit(page, '#dispute-ratios-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/dispute-ratios?lang=en`);
    expect(await text(page, 'h1')).toBe('Chargeback ratios');
    expect(await page.locator('#dispute-ratios-link').getAttribute('aria-current')).toBe('page');
    // Two counted (the dispute and the fraud warning) over four Visa sales this month, projected to 3 over 5.
    expect(await text(page, '#visa-visa-style .ratio-percent')).toBe('50.0000%');
    expect(await visaChart(page)).toEqual({
      shown: true,
      current: 1,
      projection: '60.0000',
      projectionDashes: '6px, 4px',
      barDashes: 'none',
      thresholds: 2,
    });
    expect(await page.locator('#visa-visa-style .ratio-levels tr[data-level]').count()).toBe(2);
    await expectPage(page, 'the ratio page', { scripts: 'none', fits: DESKTOP.viewport.width });

    const { page: turkish } = await newPage(PHONE);
    await signIn(turkish, owner);
    await turkish.goto(`${t.urls.web}/dashboard/dispute-ratios?lang=tr`);
    expect(await text(turkish, 'h1')).toBe('İtiraz oranları');
    expect(await text(turkish, '#visa-visa-style .ratio-percent')).toBe('%50,0000');
    expect((await visaChart(turkish)).shown).toBe(true);
    await expectPage(turkish, 'the ratio page in Turkish on a phone', { scripts: 'none', fits: 375 });
  });

  it('support follows the console to the watchlist and on to the merchant view’s ratios', async () => {
    const { page } = await newPage(DESKTOP);
    await signInOperator(page, support, '/organizations');
    await submit(page, 'nav.op-nav a[href="/dispute-ratios"]');
    expect(new URL(page.url()).pathname).toBe('/dispute-ratios');
    expect(await text(page, 'h1')).toBe('Ratio watchlist');
    const row = page.locator(`#ratio-watchlist tr[data-organization-id="${merchant.organizationId}"]`);
    expect(await row.count()).toBe(1);
    expect(
      await text(
        page,
        `#ratio-watchlist tr[data-organization-id="${merchant.organizationId}"] .watch-organization`,
      ),
    ).toBe('Gece Yayın Hizmetleri');
    await expectPage(page, 'the watchlist', { scripts: 'none' });
    await submit(
      page,
      `#ratio-watchlist tr[data-organization-id="${merchant.organizationId}"] .watch-organization`,
    );
    expect(new URL(page.url()).pathname).toBe(`/organizations/${merchant.organizationId}`);
    const sandbox = page.locator('#dispute-ratios table.merchant-ratios[data-environment="sandbox"]');
    expect(
      await sandbox.locator('tr[data-scheme="visa"][data-ratio="visa_style"]').getAttribute('data-percent'),
    ).toBe('50.0000');
    await expectPage(page, 'the merchant view');
  });
});
