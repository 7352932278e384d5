/**
 * Exports in the merchant dashboard (issue 15 item 4, docs/exports.md): the charges, refunds and payouts
 * of the session's organization and environment created within a range of UTC days, as CSV, streamed.
 * Each file's rows are checked against what the API answers for the same range; the range's edges, the
 * refused ranges (the page again with 400), the roles, the session, another organization's and another
 * environment's rows, the neutralised formulas, and that a large export is read in pages of 1000 rows.
 */
import {
  CompiledQuery,
  PostgresQueryCompiler,
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import type { UserRole } from '../src/db/schema.js';
import { ACCOUNT_TEST_ENV, createActiveUser, csrfIn, WebClient } from './helpers/accounts.js';
import { apiRequest } from './helpers/client.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { payByCard } from './helpers/charges.js';
import { expectLoginFirst } from './helpers/http-checks.js';

type Row = Record<string, string>;
interface ChargeBody {
  id: string;
  amount: string;
  amountRefunded: string;
  currency: string;
  paymentMethod: string;
  merchantReference: string;
  status: string;
  providerPaymentId: string;
  customer: { email: string | null };
  card: { brand: string; last4: string } | null;
  failure: { code: string } | null;
  createdAt: string;
  updatedAt: string;
}
interface RefundBody {
  id: string;
  chargeId: string;
  amount: string;
  currency: string;
  status: string;
  reason: string | null;
  failureCode: string | null;
  createdAt: string;
  updatedAt: string;
}
interface PayoutBody {
  id: string;
  amount: string;
  currency: string;
  payoutAmount: string;
  payoutCurrency: string;
  network: string;
  walletId: string;
  address: string;
  status: string;
  rate: { value: string; source: string; at: string };
  spreadAmount: string;
  automatic: boolean;
  txHash: string | null;
  arrivalDate: string | null;
  completedAt: string | null;
  failureCode: string | null;
  createdAt: string;
  updatedAt: string;
}

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const CHARGE_HEADER =
  'id,created_at,status,amount,amount_decimal,amount_refunded,amount_refunded_decimal,fee,fee_decimal,' +
  'net,net_decimal,currency,payment_method,merchant_reference,customer_email,card_brand,card_last4,' +
  'failure_code,updated_at';

/** Every statement the gateway sends while `recording`, with its parameters (to explain it). */
let recording = false;
const compiled: Array<{ sql: string; parameters: readonly unknown[] }> = [];

/**
 * The recorded statements that read `charges` for `organizationId`: the export's own pages. Other work of
 * the gateway can read `charges` meanwhile (an acquirer notification retried on its backoff finds its
 * charge by payment id), and is not the export's.
 */
const chargeReadsOf = (organizationId: string) =>
  compiled.filter(
    (statement) => /from "charges"/i.test(statement.sql) && statement.parameters.includes(organizationId),
  );
const compiler = new PostgresQueryCompiler();
const capture: KyselyPlugin = {
  transformQuery(args: PluginTransformQueryArgs) {
    if (recording) {
      const query = compiler.compileQuery(args.node, args.queryId);
      compiled.push({ sql: query.sql, parameters: query.parameters });
    }
    return args.node;
  },
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  },
};

let raw: Database;

useTestGateway({
  env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,sandbox-acquirer,sandbox-chain' },
  wrapDatabase: (database) => {
    raw = database;
    const db = database.db.withPlugin(capture);
    return { ...database, db, readDb: db };
  },
});

/** Moves the test clock to `iso` (only forward: what was made before stays in the past). */
function at(iso: string): void {
  const to = new Date(iso);
  expect(to.getTime()).toBeGreaterThanOrEqual(t.clock.now().getTime());
  t.clock.set(to);
}

function api<T>(
  merchant: Merchant,
  path: string,
  init: { body?: unknown; environment?: 'sandbox' | 'live' } = {},
) {
  const environment = init.environment ?? 'sandbox';
  return apiRequest<T & { error: { code: string } }>(t.urls, path, {
    key: merchant.keys[environment].secret,
    environment,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
}

async function newCharge(
  merchant: Merchant,
  overrides: Record<string, unknown> = {},
  environment: 'sandbox' | 'live' = 'sandbox',
): Promise<ChargeBody> {
  const res = await api<ChargeBody>(merchant, '/v1/charges', { body: validCharge(overrides), environment });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A charge paid by card at the sandbox acquirer and completed: it has a fee and a net. */
async function paidCharge(merchant: Merchant, overrides: Record<string, unknown> = {}): Promise<ChargeBody> {
  const charge = await newCharge(merchant, overrides);
  await payByCard(t.gateway.services, charge, 'Export Test');
  return charge;
}

async function signedIn(organizationId: string, role: UserRole = 'viewer'): Promise<WebClient> {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return client;
}

async function switchTo(client: WebClient, environment: 'sandbox' | 'live'): Promise<void> {
  const csrf = csrfIn((await client.get('/dashboard')).text);
  const res = await client.postForm('/dashboard/environment', { _csrf: csrf, environment });
  expect(res.status).toBe(303);
}

/**
 * RFC 4180 CSV: quoted cells may hold commas, quotes (doubled) and line ends. Text between two special
 * characters is taken as one slice (a large export is some 24 MB; a character at a time took seconds).
 */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const special = /[",\n]/g;
  let i = 0;
  while (i < text.length) {
    if (quoted) {
      const quote = text.indexOf('"', i);
      if (quote === -1) {
        cell += text.slice(i);
        break;
      }
      cell += text.slice(i, quote);
      if (text[quote + 1] === '"') {
        cell += '"';
        i = quote + 2;
      } else {
        quoted = false;
        i = quote + 1;
      }
      continue;
    }
    special.lastIndex = i;
    const match = special.exec(text);
    if (match === null) {
      cell += text.slice(i);
      break;
    }
    cell += text.slice(i, match.index);
    i = match.index + 1;
    if (match[0] === '"') quoted = true;
    else if (match[0] === ',') {
      row.push(cell);
      cell = '';
    } else {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    }
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The header line and the rows as records. */
function csvRecords(text: string): { header: string[]; rows: Row[] } {
  const [header = [], ...lines] = parseCsv(text);
  return {
    header,
    rows: lines.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']))),
  };
}

async function download(client: WebClient, kind: string, from: string, to: string) {
  const res = await client.get(`/dashboard/exports/${kind}.csv?from=${from}&to=${to}`);
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  return { ...csvRecords(res.text), res };
}

/** The same file through the API (`GET /v1/exports/{kind}.csv`) with the merchant's key. */
async function viaApi(
  merchant: Merchant,
  kind: string,
  from: string,
  to: string,
  environment: 'sandbox' | 'live' = 'sandbox',
): Promise<string> {
  const res = await api<unknown>(merchant, `/v1/exports/${kind}.csv?from=${from}&to=${to}`, { environment });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toBe(
    `attachment; filename="${kind}-${environment}-${from}-to-${to}.csv"`,
  );
  return res.text;
}

/** Every charge of the API's list (all pages), oldest first, created in [from, to). */
async function apiCharges(
  merchant: Merchant,
  from: string,
  to: string,
  environment: 'sandbox' | 'live' = 'sandbox',
): Promise<ChargeBody[]> {
  const all: ChargeBody[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await api<{ data: ChargeBody[]; nextCursor: string | null }>(
      merchant,
      `/v1/charges?${query}`,
      {
        environment,
      },
    );
    expect(page.status, page.text).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return all.filter((c) => c.createdAt >= from && c.createdAt < to).reverse();
}

/** What a charge's CSV row holds, from the API's view (fee and net from the ledger when it succeeded). */
function chargeRow(charge: ChargeBody, split: { fee: string; net: string } | null): Row {
  const decimal = (minor: string) => `${minor.slice(0, -2) || '0'}.${minor.padStart(2, '0').slice(-2)}`;
  const text = (value: string | null) =>
    value && /^[=+\-@\t\r\n]/.test(value) ? `'${value}` : (value ?? '');
  return {
    id: charge.id,
    created_at: charge.createdAt,
    status: charge.status,
    amount: charge.amount,
    amount_decimal: decimal(charge.amount),
    amount_refunded: charge.amountRefunded,
    amount_refunded_decimal: decimal(charge.amountRefunded),
    fee: split?.fee ?? '',
    fee_decimal: split ? decimal(split.fee) : '',
    net: split?.net ?? '',
    net_decimal: split ? decimal(split.net) : '',
    currency: charge.currency,
    payment_method: charge.paymentMethod,
    merchant_reference: text(charge.merchantReference),
    customer_email: text(charge.customer.email),
    card_brand: charge.card?.brand ?? '',
    card_last4: charge.card?.last4 ?? '',
    failure_code: charge.failure?.code ?? '',
    updated_at: charge.updatedAt,
  };
}

describe('the exports', () => {
  it('need a session', async () => {
    await expectLoginFirst(t.urls.web, [
      '/dashboard/exports',
      '/dashboard/exports/download?kind=charges&from=2026-11-01&to=2026-11-30',
      '/dashboard/exports/charges.csv?from=2026-11-01&to=2026-11-30',
      '/dashboard/exports/refunds.csv?from=2026-11-01&to=2026-11-30',
      '/dashboard/exports/payouts.csv?from=2026-11-01&to=2026-11-30',
    ]);
  });

  it('export the charges of a range of UTC days, edges included and excluded, as the API lists them', async () => {
    const merchant = await createMerchant(t);
    const other = await createMerchant(t);
    at('2026-12-01T12:00:00.000Z');
    const before = await newCharge(merchant, { merchantReference: 'before-range' });
    at('2026-12-01T23:59:59.999Z');
    const lastBefore = await newCharge(merchant);
    at('2026-12-02T00:00:00.000Z');
    const first = await paidCharge(merchant, {
      amount: 1234567,
      merchantReference: '=HYPERLINK("https://evil.example","x")',
      customer: { name: 'Ayşe, "Tırnak"', email: 'ayse@example.com' },
    });
    await newCharge(other, { merchantReference: 'other-org' });
    await newCharge(merchant, { merchantReference: 'live-one' }, 'live');
    at('2026-12-02T09:30:00.000Z');
    const formula = await newCharge(merchant, {
      amount: 5,
      merchantReference: '@SUM(A1:A2)',
      customer: { email: '+90@example.com' },
    });
    const sameTime = await newCharge(merchant, { merchantReference: '-2+3' });
    at('2026-12-03T23:59:59.999Z');
    const last = await newCharge(merchant, { amount: 100 });
    at('2026-12-04T00:00:00.000Z');
    const after = await newCharge(merchant);
    at('2026-12-04T01:00:00.000Z');

    const client = await signedIn(merchant.organizationId, 'viewer');
    const { header, rows, res } = await download(client, 'charges', '2026-12-02', '2026-12-03');
    expect(await viaApi(merchant, 'charges', '2026-12-02', '2026-12-03')).toBe(res.text);
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="charges-sandbox-2026-12-02-to-2026-12-03.csv"',
    );
    expect(header.join(',')).toBe(CHARGE_HEADER);
    const ids = rows.map((row) => row.id);
    // Oldest first; the two made in the same millisecond in id order.
    expect(ids).toEqual([first.id, ...[formula.id, sameTime.id].sort(), last.id]);
    for (const outside of [before.id, lastBefore.id, after.id]) expect(ids).not.toContain(outside);

    // Row for row what the API answers for the same range; the paid charge with its ledger fee.
    const listed = await apiCharges(merchant, '2026-12-02T00:00:00.000Z', '2026-12-04T00:00:00.000Z');
    expect(listed.map((c) => c.id)).toEqual(ids);
    // 12345.67 TRY by card: 3.5 % (rounded half up) + 1.00.
    const fee = String(Math.round(1234567 * 0.035) + 100);
    const net = String(1234567 - Number(fee));
    expect(rows).toEqual(
      listed.map((charge) => chargeRow(charge, charge.id === first.id ? { fee, net } : null)),
    );
    const paid = rows[0] as Row;
    expect(paid).toMatchObject({
      status: 'succeeded',
      amount: '1234567',
      amount_decimal: '12345.67',
      card_brand: 'visa',
      customer_email: 'ayse@example.com',
    });
    expect(paid.card_last4).toMatch(/^\d{4}$/);
    expect(rows.find((row) => row.id === last.id)?.amount_decimal).toBe('1.00');
    expect(rows.find((row) => row.id === formula.id)?.amount_decimal).toBe('0.05');

    // Formulas in what the merchant and its customers wrote are neutralised: a leading apostrophe.
    expect(paid.merchant_reference).toBe(`'=HYPERLINK("https://evil.example","x")`);
    expect(rows.find((row) => row.id === formula.id)).toMatchObject({
      merchant_reference: "'@SUM(A1:A2)",
      customer_email: "'+90@example.com",
    });
    expect(rows.find((row) => row.id === sameTime.id)?.merchant_reference).toBe("'-2+3");
    // The customer's name, phone and ID number are not exported; a card number never is.
    expect(res.text).not.toContain('Ayşe');
    expect(res.text).not.toContain(TEST_CARDS.visa.number);

    // One day: its first and last millisecond.
    expect((await download(client, 'charges', '2026-12-03', '2026-12-03')).rows.map((r) => r.id)).toEqual([
      last.id,
    ]);
    expect((await download(client, 'charges', '2026-12-01', '2026-12-01')).rows.map((r) => r.id)).toEqual([
      before.id,
      lastBefore.id,
    ]);
    // A range with nothing in it: the header alone.
    const empty = await download(client, 'charges', '2025-01-01', '2025-01-31');
    expect(empty.res.text).toBe(`${CHARGE_HEADER}\n`);

    // The other organization's viewer sees only its own charge.
    const otherClient = await signedIn(other.organizationId, 'viewer');
    const theirs = await download(otherClient, 'charges', '2026-12-02', '2026-12-03');
    expect(theirs.rows.map((row) => row.merchant_reference)).toEqual(['other-org']);
  });

  it('export the environment the session is in', async () => {
    const merchant = await createMerchant(t);
    at('2026-12-05T10:00:00.000Z');
    const sandbox = await newCharge(merchant);
    const live = await newCharge(merchant, {}, 'live');
    at('2026-12-05T11:00:00.000Z');
    const client = await signedIn(merchant.organizationId, 'admin');
    const inSandbox = await download(client, 'charges', '2026-12-05', '2026-12-05');
    expect(inSandbox.rows.map((row) => row.id)).toEqual([sandbox.id]);
    expect((await client.get('/dashboard/exports?lang=en')).text).toContain('data-environment="sandbox"');

    await switchTo(client, 'live');
    const inLive = await download(client, 'charges', '2026-12-05', '2026-12-05');
    expect(await viaApi(merchant, 'charges', '2026-12-05', '2026-12-05', 'live')).toBe(inLive.res.text);
    expect(await viaApi(merchant, 'charges', '2026-12-05', '2026-12-05')).toBe(inSandbox.res.text);
    expect(inLive.rows.map((row) => row.id)).toEqual([live.id]);
    expect(inLive.res.headers.get('content-disposition')).toContain(
      'charges-live-2026-12-05-to-2026-12-05.csv',
    );
    const listed = await apiCharges(merchant, '2026-12-05T00:00:00.000Z', '2026-12-06T00:00:00.000Z', 'live');
    expect(inLive.rows).toEqual(listed.map((charge) => chargeRow(charge, null)));
    expect((await client.get('/dashboard/exports?lang=en')).text).toContain('data-environment="live"');
  });

  it('export refunds and payouts as the API shows them', async () => {
    const merchant = await createMerchant(t, {
      featureFlags: ['payouts', 'wallets'],
      payoutSchedule: 'manual',
    });
    at('2026-12-07T08:00:00.000Z');
    const wallet = await api<{ id: string }>(merchant, '/v1/wallets', {
      body: { network: 'tron', address: TRON_ADDRESS },
    });
    expect(wallet.status, wallet.text).toBe(201);
    const charge = await paidCharge(merchant, { amount: 1_000_000 });
    at('2026-12-07T09:00:00.000Z');
    const refunded = await api<RefundBody>(merchant, `/v1/charges/${charge.id}/refunds`, {
      body: { amount: 1050, reason: '=cmd|" /C calc"!A0' },
    });
    expect(refunded.status, refunded.text).toBe(201);
    at('2026-12-07T09:30:00.000Z');
    const second = await api<RefundBody>(merchant, `/v1/charges/${charge.id}/refunds`, {
      body: { amount: 20000 },
    });
    expect(second.status, second.text).toBe(201);
    const settled = await api<{ released: boolean }>(merchant, '/v1/test-helpers/settle', { body: {} });
    expect(settled.body.released, settled.text).toBe(true);
    at('2026-12-07T10:00:00.000Z');
    const payout = await api<PayoutBody>(merchant, '/v1/payouts', { body: { amount: 500_000 } });
    expect(payout.status, payout.text).toBe(201);
    at('2026-12-08T10:00:00.000Z');

    const client = await signedIn(merchant.organizationId, 'owner');
    const refunds = await download(client, 'refunds', '2026-12-07', '2026-12-07');
    expect(await viaApi(merchant, 'refunds', '2026-12-07', '2026-12-07')).toBe(refunds.res.text);
    expect(refunds.header.join(',')).toBe(
      'id,charge_id,created_at,status,amount,amount_decimal,currency,reason,failure_code,updated_at',
    );
    const listedRefunds = await api<{ data: RefundBody[] }>(merchant, `/v1/charges/${charge.id}/refunds`);
    const expectedRefunds = [...listedRefunds.body.data].reverse();
    expect(expectedRefunds.map((r) => r.id)).toEqual([refunded.body.id, second.body.id]);
    expect(refunds.rows).toEqual(
      expectedRefunds.map((refund) => ({
        id: refund.id,
        charge_id: refund.chargeId,
        created_at: refund.createdAt,
        status: refund.status,
        amount: refund.amount,
        amount_decimal: `${refund.amount.slice(0, -2) || '0'}.${refund.amount.padStart(2, '0').slice(-2)}`,
        currency: refund.currency,
        reason: refund.reason === null ? '' : `'${refund.reason}`,
        failure_code: refund.failureCode ?? '',
        updated_at: refund.updatedAt,
      })),
    );
    expect(refunds.rows[0]).toMatchObject({
      amount: '1050',
      amount_decimal: '10.50',
      reason: `'=cmd|" /C calc"!A0`,
    });

    const payouts = await download(client, 'payouts', '2026-12-07', '2026-12-07');
    expect(await viaApi(merchant, 'payouts', '2026-12-07', '2026-12-07')).toBe(payouts.res.text);
    const listedPayouts = await api<{ data: PayoutBody[] }>(
      merchant,
      '/v1/payouts?createdFrom=2026-12-07T00:00:00.000Z&createdTo=2026-12-08T00:00:00.000Z',
    );
    expect(listedPayouts.status, listedPayouts.text).toBe(200);
    const p = listedPayouts.body.data[0] as PayoutBody;
    expect(listedPayouts.body.data).toHaveLength(1);
    expect(payouts.rows).toEqual([
      {
        id: p.id,
        created_at: p.createdAt,
        status: p.status,
        amount: p.amount,
        amount_decimal: '5000.00',
        currency: 'TRY',
        payout_amount: p.payoutAmount,
        payout_amount_decimal: `${p.payoutAmount.slice(0, -6)}.${p.payoutAmount.slice(-6)}`,
        payout_currency: 'USDT',
        network: 'tron',
        wallet_id: wallet.body.id,
        wallet_address: TRON_ADDRESS,
        rate: p.rate.value,
        rate_source: p.rate.source,
        rate_at: p.rate.at,
        spread_amount: p.spreadAmount,
        spread_amount_decimal: `${p.spreadAmount.slice(0, -2) || '0'}.${p.spreadAmount.padStart(2, '0').slice(-2)}`,
        automatic: 'false',
        tx_hash: p.txHash ?? '',
        arrival_date: p.arrivalDate ?? '',
        completed_at: p.completedAt ?? '',
        failure_code: p.failureCode ?? '',
        updated_at: p.updatedAt,
      },
    ]);
    // The next day has none of them.
    expect((await download(client, 'refunds', '2026-12-08', '2026-12-08')).rows).toEqual([]);
    expect((await download(client, 'payouts', '2026-12-08', '2026-12-08')).rows).toEqual([]);
    // Another organization exports none of them.
    const stranger = await signedIn((await createMerchant(t)).organizationId, 'owner');
    expect((await download(stranger, 'refunds', '2026-12-07', '2026-12-07')).rows).toEqual([]);
    expect((await download(stranger, 'payouts', '2026-12-07', '2026-12-07')).rows).toEqual([]);
  });

  it('refuse a missing, malformed or reversed range and one over 366 days with the page and 400', async () => {
    const merchant = await createMerchant(t);
    const client = await signedIn(merchant.organizationId, 'viewer');
    const cases: Array<[string, string[]]> = [
      ['', ['fromMissing', 'toMissing']],
      ['from=2026-01-01', ['toMissing']],
      ['from=&to=2026-01-01', ['fromMissing']],
      ['from=2026-02-30&to=2026-03-01', ['fromInvalid']],
      ['from=2026-01-01&to=31.01.2026', ['toInvalid']],
      ['from=1999-12-31&to=2000-01-01', ['fromInvalid']],
      ['from=2026-01-01T00:00&to=2026-01-02', ['fromInvalid']],
      ['from=2026-03-02&to=2026-03-01', ['order']],
      ['from=2025-01-01&to=2026-01-02', ['tooLong']],
    ];
    for (const [query, errors] of cases) {
      for (const path of [
        `/dashboard/exports/charges.csv?lang=en&${query}`,
        `/dashboard/exports/download?lang=en&kind=payouts&${query}`,
      ]) {
        const res = await client.get(path);
        expect(res.status, path).toBe(400);
        expect(res.headers.get('content-type'), path).toContain('text/html');
        expect(res.headers.get('content-disposition'), path).toBeNull();
        expect(
          [...res.text.matchAll(/data-error="([a-zA-Z]+)"/g)].map((m) => m[1]),
          path,
        ).toEqual(errors);
        expect(res.text).toContain('id="export-form"');
      }
    }
    // A control character in the query is refused before the route (the dashboard's 400 page).
    const nul = await client.get('/dashboard/exports/charges.csv?lang=en&from=2026-01-01&to=2026-01-01%00');
    expect(nul.status).toBe(400);
    expect(nul.headers.get('content-type')).toContain('text/html');
    expect(nul.headers.get('content-disposition')).toBeNull();
    const tooLong = await client.get('/dashboard/exports/refunds.csv?lang=tr&from=2025-01-01&to=2026-01-02');
    expect(tooLong.text).toContain('Aralık 366 günden uzun');
    // 366 days, both ends included, is the longest range.
    const leap = await client.get('/dashboard/exports/charges.csv?from=2024-01-01&to=2024-12-31');
    expect(leap.status).toBe(200);
    // The form: an unknown kind is refused, a good request goes to the file.
    const badKind = await client.get(
      '/dashboard/exports/download?lang=en&kind=customers&from=2026-01-01&to=2026-01-02',
    );
    expect(badKind.status).toBe(400);
    expect(badKind.text).toContain('data-error="kind"');
    const good = await client.get(
      '/dashboard/exports/download?lang=tr&kind=refunds&from=2026-01-01&to=2026-01-31',
    );
    expect(good.status).toBe(303);
    expect(good.location).toBe('/dashboard/exports/refunds.csv?lang=tr&from=2026-01-01&to=2026-01-31');
    expect((await client.get('/dashboard/exports/customers.csv?from=2026-01-01&to=2026-01-02')).status).toBe(
      404,
    );
  });

  it('through the API: a refused range is 400 validation_failed naming the parameter', async () => {
    const merchant = await createMerchant(t);
    const cases: Array<[string, Array<{ path: string; code: string }>]> = [
      [
        '',
        [
          { path: 'from', code: 'required' },
          { path: 'to', code: 'required' },
        ],
      ],
      ['from=2026-01-01', [{ path: 'to', code: 'required' }]],
      ['from=2026-1-1&to=2026-01-02', [{ path: 'from', code: 'invalid_format' }]],
      ['from=2026-02-30&to=2026-03-01', [{ path: 'from', code: 'invalid_value' }]],
      ['from=2026-01-01&to=3000-01-01', [{ path: 'to', code: 'invalid_value' }]],
      ['from=2026-03-02&to=2026-03-01', [{ path: 'from', code: 'invalid_value' }]],
      ['from=2025-01-01&to=2026-01-02', [{ path: 'to', code: 'too_large' }]],
      ['from=2026-01-01&to=2026-01-02&limit=10', [{ path: 'limit', code: 'unknown_field' }]],
    ];
    for (const [query, issues] of cases) {
      const res = await api<{ error: { code: string; details: { issues: unknown[] } } }>(
        merchant,
        `/v1/exports/refunds.csv?${query}`,
      );
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe('validation_failed');
      expect(res.body.error.details.issues, query).toEqual(
        issues.map((issue) => expect.objectContaining({ ...issue, in: 'query' })),
      );
    }
    expect(await viaApi(merchant, 'charges', '2024-01-01', '2024-12-31')).toBe(`${CHARGE_HEADER}\n`);
  });

  it('are for owners, admins and viewers, in both languages, linked from the navigation', async () => {
    const merchant = await createMerchant(t);
    for (const role of ['owner', 'admin', 'viewer'] as const) {
      const client = await signedIn(merchant.organizationId, role);
      const page = await client.get('/dashboard/exports?lang=en');
      expect(page.status, role).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.text).not.toMatch(/<script|style=/);
      // The shell's navigation links here, marked as the page shown.
      expect(page.text).toContain(
        '<a href="/dashboard/exports?lang=en" id="exports-link" aria-current="page">Exports</a>',
      );
      expect(page.text).toContain(
        '<form method="get" action="/dashboard/exports/download" id="export-form">',
      );
      // The form suggests the last 30 days, today (UTC) included.
      const today = t.clock.now().toISOString().slice(0, 10);
      expect(page.text).toContain(
        `id="export-to" name="to" type="date" min="2000-01-01" max="2999-12-31" value="${today}"`,
      );
      expect(page.text).toContain('id="kind-charges" checked');
      const tr = await client.get('/dashboard/exports?lang=tr');
      expect(tr.text).toContain('<h1>Dışa aktarım</h1>');
      expect(tr.text).toContain('id="exports-link" aria-current="page">Dışa aktarım</a>');
      expect(tr.text).toContain('CSV indir');
    }
    const developer = await signedIn(merchant.organizationId, 'developer');
    const refused = await developer.get('/dashboard/exports?lang=en');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('id="not-permitted"');
    expect(refused.text).not.toContain('id="export-form"');
    // A developer is not offered the link.
    expect(refused.text).not.toContain('id="exports-link"');
    for (const path of [
      '/dashboard/exports/charges.csv?from=2026-01-01&to=2026-01-02',
      '/dashboard/exports/payouts.csv?from=2026-01-01&to=2026-01-02',
      '/dashboard/exports/download?kind=charges&from=2026-01-01&to=2026-01-02',
    ]) {
      const res = await developer.get(path);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('content-disposition'), path).toBeNull();
    }
  });
});

describe('a large export', () => {
  it('arrives whole, oldest first, read in keyset pages of 1000 rows through the index', async () => {
    const merchant = await createMerchant(t);
    const other = await createMerchant(t);
    const seeded = 4321;
    const base = new Date('2026-12-10T00:00:00.000Z');
    // Rows as charge creation leaves them, made fast: the merchant's, one every 10 seconds over half a
    // day (several in the same millisecond too), and as many of another organization in between.
    await sql`
      INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
                           status, creation_state, provider, provider_request, provider_payment_id,
                           provider_status, customer_email, expires_at, created_at, updated_at)
      SELECT 'ch_bulk' || lpad(i::text, 6, '0') || o.n, o.org, 'sandbox', 100 + i, 'TRY', 'credit_card_tr',
             'bulk-' || o.n || '-' || i, 'pending', 'created', 'sandbox', '{}'::jsonb, 'pay_bulk' || o.n || i,
             'awaiting_payment', 'bulk' || i || '@example.com',
             ${base}::timestamptz + interval '1 day',
             ${base}::timestamptz + (i / 3) * interval '10 seconds',
             ${base}::timestamptz + (i / 3) * interval '10 seconds'
      FROM generate_series(1, ${seeded}) AS i,
           (VALUES (${merchant.organizationId}, 'a'), (${other.organizationId}, 'b')) AS o(org, n)
    `.execute(raw.db);
    at('2026-12-11T00:00:00.000Z');
    const client = await signedIn(merchant.organizationId, 'viewer');

    compiled.length = 0;
    recording = true;
    let res;
    try {
      res = await client.get('/dashboard/exports/charges.csv?from=2026-12-10&to=2026-12-10');
    } finally {
      recording = false;
    }
    expect(res.status).toBe(200);
    // Streamed: no length known up front.
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const { rows } = csvRecords(res.text);
    expect(rows).toHaveLength(seeded);
    const expected = Array.from({ length: seeded }, (_, k) => `ch_bulk${String(k + 1).padStart(6, '0')}a`);
    expect(rows.map((row) => row.id)).toEqual(expected);
    expect(rows[seeded - 1]).toMatchObject({
      amount: String(100 + seeded),
      customer_email: `bulk${seeded}@example.com`,
    });

    const pages = chargeReadsOf(merchant.organizationId).map((statement) => statement.sql);
    expect(pages).toHaveLength(Math.ceil((seeded + 1) / 1000));
    for (const statement of pages) {
      expect(statement).toMatch(/order by "created_at" asc, "id" asc limit \$\d+$/i);
    }
    // The first page has no key; every later one starts after the previous page's last row.
    expect(pages[0]).not.toMatch(/\(created_at, id\) >/);
    for (const statement of pages.slice(1)) expect(statement).toMatch(/\(created_at, id\) > \(/);

    // Each page is served by the owner's creation-time index, not a scan of the table.
    await sql`ANALYZE charges`.execute(raw.db);
    const explained = chargeReadsOf(merchant.organizationId);
    expect(explained.length).toBe(pages.length);
    for (const statement of [explained[0], explained[explained.length - 1]]) {
      if (!statement) throw new Error('no statement');
      const result = await raw.db.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
      );
      const cell = result.rows[0]?.['QUERY PLAN'];
      const plan = JSON.stringify(typeof cell === 'string' ? JSON.parse(cell) : cell);
      expect(plan).toContain('"Index Name":"charges_list_idx"');
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    }
  }, 120_000);

  it('waits for a client that stops reading, and stops for one that goes away', async () => {
    const merchant = await createMerchant(t);
    const seeded = 40_000;
    const base = new Date('2026-12-20T00:00:00.000Z');
    // Rows of about 600 bytes: some 24 MB of CSV, several times what the sockets between hold.
    await sql`
      INSERT INTO charges (id, organization_id, environment, amount, currency, payment_method, merchant_reference,
                           status, creation_state, provider, provider_request, provider_payment_id,
                           provider_status, customer_email, expires_at, created_at, updated_at)
      SELECT 'ch_slow' || lpad(i::text, 6, '0'), ${merchant.organizationId}, 'sandbox', 100 + i, 'TRY',
             'credit_card_tr', 'slow-' || i || '-' || repeat('r', 100), 'pending', 'created', 'sandbox',
             '{}'::jsonb, 'pay_slow' || i, 'awaiting_payment', repeat('e', 60) || '.' || repeat('f', 60) || '.' || repeat('g', 60) || i || '@example.com',
             ${base}::timestamptz + interval '1 day',
             ${base}::timestamptz + i * interval '1 second',
             ${base}::timestamptz + i * interval '1 second'
      FROM generate_series(1, ${seeded}) AS i
    `.execute(raw.db);
    at('2026-12-21T00:00:00.000Z');
    const client = await signedIn(merchant.organizationId, 'viewer');
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const pagesRead = () => chargeReadsOf(merchant.organizationId).length;

    compiled.length = 0;
    recording = true;
    try {
      const res = await fetch(`${t.urls.web}/dashboard/exports/charges.csv?from=2026-12-20&to=2026-12-20`, {
        headers: { cookie, 'x-forwarded-for': client.ip },
      });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      const first = await reader.read();
      text += decoder.decode(first.value, { stream: true });
      // The client takes nothing more for a while: the gateway stops reading once the sockets are full.
      let stalled = -1;
      for (let i = 0; i < 20 && stalled !== pagesRead(); i++) {
        stalled = pagesRead();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(stalled).toBeGreaterThanOrEqual(1);
      expect(stalled).toBeLessThan((seeded / 1000) * 0.75);
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      const { rows } = csvRecords(text);
      expect(rows).toHaveLength(seeded);
      expect(rows[seeded - 1]?.id).toBe(`ch_slow${String(seeded).padStart(6, '0')}`);
      expect(pagesRead()).toBe(Math.ceil((seeded + 1) / 1000));

      // A client that goes away: the gateway stops reading pages.
      compiled.length = 0;
      const abort = new AbortController();
      const gone = await fetch(`${t.urls.web}/dashboard/exports/charges.csv?from=2026-12-20&to=2026-12-20`, {
        headers: { cookie, 'x-forwarded-for': client.ip },
        signal: abort.signal,
      });
      const goneReader = (gone.body as ReadableStream<Uint8Array>).getReader();
      expect((await goneReader.read()).done).toBe(false);
      abort.abort();
      await goneReader.closed.catch(() => undefined);
      let settled = -1;
      for (let i = 0; i < 20 && settled !== pagesRead(); i++) {
        settled = pagesRead();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(settled).toBeLessThan((seeded / 1000) * 0.75);
      // It let go of the stream (not merely waiting on a full socket): the end is logged as an abort.
      const stopped = () =>
        t.logs.some(
          (line) => line.includes('export stopped: the client went away') && line.includes('"charges"'),
        );
      for (let i = 0; i < 20 && !stopped(); i++) await new Promise((resolve) => setTimeout(resolve, 250));
      expect(stopped()).toBe(true);
      // The gateway is still well: the next export is whole.
      const again = await client.get('/dashboard/exports/charges.csv?from=2026-12-20&to=2026-12-20');
      expect(csvRecords(again.text).rows).toHaveLength(seeded);
    } finally {
      recording = false;
    }
  }, 180_000);
});
