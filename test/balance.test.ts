/**
 * GET /v1/balance through the running gateway (product decision 23): balances derived from the ledger's
 * postings, per organization and environment, with the authentication of every API route.
 */
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment, PaymentMethod } from '../src/db/schema.js';
import { BalanceViewSchema } from '../src/modules/ledger/schemas.js';
import { newId } from '../src/shared/ids.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { apiUrl, createMerchant, issueKey, type Merchant } from './helpers/merchants.js';

interface BalanceBody {
  livemode: boolean;
  balances: Array<{ currency: string; pending: string; available: string; inTransit: string; debt: string }>;
}
type Body = BalanceBody & ErrorBody;

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t?.close());

const db = () => t.gateway.database.db;
const ledger = () => t.gateway.services.ledger;

function getBalance(environment: Environment, key: string | undefined): Promise<HttpResult<Body>> {
  return request<Body>(`${apiUrl(t.urls, environment)}/v1/balance`, {
    headers: key === undefined ? {} : { 'x-api-key': key },
  });
}

async function balanceOf(merchant: Merchant, environment: Environment): Promise<BalanceBody> {
  const res = await getBalance(environment, merchant.keys[environment].secret);
  expect(res.status, res.text).toBe(200);
  expect(Value.Check(BalanceViewSchema, res.body), res.text).toBe(true);
  expect(Object.keys(res.body).sort()).toEqual(['balances', 'livemode']);
  return res.body;
}

const zero = { currency: 'TRY', pending: '0', available: '0', inTransit: '0', reserve: '0', debt: '0' };
/** The balance of a signed pending sum: a sum below zero is `debt` alone, never also a negative `pending`. */
const pending = (amount: string) => ({
  ...zero,
  pending: amount.startsWith('-') ? '0' : amount,
  debt: amount.startsWith('-') ? amount.slice(1) : '0',
});

async function setFee(
  organizationId: string,
  method: PaymentMethod,
  basisPoints: number,
  fixedMinor: bigint,
) {
  await db()
    .insertInto('fee_schedules')
    .values({
      organization_id: organizationId,
      payment_method: method,
      basis_points: basisPoints,
      fixed_minor: fixedMinor,
      updated_at: t.clock.now(),
    })
    .execute();
}

interface CreatedCharge {
  id: string;
  amount: string;
  paymentMethod: PaymentMethod;
}

/** A real charge created through the API, then recorded as succeeded the way the charge state machine does. */
async function succeededCharge(
  merchant: Merchant,
  environment: Environment,
  overrides: Record<string, unknown> = {},
): Promise<CreatedCharge & { fee: string; net: string }> {
  const res = await request<CreatedCharge>(`${apiUrl(t.urls, environment)}/v1/charges`, {
    method: 'POST',
    body: validCharge(overrides),
    headers: { 'x-api-key': merchant.keys[environment].secret },
  });
  expect(res.status, res.text).toBe(201);
  const charge = res.body;
  const split = await db()
    .transaction()
    .execute((trx) =>
      ledger().postChargeSucceeded(trx, {
        id: charge.id,
        organizationId: merchant.organizationId,
        environment,
        amount: charge.amount,
        paymentMethod: charge.paymentMethod,
        merchantReference: null,
      }),
    );
  expect(split.created).toBe(true);
  return { ...charge, fee: split.fee, net: split.net };
}

async function refund(merchant: Merchant, environment: Environment, chargeId: string, amount: string) {
  const posted = await db()
    .transaction()
    .execute((trx) =>
      ledger().postRefund(trx, {
        id: newId('re', t.clock.now()),
        chargeId,
        organizationId: merchant.organizationId,
        environment,
        amount,
        merchantReference: null,
      }),
    );
  expect(posted.created).toBe(true);
}

describe('GET /v1/balance', () => {
  it('answers a zero TRY row for a new merchant, on each listener with its livemode', async () => {
    const merchant = await createMerchant(t);
    expect(await balanceOf(merchant, 'sandbox')).toEqual({ livemode: false, balances: [zero] });
    expect(await balanceOf(merchant, 'live')).toEqual({ livemode: true, balances: [zero] });
  });

  it('sums succeeded charges net of fees, less refunds, as decimal strings of minor units', async () => {
    const merchant = await createMerchant(t);
    await setFee(merchant.organizationId, 'credit_card_tr', 350, 100n);
    await setFee(merchant.organizationId, 'bank_transfer', 150, 0n);
    const card = await succeededCharge(merchant, 'sandbox', {
      amount: 12_550,
      paymentMethod: 'credit_card_tr',
    });
    expect({ fee: card.fee, net: card.net }).toEqual({ fee: '539', net: '12011' });
    const transfer = await succeededCharge(merchant, 'sandbox', {
      amount: 100_000,
      paymentMethod: 'bank_transfer',
    });
    expect({ fee: transfer.fee, net: transfer.net }).toEqual({ fee: '1500', net: '98500' });
    expect(await balanceOf(merchant, 'sandbox')).toEqual({ livemode: false, balances: [pending('110511')] });

    await refund(merchant, 'sandbox', card.id, '2550');
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([pending('107961')]);
  });

  it('counts a refund of a settled charge once: as debt, with pending at zero, never as both', async () => {
    const merchant = await createMerchant(t);
    await setFee(merchant.organizationId, 'credit_card_tr', 350, 100n);
    const card = await succeededCharge(merchant, 'sandbox', {
      amount: 12_550,
      paymentMethod: 'credit_card_tr',
    });
    const released = await t.gateway.services.settlement.releaseNow({
      organizationId: merchant.organizationId,
      environment: 'sandbox',
    });
    expect(released).toMatchObject({ released: true });
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([{ ...zero, available: card.net }]);

    // The whole 125.50 goes back to the customer; the 5.39 fee is not returned. Nothing is left to
    // settle, so `pending` is 0 and the refund is owed: 125.50, counted once (it was shown as a pending
    // of -125.50 beside a debt of 125.50, as if owed twice).
    await refund(merchant, 'sandbox', card.id, '12550');
    const after = (await balanceOf(merchant, 'sandbox')).balances;
    expect(after).toEqual([{ ...zero, available: card.net, debt: '12550' }]);
    // What the merchant holds overall is the ledger's sum of its accounts: 120.11 - 125.50 = -5.39.
    const row = after[0];
    if (!row) throw new Error('no balance');
    expect(BigInt(row.pending) + BigInt(row.available) + BigInt(row.inTransit) - BigInt(row.debt)).toBe(
      -BigInt(card.fee),
    );

    // A new credit repays the debt first: pending again only above it.
    const next = await succeededCharge(merchant, 'sandbox', {
      amount: 20_000,
      paymentMethod: 'credit_card_tr',
    });
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([
      { ...zero, available: card.net, pending: (BigInt(next.net) - 12_550n).toString() },
    ]);
  });

  it('counts a charge reported twice once', async () => {
    const merchant = await createMerchant(t);
    const charge = await succeededCharge(merchant, 'sandbox', { amount: 5_000 });
    const again = await db()
      .transaction()
      .execute((trx) =>
        ledger().postChargeSucceeded(trx, {
          id: charge.id,
          organizationId: merchant.organizationId,
          environment: 'sandbox',
          amount: charge.amount,
          paymentMethod: charge.paymentMethod,
          merchantReference: null,
        }),
      );
    expect(again).toEqual({ gross: '5000', fee: charge.fee, net: charge.net, created: false });
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([pending(charge.net)]);
  });

  it('keeps sandbox and live apart', async () => {
    const merchant = await createMerchant(t);
    const test = await succeededCharge(merchant, 'sandbox', { amount: 20_000 });
    expect((await balanceOf(merchant, 'live')).balances).toEqual([zero]);
    const live = await succeededCharge(merchant, 'live', { amount: 30_000 });
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([pending(test.net)]);
    expect((await balanceOf(merchant, 'live')).balances).toEqual([pending(live.net)]);
  });

  it("never shows another organization's postings", async () => {
    const merchant = await createMerchant(t);
    const other = await createMerchant(t);
    await succeededCharge(other, 'sandbox', { amount: 40_000 });
    await succeededCharge(other, 'live', { amount: 40_000 });
    expect((await balanceOf(merchant, 'sandbox')).balances).toEqual([zero]);
    expect((await balanceOf(merchant, 'live')).balances).toEqual([zero]);
  });

  it('needs a key of this environment holding `read`', async () => {
    const merchant = await createMerchant(t);
    const missing = await getBalance('sandbox', undefined);
    expect({ status: missing.status, code: missing.body.error.code }).toEqual({
      status: 401,
      code: 'missing_api_key',
    });
    expect(missing.body.error.requestId).toMatch(/^req_/);

    const unknown = await getBalance('sandbox', 'sk_test_nope');
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({
      status: 401,
      code: 'invalid_api_key',
    });

    const crossed = await getBalance('live', merchant.keys.sandbox.secret);
    expect({ status: crossed.status, code: crossed.body.error.code }).toEqual({
      status: 401,
      code: 'unauthorized',
    });

    const writer = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['write'] });
    const refused = await getBalance('sandbox', writer.secret);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 403,
      code: 'insufficient_scope',
    });

    for (const scopes of [['read'], ['all']] as const) {
      const reader = await issueKey(db(), t.clock, merchant.organizationId, { scopes: [...scopes] });
      const res = await getBalance('sandbox', reader.secret);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ livemode: false, balances: [zero] });
    }
  });

  it('is documented in the OpenAPI document of each listener', async () => {
    for (const listener of ['sandboxApi', 'liveApi'] as const) {
      const res = await request<{
        paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: object }>>;
      }>(`${t.urls[listener]}/v1/openapi.json`);
      const operation = res.body.paths['/v1/balance']?.get;
      expect(operation?.operationId).toBe('getBalance');
      expect(operation?.tags).toEqual(['Balance']);
      // 503: the database unreachable (a failover under way, ADR 0040), in the error envelope.
      expect(Object.keys(operation?.responses ?? {}).sort()).toEqual([
        '200',
        '401',
        '403',
        '429',
        '500',
        '503',
      ]);
    }
  });
});
