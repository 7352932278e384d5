import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import { createActiveUser } from '../helpers/accounts.js';
import { expectPage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { postCharge, type CheckoutCharge } from '../helpers/charges.js';
import { solidPng } from '../helpers/images.js';
import { createMerchant } from '../helpers/merchants.js';
import { eventually } from '../helpers/process.js';

// Disputes in the dashboard, in a real Chromium (issue 37 item 7): a customer pays a merchant with the
// `disputes` flag through the hosted checkout with the test card that raises a `fraudulent` dispute; the
// owner finds it under Disputes, opens it and sees its deadline, stages evidence, uploads a PNG, submits
// `winning_evidence` through the confirmation step, and the page ends up `won`. Every page is strict-CSP
// clean (no inline script or style) and has no serious accessibility violation; one is shown in Turkish
// on a phone.

const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false };
const IPTV_LOG = '2026-11-20T21:04:11Z 203.0.113.7 login ok\n2026-11-20T21:04:30Z stream channel 12 (3h)';

let t: TestGateway;
const { newPage, signIn, submit } = useBrowserSuite({
  gateway: {
    env: {
      ROLES: 'api,sandbox-acquirer',
      SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '100',
      SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '100',
    },
  },
  setUp(started) {
    t = started;
  },
});

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();
const strict = (page: Page, when: string, width = DESKTOP.viewport.width) =>
  expectPage(page, when, { scripts: 'none', fits: width });

/** The customer pays on the hosted checkout with `number` (frictionless: no bank page). */
async function payInCheckout(charge: CheckoutCharge, number: string) {
  const { page } = await newPage({ locale: 'en-US' });
  expect((await page.goto(charge.paymentPageUrl))?.status()).toBe(200);
  await page.fill('#holderName', 'Ayşe Yılmaz');
  await page.fill('#cardNumber', number.replace(/(\d{4})(?=\d)/g, '$1 '));
  await page.fill('#expiry', '12/30');
  await page.fill('#cvc', '123');
  await submit(page, '#pay');
  await expect.poll(() => text(page, 'h1'), { timeout: 15_000 }).toBe('Payment received');
}

describe('disputes in Chromium', () => {
  it('a paid charge is disputed; the owner answers with text and a PNG, submits, and the dispute is won', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['disputes'] });
    const charge = await postCharge<CheckoutCharge>(t, merchant, {
      amount: 10_000,
      merchantReference: 'iptv-1042',
    });
    await payInCheckout(charge, TEST_CARDS.disputeFraudulent.number);
    const db = t.gateway.database.db;
    await eventually(
      async () => {
        const row = await db
          .selectFrom('disputes')
          .select('amount_withdrawn')
          .where('charge_id', '=', charge.id)
          .executeTakeFirst();
        return row !== undefined && row.amount_withdrawn !== '0';
      },
      15_000,
      'the dispute of the charge',
    );

    const owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    const { page } = await newPage(DESKTOP);
    await signIn(page, owner);
    await submit(page, '#disputes-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/disputes?lang=en`);
    expect(await text(page, 'h1')).toBe('Disputes');
    const row = page.locator(`#disputes tr[data-charge-id="${charge.id}"]`);
    expect(await row.count()).toBe(1);
    expect(await row.locator('.dispute-amount').textContent()).toBe('TRY 100.00');
    expect(await row.locator('.dispute-reason').textContent()).toBe('Fraudulent');
    expect(await row.locator('.dispute-status').textContent()).toBe('Needs a response');
    expect(await row.locator('.dispute-due').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await strict(page, 'the list');

    await submit(page, `#disputes tr[data-charge-id="${charge.id}"] .dispute-link`);
    const disputeId = await page.locator('#dispute').getAttribute('data-dispute-id');
    expect(disputeId).toMatch(/^dp_/);
    expect(await text(page, '#dispute-deadline')).toMatch(
      /^Send your evidence by \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
    );
    expect(await text(page, '#dispute-reason-code')).toBe('10.4');
    expect(await page.locator('#ledger-entries li').count()).toBe(2);
    await strict(page, 'the dispute');

    // Staged: saved, nothing sent.
    await page.fill('#evidence-productDescription', 'A 12-month IPTV subscription');
    await page.fill('#evidence-accessActivityLog', IPTV_LOG);
    await submit(page, '#save-evidence');
    expect(await text(page, '#notice')).toBe('Evidence saved. It has not been sent yet.');
    expect(await page.locator('#evidence-accessActivityLog').inputValue()).toBe(IPTV_LOG);

    // A small PNG, uploaded as multipart and added to the evidence.
    await page.setInputFiles('#evidence-file', {
      name: 'access-log.png',
      mimeType: 'image/png',
      buffer: solidPng(4, 4, [30, 120, 200]),
    });
    await submit(page, '#upload-file');
    expect(await text(page, '#notice')).toBe('File uploaded and added to the evidence.');
    expect(await page.locator('#evidence-files li .file-name').allTextContents()).toEqual(['access-log.png']);
    await strict(page, 'the dispute with a file');

    // Submitted through the confirmation step.
    await page.fill('#evidence-uncategorizedText', 'winning_evidence: the customer streamed for three hours');
    await submit(page, '#submit-evidence');
    expect(await text(page, 'h1')).toBe('Submit the evidence?');
    expect(await text(page, '.confirm-value[data-field="uncategorizedText"]')).toBe(
      'winning_evidence: the customer streamed for three hours',
    );
    await strict(page, 'the confirmation');
    await submit(page, '#confirm-submit');
    expect(await text(page, '#notice')).toBe('Evidence sent to the card issuer.');
    expect(await page.locator('#evidence-form').count()).toBe(0);

    // The issuer decides a moment later: reloaded until the page says so.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#dispute-status').getAttribute('data-status');
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe('won');
    expect(await text(page, '#dispute-status')).toBe('Won');
    expect(await text(page, '#dispute-reinstated')).toBe('TRY 100.00');
    expect(await page.locator('#ledger-entries li[data-kind="dispute_funds_reinstated"]').count()).toBe(1);
    expect(await page.locator('#submissions .submission').count()).toBe(1);

    // In Turkish, on a phone.
    const phone = await newPage(PHONE);
    await signIn(phone.page, owner);
    await phone.page.goto(`${t.urls.web}/dashboard/disputes/${disputeId}?lang=tr`);
    expect(await text(phone.page, '#dispute-status')).toBe('Kazanıldı');
    expect(await text(phone.page, '#disputes-link')).toBe('İtirazlar');
    expect(await text(phone.page, '#evidence-heading')).toBe('Kanıt');
    expect(await text(phone.page, '#dispute-amount')).toBe('100,00 TRY');
    await strict(phone.page, 'the dispute in Turkish', 375);
    await phone.page.goto(`${t.urls.web}/dashboard/disputes?lang=tr`);
    expect(await text(phone.page, 'h1')).toBe('İtirazlar');
    await strict(phone.page, 'the list in Turkish', 375);
  });
});
