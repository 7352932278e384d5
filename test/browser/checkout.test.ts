import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/db/schema.js';
import { sql } from 'kysely';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import { computeFee, defaultFeeRate } from '../../src/modules/ledger/fees.js';
import { expectPage } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import { acquirerControl, latencyFault } from '../helpers/acquirer.js';
import type { TestGateway } from '../helpers/gateway.js';
import { request } from '../helpers/http.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { postCharge, readCharge, type CheckoutCharge } from '../helpers/charges.js';

// The hosted checkout in a real Chromium: a 3-D Secure card payment through the sandbox acquirer's bank
// page, declines up to the attempt limit, a bank transfer whose page updates by itself, expiry, both
// languages on a phone-sized screen, and never a console error or a CSP violation.

type ChargeBody = CheckoutCharge;

const ATTEMPTS = 2;
let t: TestGateway;
let merchant: Merchant;
let web: string;

// Every page of every test stays clean (the suite's check after each test): no console error or warning,
// no uncaught exception, no dialog and no CSP violation, on the gateway's pages and on the acquirer's
// 3-D Secure page alike.
const { newPage, submit } = useBrowserSuite({
  // A longer acquirer timeout: one test holds a card at the acquirer for a few seconds.
  gateway: { env: { CHECKOUT_CARD_ATTEMPTS: String(ATTEMPTS), ACQUIRER_TIMEOUT_MS: '15000' } },
  async setUp(started) {
    t = started;
    merchant = await createMerchant(t);
    web = t.urls.web;
  },
});

const open = (options: BrowserContextOptions = {}) => newPage({ locale: 'en-US', ...options });

async function createCharge(
  overrides: Record<string, unknown> = {},
  environment: Environment = 'sandbox',
): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant, overrides, environment);
}

async function getCharge(id: string): Promise<ChargeBody> {
  const res = await readCharge<ChargeBody>(t, merchant, id);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The claim of a card attempt in flight (ADR 0065), or null. */
async function claimOf(chargeId: string): Promise<Date | null> {
  const row = await t.gateway.database.db
    .selectFrom('charges')
    .select('card_attempt_claimed_until')
    .where('id', '=', chargeId)
    .executeTakeFirstOrThrow();
  return row.card_attempt_claimed_until;
}

async function fillCard(page: Page, number: string, overrides: { expiry?: string; cvc?: string } = {}) {
  await page.fill('#holderName', 'Ayşe Yılmaz');
  await page.fill('#cardNumber', number.replace(/(\d{4})(?=\d)/g, '$1 '));
  await page.fill('#expiry', overrides.expiry ?? '12/30');
  await page.fill('#cvc', overrides.cvc ?? '123');
}

const pay = (page: Page) => submit(page, '#pay');

/** Only our own script and JSON data blocks; no inline style or handler. */
const expectStrictPage = (page: Page) => expectPage(page, page.url(), { scripts: '/assets/checkout.js' });

const expectFitsPhone = (page: Page, when: string) => expectPage(page, when, { fits: 375 });

describe('the hosted checkout in Chromium', () => {
  it('pays a card with 3-D Secure on the acquirer page and comes back to the paid page', async () => {
    const charge = await createCharge({ amount: 12550, returnUrl: 'https://shop.example/thanks?order=1042' });
    const { page } = await open();
    const response = await page.goto(charge.paymentPageUrl);
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Pay by card');
    expect(await page.locator('#amount').textContent()).toBe('TRY 125.50');
    await expectStrictPage(page);
    for (const [field, hint] of [
      ['holderName', 'cc-name'],
      ['cardNumber', 'cc-number'],
      ['expiry', 'cc-exp'],
      ['cvc', 'cc-csc'],
    ] as const) {
      expect(await page.locator(`#${field}`).getAttribute('autocomplete')).toBe(hint);
    }

    await fillCard(page, TEST_CARDS.challenge.number);
    await page.click('#pay');
    // The checkout hands over to the bank's page (the sandbox acquirer's challenge).
    await page.waitForURL((url) => url.href.startsWith(`${t.sandboxAcquirer.url}/3ds/`));
    expect(await page.locator('body').textContent()).toContain('3220');
    await page.fill('#code', '123456');
    await Promise.all([
      page.waitForURL(`${web}/c/${charge.providerPaymentId}?lang=en`),
      page.click('button[type="submit"]'),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Payment received');
    expect(await page.locator('#paid-with').textContent()).toBe('Visa •••• 3220');
    expect(await page.locator('#return-to-merchant').getAttribute('href')).toBe(
      `https://shop.example/thanks?order=1042&charge=${charge.id}&status=succeeded`,
    );
    await expectStrictPage(page);

    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    const row = await t.gateway.database.db
      .selectFrom('charges')
      .select(['card_brand', 'card_last4'])
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ card_brand: 'visa', card_last4: '3220' });
  });

  it('checks the card in the browser, shows a decline with the attempts left, and fails at the limit', async () => {
    const charge = await createCharge();
    const { page } = await open();
    await page.goto(charge.paymentPageUrl);

    // Checked before anything is sent: a wrong number, a past expiry, a short CVC, no name.
    await page.fill('#cardNumber', '4242 4242 4242 4241');
    await page.fill('#expiry', '10/26');
    await page.fill('#cvc', '12');
    await page.click('#pay');
    expect(await page.locator('#form-error').textContent()).toBe('Please correct the highlighted fields.');
    expect(await page.locator('#holderName-error').textContent()).toBe('This field is required.');
    expect(await page.locator('#cardNumber-error').textContent()).toBe('This card number is not valid.');
    expect(await page.locator('#expiry-error').textContent()).toBe('This card has expired.');
    expect(await page.locator('#cvc-error').textContent()).toBe('The security code has 3 or 4 digits.');
    expect(await page.locator('#cardNumber').getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toBe(charge.paymentPageUrl);

    await fillCard(page, TEST_CARDS.insufficientFunds.number);
    expect(await page.locator('#cardNumber').getAttribute('aria-invalid')).toBeNull();
    await pay(page);
    expect(page.url()).toBe(`${web}/c/${charge.providerPaymentId}?lang=en`);
    expect(await page.locator('#decline').textContent()).toBe(
      'Your card was declined: The card has insufficient funds. Attempts left: 1.',
    );
    // The number and the CVC are not kept in the form.
    expect(await page.inputValue('#cardNumber')).toBe('');
    expect(await page.inputValue('#cvc')).toBe('');
    expect((await getCharge(charge.id)).status).toBe('pending');

    await fillCard(page, TEST_CARDS.stolenCard.number);
    await pay(page);
    expect(await page.locator('h1').textContent()).toBe('Payment failed');
    expect(await page.locator('#failure-reason').textContent()).toBe('Reason: The card was declined.');
    expect(await page.locator('#card-form').count()).toBe(0);
    expect(await getCharge(charge.id)).toMatchObject({ status: 'failed', providerStatus: 'failed' });
  });

  it('shows a second tab that the payment is in progress while the card is at the acquirer, then the outcome by itself', async () => {
    const charge = await createCharge();
    const control = acquirerControl(t.sandboxAcquirer);
    await control.addFault(latencyFault('authorize', 6000, { times: 1, match: { reference: charge.id } }));
    const second = await open({ locale: 'tr-TR' });
    const first = await open();
    await first.page.goto(charge.paymentPageUrl);
    await fillCard(first.page, TEST_CARDS.visa.number);
    const paying = Promise.all([first.page.waitForNavigation({ timeout: 30_000 }), first.page.click('#pay')]);
    for (const deadline = Date.now() + 15_000; (await claimOf(charge.id)) === null;) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await second.page.goto(charge.paymentPageUrl);
    expect(await second.page.locator('h1').textContent()).toBe('Ödemeniz işleniyor');
    expect(await second.page.locator('#card-form').count()).toBe(0);
    // It asks again by itself, and shows the outcome once it is known.
    await second.page.waitForSelector('h1:text("Ödeme alındı")', { timeout: 30_000 });

    await paying;
    expect(await first.page.locator('h1').textContent()).toBe('Payment received');
    expect(await control.calls('authorize', charge.providerPaymentId)).toHaveLength(1);
  });

  it('keeps a claim a crashed process left until its lease runs out, then shows the form by itself', async () => {
    const charge = await createCharge();
    // What a process that died with the card at the acquirer leaves: a claimed attempt.
    expect(await t.gateway.services.completion.takeCardAttempt(charge.id)).toBe(1);
    const { page } = await open({ locale: 'tr-TR', viewport: { width: 375, height: 667 }, hasTouch: true });
    await page.goto(charge.paymentPageUrl);
    expect(await page.locator('h1').textContent()).toBe('Ödemeniz işleniyor');
    expect(await page.locator('#in-progress').textContent()).toContain('Lütfen formu tekrar göndermeyin');
    expect(await page.locator('#check-status').getAttribute('href')).toBe(
      `/c/${charge.providerPaymentId}?lang=tr`,
    );
    await expectStrictPage(page);
    await expectFitsPhone(page, 'payment in progress, Turkish');

    t.clock.advance(t.gateway.services.config.idempotencyLockMs + 1000);
    await page.waitForSelector('h1:text("Kartla öde")', { timeout: 20_000 });
    expect(await claimOf(charge.id)).toBeNull();
    await fillCard(page, TEST_CARDS.visa.number);
    await submit(page, '#pay', 'tap');
    expect(await page.locator('h1').textContent()).toBe('Ödeme alındı');
    expect(
      await acquirerControl(t.sandboxAcquirer).calls('authorize', charge.providerPaymentId),
    ).toHaveLength(1);
  });

  it('shows the bank transfer details and updates to paid by itself when the transfer arrives', async () => {
    const charge = await createCharge({ paymentMethod: 'bank_transfer', amount: 99_900 });
    const { page } = await open();
    await page.goto(charge.paymentPageUrl);
    expect(await page.locator('h1').textContent()).toBe('Pay by bank transfer');
    expect(await page.locator('#iban').textContent()).toMatch(/^TR\d{2}( [0-9A-Z]{4}){5} [0-9A-Z]{2}$/);
    expect(await page.locator('#payment-reference').textContent()).toMatch(/^SA[0-9A-Z]{8}$/);
    expect(await page.locator('#account-holder').textContent()).toBe('Sandbox Acquirer A.Ş.');
    expect(await page.locator('#amount').textContent()).toBe('TRY 999.00');
    await expectStrictPage(page);

    // The money arrives at the acquirer, not through this page: the page finds out by itself.
    const arrived = await request(
      `${t.sandboxAcquirer.url}/v1/payments/${charge.providerPaymentId}/simulate-transfer`,
      { method: 'POST', body: {}, headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` } },
    );
    expect(arrived.status, arrived.text).toBe(200);
    await page.waitForURL(`${web}/c/${charge.providerPaymentId}?lang=en`, { timeout: 15_000 });
    expect(await page.locator('h1').textContent()).toBe('Payment received');
    expect(await page.locator('#paid-with').textContent()).toBe('Bank transfer');
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('pays a bank transfer with the sandbox control', async () => {
    const charge = await createCharge({ paymentMethod: 'bank_transfer' });
    const { page } = await open();
    await page.goto(charge.paymentPageUrl);
    await submit(page, '#simulate-transfer button');
    expect(await page.locator('h1').textContent()).toBe('Payment received');
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('is in Turkish and English and fits 375x667 without horizontal scrolling', async () => {
    const cardCharge = await createCharge({
      amount: 12550,
      merchantReference: `sipariş-${'uzun'.repeat(12)}`,
    });
    const transfer = await createCharge({ paymentMethod: 'bank_transfer', amount: 123_456_789 });
    const { page } = await open({ locale: 'tr-TR', viewport: { width: 375, height: 667 }, hasTouch: true });

    await page.goto(cardCharge.paymentPageUrl);
    expect(await page.getAttribute('html', 'lang')).toBe('tr');
    expect(await page.locator('h1').textContent()).toBe('Kartla öde');
    expect(await page.locator('#amount').textContent()).toBe('125,50 TRY');
    expect(await page.locator('#pay').textContent()).toBe('125,50 TRY öde');
    await expectFitsPhone(page, 'card form, Turkish');
    await page.tap('#pay');
    expect(await page.locator('#holderName-error').textContent()).toBe('Bu alan zorunludur.');
    await expectFitsPhone(page, 'card form with errors, Turkish');

    await submit(page, 'a.lang', 'tap');
    expect(page.url()).toBe(`${web}/c/${cardCharge.providerPaymentId}?lang=en`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.locator('#amount').textContent()).toBe('TRY 125.50');
    await expectFitsPhone(page, 'card form, English');

    // The language stays through a payment.
    await submit(page, 'a.lang', 'tap');
    await fillCard(page, TEST_CARDS.visa.number);
    await submit(page, '#pay', 'tap');
    expect(page.url()).toBe(`${web}/c/${cardCharge.providerPaymentId}?lang=tr`);
    expect(await page.locator('h1').textContent()).toBe('Ödeme alındı');
    await expectFitsPhone(page, 'paid page, Turkish');

    await page.goto(transfer.paymentPageUrl);
    expect(await page.locator('h1').textContent()).toBe('Havale/EFT ile öde');
    expect(await page.locator('#amount').textContent()).toBe('1.234.567,89 TRY');
    await expectFitsPhone(page, 'bank transfer, Turkish');
    await page.goto(`${transfer.paymentPageUrl}?lang=en`);
    expect(await page.locator('#amount').textContent()).toBe('TRY 1,234,567.89');
    await expectFitsPhone(page, 'bank transfer, English');
  });

  // Near the end: it moves the shared clock a day forward.
  it('shows the expired page once expiresAt has passed, before the expiry job runs', async () => {
    const cardCharge = await createCharge({ returnUrl: 'https://shop.example/back' });
    const transfer = await createCharge({ paymentMethod: 'bank_transfer' });
    const { page } = await open();
    await page.goto(transfer.paymentPageUrl);
    expect(await page.locator('h1').textContent()).toBe('Pay by bank transfer');

    t.clock.set(new Date(new Date(transfer.expiresAt).getTime() + 1));
    // The open bank-transfer page notices by itself.
    await page.waitForURL(`${web}/c/${transfer.providerPaymentId}?lang=en`, { timeout: 15_000 });
    expect(await page.locator('h1').textContent()).toBe('This payment link has expired');

    await page.goto(cardCharge.paymentPageUrl);
    expect(await page.locator('h1').textContent()).toBe('This payment link has expired');
    expect(await page.locator('#card-form').count()).toBe(0);
    expect(await page.locator('#return-to-merchant').getAttribute('href')).toBe(
      `https://shop.example/back?charge=${cardCharge.id}&status=expired`,
    );

    // The expiry job then cancels both at the acquirer and records the expiry.
    await t.gateway.services.completion.expireDue();
    for (const charge of [cardCharge, transfer]) {
      expect(await getCharge(charge.id)).toMatchObject({ status: 'expired', providerStatus: 'canceled' });
    }
  });

  // After every flow above: the ledger and the balance agree with what was paid, and no card data is
  // anywhere in the logs or in any table.
  it('leaves one balanced ledger entry per paid charge, the right balance, and no card data', async () => {
    const db = t.gateway.database.db;
    const charges = await db
      .selectFrom('charges')
      .select(['id', 'status', 'amount', 'payment_method'])
      .where('organization_id', '=', merchant.organizationId)
      .where('environment', '=', 'sandbox')
      .execute();
    const paid = charges.filter((charge) => charge.status === 'succeeded');
    expect(paid.length).toBeGreaterThanOrEqual(4);
    const entries = await db
      .selectFrom('journal_entries')
      .select(['id', 'source_id'])
      .where('organization_id', '=', merchant.organizationId)
      .where('kind', '=', 'charge_succeeded')
      .execute();
    expect(entries.map((entry) => entry.source_id).sort()).toEqual(paid.map((charge) => charge.id).sort());
    const sums = await db
      .selectFrom('ledger_postings')
      .select(['entry_id', (eb) => eb.fn.sum<string>('amount').as('total')])
      .where('organization_id', '=', merchant.organizationId)
      .groupBy('entry_id')
      .execute();
    expect(sums.every((row) => BigInt(row.total) === 0n)).toBe(true);

    const expectedPending = paid.reduce((total, charge) => {
      const rate = defaultFeeRate(charge.payment_method);
      return total + computeFee(BigInt(charge.amount), rate.basisPoints, rate.fixedMinor).net;
    }, 0n);
    const balance = await request<{ balances: Array<{ currency: string; pending: string }> }>(
      `${t.urls.sandboxApi}/v1/balance`,
      { headers: { 'x-api-key': merchant.keys.sandbox.secret } },
    );
    expect(balance.body.balances.find((row) => row.currency === 'TRY')?.pending).toBe(
      expectedPending.toString(),
    );

    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
    `.execute(db);
    let dump = '';
    for (const { table_name } of tables.rows) {
      dump += JSON.stringify((await sql`SELECT * FROM ${sql.table(table_name)}`.execute(db)).rows);
    }
    const logs = t.logs.join('\n');
    for (const card of Object.values(TEST_CARDS)) {
      for (const text of [dump, logs]) {
        expect(text).not.toContain(card.number);
        expect(text).not.toContain(card.number.replace(/(\d{4})(?=\d)/g, '$1 '));
      }
    }
    // The CVC the flows typed, next to anything that names it.
    expect(`${dump}${logs}`).not.toMatch(/"(?:cvc|cvv|csc)"\s*:/i);
  });
});
