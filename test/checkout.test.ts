/**
 * The hosted checkout over HTTP (product decision 18, issue 6 items 1 and 2): the running gateway, its
 * web listener and the sandbox acquirer over a socket. The browser side is test/browser/checkout.test.ts.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/db/schema.js';
import { checkCard, parseExpiry } from '../src/modules/checkout/card.js';
import { formatAmount, returnLink } from '../src/modules/checkout/format.js';
import { DAY } from '../src/shared/clock.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl } from './helpers/acquirer.js';
import { t, useTestGateway, web, eventsOf } from './helpers/suite.js';
import { postCharge, readCharge, freshCardNumber, type CheckoutCharge } from './helpers/charges.js';
import { request } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

type ChargeBody = CheckoutCharge;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const ATTEMPTS = 2;
let merchant: Merchant;

useTestGateway({ env: { CHECKOUT_CARD_ATTEMPTS: String(ATTEMPTS) } }, async () => {
  merchant = await createMerchant(t);
});

const db = () => t.gateway.database.db;

async function createCharge(
  overrides: Record<string, unknown> = {},
  environment: Environment = 'sandbox',
): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant, overrides, environment);
}

async function getCharge(id: string, environment: Environment = 'sandbox'): Promise<ChargeBody> {
  const res = await readCharge<ChargeBody>(t, merchant, id, environment);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function fetchManual(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const page = (paymentId: string, query = '', headers: Record<string, string> = {}) =>
  fetchManual(`${web}/c/${paymentId}${query}`, { headers });

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetchManual(`${web}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const card = (number: string, overrides: Record<string, string> = {}) => ({
  holderName: 'Ayşe Yılmaz',
  cardNumber: number,
  expiry: '12/30',
  cvc: '123',
  ...overrides,
});

const postCard = (paymentId: string, fields: Record<string, string>, lang = 'en', headers = {}) =>
  post(`/c/${paymentId}/card?lang=${lang}`, fields, headers);

function expectHtmlPage(answer: Answer, status: number) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
}

function expectRedirectToPage(answer: Answer, paymentId: string, lang = 'en') {
  expect(answer.status, answer.text).toBe(303);
  expect(answer.headers.get('location')).toBe(`/c/${paymentId}?lang=${lang}`);
}

async function cardAttempts(chargeId: string): Promise<number> {
  const row = await db()
    .selectFrom('charges')
    .select('card_attempts')
    .where('id', '=', chargeId)
    .executeTakeFirstOrThrow();
  return row.card_attempts;
}

describe('card checks and formatting (the rules the server and checkout.js share)', () => {
  const now = new Date('2026-11-23T10:00:00.000Z');

  it('reads MM/YY, MMYY and MM/YYYY expiries and refuses other shapes', () => {
    expect(parseExpiry('12/30')).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry(' 1 / 31 ')).toEqual({ month: 1, year: 2031 });
    expect(parseExpiry('1230')).toEqual({ month: 12, year: 2030 });
    expect(parseExpiry('03/2029')).toEqual({ month: 3, year: 2029 });
    for (const bad of ['13/30', '00/30', '130', '12/3', 'ab/cd', '12-30', ''])
      expect(parseExpiry(bad)).toBeUndefined();
  });

  it('accepts a card expiring this month and refuses last month', () => {
    const valid = { holderName: 'A B', cardNumber: '4242 4242 4242 4242', cvc: '123' };
    expect(checkCard({ ...valid, expiry: '11/26' }, now).ok).toBe(true);
    const expired = checkCard({ ...valid, expiry: '10/26' }, now);
    expect(expired.ok ? undefined : expired.issues).toEqual({ expiry: 'expired' });
  });

  it('never keeps the number or the CVC, nor a name that carries digits', () => {
    const checked = checkCard(
      { holderName: '4242424242424242', cardNumber: '4242424242424241', expiry: '12/30', cvc: '12' },
      now,
    );
    expect(checked).toEqual({
      ok: false,
      issues: { holderName: 'invalid_name', cardNumber: 'invalid_number', cvc: 'invalid_cvc' },
      keep: { holderName: '', expiry: '12/30' },
    });
  });

  it('formats minor units with string arithmetic, never floats', () => {
    expect(formatAmount('12550', 'TRY', 'tr')).toBe('125,50 TRY');
    expect(formatAmount('12550', 'TRY', 'en')).toBe('TRY 125.50');
    expect(formatAmount('5', 'TRY', 'en')).toBe('TRY 0.05');
    expect(formatAmount('123456789', 'TRY', 'tr')).toBe('1.234.567,89 TRY');
    expect(formatAmount('9007199254740991', 'TRY', 'en')).toBe('TRY 90,071,992,547,409.91');
  });

  it('appends the outcome to the return URL and renders only http(s) URLs', () => {
    expect(returnLink('https://shop.example/back?order=7#done', 'ch_1', 'succeeded')).toBe(
      'https://shop.example/back?order=7&charge=ch_1&status=succeeded#done',
    );
    expect(returnLink('javascript:alert(1)', 'ch_1', 'failed')).toBeUndefined();
    expect(returnLink(null, 'ch_1', 'failed')).toBeUndefined();
  });
});

describe('GET /c/:paymentId', () => {
  it('answers an HTML 404 page for an unknown payment id, escaped, in the asked language', async () => {
    const answer = await page('pay_unknown000000000000000000000');
    expectHtmlPage(answer, 404);
    expect(answer.text).toContain('Payment not found');

    const turkish = await page(encodeURIComponent('<script>alert(1)</script>'), '?lang=tr');
    expectHtmlPage(turkish, 404);
    expect(turkish.text).toContain('Ödeme bulunamadı');
    expect(turkish.text).not.toContain('<script>alert');

    expectHtmlPage(await fetchManual(`${web}/c/pay_unknown/return?payment=pay_unknown`), 404);
    expectHtmlPage(await postCard('pay_unknown', card(TEST_CARDS.visa.number)), 404);
    const mangled = await page('pay_unknown/more', '?lang=tr');
    expectHtmlPage(mangled, 404);
    expect(mangled.text).toContain('Ödeme bulunamadı');
  });

  it('shows the card form with the amount, the escaped merchant reference and autocomplete hints', async () => {
    const charge = await createCharge({ amount: 12550, merchantReference: 'order <b>"1042"</b> & co' });
    const english = await page(charge.providerPaymentId, '', { 'accept-language': 'en-GB,en;q=0.9' });
    expectHtmlPage(english, 200);
    expect(english.headers.get('content-language')).toBe('en');
    expect(english.text).toContain('TRY 125.50');
    expect(english.text).toContain('order &lt;b&gt;&quot;1042&quot;&lt;/b&gt; &amp; co');
    expect(english.text).not.toContain('<b>"1042"');
    for (const hint of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc']) {
      expect(english.text).toContain(`autocomplete="${hint}"`);
    }
    expect(english.text).toContain(`action="/c/${charge.providerPaymentId}/card?lang=en"`);
    expect(english.text).toContain('Test mode');
    expect(english.text).not.toMatch(
      /<script(?![^>]*(src="\/assets\/checkout\.js"|type="application\/json"))/,
    );

    const turkish = await page(charge.providerPaymentId, '', {
      'accept-language': 'tr-TR,tr;q=0.9,en;q=0.5',
    });
    expectHtmlPage(turkish, 200);
    expect(turkish.text).toContain('<html lang="tr">');
    expect(turkish.text).toContain('125,50 TRY');
    expect(turkish.text).toContain('Kart numarası');
    // ?lang= wins over Accept-Language.
    expect((await page(charge.providerPaymentId, '?lang=en', { 'accept-language': 'tr' })).text).toContain(
      'Card number',
    );
  });

  it('shows the bank-transfer instructions from the acquirer and a status endpoint', async () => {
    const charge = await createCharge({ paymentMethod: 'bank_transfer', amount: 250_000 });
    const payment = await acquirerControl(t.sandboxAcquirer).payment(charge.providerPaymentId);
    const instructions = payment.bankTransfer as {
      iban: string;
      accountHolder: string;
      paymentReference: string;
    };
    const answer = await page(charge.providerPaymentId, '?lang=tr');
    expectHtmlPage(answer, 200);
    expect(answer.text).toContain(instructions.iban.replace(/(.{4})(?=.)/g, '$1 '));
    expect(answer.text).toContain(instructions.paymentReference);
    expect(answer.text).toContain('Sandbox Acquirer A.Ş.');
    expect(answer.text).toContain('2.500,00 TRY');
    expect(answer.text).toContain(`data-status-url="/c/${charge.providerPaymentId}/status"`);
    expect(answer.text).toContain(`action="/c/${charge.providerPaymentId}/simulate-transfer?lang=tr"`);

    const status = await request(`${web}/c/${charge.providerPaymentId}/status`);
    expect(status.status).toBe(200);
    expect(status.headers.get('cache-control')).toBe('no-store');
    expect(status.body).toEqual({ status: 'pending', providerStatus: 'awaiting_payment' });

    const unknown = await request<{ error: { code: string } }>(`${web}/c/pay_nothing/status`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });
});

describe('GET /c/:paymentId/status', () => {
  it('reads a pending payment back from the acquirer at most every few seconds, without notifications', async () => {
    const charge = await createCharge({ paymentMethod: 'bank_transfer' });
    const control = acquirerControl(t.sandboxAcquirer);
    await control.addFault({ operation: 'notification', action: 'drop', match: { reference: charge.id } });
    const status = async () =>
      (
        await request<{ status: string; providerStatus: string }>(
          `${web}/c/${charge.providerPaymentId}/status`,
        )
      ).body;
    const readBacks = async () =>
      (await control.calls('get_payment')).filter((call) => call.paymentId === charge.providerPaymentId)
        .length;

    expect(await status()).toEqual({ status: 'pending', providerStatus: 'awaiting_payment' });
    const first = await readBacks();
    expect(first).toBe(1);
    const arrived = await request(
      `${t.sandboxAcquirer.url}/v1/payments/${charge.providerPaymentId}/simulate-transfer`,
      { method: 'POST', body: {}, headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` } },
    );
    expect(arrived.status).toBe(200);
    // Within the interval the row is read as it is: no call to the acquirer.
    expect(await status()).toEqual({ status: 'pending', providerStatus: 'awaiting_payment' });
    expect(await readBacks()).toBe(first);

    await new Promise((resolve) => setTimeout(resolve, 3_100));
    expect(await status()).toEqual({ status: 'succeeded', providerStatus: 'succeeded' });
    expect(await readBacks()).toBe(first + 1);
    expect((await getCharge(charge.id)).status).toBe('succeeded');
    // A final charge is not read back again.
    await status();
    expect(await readBacks()).toBe(first + 1);
  });
});

describe('POST /c/:paymentId/card', () => {
  it('pays with an approved card: 303 to the paid page, brand and last four kept, return link', async () => {
    const charge = await createCharge({ returnUrl: 'https://shop.example/back?order=1042#top' });
    const paid = await postCard(charge.providerPaymentId, card(TEST_CARDS.mastercard.number), 'tr');
    expectRedirectToPage(paid, charge.providerPaymentId, 'tr');

    const shown = await page(charge.providerPaymentId, '?lang=tr');
    expectHtmlPage(shown, 200);
    expect(shown.text).toContain('Ödeme alındı');
    expect(shown.text).toContain('Mastercard •••• 4444');
    expect(shown.text).toContain(
      `href="https://shop.example/back?order=1042&amp;charge=${charge.id}&amp;status=succeeded#top"`,
    );
    const after = await getCharge(charge.id);
    expect(after).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    const row = await db()
      .selectFrom('charges')
      .select(['card_brand', 'card_last4', 'card_attempts'])
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ card_brand: 'mastercard', card_last4: '4444', card_attempts: 1 });

    // A paid charge takes no other card.
    const again = await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number));
    expectRedirectToPage(again, charge.providerPaymentId);
    expect(await cardAttempts(charge.id)).toBe(1);
  });

  it('pays once when two tabs post approved cards at the same moment', async () => {
    const charge = await createCharge();
    const answers = await Promise.all([
      postCard(charge.providerPaymentId, card(freshCardNumber())),
      postCard(charge.providerPaymentId, card(freshCardNumber())),
    ]);
    for (const answer of answers) expectRedirectToPage(answer, charge.providerPaymentId);
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    const events = await eventsOf(charge.id);
    expect(events).toEqual([{ type: 'charge.succeeded' }]);
    const shown = await page(charge.providerPaymentId, '?lang=en');
    expectHtmlPage(shown, 200);
    expect(shown.text).not.toContain('<form');
  });

  it('checks the card on the server and shows the form again without the number or the CVC', async () => {
    const charge = await createCharge();
    const cases: Array<[Record<string, string>, string]> = [
      [card('4242424242424241', { cvc: '987' }), 'This card number is not valid.'],
      [card(TEST_CARDS.visa.number, { expiry: '10/26', cvc: '987' }), 'This card has expired.'],
      [card(TEST_CARDS.visa.number, { cvc: '98' }), 'The security code has 3 or 4 digits.'],
      [card(TEST_CARDS.visa.number, { holderName: '  ', cvc: '987' }), 'This field is required.'],
    ];
    for (const [fields, problem] of cases) {
      const answer = await postCard(charge.providerPaymentId, fields);
      expectHtmlPage(answer, 422);
      expect(answer.text).toContain(problem);
      expect(answer.text).toContain('Please correct the highlighted fields.');
      expect(answer.text).toContain('aria-invalid="true"');
      expect(answer.text).not.toContain(fields.cardNumber);
      expect(answer.text).not.toMatch(new RegExp(`value="${fields.cvc}"`));
      expect(answer.text).not.toContain('4242 4242 4242 4242"');
    }
    // The name and the expiry are kept; nothing reached the acquirer and no attempt was used.
    const kept = await postCard(charge.providerPaymentId, card('4242424242424241'), 'tr');
    expect(kept.text).toContain('value="Ayşe Yılmaz"');
    expect(kept.text).toContain('value="12/30"');
    expect(kept.text).toContain('Bu kart numarası geçerli değil.');
    expect(await cardAttempts(charge.id)).toBe(0);
    expect(
      (await acquirerControl(t.sandboxAcquirer).calls('authorize')).map((call) => call.paymentId),
    ).not.toContain(charge.providerPaymentId);
  });

  it('shows a decline with the attempts left, then fails the charge when the attempts are used up', async () => {
    const charge = await createCharge();
    const first = await postCard(charge.providerPaymentId, card(TEST_CARDS.insufficientFunds.number));
    expectRedirectToPage(first, charge.providerPaymentId);
    const declined = await page(charge.providerPaymentId, '?lang=en');
    expectHtmlPage(declined, 200);
    expect(declined.text).toContain(
      'Your card was declined: The card has insufficient funds. Attempts left: 1.',
    );
    expect(declined.text).toContain('id="card-form"');
    expect((await getCharge(charge.id)).status).toBe('pending');

    const second = await postCard(charge.providerPaymentId, card(TEST_CARDS.incorrectCvc.number));
    expectRedirectToPage(second, charge.providerPaymentId);
    const failed = await page(charge.providerPaymentId, '?lang=tr');
    expectHtmlPage(failed, 200);
    expect(failed.text).toContain('Ödeme başarısız');
    expect(failed.text).toContain('Güvenlik kodu hatalı.');
    expect(failed.text).not.toContain('id="card-form"');
    expect(await getCharge(charge.id)).toMatchObject({ status: 'failed', providerStatus: 'failed' });
  });

  it('counts attempts the acquirer could not process, answers a page (never a 500), then refuses more cards', async () => {
    const control = acquirerControl(t.sandboxAcquirer);
    const fault = (reference: string, status: number, code: string) =>
      control.addFault({
        operation: 'authorize',
        action: 'error',
        status,
        code,
        times: 1,
        match: { reference },
      });

    const rejectedCharge = await createCharge();
    await fault(rejectedCharge.id, 422, 'do_not_honor');
    const rejected = await postCard(rejectedCharge.providerPaymentId, card(TEST_CARDS.visa.number), 'tr');
    expectHtmlPage(rejected, 502);
    expect(rejected.text).toContain('Ödemeniz işlenemedi. Lütfen tekrar deneyin.');
    expect(rejected.text).toContain('id="card-form"');
    expect(rejected.text).not.toContain(TEST_CARDS.visa.number);

    const charge = await createCharge();
    await fault(charge.id, 503, 'unavailable');
    await fault(charge.id, 422, 'do_not_honor');
    const unavailable = await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number));
    expectHtmlPage(unavailable, 503);
    expect(unavailable.text).toContain('The payment service is not reachable right now.');
    expect(unavailable.text).not.toContain(TEST_CARDS.visa.number);

    // The second attempt uses the last one: the card-testing limit, whatever the acquirer answered.
    expectRedirectToPage(
      await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number)),
      charge.providerPaymentId,
    );
    const refused = await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number));
    expectRedirectToPage(refused, charge.providerPaymentId);
    const exhausted = await page(charge.providerPaymentId, '?lang=en');
    expectHtmlPage(exhausted, 200);
    expect(exhausted.text).toContain('Too many attempts');
    expect(exhausted.text).not.toContain('id="card-form"');
    expect(await cardAttempts(charge.id)).toBe(ATTEMPTS);
    const calls = await control.calls('authorize');
    expect(calls.filter((call) => call.paymentId === charge.providerPaymentId)).toHaveLength(ATTEMPTS);
    expect((await getCharge(charge.id)).status).toBe('pending');
  });

  it('takes a 3-D Secure card through the bank page and back to the return URL, keeping the language', async () => {
    const charge = await createCharge();
    const posted = await postCard(charge.providerPaymentId, card(TEST_CARDS.challenge.number), 'tr');
    expectRedirectToPage(posted, charge.providerPaymentId, 'tr');

    // The page hands over to the bank by a link (and checkout.js), not a redirect of the form post,
    // which the page's form-action policy would block.
    const handover = await page(charge.providerPaymentId, '?lang=tr');
    expectHtmlPage(handover, 200);
    const challengeUrl = /id="continue-challenge" href="([^"]+)"/.exec(handover.text)?.[1];
    expect(challengeUrl).toMatch(new RegExp(`^${t.sandboxAcquirer.url}/3ds/3ds_`));

    const answered = await fetchManual(challengeUrl ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=123456',
    });
    expect(answered.status).toBe(303);
    const back = answered.headers.get('location') ?? '';
    expect(back).toBe(
      `${web}/c/${charge.providerPaymentId}/return?lang=tr&payment=${charge.providerPaymentId}`,
    );

    const returned = await fetchManual(back);
    expectRedirectToPage(returned, charge.providerPaymentId, 'tr');
    const paid = await page(charge.providerPaymentId, '?lang=tr');
    expect(paid.text).toContain('Ödeme alındı');
    expect(paid.text).toContain('Visa •••• 3220');
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('after a failed 3-D Secure challenge, shows the card form again with the reason', async () => {
    const charge = await createCharge();
    expectRedirectToPage(
      await postCard(charge.providerPaymentId, card(TEST_CARDS.challengeFails.number)),
      charge.providerPaymentId,
    );
    const handover = await page(charge.providerPaymentId, '?lang=en');
    const challengeUrl = /id="continue-challenge" href="([^"]+)"/.exec(handover.text)?.[1] ?? '';
    const answered = await fetchManual(challengeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=123456',
    });
    expect(answered.status).toBe(303);
    expectRedirectToPage(await fetchManual(answered.headers.get('location') ?? ''), charge.providerPaymentId);

    const again = await page(charge.providerPaymentId, '?lang=en');
    expectHtmlPage(again, 200);
    expect(again.text).toContain(
      'Your card was declined: The bank could not confirm the payment (3-D Secure). Attempts left: 1.',
    );
    expect(again.text).toContain('id="card-form"');
    expect((await getCharge(charge.id)).status).toBe('pending');

    // The next card goes through.
    expectRedirectToPage(
      await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number)),
      charge.providerPaymentId,
    );
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('refuses cross-site posts', async () => {
    const charge = await createCharge();
    for (const headers of [
      { origin: 'https://attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'null' },
    ]) {
      const answer = await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number), 'en', headers);
      expectHtmlPage(answer, 403);
      expect(answer.text).toContain('This form can only be sent from the payment page.');
    }
    expect(await cardAttempts(charge.id)).toBe(0);
    // The browser's own post: same origin (Origin is `null` under Referrer-Policy: no-referrer).
    for (const headers of [
      { origin: new URL(web).origin, 'sec-fetch-site': 'same-origin' },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    ]) {
      const answer = await postCard(charge.providerPaymentId, card('4242424242424241'), 'en', headers);
      expectHtmlPage(answer, 422);
    }

    const transfer = await createCharge({ paymentMethod: 'bank_transfer' });
    const simulated = await post(
      `/c/${transfer.providerPaymentId}/simulate-transfer?lang=en`,
      {},
      { origin: 'https://attacker.example' },
    );
    expectHtmlPage(simulated, 403);
    expect((await getCharge(transfer.id)).status).toBe('pending');
  });

  it('answers a page for a malformed form', async () => {
    const charge = await createCharge();
    const answer = await post(`/c/${charge.providerPaymentId}/card?lang=en`, { unexpected: 'x' });
    expectHtmlPage(answer, 400);
    expect(answer.text).toContain('The form could not be read.');
  });
});

describe('POST /c/:paymentId/simulate-transfer', () => {
  it('makes the sandbox acquirer receive the transfer and shows the paid page', async () => {
    const charge = await createCharge({
      paymentMethod: 'bank_transfer',
      returnUrl: 'http://shop.example/done',
    });
    const answer = await post(`/c/${charge.providerPaymentId}/simulate-transfer?lang=en`, {});
    expectRedirectToPage(answer, charge.providerPaymentId);
    const paid = await page(charge.providerPaymentId, '?lang=en');
    expect(paid.text).toContain('Payment received');
    expect(paid.text).toContain('Bank transfer');
    expect(paid.text).toContain(`href="http://shop.example/done?charge=${charge.id}&amp;status=succeeded"`);
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    const status = await request(`${web}/c/${charge.providerPaymentId}/status`);
    expect(status.body).toEqual({ status: 'succeeded', providerStatus: 'succeeded' });
  });

  it('does not exist for a live charge (404, no control on the page) nor for a card charge', async () => {
    const live = await createCharge({ paymentMethod: 'bank_transfer' }, 'live');
    const shown = await page(live.providerPaymentId, '?lang=en');
    expectHtmlPage(shown, 200);
    expect(shown.text).toContain('IBAN');
    expect(shown.text).not.toContain('simulate-transfer');
    expect(shown.text).not.toContain('Test mode');

    const refused = await post(`/c/${live.providerPaymentId}/simulate-transfer?lang=en`, {});
    expectHtmlPage(refused, 404);
    expect((await acquirerControl(t.liveAcquirer).payment(live.providerPaymentId)).status).toBe(
      'awaiting_payment',
    );
    expect((await getCharge(live.id, 'live')).status).toBe('pending');

    const cardCharge = await createCharge();
    expectHtmlPage(await post(`/c/${cardCharge.providerPaymentId}/simulate-transfer?lang=en`, {}), 404);
  });
});

describe('card data', () => {
  it('reaches the acquirer and nowhere else: not in the logs, not in any table', async () => {
    const number = freshCardNumber();
    const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ');
    const cvc = '7391';
    const holderName = 'Zeynep Kartaltestname';
    const charge = await createCharge();
    // A failed check first (the form comes back), then the payment.
    const invalid = await postCard(
      charge.providerPaymentId,
      card(spaced, { cvc, holderName, expiry: '13/30' }),
    );
    expectHtmlPage(invalid, 422);
    expect(invalid.text).not.toContain(number);
    expect(invalid.text).not.toContain(spaced);
    expect(invalid.text).not.toMatch(/(?<![0-9A-Za-z])7391(?![0-9A-Za-z])/);
    const paid = await postCard(charge.providerPaymentId, card(spaced, { cvc, holderName }));
    expectRedirectToPage(paid, charge.providerPaymentId);
    expect((await getCharge(charge.id)).status).toBe('succeeded');

    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
    `.execute(db());
    expect(tables.rows.map((row) => row.table_name)).toContain('charges');
    let dump = '';
    for (const { table_name } of tables.rows) {
      const rows = await sql`SELECT * FROM ${sql.table(table_name)}`.execute(db());
      dump += JSON.stringify(rows.rows);
    }
    expect(dump).toContain(charge.id);
    expect(dump).toContain(number.slice(-4));
    const logs = t.logs.join('\n');
    expect(logs).toContain(charge.id);
    for (const text of [dump, logs]) {
      expect(text).not.toContain(number);
      expect(text).not.toContain(spaced);
      expect(text).not.toContain(holderName);
      expect(text).not.toMatch(/(?<![0-9A-Za-z])7391(?![0-9A-Za-z])/);
    }
  });
});

describe('expiry and limits', () => {
  it('shows an expired page once expiresAt has passed, before the expiry job runs', async () => {
    const charge = await createCharge({ returnUrl: 'https://shop.example/back' });
    const transfer = await createCharge({ paymentMethod: 'bank_transfer' });
    t.clock.advance(DAY + 1);
    for (const id of [charge.providerPaymentId, transfer.providerPaymentId]) {
      const expired = await page(id, '?lang=en');
      expectHtmlPage(expired, 200);
      expect(expired.text).toContain('This payment link has expired');
      expect(expired.text).not.toContain('<form');
    }
    expect((await page(charge.providerPaymentId, '?lang=en')).text).toContain(
      `href="https://shop.example/back?charge=${charge.id}&amp;status=expired"`,
    );
    const refused = await postCard(charge.providerPaymentId, card(TEST_CARDS.visa.number));
    expectRedirectToPage(refused, charge.providerPaymentId);
    expect(await cardAttempts(charge.id)).toBe(0);
    // Whether or not the expiry job has run meanwhile (it cancels the payment at the acquirer first).
    const status = await request<{ status: string }>(`${web}/c/${transfer.providerPaymentId}/status`);
    expect(status.body.status).toBe('expired');
  });

  it('rate-limits card posts per IP with a page', async () => {
    const charge = await createCharge();
    let limited: Answer | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const answer = await postCard(charge.providerPaymentId, card('4242424242424241'));
      if (answer.status === 429) limited = answer;
      else expect(answer.status).toBe(422);
    }
    expect(limited).toBeDefined();
    if (!limited) return;
    expectHtmlPage(limited, 429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.text).toContain('Too many requests from your network.');
  });
});
