/**
 * Pending funds released to available (issue 13, the first half of issue 14's batch): exactly once per
 * organization, environment and business date, held by refund debt, and the sandbox test helper
 * `POST /v1/test-helpers/settle` (404 on the live API). Charges are paid through the sandbox acquirer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { t, useTestGateway } from './helpers/suite.js';
import { cardPaidCharge, succeededRefund, tryBalanceOf } from './helpers/charges.js';
import { request } from './helpers/http.js';
import { apiUrl, createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import type { BalanceRow } from './helpers/bodies.js';

interface ChargeBody {
  id: string;
  providerPaymentId: string;
  merchantReference: string;
}
interface SettleBody {
  released: boolean;
  reason?: string;
  batch: null | {
    id: string;
    businessDate: string;
    gross: string;
    fees: string;
    refunds: string;
    net: string;
    itemCount: number;
    livemode: boolean;
  };
}

useTestGateway();

const api = <T>(merchant: Merchant, path: string, body?: unknown) =>
  apiRequest<T>(t.urls, path, { body, key: merchant.keys.sandbox.secret });

/** Paid by card through the sandbox acquirer: the default card fee is 3.50 % + 1.00 TRY. */
const paidCharge = (merchant: Merchant, amount = 10_000) =>
  cardPaidCharge<ChargeBody>(t, merchant, amount, 'Settle Test');

const refund = (merchant: Merchant, chargeId: string, amount?: number) =>
  succeededRefund(t, merchant, chargeId, amount);
const balanceOf = (merchant: Merchant) => tryBalanceOf<BalanceRow>(t, merchant);

const settle = (merchant: Merchant) => api<SettleBody>(merchant, '/v1/test-helpers/settle', {});

describe('POST /v1/test-helpers/settle', () => {
  it('moves pending to available as one batch of the charges and refunds since the last one', async () => {
    const merchant = await createMerchant(t);
    const first = await paidCharge(merchant);
    await paidCharge(merchant, 20_000);
    await refund(merchant, first.id, 1_000);
    // 9550 + 19200 - 1000
    expect(await balanceOf(merchant)).toMatchObject({ pending: '27750', available: '0' });

    const res = await settle(merchant);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      released: true,
      batch: { gross: '30000', fees: '1250', refunds: '1000', net: '27750', itemCount: 3, livemode: false },
    });
    expect(res.body.batch?.businessDate).toBe(t.clock.now().toISOString().slice(0, 10));
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '27750', inTransit: '0' });

    // Nothing new: nothing moves, and the next release takes only what came after.
    const again = await settle(merchant);
    expect(again.body).toEqual({ released: false, reason: 'nothing_to_release', batch: null });
    await paidCharge(merchant);
    const next = await settle(merchant);
    expect(next.body).toMatchObject({ released: true, batch: { net: '9550', itemCount: 1 } });
    // A batch of its own, dated the day of the call like the first (never a later day).
    expect(next.body.batch?.id).not.toBe(res.body.batch?.id);
    expect(next.body.batch?.businessDate).toBe(res.body.batch?.businessDate);
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '37300' });
  });

  it('holds the release while refunds exceed the new credits (refund debt)', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidCharge(merchant);
    await settle(merchant);
    await refund(merchant, charge.id);
    const held = await settle(merchant);
    expect(held.body).toEqual({ released: false, reason: 'net_not_positive', batch: null });
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '9550', debt: '10000' });
    await paidCharge(merchant, 20_000);
    const released = await settle(merchant);
    expect(released.body).toMatchObject({ released: true, batch: { net: '9200', refunds: '10000' } });
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '18750', debt: '0' });
  });

  it('releases once when two releases of one business date race', async () => {
    const merchant = await createMerchant(t);
    await paidCharge(merchant);
    const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const outcomes = await Promise.all(
      [0, 1, 2].map(() =>
        t.gateway.services.settlement.release(owner, { cutoff: t.clock.now(), businessDate: '2030-01-02' }),
      ),
    );
    expect(outcomes.every((outcome) => outcome.released)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.released && outcome.created)).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => (outcome.released ? outcome.batch.id : '')))).toHaveProperty(
      'size',
      1,
    );
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '9550' });
  });

  it('is not on the live API, and needs a valid key with scope write', async () => {
    const merchant = await createMerchant(t);
    const live = await request(`${apiUrl(t.urls, 'live')}/v1/test-helpers/settle`, {
      method: 'POST',
      body: {},
      headers: { 'x-api-key': merchant.keys.live.secret },
    });
    expect(live.status).toBe(404);
    const url = `${apiUrl(t.urls, 'sandbox')}/v1/test-helpers/settle`;
    const missing = await request<{ error: { code: string } }>(url, { method: 'POST', body: {} });
    expect([missing.status, missing.body.error.code]).toEqual([401, 'missing_api_key']);
    const bad = await request<{ error: { code: string } }>(url, {
      method: 'POST',
      body: {},
      headers: { 'x-api-key': `${merchant.keys.sandbox.secret}x` },
    });
    expect([bad.status, bad.body.error.code]).toEqual([401, 'invalid_api_key']);
    const readOnly = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['read'],
    });
    const forbidden = await request<{ error: { code: string } }>(url, {
      method: 'POST',
      body: {},
      headers: { 'x-api-key': readOnly.secret },
    });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'insufficient_scope']);
    const liveKeyOnSandbox = await request<{ error: { code: string } }>(url, {
      method: 'POST',
      body: {},
      headers: { 'x-api-key': merchant.keys.live.secret },
    });
    expect(liveKeyOnSandbox.status).toBe(401);
  });
});

describe('the ledger across charges, refunds and releases', () => {
  it('keeps pending + available equal to the nets less the refunds, and every entry balanced', async () => {
    const ledger = t.gateway.services.ledger;
    const db = t.gateway.database.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('charge' as const),
              amount: fc.integer({ min: 200, max: 5_000_000 }),
            }),
            fc.record({ op: fc.constant('refund' as const), share: fc.integer({ min: 1, max: 100 }) }),
            fc.record({ op: fc.constant('release' as const) }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (steps) => {
          const merchant = await createMerchant(t);
          const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
          let expected = 0n;
          let day = 0;
          const charges: Array<{ id: string; amount: number; refunded: number }> = [];
          for (const step of steps) {
            if (step.op === 'charge') {
              const charge = await paidCharge(merchant, step.amount);
              const split = await db.transaction().execute((trx) =>
                ledger.postChargeSucceeded(trx, {
                  ...owner,
                  id: charge.id,
                  amount: String(step.amount),
                  paymentMethod: 'credit_card_tr',
                  merchantReference: null,
                }),
              );
              expected += BigInt(split.net);
              charges.push({ id: charge.id, amount: step.amount, refunded: 0 });
            } else if (step.op === 'refund') {
              const charge = charges.find((candidate) => candidate.refunded < candidate.amount);
              if (!charge) continue;
              const amount = Math.max(1, Math.floor(((charge.amount - charge.refunded) * step.share) / 100));
              await refund(merchant, charge.id, amount);
              charge.refunded += amount;
              expected -= BigInt(amount);
            } else {
              day += 1;
              await t.gateway.services.settlement.release(owner, {
                cutoff: t.clock.now(),
                businessDate: `2031-01-${String(day).padStart(2, '0')}`,
              });
            }
            const balance = await balanceOf(merchant);
            // A debt is counted once, as `debt` (pending is then 0), never also as a negative pending.
            expect(BigInt(balance.pending) + BigInt(balance.available) - BigInt(balance.debt)).toBe(expected);
            expect(balance.pending === '0' || balance.debt === '0').toBe(true);
            expect(BigInt(balance.available) >= 0n).toBe(true);
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
