/**
 * Issue 14 item 3: the FX spread (`PAYOUT_FX_SPREAD_BPS`). A payout is converted at the market rate less
 * the spread; the TRY the spread is worth stays the merchant's in transit until the payout is paid, then
 * becomes FX revenue in its own ledger account; a failed payout returns everything. Through the API, the
 * daily batch's sandbox run, the payout engine and the sandbox chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../src/shared/clock.js';
import { chainControl } from './helpers/chain.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { merchantApi, paidCharge, TRON_ADDRESS } from './helpers/payouts.js';

interface Payout {
  id: string;
  amount: string;
  payoutAmount: string;
  spreadAmount: string;
  status: string;
  rate: { value: string; market: string; spreadBps: number; source: string };
}

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({
    env: { ROLES: 'api,sandbox-acquirer,sandbox-chain', PAYOUT_FX_SPREAD_BPS: '100' },
  });
});
afterAll(async () => t?.close());

/** 10 000.00 TRY by card nets 9 649.00 TRY. */
const NET = 964_900n;

async function fundedMerchant(schedule: 'daily' | 'manual'): Promise<Merchant> {
  const merchant = await createMerchant(t, {
    featureFlags: ['payouts', 'wallets'],
    payoutSchedule: schedule,
  });
  const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
    network: 'tron',
    address: TRON_ADDRESS,
  });
  expect(wallet.status, wallet.text).toBe(201);
  await paidCharge(t, merchant, 'sandbox', 1_000_000);
  return merchant;
}

const accountSum = async (merchant: Merchant, account: string) => {
  const rows = await t.gateway.database.db
    .selectFrom('ledger_postings')
    .select('amount')
    .where('organization_id', '=', merchant.organizationId)
    .where('account', '=', account as 'fx_revenue')
    .execute();
  return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
};

async function drainEngine(): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const sent = await t.gateway.services.payoutEngine.submitBatch();
    const confirmed = await t.gateway.services.payoutEngine.confirmBatch();
    if (sent.claimed === 0 && confirmed.claimed === 0) return;
  }
}

describe('the FX spread', () => {
  it('converts at the market rate less the spread and books the spread as revenue when the payout is paid', async () => {
    const merchant = await fundedMerchant('daily');
    const settled = await merchantApi<{ batch: { payoutId: string; rate: { value: string } } }>(
      t,
      merchant,
      'sandbox',
      '/v1/test-helpers/settle',
      {},
    );
    expect(settled.status, settled.text).toBe(200);
    const payout = (
      await merchantApi<Payout>(t, merchant, 'sandbox', `/v1/payouts/${settled.body.batch.payoutId}`)
    ).body;
    // 9 649.00 TRY at 0.0285 less 1 %: 0.028215 USDT per TRY, 272.246535 USDT.
    expect(payout).toMatchObject({
      amount: NET.toString(),
      payoutAmount: '272246535',
      rate: { value: '0.028215', market: '0.0285', spreadBps: 100, source: 'sandbox' },
    });
    expect(settled.body.batch.rate.value).toBe('0.028215');
    // What 272.246535 USDT is worth at the market rate: 9 552.51 TRY; the spread is the rest.
    expect(payout.spreadAmount).toBe((NET - 955_251n).toString());

    // In transit as a whole until paid; then the spread is revenue and the rest left for the wallet.
    expect(await accountSum(merchant, 'merchant_in_transit')).toBe(-NET);
    expect(await accountSum(merchant, 'fx_revenue')).toBe(0n);
    await drainEngine();
    await chainControl(t.sandboxChain).mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    const paid = await merchantApi<Payout>(t, merchant, 'sandbox', `/v1/payouts/${payout.id}`);
    expect(paid.body.status).toBe('completed');
    expect(await accountSum(merchant, 'merchant_in_transit')).toBe(0n);
    expect(await accountSum(merchant, 'fx_revenue')).toBe(-BigInt(payout.spreadAmount));
    expect(await accountSum(merchant, 'payout_clearing')).toBe(-(NET - BigInt(payout.spreadAmount)));
  });

  it('returns the whole amount, spread included, when the payout fails', async () => {
    const merchant = await fundedMerchant('manual');
    await merchantApi(t, merchant, 'sandbox', '/v1/test-helpers/settle', {});
    const created = await merchantApi<Payout>(t, merchant, 'sandbox', '/v1/payouts', { amount: 500_000 });
    expect(created.status, created.text).toBe(201);
    expect(BigInt(created.body.spreadAmount)).toBeGreaterThan(0n);
    await chainControl(t.sandboxChain).fault('fail');
    await drainEngine();
    await chainControl(t.sandboxChain).mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    const failed = await merchantApi<Payout>(t, merchant, 'sandbox', `/v1/payouts/${created.body.id}`);
    expect(failed.body.status).toBe('failed');
    const balance = await merchantApi<{ balances: Array<{ available: string; inTransit: string }> }>(
      t,
      merchant,
      'sandbox',
      '/v1/balance',
    );
    expect(balance.body.balances[0]).toMatchObject({ available: NET.toString(), inTransit: '0' });
    expect(await accountSum(merchant, 'fx_revenue')).toBe(0n);
  });
});

describe('the spread an operator sets', () => {
  it('applies to the payouts of its environment from then on; the configured one is the default', async () => {
    const service = t.gateway.services.payouts;
    expect(await service.spreads()).toEqual([
      { environment: 'sandbox', spreadBps: 100, source: 'default', updatedBy: null, updatedAt: null },
      { environment: 'live', spreadBps: 100, source: 'default', updatedBy: null, updatedAt: null },
    ]);
    const set = await service.setSpread('sandbox', 250, { actor: 'staff:test' });
    expect(set).toMatchObject({
      environment: 'sandbox',
      spreadBps: 250,
      source: 'operator',
      updatedBy: 'staff:test',
    });
    try {
      const merchant = await fundedMerchant('manual');
      // Paying out by hand: the batch releases the funds to available and makes no payout.
      const settled = await merchantApi(t, merchant, 'sandbox', '/v1/test-helpers/settle', {});
      expect(settled.status, settled.text).toBe(200);
      const res = await merchantApi<Payout>(t, merchant, 'sandbox', '/v1/payouts', { amount: 100_000 });
      expect(res.status, res.text).toBe(201);
      // 1 000.00 TRY at 0.0285 less 2.5 %: 0.0277875 USDT per TRY, 27.7875 USDT.
      expect(res.body).toMatchObject({
        payoutAmount: '27787500',
        rate: { value: '0.0277875', market: '0.0285', spreadBps: 250 },
      });
      expect((await service.spreads())[1]).toMatchObject({
        environment: 'live',
        spreadBps: 100,
        source: 'default',
      });
      const audit = await t.gateway.database.db
        .selectFrom('audit_log')
        .select(['actor', 'target_id', 'before', 'after'])
        .where('action', '=', 'fx_spread.updated')
        .execute();
      expect(audit).toEqual([
        {
          actor: 'staff:test',
          target_id: 'sandbox',
          before: { spreadBps: 100, source: 'default' },
          after: { spreadBps: 250 },
        },
      ]);
    } finally {
      await service.setSpread('sandbox', 100, { actor: 'staff:test' });
    }
  });
});
