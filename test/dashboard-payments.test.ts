/**
 * Payments in the merchant dashboard (issue 15 item 1): the charges of the session's environment,
 * filtered (status, method, days, amounts, reference, customer e-mail), sorted and cursor paged; a bad
 * filter is a 400 page naming the problem; the charge page with its fee, net, timeline, refunds, events,
 * webhook deliveries (retry) and ledger lines; and a refund of all or part of it with a confirmation step,
 * for owners and admins only, through the refunds service (its rules, friendly errors). Another
 * organization's or environment's charge is 404; no card number or ID number reaches a page.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { merchantRequest, type ApiInit } from './helpers/client.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { payByCard } from './helpers/charges.js';
import { expectLoginFirst } from './helpers/http-checks.js';

const DAY = 86_400_000;
const ID_NUMBER = '10000000146';
const CARD_NUMBER = TEST_CARDS.visa.number;

interface ChargeBody {
  id: string;
  providerPaymentId: string;
  amount: string;
  createdAt: string;
}

useTestGateway(accountGateway('api,sandbox-acquirer'));

const api = <T>(merchant: Merchant, path: string, init: ApiInit = {}) =>
  merchantRequest<T>(t.urls, merchant, path, init);

async function newCharge(
  merchant: Merchant,
  overrides: Record<string, unknown> = {},
  environment: 'sandbox' | 'live' = 'sandbox',
): Promise<ChargeBody> {
  t.clock.advance(1000);
  const res = await api<ChargeBody>(merchant, '/v1/charges', { body: validCharge(overrides), environment });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A charge paid with the Visa test card, completed as the checkout completes it. */
async function paidCharge(merchant: Merchant, overrides: Record<string, unknown> = {}): Promise<ChargeBody> {
  const charge = await newCharge(merchant, overrides);
  await payByCard(t.gateway.services, charge, 'Ayşe Yılmaz', { number: CARD_NUMBER });
  return charge;
}

async function signedIn(organizationId: string, role: UserRole = 'viewer') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return client;
}

function paymentsIn(html: string): string[] {
  return [...html.matchAll(/<tr data-charge-id="([^"]+)"/g)].map((match) => match[1] ?? '');
}
function problemsIn(html: string): string[] {
  return [...html.matchAll(/<li data-problem="([^"]+)"/g)].map((match) => match[1] ?? '');
}
function linkOf(html: string, id: string): string {
  return (new RegExp(`<a id="${id}" href="([^"]+)"`).exec(html)?.[1] ?? '').replaceAll('&amp;', '&');
}
function day(iso: string): string {
  return iso.slice(0, 10);
}

/** Every charge a list shows, following its next links. */
async function allPages(client: WebClient, first: string) {
  const ids: string[] = [];
  let path = first;
  for (let pages = 1; pages <= 10; pages += 1) {
    const page = await client.get(path);
    expect(page.status, path).toBe(200);
    ids.push(...paymentsIn(page.text));
    const next = linkOf(page.text, 'next-payments');
    if (next === '') return { ids, pages };
    path = next;
  }
  throw new Error('too many pages');
}

describe('the payment pages', () => {
  it('need a session', async () => {
    const anonymous = await expectLoginFirst(t.urls.web, [
      '/dashboard/payments',
      '/dashboard/payments/ch_x',
      '/dashboard/payments/ch_x/refund',
    ]);
    const post = await anonymous.postForm('/dashboard/payments/ch_x/refund', {
      amount: '100',
      key: 'k'.repeat(20),
    });
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/login\?/);
  });

  it('list the charges of the environment, filtered and sorted, escaped, and link them from the navigation', async () => {
    const merchant = await createMerchant(t);
    const first = await paidCharge(merchant, {
      amount: 10_000,
      merchantReference: 'order-1',
      customer: { name: 'Ayşe', email: 'Ayse@Example.com', idNumber: ID_NUMBER },
    });
    t.clock.advance(DAY);
    const second = await newCharge(merchant, {
      amount: 25_050,
      paymentMethod: 'bank_transfer',
      merchantReference: 'order-2',
      customer: { email: 'mehmet@example.com' },
    });
    t.clock.advance(DAY);
    const third = await newCharge(merchant, {
      amount: 7_525,
      paymentMethod: 'credit_card_international',
      merchantReference: 'order-<b>3</b>',
    });
    await newCharge(merchant, { amount: 99_999 }, 'live');

    const client = await signedIn(merchant.organizationId, 'viewer');
    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain('<a href="/dashboard/payments?lang=en" id="payments-link">Payments</a>');
    expect((await client.get('/dashboard?lang=tr')).text).toContain('id="payments-link">Ödemeler</a>');

    const list = await client.get('/dashboard/payments?lang=en');
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('no-store');
    expect(list.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(list.text).not.toMatch(/<script|style=|<b>/);
    expect(list.text).not.toContain(ID_NUMBER);
    expect(list.text).not.toContain(CARD_NUMBER);
    expect(list.text).toContain('data-environment="sandbox"');
    expect(paymentsIn(list.text)).toEqual([third.id, second.id, first.id]);
    expect(list.text).toContain('order-&lt;b&gt;3&lt;/b&gt;');
    expect(list.text).toContain('TRY 250.50');
    const row = (id: string) =>
      new RegExp(`<tr data-charge-id="${id}"[^>]*>([\\s\\S]*?)</tr>`).exec(list.text)?.[1] ?? '';
    expect(row(first.id)).toContain('class="payment-status">Succeeded</span>');
    expect(row(second.id)).toContain('class="payment-method">Bank transfer</td>');
    expect(row(first.id)).toContain('class="payment-customer">Ayse@Example.com</td>');

    const listed = async (query: string) => {
      const page = await client.get(`/dashboard/payments?lang=en&${query}`);
      expect(page.status, query).toBe(200);
      return paymentsIn(page.text);
    };
    // Sorting.
    expect(await listed('sort=oldest')).toEqual([first.id, second.id, third.id]);
    expect(await listed('sort=amount_desc')).toEqual([second.id, first.id, third.id]);
    expect(await listed('sort=amount_asc')).toEqual([third.id, first.id, second.id]);
    // Each filter, and together.
    expect(await listed('status=succeeded')).toEqual([first.id]);
    expect(await listed('status=pending')).toEqual([third.id, second.id]);
    expect(await listed('method=bank_transfer')).toEqual([second.id]);
    expect(await listed(`from=${day(second.createdAt)}&to=${day(second.createdAt)}`)).toEqual([second.id]);
    expect(await listed(`from=${day(second.createdAt)}`)).toEqual([third.id, second.id]);
    expect(await listed(`to=${day(second.createdAt)}`)).toEqual([second.id, first.id]);
    expect(await listed('min=100&max=250.50')).toEqual([second.id, first.id]);
    expect(await listed('min=100.01')).toEqual([second.id]);
    expect(await listed('max=75%2C25')).toEqual([third.id]);
    expect(await listed('reference=order-1')).toEqual([first.id]);
    expect(await listed(`reference=${encodeURIComponent('order-<b>3</b>')}`)).toEqual([third.id]);
    expect(await listed('reference=order')).toEqual([]);
    expect(await listed('email=AYSE%40example.COM')).toEqual([first.id]);
    expect(await listed('status=pending&min=100&sort=amount_asc')).toEqual([second.id]);
    expect(await listed('status=&method=&from=&to=&min=&max=&reference=&email=&sort=')).toEqual([
      third.id,
      second.id,
      first.id,
    ]);

    // What was typed is shown back, escaped; no match says so.
    const none = await client.get(
      `/dashboard/payments?lang=en&reference=${encodeURIComponent('"><script>x')}`,
    );
    expect(none.status).toBe(200);
    expect(none.text).not.toContain('<script>x');
    expect(none.text).toContain('value="&quot;&gt;&lt;script&gt;x"');
    expect(textOf(none.text, 'no-payments')).toBe('No payment matches these filters.');
    expect(none.text).toContain('id="clear-filters"');

    // Turkish.
    const turkish = await client.get('/dashboard/payments?lang=tr&min=250%2C50');
    expect(paymentsIn(turkish.text)).toEqual([second.id]);
    expect(turkish.text).toContain('250,50 TRY');
    expect(turkish.text).toContain('class="payment-method">Havale/EFT</td>');
    expect(turkish.text).toContain('<h1>Ödemeler</h1>');

    // The live environment has its own charges.
    const owner = await signedIn(merchant.organizationId, 'owner');
    await owner.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    const live = await owner.get('/dashboard/payments?lang=en');
    expect(live.text).toContain('data-environment="live"');
    expect(paymentsIn(live.text)).toHaveLength(1);
    expect(live.text).toContain('TRY 999.99');
  });

  it('search by charge id, the card’s last four, a customer’s e-mail or a reference, exactly, in the environment', async () => {
    const merchant = await createMerchant(t);
    const card = await paidCharge(merchant, { amount: 11_100 });
    const mailed = await newCharge(merchant, {
      amount: 22_200,
      customer: { email: 'Deniz.Kaya@Example.com' },
    });
    const referenced = await newCharge(merchant, { amount: 33_300, merchantReference: 'order-search-7' });
    const stranger = await createMerchant(t);
    const theirs = await paidCharge(stranger, { amount: 44_400, merchantReference: 'order-search-7' });
    const client = await signedIn(merchant.organizationId, 'viewer');
    const searched = async (q: string, extra = '') => {
      const page = await client.get(`/dashboard/payments?lang=en&q=${encodeURIComponent(q)}${extra}`);
      expect(page.status, q).toBe(200);
      return paymentsIn(page.text);
    };

    expect(await searched(card.id)).toEqual([card.id]);
    expect(await searched(CARD_NUMBER.slice(-4))).toEqual([card.id]);
    expect(await searched('deniz.kaya@example.COM')).toEqual([mailed.id]);
    expect(await searched('order-search-7')).toEqual([referenced.id]);
    // Exactly: a part of a reference or of an e-mail finds nothing; another organization's charge neither.
    expect(await searched('order-search')).toEqual([]);
    expect(await searched('deniz.kaya@')).toEqual([]);
    expect(await searched(theirs.id)).toEqual([]);
    // With the filters: the search and a status together.
    expect(await searched(card.id, '&status=pending')).toEqual([]);
    expect(await searched(card.id, '&status=succeeded')).toEqual([card.id]);
    // The box keeps what was searched, escaped.
    const page = await client.get(`/dashboard/payments?lang=en&q=${encodeURIComponent('<b>x</b>')}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="search-q" name="q" type="search"');
    expect(page.text).toContain('value="&lt;b&gt;x&lt;/b&gt;"');
    expect(page.text).not.toContain('<b>x</b>');

    const tooLong = await client.get(`/dashboard/payments?lang=en&q=${'a'.repeat(255)}`);
    expect(tooLong.status).toBe(400);
    expect(problemsIn(tooLong.text)).toEqual(['search']);
  });

  it('refuse a bad filter with a 400 page that names it, never a 500', async () => {
    const merchant = await createMerchant(t);
    await newCharge(merchant);
    const client = await signedIn(merchant.organizationId, 'developer');
    const cases: Array<[string, string[]]> = [
      ['status=refunded', ['status']],
      ['method=cash', ['method']],
      ['from=2026-13-01', ['createdFrom']],
      ['from=2026-02-30', ['createdFrom']],
      ['to=yesterday', ['createdTo']],
      ['from=2026-03-02&to=2026-03-01', ['dateOrder']],
      ['min=abc', ['amountMin']],
      ['min=-5', ['amountMin']],
      ['max=1.234', ['amountMax']],
      ['max=1e9', ['amountMax']],
      ['max=99999999999999999999', ['amountMax']],
      ['min=20&max=10', ['amountOrder']],
      [`reference=${'r'.repeat(121)}`, ['reference']],
      [`email=${'e'.repeat(250)}%40x.com`, ['email']],
      ['sort=sideways', ['sort']],
      ['status=nope&min=x&sort=up', ['status', 'amountMin', 'sort']],
      ['cursor=nonsense', ['cursor']],
    ];
    for (const [query, problems] of cases) {
      const page = await client.get(`/dashboard/payments?lang=en&${query}`);
      expect(page.status, query).toBe(400);
      expect(page.headers.get('content-type'), query).toContain('text/html');
      expect(problemsIn(page.text), query).toEqual(problems);
      expect(paymentsIn(page.text), query).toEqual([]);
    }
    const named = await client.get('/dashboard/payments?lang=en&min=abc');
    expect(named.text).toContain('The smallest amount is not an amount in TRY, like 125.50.');
    expect(named.text).toContain('id="filter-min" name="min" inputmode="decimal"');
    expect(named.text).toMatch(/id="filter-min"[^>]*aria-invalid="true"/);
    const turkish = await client.get('/dashboard/payments?lang=tr&status=refunded');
    expect(turkish.status).toBe(400);
    expect(turkish.text).toContain('Listeden bir durum seçin.');
    // Malformed beyond the form (a repeated parameter, an overlong value): still a 400 page.
    for (const query of ['status=pending&status=failed', `email=${'e'.repeat(1200)}`]) {
      const page = await client.get(`/dashboard/payments?lang=en&${query}`);
      expect(page.status, query).toBe(400);
      expect(page.headers.get('content-type'), query).toContain('text/html');
    }
  });

  it('page newest first and by amount, each cursor bound to its filters and sort', async () => {
    const merchant = await createMerchant(t);
    const made: ChargeBody[] = [];
    for (let i = 0; i < 28; i += 1) made.push(await newCharge(merchant, { amount: 1000 * (1 + (i % 3)) }));
    const newestFirst = made.map((charge) => charge.id).reverse();
    const client = await signedIn(merchant.organizationId, 'viewer');

    const newest = await allPages(client, '/dashboard/payments?lang=en');
    expect(newest).toEqual({ ids: newestFirst, pages: 2 });
    const firstPage = await client.get('/dashboard/payments?lang=en');
    expect(firstPage.text).not.toContain('id="first-payments"');
    const next = linkOf(firstPage.text, 'next-payments');
    expect(next).toMatch(/^\/dashboard\/payments\?lang=en&cursor=/);
    const second = await client.get(next);
    expect(linkOf(second.text, 'first-payments')).toBe('/dashboard/payments?lang=en');

    // By amount, ties in id order, across pages.
    const byAmount = (a: ChargeBody, b: ChargeBody) =>
      Number(b.amount) - Number(a.amount) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    const amountDesc = made
      .slice()
      .sort(byAmount)
      .map((charge) => charge.id);
    expect(await allPages(client, '/dashboard/payments?lang=en&sort=amount_desc')).toEqual({
      ids: amountDesc,
      pages: 2,
    });
    expect(await allPages(client, '/dashboard/payments?lang=en&sort=amount_asc')).toEqual({
      ids: amountDesc.slice().reverse(),
      pages: 2,
    });
    // Filters travel with the cursor: 28 charges, 10 of 1000, one page.
    expect((await allPages(client, '/dashboard/payments?lang=en&max=10')).ids).toHaveLength(10);
    const pending = await allPages(client, '/dashboard/payments?lang=en&status=pending&sort=oldest');
    expect(pending).toEqual({ ids: made.map((charge) => charge.id), pages: 2 });

    // A cursor of another sort or filter is no page of this one.
    const cursor = new URLSearchParams(next.split('?')[1]).get('cursor') ?? '';
    for (const query of ['sort=amount_desc', 'status=pending', 'min=1']) {
      const page = await client.get(
        `/dashboard/payments?lang=en&${query}&cursor=${encodeURIComponent(cursor)}`,
      );
      expect(page.status, query).toBe(400);
      expect(problemsIn(page.text), query).toEqual(['cursor']);
    }
    // Nor of another organization.
    const stranger = await signedIn((await createMerchant(t)).organizationId, 'owner');
    expect(
      (await stranger.get(`/dashboard/payments?lang=en&cursor=${encodeURIComponent(cursor)}`)).status,
    ).toBe(400);
  });

  it('show a charge: fee, net, card brand and last four, timeline, events and ledger lines; 404 for others', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant, {
      amount: 10_000,
      merchantReference: 'order-<img src=x onerror=alert(1)>',
      customer: { name: '<script>alert("n")</script>', email: 'ayse@example.com', idNumber: ID_NUMBER },
    });
    const pending = await newCharge(merchant, { amount: 5_000 });
    const client = await signedIn(merchant.organizationId, 'viewer');

    const page = await client.get(`/dashboard/payments/${charge.id}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script|style=|<img/);
    expect(page.text).not.toContain(ID_NUMBER);
    expect(page.text).not.toContain(CARD_NUMBER);
    expect(textOf(page.text, 'payment-id')).toBe(charge.id);
    expect(textOf(page.text, 'payment-status')).toBe('Succeeded');
    expect(textOf(page.text, 'payment-amount')).toBe('TRY 100.00');
    expect(textOf(page.text, 'payment-refunded')).toBe('TRY 0.00');
    expect(textOf(page.text, 'payment-refundable')).toBe('TRY 100.00');
    expect(textOf(page.text, 'payment-card')).toBe('visa •••• 4242');
    expect(textOf(page.text, 'payment-reference')).toBe('order-&lt;img src=x onerror=alert(1)&gt;');
    expect(textOf(page.text, 'customer-name')).toBe('&lt;script&gt;alert(&quot;n&quot;)&lt;/script&gt;');
    expect(textOf(page.text, 'customer-email')).toBe('ayse@example.com');
    // The fee and net are the ledger's: gross = fee + net.
    const fee = textOf(page.text, 'payment-fee') ?? '';
    const net = textOf(page.text, 'payment-net') ?? '';
    const minorOf = (text: string) => Number(text.replace(/[^0-9]/g, ''));
    expect(minorOf(fee)).toBeGreaterThan(0);
    expect(minorOf(fee) + minorOf(net)).toBe(10_000);
    const lines = [
      ...page.text.matchAll(/data-kind="charge_succeeded" data-account="([a-z_]+)" data-amount="(-?\d+)"/g),
    ];
    expect(lines.map((line) => line[1])).toEqual(['acquirer_clearing', 'merchant_pending', 'fee_revenue']);
    expect(lines.reduce((total, line) => total + Number(line[2]), 0)).toBe(0);
    expect(page.text).toContain('data-type="charge.succeeded"');
    // The timeline: created, the card attempt, succeeded, in order.
    const kinds = [
      ...(/<ol class="team timeline" id="timeline">([\s\S]*?)<\/ol>/.exec(page.text)?.[1] ?? '').matchAll(
        /data-kind="([a-z-]+)"/g,
      ),
    ].map((m) => m[1]);
    expect(kinds[0]).toBe('created');
    expect(kinds).toContain('succeeded');
    expect(page.text).toContain('visa •••• 4242');
    expect(page.text).toContain(`<title>TRY 100.00 · order-&lt;img src=x onerror=alert(1)&gt;</title>`);
    // A viewer is shown no refund form.
    expect(page.text).not.toContain('id="refund-form"');

    const waiting = await client.get(`/dashboard/payments/${pending.id}?lang=tr`);
    expect(waiting.status).toBe(200);
    expect(textOf(waiting.text, 'payment-status')).toBe('Beklemede');
    expect(textOf(waiting.text, 'payment-fee')).toBe('Alınmadı (ödeme başarılı olmadı)');
    expect(textOf(waiting.text, 'no-ledger')).toBe(
      'Henüz muhasebe kaydı yok: ödeme başarılı olunca kaydedilir.',
    );
    expect(waiting.text).toContain('data-kind="expires"');

    // Another organization's, another environment's and unknown charges: the not-found page.
    const live = await newCharge(merchant, {}, 'live');
    const stranger = await createMerchant(t);
    const theirs = await newCharge(stranger, { merchantReference: 'their-secret-order' });
    for (const id of [theirs.id, live.id, 'ch_nothere', 'x'.repeat(64)]) {
      for (const suffix of ['', '/refund']) {
        const answer = await client.get(`/dashboard/payments/${id}${suffix}?lang=en`);
        if (suffix === '') {
          expect(answer.status, id).toBe(404);
          expect(textOf(answer.text, 'message-body'), id).toBe('This page does not exist.');
          expect(answer.text, id).not.toContain('their-secret-order');
        } else {
          // A viewer is refused before the charge is looked at, or 404.
          expect([403, 404], id).toContain(answer.status);
          expect(answer.text, id).not.toContain('their-secret-order');
        }
      }
    }
    const owner = await signedIn(merchant.organizationId, 'owner');
    for (const id of [theirs.id, live.id]) {
      expect((await owner.get(`/dashboard/payments/${id}/refund?lang=en`)).status, id).toBe(404);
      const csrf = await owner.sessionCsrf();
      const post = await owner.postForm(`/dashboard/payments/${id}/refund?lang=en`, {
        _csrf: csrf,
        amount: '100',
        key: 'k'.repeat(24),
      });
      expect(post.status, id).toBe(404);
    }
    const refunds = await api<{ data: unknown[] }>(stranger, `/v1/charges/${theirs.id}/refunds`);
    expect(refunds.body.data).toEqual([]);
  });

  it('show the card attempts and an open 3-D Secure challenge in the timeline', async () => {
    const merchant = await createMerchant(t);
    const charge = await newCharge(merchant, { amount: 6_000 });
    const checkout = t.gateway.services.checkout;
    const card = (number: string) => ({
      holderName: 'Ayşe Yılmaz',
      cardNumber: number,
      expiry: '12/30',
      cvc: '123',
    });
    const declined = await checkout.payByCard(
      charge.providerPaymentId,
      card(TEST_CARDS.cardDeclined.number),
      'https://shop.example/back',
    );
    expect(declined.outcome).toBe('show_page');
    const challenged = await checkout.payByCard(
      charge.providerPaymentId,
      card(TEST_CARDS.challenge.number),
      'https://shop.example/back',
    );
    expect(challenged.outcome).toBe('show_page');

    const client = await signedIn(merchant.organizationId, 'viewer');
    const page = await client.get(`/dashboard/payments/${charge.id}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(TEST_CARDS.challenge.number);
    expect(page.text).not.toContain(TEST_CARDS.cardDeclined.number);
    expect(textOf(page.text, 'payment-status')).toBe('Pending');
    expect(textOf(page.text, 'payment-card')).toBe('visa •••• 3220');
    // Each attempt with what the acquirer answered, the card as brand and last four.
    expect(page.text).toContain(
      'data-kind="attempt-declined"><span class="member-name">Card attempt 1 · declined · visa •••• 0002 · code card_declined</span>',
    );
    expect(page.text).toContain(
      'data-kind="attempt-challenge"><span class="member-name">Card attempt 2 · 3-D Secure challenge · visa •••• 3220</span>',
    );
    expect(page.text).toContain(
      'data-kind="three-ds"><span class="member-name">3-D Secure: waiting for the customer to authenticate</span>',
    );
    const turkish = await client.get(`/dashboard/payments/${charge.id}?lang=tr`);
    expect(turkish.text).toContain('1. kart denemesi · reddedildi · visa •••• 0002 · kod card_declined');

    // A charge attempted before attempts were recorded (migration 0023) shows the count and the last card.
    await t.testDb.database.db
      .deleteFrom('charge_card_attempts')
      .where('charge_id', '=', charge.id)
      .execute();
    const older = await client.get(`/dashboard/payments/${charge.id}?lang=en`);
    expect(older.text).toContain(
      'data-kind="attempts"><span class="member-name">Card attempts: 2 · Last card: visa •••• 3220</span>',
    );
    expect(older.text).not.toContain('data-kind="attempt-');
    const olderTurkish = await client.get(`/dashboard/payments/${charge.id}?lang=tr`);
    expect(olderTurkish.text).toContain('Kart denemeleri: 2 · Son kart: visa •••• 3220');
  });

  it('refund part, then the rest, with a confirmation step; the page changes; rules are friendly errors', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant, { amount: 10_000 });
    const owner = await signedIn(merchant.organizationId, 'owner');
    const chargePath = `/dashboard/payments/${charge.id}`;

    const before = await owner.get(`${chargePath}?lang=en`);
    expect(before.text).toContain('id="refund-form"');
    expect(before.text).toContain(`<form method="get" action="${chargePath}/refund" id="refund-form">`);

    // The confirmation page shows the amount and asks; nothing is refunded yet.
    const confirm = await owner.get(`${chargePath}/refund?lang=en&amount=30`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text, 'confirm-body')).toBe(
      `Refund TRY 30.00 of TRY 100.00 to the customer of ${(await api<{ merchantReference: string }>(merchant, `/v1/charges/${charge.id}`)).body.merchantReference}?`,
    );
    expect(confirm.text).toContain('<input type="hidden" name="amount" value="3000">');
    expect(
      (await api<{ amountRefunded: string }>(merchant, `/v1/charges/${charge.id}`)).body.amountRefunded,
    ).toBe('0');
    const key = /name="key" value="([^"]+)"/.exec(confirm.text)?.[1] ?? '';
    expect(key).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // CSRF is required.
    const noCsrf = await owner.postForm(`${chargePath}/refund?lang=en`, { amount: '3000', key });
    expect(noCsrf.status).toBe(403);
    const wrongCsrf = await owner.postForm(`${chargePath}/refund?lang=en`, {
      _csrf: 'x'.repeat(43),
      amount: '3000',
      key,
    });
    expect(wrongCsrf.status).toBe(403);
    expect(
      (await api<{ amountRefunded: string }>(merchant, `/v1/charges/${charge.id}`)).body.amountRefunded,
    ).toBe('0');

    const form = { _csrf: csrfIn(confirm.text), amount: '3000', key };
    const done = await owner.postForm(`${chargePath}/refund?lang=en`, form);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${chargePath}?lang=en&notice=refunded`);
    // The same confirmation submitted twice is one refund.
    expect((await owner.postForm(`${chargePath}/refund?lang=en`, form)).status).toBe(303);
    const api1 = await api<{ data: Array<{ amount: string; status: string }> }>(
      merchant,
      `/v1/charges/${charge.id}/refunds`,
    );
    expect(api1.body.data).toEqual([expect.objectContaining({ amount: '3000', status: 'succeeded' })]);

    const after = await owner.get(done.location ?? '');
    expect(textOf(after.text, 'notice')).toBe('The refund succeeded.');
    expect(textOf(after.text, 'payment-refunded')).toBe('TRY 30.00');
    expect(textOf(after.text, 'payment-refundable')).toBe('TRY 70.00');
    expect(after.text).toMatch(
      /data-status="succeeded">\s*<span class="member-name"><span class="refund-amount">TRY 30.00<\/span>/,
    );
    expect(after.text).toContain('data-kind="refund" data-account="merchant_pending" data-amount="3000"');
    expect(after.text).toContain('data-type="charge.refunded"');
    expect(after.text).toMatch(/data-kind="refund"><span class="member-name">Refund of TRY 30.00: Succeeded/);

    // More than remains: a friendly error, at the confirmation step and at the post.
    const tooMuch = await owner.get(`${chargePath}/refund?lang=en&amount=70.01`);
    expect(tooMuch.status).toBe(400);
    expect(textOf(tooMuch.text, 'refund-error')).toBe('That is more than remains refundable (TRY 70.00).');
    expect(tooMuch.text).toContain('value="70.01"');
    const overPost = await owner.postForm(`${chargePath}/refund?lang=en`, {
      _csrf: form._csrf,
      amount: '7001',
      key: 'another-key-0123456789',
    });
    expect(overPost.status).toBe(400);
    expect(textOf(overPost.text, 'refund-error')).toBe('That is more than remains refundable (TRY 70.00).');
    for (const amount of ['abc', '0', '-1', '1.234']) {
      const bad = await owner.get(`${chargePath}/refund?lang=en&amount=${encodeURIComponent(amount)}`);
      expect(bad.status, amount).toBe(400);
      expect(textOf(bad.text, 'refund-error'), amount).toBe(
        'Write the amount in TRY, like 125.50, more than zero.',
      );
    }
    const badPost = await owner.postForm(`${chargePath}/refund?lang=en`, {
      _csrf: form._csrf,
      amount: '12.5',
      key,
    });
    expect(badPost.status).toBe(400);
    // A key that is not the confirmation page's: the error page, nothing refunded.
    for (const badKey of ['short', 'x'.repeat(65), 'has spaces in it, sixteen+']) {
      const page = await owner.postForm(`${chargePath}/refund?lang=en`, {
        _csrf: form._csrf,
        amount: '100',
        key: badKey,
      });
      expect(page.status, badKey).toBe(400);
      expect(page.headers.get('content-type'), badKey).toContain('text/html');
    }
    expect(
      (await api<{ data: unknown[] }>(merchant, `/v1/charges/${charge.id}/refunds`)).body.data,
    ).toHaveLength(1);

    // The rest, in Turkish, the amount left empty: everything that remains.
    const rest = await owner.get(`${chargePath}/refund?lang=tr&amount=`);
    expect(rest.status).toBe(200);
    expect(rest.text).toContain('<input type="hidden" name="amount" value="7000">');
    expect(textOf(rest.text, 'confirm-body')).toContain('70,00 TRY');
    const restKey = /name="key" value="([^"]+)"/.exec(rest.text)?.[1] ?? '';
    const full = await owner.postForm(`${chargePath}/refund?lang=tr`, {
      _csrf: form._csrf,
      amount: '7000',
      key: restKey,
    });
    expect(full.status).toBe(303);
    const refunded = await owner.get(full.location ?? '');
    expect(textOf(refunded.text, 'notice')).toBe('İade başarılı.');
    expect(textOf(refunded.text, 'payment-refunded')).toBe('100,00 TRY');
    expect(textOf(refunded.text, 'payment-refundable')).toBe('0,00 TRY');
    expect(refunded.text).not.toContain('id="refund-form"');
    expect([...refunded.text.matchAll(/<li data-refund-id=/g)]).toHaveLength(2);
    const nothing = await owner.get(`${chargePath}/refund?lang=en`);
    expect(nothing.status).toBe(409);
    expect(textOf(nothing.text, 'refund-error')).toBe('Nothing remains to refund on this payment.');

    // A pending charge is not refundable.
    const pending = await newCharge(merchant);
    const notYet = await owner.get(`/dashboard/payments/${pending.id}/refund?lang=en`);
    expect(notYet.status).toBe(409);
    expect(textOf(notYet.text, 'refund-error')).toBe('Only a succeeded payment can be refunded.');
  });

  it('say a refund wherever the charge is shown, filter by it, and sign the ledger lines from the merchant’s side', async () => {
    const merchant = await createMerchant(t);
    const whole = await paidCharge(merchant, { amount: 10_000 });
    const part = await paidCharge(merchant, { amount: 10_000 });
    const untouched = await paidCharge(merchant, { amount: 10_000 });
    const refund = async (chargeId: string, amount: number) => {
      const res = await api<{ status: string }>(merchant, `/v1/charges/${chargeId}/refunds`, {
        body: { amount },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.status).toBe('succeeded');
    };
    await refund(whole.id, 10_000);
    await refund(part.id, 3_000);
    // The API keeps the status: the customer paid; what was given back is amountRefunded.
    const apiWhole = await api<{ status: string; amountRefunded: string }>(
      merchant,
      `/v1/charges/${whole.id}`,
    );
    expect(apiWhole.body).toMatchObject({ status: 'succeeded', amountRefunded: '10000' });

    const client = await signedIn(merchant.organizationId, 'owner');
    const list = await client.get('/dashboard/payments?lang=en');
    const rowOf = (html: string, id: string) =>
      new RegExp(`<tr data-charge-id="${id}"[^>]*>[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';
    expect(rowOf(list.text, whole.id)).toContain('data-refund="full"');
    expect(rowOf(list.text, whole.id)).toContain('class="payment-status">Succeeded</span>');
    expect(rowOf(list.text, whole.id)).toContain('Refunded in full · TRY 100.00');
    expect(rowOf(list.text, part.id)).toContain('Partially refunded · TRY 30.00');
    expect(rowOf(list.text, untouched.id)).not.toContain('data-refund');
    // The list's filter finds them by what was refunded, not by a status that does not change.
    const filtered = async (refunded: string) =>
      paymentsIn((await client.get(`/dashboard/payments?lang=en&refunded=${refunded}`)).text).sort();
    expect(await filtered('full')).toEqual([whole.id]);
    expect(await filtered('partial')).toEqual([part.id]);
    expect(await filtered('any')).toEqual([whole.id, part.id].sort());
    expect(await filtered('none')).toEqual([untouched.id]);
    const withStatus = await client.get('/dashboard/payments?lang=en&status=succeeded&refunded=full');
    expect(paymentsIn(withStatus.text)).toEqual([whole.id]);
    expect(withStatus.text).toMatch(/<option value="full" selected>Refunded in full<\/option>/);
    const bad = await client.get('/dashboard/payments?lang=en&refunded=everything');
    expect(bad.status).toBe(400);
    expect(problemsIn(bad.text)).toEqual(['refunded']);
    const turkish = await client.get('/dashboard/payments?lang=tr');
    expect(rowOf(turkish.text, whole.id)).toContain('Tamamen iade edildi · 100,00 TRY');

    // The charge page: Succeeded, and refunded in full beside it, with why the status stays.
    const page = await client.get(`/dashboard/payments/${whole.id}?lang=en`);
    expect(textOf(page.text, 'payment-status')).toBe('Succeeded');
    expect(textOf(page.text, 'payment-refund-state')).toBe('· Refunded in full');
    expect(textOf(page.text, 'payment-refund-state-hint')).toContain('the payment stays Succeeded');
    // 100.00 less 3.50 % + 1.00: the fee is 4.50, the net 95.50. The merchant's credit reads as +95.50,
    // the refund as -100.00 from its balance; the customer's and the fee's lines carry no sign.
    const lineOf = (html: string, kind: string, account: string) =>
      new RegExp(
        `<li data-kind="${kind}" data-account="${account}"[^>]*>[\\s\\S]*?class="ledger-amount">([^<]*)<`,
      ).exec(html)?.[1];
    expect(lineOf(page.text, 'charge_succeeded', 'merchant_pending')).toBe('+TRY 95.50');
    expect(lineOf(page.text, 'charge_succeeded', 'fee_revenue')).toBe('TRY 4.50');
    expect(lineOf(page.text, 'charge_succeeded', 'acquirer_clearing')).toBe('TRY 100.00');
    expect(lineOf(page.text, 'refund', 'merchant_pending')).toBe('-TRY 100.00');
    expect(lineOf(page.text, 'refund', 'acquirer_clearing')).toBe('TRY 100.00');
    expect(page.text).not.toContain('-TRY 95.50');
    expect(page.text).toContain(
      'data-kind="charge_succeeded" data-account="merchant_pending" data-amount="-9550"',
    );
    // The card fee a refund keeps is said, with its amount.
    expect(textOf(page.text, 'refund-fee-kept')).toBe(
      'A refund gives the customer back what you refund, and the card fee of TRY 4.50 is not returned: ' +
        'refunding all TRY 100.00 takes TRY 100.00 from your balance, which this payment credited TRY 95.50.',
    );
    const partPage = await client.get(`/dashboard/payments/${part.id}?lang=tr`);
    expect(textOf(partPage.text, 'payment-refund-state')).toBe('· Kısmen iade edildi');
    expect(lineOf(partPage.text, 'refund', 'merchant_pending')).toBe('-30,00 TRY');
    expect(lineOf(partPage.text, 'charge_succeeded', 'merchant_pending')).toBe('+95,50 TRY');
    expect(
      textOf((await client.get(`/dashboard/payments/${untouched.id}?lang=en`)).text, 'payment-refund-state'),
    ).toBe(undefined);
    // And on the confirmation of a refund.
    const confirm = await client.get(`/dashboard/payments/${part.id}/refund?lang=en&amount=10`);
    expect(textOf(confirm.text, 'confirm-warning')).toBe(
      'The card fee of TRY 4.50 is not returned: this refund takes TRY 10.00 from your balance. A refund cannot be undone.',
    );
  });

  it('list the 100 newest refunds and say there are more; pending refunds past them still hold back', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant, { amount: 10_000 });
    // Rows as the refunds service leaves them (a charge with this many refunds takes a long time to make
    // through the acquirer): the oldest one pending, 100 newer ones failed.
    const now = t.clock.now().getTime();
    const row = (index: number, status: 'pending' | 'failed', amount: string) => ({
      id: `re_fixture${String(index).padStart(3, '0')}`,
      charge_id: charge.id,
      organization_id: merchant.organizationId,
      environment: 'sandbox' as const,
      amount,
      currency: 'TRY' as const,
      status,
      reason: null,
      idempotency_key: null,
      provider_refund_id: null,
      failure_code: status === 'failed' ? 'card_declined' : null,
      failure_message: status === 'failed' ? 'declined' : null,
      created_at: new Date(now - 3_600_000 + index * 1000),
      updated_at: new Date(now - 3_600_000 + index * 1000),
    });
    await t.gateway.database.db
      .insertInto('refunds')
      .values([
        row(0, 'pending', '2000'),
        ...Array.from({ length: 100 }, (_, i) => row(i + 1, 'failed', '1')),
      ])
      .execute();
    const owner = await signedIn(merchant.organizationId, 'owner');

    const page = await owner.get(`/dashboard/payments/${charge.id}?lang=en`);
    expect(page.status).toBe(200);
    const listed = [...page.text.matchAll(/<li data-refund-id="([^"]+)"/g)].map((match) => match[1]);
    expect(listed).toHaveLength(100);
    expect(listed[0]).toBe('re_fixture100');
    expect(listed).not.toContain('re_fixture000');
    expect(textOf(page.text, 'more-refunds')).toBe(
      'The 100 newest refunds are listed; GET /v1/charges/{id}/refunds pages through all of them.',
    );
    // The pending refund the page does not list still holds its 20.00 back.
    expect(textOf(page.text, 'payment-refundable')).toBe('TRY 80.00');
    const over = await owner.get(`/dashboard/payments/${charge.id}/refund?lang=en&amount=80.01`);
    expect(over.status).toBe(400);
    expect(textOf(over.text, 'refund-error')).toBe('That is more than remains refundable (TRY 80.00).');

    // One refund fewer than the page holds: no such line.
    await t.gateway.database.db.deleteFrom('refunds').where('id', '=', 're_fixture001').execute();
    await t.gateway.database.db.deleteFrom('refunds').where('id', '=', 're_fixture000').execute();
    const all = await owner.get(`/dashboard/payments/${charge.id}?lang=en`);
    expect([...all.text.matchAll(/<li data-refund-id=/g)]).toHaveLength(99);
    expect(all.text).not.toContain('id="more-refunds"');
  });

  it('let owners and admins refund; viewers and developers see no button and are refused', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant, { amount: 5_000 });
    const chargePath = `/dashboard/payments/${charge.id}`;
    for (const role of ['viewer', 'developer'] as const) {
      const client = await signedIn(merchant.organizationId, role);
      const page = await client.get(`${chargePath}?lang=en`);
      expect(page.status, role).toBe(200);
      expect(page.text, role).not.toContain('id="refund-form"');
      expect(page.text, role).not.toContain('/refund"');
      const confirm = await client.get(`${chargePath}/refund?lang=en&amount=10`);
      expect(confirm.status, role).toBe(403);
      expect(textOf(confirm.text, 'refund-refused'), role).toBe(
        'Your role cannot refund payments. Ask an owner or an admin.',
      );
      const post = await client.postForm(`${chargePath}/refund?lang=en`, {
        _csrf: csrfIn(page.text),
        amount: '1000',
        key: `forbidden-key-${role}-0123`,
      });
      expect(post.status, role).toBe(403);
      expect(textOf(post.text, 'refund-refused'), role).toBe(
        'Your role cannot refund payments. Ask an owner or an admin.',
      );
    }
    expect((await api<{ data: unknown[] }>(merchant, `/v1/charges/${charge.id}/refunds`)).body.data).toEqual(
      [],
    );

    const admin = await signedIn(merchant.organizationId, 'admin');
    const confirm = await admin.get(`${chargePath}/refund?lang=en&amount=10`);
    expect(confirm.status).toBe(200);
    const key = /name="key" value="([^"]+)"/.exec(confirm.text)?.[1] ?? '';
    const post = await admin.postForm(`${chargePath}/refund?lang=en`, {
      _csrf: csrfIn(confirm.text),
      amount: '1000',
      key,
    });
    expect(post.status).toBe(303);
    expect(
      (await api<{ data: Array<{ amount: string }> }>(merchant, `/v1/charges/${charge.id}/refunds`)).body
        .data,
    ).toEqual([expect.objectContaining({ amount: '1000' })]);
  });

  it('list the webhook deliveries of the charge and retry a failed one (not as a viewer)', async () => {
    const merchant = await createMerchant(t);
    const endpoint = await api<{ id: string }>(merchant, '/v1/webhook-endpoints', {
      body: { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['charge.succeeded'] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const charge = await paidCharge(merchant, { amount: 4_000 });
    const db = t.gateway.database.db;
    const delivery = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status'])
      .where('endpoint_id', '=', endpoint.body.id)
      .executeTakeFirstOrThrow();
    const chargePath = `/dashboard/payments/${charge.id}`;
    const developer = await signedIn(merchant.organizationId, 'developer');
    const page = await developer.get(`${chargePath}?lang=en`);
    expect(page.text).toContain(`data-delivery-id="${delivery.id}"`);
    expect(page.text).toContain('http://127.0.0.1:9/hooks');
    // Retry is offered for failed deliveries only.
    expect(page.text).not.toContain('class="secondary retry-delivery"');

    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('id', '=', delivery.id)
      .execute();
    const failed = await developer.get(`${chargePath}?lang=en`);
    expect(failed.text).toMatch(new RegExp(`data-delivery-id="${delivery.id}" data-status="failed"`));
    expect(failed.text).toContain('class="secondary retry-delivery"');
    const retryPath = `${chargePath}/deliveries/${delivery.id}/retry?lang=en`;

    const viewer = await signedIn(merchant.organizationId, 'viewer');
    const viewerPage = await viewer.get(`${chargePath}?lang=en`);
    expect(viewerPage.text).not.toContain('retry-delivery');
    expect((await viewer.postForm(retryPath, { _csrf: csrfIn(viewerPage.text) })).status).toBe(403);
    expect((await developer.postForm(retryPath, {})).status).toBe(403);
    const stranger = await signedIn((await createMerchant(t)).organizationId, 'owner');
    expect((await stranger.postForm(retryPath, { _csrf: await stranger.sessionCsrf() })).status).toBe(404);
    const otherCharge = await paidCharge(merchant, { amount: 1_000 });
    expect(
      (
        await developer.postForm(
          `/dashboard/payments/${otherCharge.id}/deliveries/${delivery.id}/retry?lang=en`,
          {
            _csrf: csrfIn(failed.text),
          },
        )
      ).status,
    ).toBe(404);
    const still = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    expect(still.status).toBe('failed');

    const retried = await developer.postForm(retryPath, { _csrf: csrfIn(failed.text) });
    expect(retried.status).toBe(303);
    expect(retried.location).toBe(`${chargePath}?lang=en&notice=retried`);
    const now = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('id', '=', delivery.id)
      .executeTakeFirstOrThrow();
    expect(now.status).toBe('pending');
    const shown = await developer.get(retried.location ?? '');
    expect(textOf(shown.text, 'notice')).toBe('The webhook delivery is due again now.');
  });
});
