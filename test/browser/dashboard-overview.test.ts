import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import { DAY } from '../../src/shared/clock.js';
import { createActiveUser } from '../helpers/accounts.js';
import { accessibilityProblems, expectStrictPhonePage } from '../helpers/browser.js';
import { useBrowserSuite, type SuitePage } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant } from '../helpers/merchants.js';
import { merchantApi, paidCharge } from '../helpers/payouts.js';
import { postCharge } from '../helpers/charges.js';

// The overview's charts in a real Chromium (issue 15 item 3): the figures a merchant reads on the home
// page are the API's, the charts are drawn under the strict CSP without a script, they fit a phone, the
// numbers behind them open with the keyboard, and nothing is an accessibility violation. With
// SCREENSHOTS_DIR set it writes the overview as PNG (docs/dashboard.md).

let t: TestGateway;
const { newPage, signIn } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

async function signInViewer(
  organizationId: string,
  viewport: { width: number; height: number },
): Promise<SuitePage> {
  const user = await createActiveUser(t, { organizationId, role: 'viewer' });
  const opened = await newPage({ viewport, isMobile: viewport.width < 500 });
  await signIn(opened.page, user);
  return opened;
}

describe('the overview in Chromium', () => {
  it('the charts and figures a viewer reads are the API’s, on a phone and a desktop', async () => {
    const merchant = await createMerchant(t);
    const amounts = [[125_000, 40_000], [], [310_050], [88_800, 12_345, 60_000]];
    for (const [index, day] of amounts.entries()) {
      if (index > 0) t.clock.advance(DAY);
      for (const amount of day) await paidCharge(t, merchant, 'sandbox', amount);
    }
    const list = await merchantApi<{ data: Array<{ amount: number; status: string }> }>(
      t,
      merchant,
      'sandbox',
      '/v1/charges?limit=100',
    );
    const volume = list.body.data
      .filter((charge) => charge.status === 'succeeded')
      .reduce((sum, charge) => sum + BigInt(charge.amount), 0n);
    expect(volume).toBe(636_195n);

    const { page, context } = await signInViewer(merchant.organizationId, { width: 375, height: 740 });
    await page.goto(`${t.urls.web}/dashboard?lang=en&period=7`);
    expect(await page.locator('#total-volume').getAttribute('data-minor')).toBe(String(volume));
    expect(await page.locator('#total-volume').textContent()).toBe('TRY 6,361.95');
    expect(await page.locator('#total-succeeded').textContent()).toBe('6');
    expect(await page.locator('#total-success-rate').textContent()).toBe('100.0%');
    // A bar for each of the three days with payments, in every chart of payments.
    expect(await page.locator('#chart-volume rect.bar').count()).toBe(3);
    expect(await page.locator('#chart-count rect.bar').count()).toBe(3);
    expect(await page.locator('#chart-refunded rect.bar').count()).toBe(0);
    // The bars are drawn: the tallest day (3 105.50 TRY) fills the chart's height.
    const heights = await page
      .locator('#chart-volume rect.bar')
      .evaluateAll((bars) =>
        bars.map((bar) => (bar as unknown as { getBBox(): { height: number } }).getBBox().height),
      );
    expect(Math.max(...heights)).toBe(160);
    await expectStrictPhonePage(page, 'the overview on a phone');

    // The numbers behind the charts open with the keyboard.
    await page.focus('#overview details summary');
    await page.keyboard.press('Enter');
    expect(await page.locator('#overview-table').isVisible()).toBe(true);
    const today = t.clock.now().toISOString().slice(0, 10);
    expect(await page.locator(`#overview-table tr[data-day="${today}"]`).getAttribute('data-volume')).toBe(
      '161145',
    );
    expect(await accessibilityProblems(page), 'the numbers open').toEqual([]);

    // A desktop, in Turkish, 30 days.
    await context.close();
    const { page: desktop } = await signInViewer(merchant.organizationId, { width: 1280, height: 900 });
    await desktop.goto(`${t.urls.web}/dashboard?lang=tr`);
    expect(await desktop.locator('#overview-heading').textContent()).toBe('Genel bakış');
    expect(await desktop.locator('#total-volume').textContent()).toBe('6.361,95 TRY');
    expect(await accessibilityProblems(desktop), 'the overview in Turkish').toEqual([]);
    const dir = process.env.SCREENSHOTS_DIR;
    if (dir) {
      await mkdir(dir, { recursive: true });
      await desktop
        .locator('#overview')
        .screenshot({ path: path.join(dir, 'dashboard-overview-desktop-tr.png') });
    }
  });

  it('rounds the success rate as a merchant does: 11 of 12 reads 91.7%, not 91.6%', async () => {
    const merchant = await createMerchant(t);
    for (let i = 0; i < 11; i += 1) await paidCharge(t, merchant, 'sandbox', 2_000 + i);
    // One charge declined at the acquirer until it failed.
    const created = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, { amount: 900 });
    const acquirer = t.gateway.services.acquirers.sandbox?.acquirer;
    if (!acquirer) throw new Error('no sandbox acquirer');
    const card = {
      number: TEST_CARDS.cardDeclined.number,
      expMonth: 12,
      expYear: 2030,
      cvc: '123',
      holderName: 'D',
    };
    let payment = await acquirer.authorize(created.providerPaymentId, card, 'https://shop.example/back');
    for (let attempt = 0; attempt < 10 && payment.status !== 'failed'; attempt += 1)
      payment = await acquirer.authorize(created.providerPaymentId, card, 'https://shop.example/back');
    expect(payment.status).toBe('failed');
    await t.gateway.services.completion.apply(created.id, payment);

    const { page } = await signInViewer(merchant.organizationId, { width: 1280, height: 900 });
    await page.goto(`${t.urls.web}/dashboard?lang=en&period=7`);
    expect(await page.locator('#total-succeeded').textContent()).toBe('11');
    expect(await page.locator('#total-success-rate').textContent()).toBe('91.7%');
    await page.goto(`${t.urls.web}/dashboard?lang=tr&period=7`);
    expect(await page.locator('#total-success-rate').textContent()).toBe('%91,7');
    expect(await accessibilityProblems(page), 'the overview').toEqual([]);
  });
});
