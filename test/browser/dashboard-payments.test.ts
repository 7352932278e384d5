import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import type { UserRole } from '../../src/db/schema.js';
import { createActiveUser } from '../helpers/accounts.js';
import { expectPage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { payByCard, postCharge } from '../helpers/charges.js';

// Payments in the dashboard, in a real Chromium at phone and desktop widths (issue 15 item 1): an owner
// opens Payments, finds a charge by its filters, opens it, refunds part of it through the confirmation
// step and sees the refunded and refundable amounts, the timeline and the ledger change; a viewer sees
// no refund button. Every page is strict-CSP clean (no inline script or style) and, on the phone, has no
// horizontal scroll; no card number or ID number is ever in a page.

const ID_NUMBER = '10000000146';
const CARD_NUMBER = TEST_CARDS.visa.number;
const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false };

let t: TestGateway;
const { newPage, signIn, submit, expectProblems } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

async function expectStrictPage(page: Page, width: number, when: string) {
  const content = await page.content();
  expect(content, when).not.toContain(CARD_NUMBER);
  expect(content, when).not.toContain(ID_NUMBER);
  await expectPage(page, when, { scripts: 'none', fits: width });
}

async function newCharge(merchant: Merchant, overrides: Record<string, unknown>) {
  t.clock.advance(1000);
  return postCharge<{ id: string; providerPaymentId: string }>(t, merchant, overrides);
}

async function paidCharge(merchant: Merchant, overrides: Record<string, unknown>) {
  const charge = await newCharge(merchant, overrides);
  await payByCard(t.gateway.services, charge, 'Ayşe Yılmaz', { number: CARD_NUMBER });
  return charge;
}

async function signInAs(
  organizationId: string,
  role: UserRole,
  device: typeof PHONE | typeof DESKTOP,
): Promise<Page> {
  const user = await createActiveUser(t, { organizationId, role });
  const { page } = await newPage(device);
  await signIn(page, user);
  expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
  return page;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();

describe('payments in Chromium', () => {
  for (const [name, device] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    it(`an owner on a ${name}: find a charge by filter, open it, refund part of it with the confirmation step`, async () => {
      const width = device.viewport.width;
      const merchant = await createMerchant(t);
      const charge = await paidCharge(merchant, {
        amount: 10_000,
        merchantReference: `order-${name}-<b>1</b>`,
        customer: { name: 'Ayşe Yılmaz', email: 'ayse@example.com', idNumber: ID_NUMBER },
      });
      await paidCharge(merchant, { amount: 20_000, customer: { email: 'mehmet@example.com' } });
      await newCharge(merchant, { amount: 10_000, customer: { email: 'ayse@example.com' } });

      const page = await signInAs(merchant.organizationId, 'owner', device);
      await submit(page, '#payments-link');
      expect(page.url()).toBe(`${t.urls.web}/dashboard/payments?lang=en`);
      expect(await text(page, 'h1')).toBe('Payments');
      const items = page.locator('#payments tbody > tr');
      expect(await items.count()).toBe(3);
      await expectStrictPage(page, width, 'the list');

      // Find it: succeeded, by the customer's e-mail, between 50 and 150 TRY. The filters are folded
      // away until opened, and stay open while any is set.
      expect(await page.locator('#filters-panel').getAttribute('open')).toBeNull();
      expect(await page.locator('#filter-status').isVisible()).toBe(false);
      await page.click('#filters-panel summary');
      await page.selectOption('#filter-status', 'succeeded');
      await page.fill('#filter-email', 'AYSE@example.com');
      await page.fill('#filter-min', '50');
      await page.fill('#filter-max', '150.00');
      await submit(page, '#apply-filters');
      expect(page.url()).toContain('status=succeeded');
      expect(await items.count()).toBe(1);
      expect(await items.first().getAttribute('data-charge-id')).toBe(charge.id);
      expect(await items.first().locator('.payment-reference').textContent()).toBe(`order-${name}-<b>1</b>`);
      expect(await page.locator('#filter-email').inputValue()).toBe('AYSE@example.com');
      expect(await page.locator('#filter-status').isVisible()).toBe(true);
      await expectStrictPage(page, width, 'the filtered list');

      // A bad filter: the page says which, with the form kept.
      expectProblems(/status of 400/);
      await page.fill('#filter-min', 'abc');
      await submit(page, '#apply-filters');
      expect(await page.locator('#filter-errors li').allTextContents()).toEqual([
        'The smallest amount is not an amount in TRY, like 125.50.',
      ]);
      expect(await page.locator('#filter-min').getAttribute('aria-invalid')).toBe('true');
      await page.fill('#filter-min', '50');
      await submit(page, '#apply-filters');
      expect(await items.count()).toBe(1);

      await submit(page, `tr[data-charge-id="${charge.id}"] .payment-link`);
      expect(page.url()).toBe(`${t.urls.web}/dashboard/payments/${charge.id}?lang=en`);
      expect(await text(page, '#payment-status')).toBe('Succeeded');
      expect(await text(page, '#payment-amount')).toBe('TRY 100.00');
      expect(await text(page, '#payment-refunded')).toBe('TRY 0.00');
      expect(await text(page, '#payment-refundable')).toBe('TRY 100.00');
      expect(await text(page, '#payment-card')).toBe('visa •••• 4242');
      expect(await text(page, '#customer-name')).toBe('Ayşe Yılmaz');
      const timeline = page.locator('#timeline > li');
      const kinds = () => timeline.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-kind')));
      expect(await kinds()).not.toContain('refund');
      expect(await page.locator('#ledger-lines > li[data-kind="refund"]').count()).toBe(0);
      await expectStrictPage(page, width, 'the charge');

      // Refund 30 TRY: the confirmation step shows the amount; cancel first, then confirm.
      await page.fill('#refund-amount', '30');
      await submit(page, '#start-refund');
      expect(await text(page, 'h1')).toBe('Confirm the refund');
      expect(await text(page, '#confirm-body')).toBe(
        `Refund TRY 30.00 of TRY 100.00 to the customer of order-${name}-<b>1</b>?`,
      );
      await expectStrictPage(page, width, 'the confirmation');
      await submit(page, '#cancel-refund');
      expect(await text(page, '#payment-refunded')).toBe('TRY 0.00');
      await page.fill('#refund-amount', '30');
      await submit(page, '#start-refund');
      await submit(page, '#confirm-refund');
      expect(page.url()).toBe(`${t.urls.web}/dashboard/payments/${charge.id}?lang=en&notice=refunded`);
      expect(await text(page, '#notice')).toBe('The refund succeeded.');
      expect(await text(page, '#payment-refunded')).toBe('TRY 30.00');
      expect(await text(page, '#payment-refundable')).toBe('TRY 70.00');
      expect(await page.locator('#refunds > li .refund-amount').allTextContents()).toEqual(['TRY 30.00']);
      expect(await kinds()).toContain('refund');
      expect(
        await page.locator('#timeline > li[data-kind="refund"] .member-name').first().textContent(),
      ).toBe('Refund of TRY 30.00: Succeeded');
      expect(
        await page
          .locator('#ledger-lines > li[data-kind="refund"][data-account="merchant_pending"] .ledger-amount')
          .textContent(),
      ).toBe('-TRY 30.00');
      // The merchant's own credit reads as a credit, not as "-TRY 95.50".
      expect(
        await page
          .locator(
            '#ledger-lines > li[data-kind="charge_succeeded"][data-account="merchant_pending"] .ledger-amount',
          )
          .textContent(),
      ).toBe('+TRY 95.50');
      // Still Succeeded (the customer paid), and partially refunded beside it, with the fee kept said.
      expect(await text(page, '#payment-status')).toBe('Succeeded');
      expect(await text(page, '#payment-refund-state')).toBe('· Partially refunded');
      expect(await text(page, '#refund-fee-kept')).toContain('the card fee of TRY 4.50 is not returned');
      expect(await page.locator('#events > li[data-type="charge.refunded"]').count()).toBe(1);
      await expectStrictPage(page, width, 'the charge after the refund');

      // The list says it too, and its refund filter finds it.
      await page.goto(`${t.urls.web}/dashboard/payments?lang=en`);
      await page.click('#filters-panel summary');
      await page.selectOption('#filter-refunded', 'partial');
      await submit(page, '#apply-filters');
      expect(page.url()).toContain('refunded=partial');
      expect(await items.count()).toBe(1);
      expect(await items.first().getAttribute('data-charge-id')).toBe(charge.id);
      expect(await text(page, `tr[data-charge-id="${charge.id}"] .payment-refund`)).toBe(
        'Partially refunded · TRY 30.00',
      );
      await expectStrictPage(page, width, 'the list filtered by refunds');
      await page.goto(`${t.urls.web}/dashboard/payments/${charge.id}?lang=en`);

      // More than remains: a friendly error on the page.
      await page.fill('#refund-amount', '70.01');
      await submit(page, '#start-refund');
      expect(await text(page, '#refund-error')).toBe('That is more than remains refundable (TRY 70.00).');
      expect(await text(page, '#payment-refundable')).toBe('TRY 70.00');

      // In Turkish.
      await page.goto(`${t.urls.web}/dashboard/payments/${charge.id}?lang=tr`);
      expect(await text(page, '#payment-refunded')).toBe('30,00 TRY');
      expect(await text(page, '#payment-status')).toBe('Başarılı');
      expect(await text(page, '#payments-link')).toBe('Ödemeler');
      await expectStrictPage(page, width, 'the charge in Turkish');
      // Every page of the walk is checked with axe: over a minute on a loaded machine.
    }, 120_000);
  }

  it('a viewer sees the charge but no refund button', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant, { amount: 5_000 });
    const page = await signInAs(merchant.organizationId, 'viewer', PHONE);
    await submit(page, '#payments-link');
    await submit(page, `tr[data-charge-id="${charge.id}"] .payment-link`);
    expect(await text(page, '#payment-status')).toBe('Succeeded');
    expect(await page.locator('#refund-form, #start-refund, #refund-amount').count()).toBe(0);
    expect(await page.locator(`a[href*="/refund"], form[action*="/refund"]`).count()).toBe(0);
    await expectStrictPage(page, 375, 'the charge as a viewer');
  });
});
