/**
 * The dashboard's overview (issue 15 item 3): volume, successful payments, success rate and refunds per
 * UTC day over 7, 30 or 90 days, and the payment-method mix, on the home page. Every figure is checked
 * against what the API says of the same charges and refunds; another organization's and the other
 * environment's payments never count; a period other than 7, 30 or 90 is a 400 page; signed out is the
 * login page.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { DAY } from '../src/shared/clock.js';
import { createActiveUser, textOf, WebClient } from './helpers/accounts.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { merchantApi, paidCharge } from './helpers/payouts.js';
import { postCharge } from './helpers/charges.js';

interface ChargeBody {
  id: string;
  amount: number;
  status: string;
  paymentMethod: string;
  createdAt: string;
}
interface RefundBody {
  amount: number;
  status: string;
  createdAt: string;
}

useTestGateway(accountGateway('api,sandbox-acquirer'));

/** A sandbox charge declined at the acquirer until it failed. */
async function failedCharge(merchant: Merchant, amount: number): Promise<string> {
  const res = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, { amount });
  const acquirer = t.gateway.services.acquirers.sandbox?.acquirer;
  if (!acquirer) throw new Error('no sandbox acquirer');
  let payment;
  for (let attempt = 0; attempt < 10; attempt += 1) {
    payment = await acquirer.authorize(
      res.providerPaymentId,
      {
        number: TEST_CARDS.cardDeclined.number,
        expMonth: 12,
        expYear: 2030,
        cvc: '123',
        holderName: 'Declined',
      },
      'https://shop.example/back',
    );
    if (payment.status === 'failed') break;
  }
  expect(payment?.status).toBe('failed');
  if (payment) await t.gateway.services.completion.apply(res.id, payment);
  return res.id;
}

async function allCharges(merchant: Merchant): Promise<ChargeBody[]> {
  const charges: ChargeBody[] = [];
  let after: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof merchantApi<{ data: ChargeBody[]; nextCursor: string | null }>>> =
      await merchantApi<{ data: ChargeBody[]; nextCursor: string | null }>(
        t,
        merchant,
        'sandbox',
        `/v1/charges?limit=100${after ? `&cursor=${after}` : ''}`,
      );
    expect(page.status, page.text).toBe(200);
    charges.push(...page.body.data);
    after = page.body.nextCursor;
  } while (after);
  return charges;
}

interface Row {
  day: string;
  volume: bigint;
  succeeded: number;
  unsuccessful: number;
  refunded: bigint;
}

function rowsOf(html: string): Row[] {
  const rows: Row[] = [];
  const pattern =
    /<tr data-day="([0-9-]+)" data-volume="(\d+)" data-succeeded="(\d+)" data-unsuccessful="(\d+)" data-refunded="(\d+)"/g;
  for (const match of html.matchAll(pattern)) {
    rows.push({
      day: match[1] ?? '',
      volume: BigInt(match[2] ?? '0'),
      succeeded: Number(match[3]),
      unsuccessful: Number(match[4]),
      refunded: BigInt(match[5] ?? '0'),
    });
  }
  return rows;
}

function attribute(html: string, id: string, name: string): string | undefined {
  const element = new RegExp(`id="${id}"[^>]*`).exec(html)?.[0] ?? '';
  return new RegExp(`${name}="([^"]*)"`).exec(element)?.[1];
}

async function signedIn(merchant: Merchant): Promise<WebClient> {
  const user = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'viewer' });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  return client;
}

describe('the overview on the home page', () => {
  it('shows per day and in total what the API says of the same charges and refunds', async () => {
    const merchant = await createMerchant(t);
    const stranger = await createMerchant(t);

    // Three days of activity: paid, failed, pending and refunded charges, in the sandbox; the same
    // merchant's live payment and another merchant's payment the same days.
    const paid: string[] = [];
    for (const day of [0, 1, 2]) {
      if (day > 0) t.clock.advance(DAY);
      paid.push((await paidCharge(t, merchant, 'sandbox', 10_000 + day * 1_001)).id);
      paid.push((await paidCharge(t, merchant, 'sandbox', 2_550)).id);
      if (day !== 1) await failedCharge(merchant, 7_700);
      await merchantApi(t, merchant, 'sandbox', '/v1/charges', validCharge({ amount: 990 }));
      await paidCharge(t, stranger, 'sandbox', 99_999);
      await paidCharge(t, merchant, 'live', 88_888);
    }
    const refund = await merchantApi<RefundBody>(t, merchant, 'sandbox', `/v1/charges/${paid[2]}/refunds`, {
      amount: 1_234,
    });
    expect(refund.status, refund.text).toBe(201);

    // What the API says.
    const charges = await allCharges(merchant);
    const refunds: RefundBody[] = [];
    for (const id of paid) {
      const list = await merchantApi<{ data: RefundBody[] }>(
        t,
        merchant,
        'sandbox',
        `/v1/charges/${id}/refunds`,
      );
      refunds.push(...list.body.data);
    }
    const expected = new Map<string, Row>();
    const rowOf = (day: string) => {
      let row = expected.get(day);
      if (!row) {
        row = { day, volume: 0n, succeeded: 0, unsuccessful: 0, refunded: 0n };
        expected.set(day, row);
      }
      return row;
    };
    for (const charge of charges) {
      const row = rowOf(charge.createdAt.slice(0, 10));
      if (charge.status === 'succeeded') {
        row.volume += BigInt(charge.amount);
        row.succeeded += 1;
      } else if (charge.status === 'failed' || charge.status === 'expired') row.unsuccessful += 1;
    }
    for (const each of refunds)
      if (each.status === 'succeeded') rowOf(each.createdAt.slice(0, 10)).refunded += BigInt(each.amount);
    expect(expected.size).toBe(3);

    const client = await signedIn(merchant);
    const home = await client.get('/dashboard?period=7');
    expect(home.status).toBe(200);
    const rows = rowsOf(home.text);
    expect(rows).toHaveLength(7);
    expect(rows.at(-1)?.day).toBe(t.clock.now().toISOString().slice(0, 10));
    for (const row of rows) {
      expect(row, row.day).toEqual(
        expected.get(row.day) ?? { day: row.day, volume: 0n, succeeded: 0, unsuccessful: 0, refunded: 0n },
      );
    }

    // The totals and the success rate, from the same figures.
    const succeeded = charges.filter((charge) => charge.status === 'succeeded');
    const volume = succeeded.reduce((sum, charge) => sum + BigInt(charge.amount), 0n);
    expect(attribute(home.text, 'total-volume', 'data-minor')).toBe(String(volume));
    expect(attribute(home.text, 'total-succeeded', 'data-count')).toBe(String(succeeded.length));
    expect(succeeded).toHaveLength(6);
    // 6 succeeded, 2 failed: 75%; the pending ones do not count.
    expect(attribute(home.text, 'total-success-rate', 'data-basis-points')).toBe('7500');
    expect(textOf(home.text, 'total-success-rate')).toBe('75.0%');
    expect(attribute(home.text, 'total-refunded', 'data-minor')).toBe('1234');
    // 10 000 + 11 001 + 12 002 + 3 × 2 550 minor units.
    expect(volume).toBe(40_653n);
    expect(textOf(home.text, 'total-volume')).toBe('TRY 406.53');

    // The method mix: every charge here is a card payment of validCharge's method.
    const mix = [
      ...home.text.matchAll(/<li data-method="([a-z_]+)" data-minor="(\d+)" data-succeeded="(\d+)"/g),
    ];
    expect(mix.map((match) => match[1])).toEqual([
      'credit_card_tr',
      'credit_card_international',
      'bank_transfer',
    ]);
    const byMethod = new Map<string, bigint>();
    for (const charge of succeeded)
      byMethod.set(charge.paymentMethod, (byMethod.get(charge.paymentMethod) ?? 0n) + BigInt(charge.amount));
    for (const match of mix)
      expect(BigInt(match[2] ?? '0'), match[1]).toBe(byMethod.get(match[1] ?? '') ?? 0n);

    // The charts: one bar per day with volume, the highest day full height.
    const volumeChart =
      /<figure class="chart" id="chart-volume">[\s\S]*?<\/figure>/.exec(home.text)?.[0] ?? '';
    expect([...volumeChart.matchAll(/<rect class="bar"/g)]).toHaveLength(3);
    expect(volumeChart).toContain(`height="160"`);
    expect(volumeChart).toMatch(
      /role="img"[^>]*aria-label="Gross volume per day over 7 days; the highest day: TRY /,
    );
  });

  it('offers 7, 30 and 90 days, 30 by default, in both languages; any other period is a 400 page', async () => {
    const merchant = await createMerchant(t);
    const client = await signedIn(merchant);
    const standard = await client.get('/dashboard');
    expect(rowsOf(standard.text)).toHaveLength(30);
    expect(attribute(standard.text, 'period-30', 'aria-current')).toBe('true');
    expect(rowsOf((await client.get('/dashboard?period=90')).text)).toHaveLength(90);
    const turkish = await client.get('/dashboard?period=7&lang=tr');
    expect(turkish.text).toContain('Genel bakış');
    expect(textOf(turkish.text, 'total-success-rate')).toBe('–');
    for (const period of ['14', '0', 'abc', '7.0', '-7', '']) {
      const refused = await client.get(`/dashboard?period=${encodeURIComponent(period)}`);
      expect(refused.status, period).toBe(400);
      expect(refused.text, period).toContain('Choose a period of 7, 30 or 90 days.');
    }
    const twice = await client.get('/dashboard?period=7&period=30');
    expect(twice.status).toBe(400);
  });

  it('rounds the success rate to the nearest tenth, as a merchant counts: 11 of 12 is 91.7%', async () => {
    const merchant = await createMerchant(t);
    for (let i = 0; i < 11; i += 1) await paidCharge(t, merchant, 'sandbox', 1_000 + i);
    await failedCharge(merchant, 500);
    const client = await signedIn(merchant);
    const home = await client.get('/dashboard?period=7&lang=en');
    // 11 / 12 = 91.666…%: rounded down it read 91.6% (and 9166 basis points).
    expect(textOf(home.text, 'total-success-rate')).toBe('91.7%');
    expect(attribute(home.text, 'total-success-rate', 'data-basis-points')).toBe('9167');
    const today = rowsOf(home.text).find((row) => row.succeeded === 11);
    expect(today?.unsuccessful).toBe(1);
    expect(home.text).toMatch(new RegExp(`<tr data-day="${today?.day}"[\\s\\S]*?91\\.7%</td>`));
    const turkish = await client.get('/dashboard?period=7&lang=tr');
    expect(textOf(turkish.text, 'total-success-rate')).toBe('%91,7');
  });

  it('is behind the sign-in', async () => {
    const anonymous = new WebClient(t.urls.web);
    const res = await anonymous.get('/dashboard?period=7');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?lang=en');
  });
});
