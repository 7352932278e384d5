import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { accessibilityProblems, expectStrictPhonePage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant } from '../helpers/merchants.js';
import { merchantApi, paidCharge, TRON_ADDRESS, sandboxMerchant } from '../helpers/payouts.js';

// Balance and payouts in a real Chromium at phone and desktop widths (issue 15 item 2): sign in, open
// Balance, read the cards (the API's balance), find the payout in the table, open it, see the transactions
// it carries and download its batch's statement (the API's, byte for byte); no serious accessibility
// problem, no horizontal scroll on a phone.

let t: TestGateway;
const { newPage, signIn, submit } = useBrowserSuite({
  // No worker: the batch is made by the sandbox test helper.
  gateway: { env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } },
  setUp(started) {
    t = started;
  },
});

/** No serious accessibility problem; on a phone also no sideways scroll (that check runs axe itself). */
async function checkPage(page: Page, phone: boolean, when: string) {
  if (phone) await expectStrictPhonePage(page, when);
  else expect(await accessibilityProblems(page), when).toEqual([]);
}

const WIDTHS = [
  { name: 'phone', ...PHONE },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
] as const;

describe('balance and payouts in Chromium', () => {
  for (const width of WIDTHS) {
    it(`sign in -> Balance -> the payout -> its transactions and statement (${width.name})`, async () => {
      const merchant = await sandboxMerchant(t, { wallet: true });
      await paidCharge(t, merchant, 'sandbox', 1_000_000);
      await paidCharge(t, merchant, 'sandbox', 250_000);
      const settled = await merchantApi<{ batch: { id: string; payoutId: string } }>(
        t,
        merchant,
        'sandbox',
        '/v1/test-helpers/settle',
        {},
      );
      expect(settled.status, settled.text).toBe(200);
      const { id: batchId, payoutId } = settled.body.batch;
      await paidCharge(t, merchant, 'sandbox', 400_000);
      const balance = await merchantApi<{
        balances: Array<{ pending: string; available: string; inTransit: string; reserve: string }>;
      }>(t, merchant, 'sandbox', '/v1/balance');
      const user = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });

      const { page } = await newPage({
        viewport: width.viewport,
        isMobile: width.isMobile,
        acceptDownloads: true,
      });

      await signIn(page, user);
      expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);

      await submit(page, '#balance-link');
      expect(page.url()).toBe(`${t.urls.web}/dashboard/balance?lang=en`);
      expect(await page.locator('h1').textContent()).toBe('Balance and payouts');
      expect(await page.locator('#balance-link').getAttribute('aria-current')).toBe('page');
      const api = balance.body.balances[0];
      expect({
        pending: await page.locator('#balance-pending').getAttribute('data-minor'),
        available: await page.locator('#balance-available').getAttribute('data-minor'),
        inTransit: await page.locator('#balance-in-transit').getAttribute('data-minor'),
        reserve: await page.locator('#balance-reserve').getAttribute('data-minor'),
      }).toEqual({
        pending: api?.pending,
        available: api?.available,
        inTransit: api?.inTransit,
        reserve: api?.reserve,
      });
      // 4 000.00 TRY less 3.50 % + 1.00 TRY is pending; 12 060.50 TRY is on its way.
      expect(await page.locator('#balance-pending').textContent()).toBe('TRY 3,859.00');
      expect(await page.locator('#balance-in-transit').textContent()).toBe('TRY 12,060.50');
      expect(await page.locator('#next-batch-payout').getAttribute('data-payout')).toBe('automatic');
      const row = page.locator('#payouts tbody tr');
      expect(await row.count()).toBe(1);
      expect(await row.getAttribute('data-payout-id')).toBe(payoutId);
      expect(await row.locator('.payout-status').textContent()).toBe('Pending');
      await checkPage(page, width.isMobile, 'the balance');

      await submit(page, `#payouts tr[data-payout-id="${payoutId}"] .payout-link`);
      expect(page.url()).toBe(`${t.urls.web}/dashboard/payouts/${payoutId}?lang=en`);
      expect(await page.locator('#balance-link').getAttribute('aria-current')).toBe('page');
      expect(await page.locator('#payout-status').textContent()).toBe('Pending');
      expect(await page.locator('#batch-link').getAttribute('data-batch-id')).toBe(batchId);
      expect(await page.locator('#transactions tbody tr').count()).toBe(2);
      expect(await page.locator('#transactions tbody tr[data-type="charge"]').count()).toBe(2);
      await checkPage(page, width.isMobile, 'the payout');

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
      expect(download.suggestedFilename()).toBe(`statement-${batchId}.csv`);
      const csv = await readFile(await download.path(), 'utf8');
      const statement = await merchantApi(t, merchant, 'sandbox', `/v1/settlements/${batchId}/statement.csv`);
      expect(csv).toBe(statement.text);

      // The batch it came from, and the Turkish payout page.
      await submit(page, '#batch-link');
      expect(page.url()).toBe(`${t.urls.web}/dashboard/settlements/${batchId}?lang=en`);
      await page.goto(`${t.urls.web}/dashboard/payouts/${payoutId}?lang=tr`);
      expect(await page.locator('#payout-status').textContent()).toBe('Beklemede');
      await checkPage(page, width.isMobile, 'the payout in Turkish');
      await page.goto(`${t.urls.web}/dashboard/balance?lang=tr`);
      expect(await page.locator('#balance-pending').textContent()).toBe('3.859,00 TRY');
      await checkPage(page, width.isMobile, 'the balance in Turkish');
    }, 90_000);
  }

  it('a debt card beside the others, and a payout made with the payout button (phone)', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    const released = await t.gateway.services.settlement.releaseNow({
      organizationId: merchant.organizationId,
      environment: 'sandbox',
    });
    expect(released).toMatchObject({ released: true });
    // A charge refunded in full after that batch: its 4.50 TRY fee is owed, once.
    const refunded = await paidCharge(t, merchant, 'sandbox', 10_000);
    const refund = await merchantApi<{ status: string }>(
      t,
      merchant,
      'sandbox',
      `/v1/charges/${refunded.id}/refunds`,
      {},
    );
    expect(refund.body.status, refund.text).toBe('succeeded');
    const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
    const user = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });

    const { page } = await newPage(PHONE);
    await signIn(page, user);
    await submit(page, '#balance-link');

    expect(await page.locator('#balance-pending').textContent()).toBe('TRY 0.00');
    expect(await page.locator('#balance-debt').textContent()).toBe('TRY 4.50');
    expect(await page.locator('#balance-debt').getAttribute('data-minor')).toBe('450');
    expect(await page.locator('#balance-available').textContent()).toBe('TRY 9,649.00');
    expect(await page.locator('#balance-debt-notice').isVisible()).toBe(true);
    expect(await page.locator('#payout-debt-warning').textContent()).toContain('You owe TRY 4.50');
    await checkPage(page, true, 'the balance with a debt');

    await page.fill('#payout-amount', '1000');
    await submit(page, '#start-payout');
    expect(await page.locator('h1').textContent()).toBe('Confirm the payout');
    expect(await page.locator('#payout-confirm-body').textContent()).toBe(
      'Pay out TRY 1,000.00 of your available TRY 9,649.00 to your TRON (TRC-20) wallet?',
    );
    await checkPage(page, true, 'the payout confirmation');
    await submit(page, '#confirm-payout');
    expect(page.url()).toMatch(
      new RegExp(`^${t.urls.web}/dashboard/payouts/po_[0-9a-z]+\\?lang=en&notice=created$`),
    );
    expect(await page.locator('#notice').isVisible()).toBe(true);
    expect(await page.locator('#payout-try').getAttribute('data-amount')).toBe('100000');
    expect(await page.locator('#payout-kind').textContent()).toBe('Manual');
    await checkPage(page, true, 'the payout made from the page');
    const listed = await merchantApi<{ data: Array<{ id: string; amount: string }> }>(
      t,
      merchant,
      'sandbox',
      '/v1/payouts',
    );
    expect(listed.body.data.map((payout) => payout.amount)).toEqual(['100000']);
    expect(page.url()).toContain(listed.body.data[0]?.id ?? 'none');

    await page.goto(`${t.urls.web}/dashboard/balance?lang=tr`);
    expect(await page.locator('#balance-available').textContent()).toBe('8.649,00 TRY');
    expect(await page.locator('#balance-debt').textContent()).toBe('4,50 TRY');
    await checkPage(page, true, 'the balance in Turkish after the payout');
  }, 90_000);
});
