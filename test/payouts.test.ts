/**
 * Issue 13 items 3, 4, 6, 7: `/v1/payouts` through the running gateway. The spec's error codes in the
 * stated order (wallet, minimum, balance), the ledger's available and in-transit balances, the lifecycle
 * (a recorded hash, completion, failure, cancelation; a hash used twice changes nothing), concurrent
 * payouts that never overdraw, the events, and the authentication and flag of every route. One
 * idempotency key makes one payout whatever happens to its claim (ADR 0051), and the arrival date skips
 * declared closures (ADR 0017).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusinessCalendar, utcDateOf } from '../src/shared/business-calendar.js';
import { chainControl } from './helpers/chain.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { liveFundedMerchant, merchantApi } from './helpers/payouts.js';
import { payByCard } from './helpers/charges.js';

interface PayoutBody {
  id: string;
  amount: string;
  payoutAmount: string;
  rate: { value: string; source: string; at: string };
  status: string;
  network: string;
  walletId: string;
  address: string;
  rail: string;
  txHash: string | null;
  arrivalDate: string | null;
  livemode: boolean;
  error: { code: string; details?: Record<string, unknown> };
}
interface BalanceRow {
  pending: string;
  available: string;
  inTransit: string;
}

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const ETH_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

// The worker role is left out: a payout the test creates stays `pending` until the test moves it (the
// engine's own test runs the jobs), so cancelation and the lifecycle steps never race a background submit.
useTestGateway({ env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } });

const api = <T = PayoutBody>(
  merchant: Merchant,
  path: string,
  init: { body?: unknown; method?: string; key?: string; environment?: 'sandbox' | 'live' } = {},
) =>
  apiRequest<T>(t.urls, path, {
    ...init,
    key: init.key ?? merchant.keys[init.environment ?? 'sandbox'].secret,
  } as Parameters<typeof apiRequest>[2]);

async function paidCharge(merchant: Merchant, amount: number): Promise<void> {
  const res = await api<{ id: string; providerPaymentId: string }>(merchant, '/v1/charges', {
    body: validCharge({ amount }),
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Payout Test');
}

/** A sandbox merchant with both flags, a default TRON wallet and `available` funds (one paid charge, released). */
async function fundedMerchant(chargeAmount = 1_000_000): Promise<Merchant & { walletId: string }> {
  const merchant = await createMerchant(t, {
    featureFlags: ['payouts', 'wallets'],
    payoutSchedule: 'manual',
  });
  const wallet = await api<{ id: string }>(merchant, '/v1/wallets', {
    body: { network: 'tron', address: TRON_ADDRESS },
  });
  expect(wallet.status, wallet.text).toBe(201);
  await paidCharge(merchant, chargeAmount);
  const settled = await api<{ released: boolean }>(merchant, '/v1/test-helpers/settle', { body: {} });
  expect(settled.body.released, settled.text).toBe(true);
  return { ...merchant, walletId: wallet.body.id };
}

async function balanceOf(merchant: Merchant): Promise<BalanceRow> {
  const res = await api<{ balances: BalanceRow[] }>(merchant, '/v1/balance');
  expect(res.status, res.text).toBe(200);
  return res.body.balances[0] as BalanceRow;
}

describe('POST /v1/payouts', () => {
  it('pays available funds to the default wallet at the locked rate and moves them in transit', async () => {
    // 10000.00 TRY by card: fee 3.5 % + 1.00 = 35100, net 964900.
    const merchant = await fundedMerchant();
    expect(await balanceOf(merchant)).toMatchObject({ pending: '0', available: '964900', inTransit: '0' });
    const res = await api(merchant, '/v1/payouts', {
      body: { amount: 500_000, description: 'weekly', metadata: { batch: '7' } },
    });
    expect(res.status, res.text).toBe(201);
    // 5000.00 TRY at 0.0285 USDT per TRY = 142.5 USDT.
    expect(res.body).toMatchObject({
      amount: '500000',
      currency: 'TRY',
      payoutAmount: '142500000',
      payoutCurrency: 'USDT',
      rate: { value: '0.0285', source: 'sandbox' },
      network: 'tron',
      walletId: merchant.walletId,
      address: TRON_ADDRESS,
      rail: 'sandbox_chain',
      status: 'pending',
      txHash: null,
      automatic: false,
      livemode: false,
      description: 'weekly',
      metadata: { batch: '7' },
    });
    expect(res.body.id).toMatch(/^po_/);
    expect(res.body.arrivalDate).toBe('2026-11-24');
    expect(await balanceOf(merchant)).toMatchObject({ available: '464900', inTransit: '500000' });

    const fetched = await api(merchant, `/v1/payouts/${res.body.id}`);
    expect(fetched.body).toEqual(res.body);
    const transactions = await api<{ data: Array<Record<string, unknown>>; nextCursor: null }>(
      merchant,
      `/v1/payouts/${res.body.id}/transactions`,
    );
    expect(transactions.status, transactions.text).toBe(200);
    expect(transactions.body.data).toHaveLength(1);
    expect(transactions.body.data[0]).toMatchObject({
      type: 'charge',
      amount: '1000000',
      fee: '35100',
      net: '964900',
      currency: 'TRY',
    });
    const events = await t.gateway.database.db
      .selectFrom('events')
      .select(['type', 'resource_id'])
      .where('organization_id', '=', merchant.organizationId)
      .where('type', 'like', 'payout.%')
      .execute();
    expect(events).toEqual([{ type: 'payout.created', resource_id: res.body.id }]);
  });

  it('checks a wallet first, then the network minimum, then the available balance', async () => {
    const merchant = await createMerchant(t, {
      featureFlags: ['payouts', 'wallets'],
      payoutSchedule: 'manual',
    });
    // No wallet: whatever the amount and balance.
    const noWallet = await api(merchant, '/v1/payouts', { body: { amount: 1 } });
    expect([noWallet.status, noWallet.body.error.code, noWallet.body.error.details]).toEqual([
      400,
      'wallet_not_configured',
      { reason: 'no_default_wallet' },
    ]);
    const unknown = await api(merchant, '/v1/payouts', { body: { amount: 1, walletId: 'wal_nope' } });
    expect(unknown.body.error).toMatchObject({
      code: 'wallet_not_configured',
      details: { reason: 'wallet_not_found' },
    });
    await api(merchant, '/v1/wallets', { body: { network: 'ethereum', address: ETH_ADDRESS } });
    // Below the sandbox minimum (100.00 TRY), with no balance at all.
    const small = await api(merchant, '/v1/payouts', { body: { amount: 9_999 } });
    expect([small.status, small.body.error.code, small.body.error.details]).toEqual([
      400,
      'amount_below_minimum',
      { minimum: '10000', currency: 'TRY', network: 'ethereum' },
    ]);
    const broke = await api(merchant, '/v1/payouts', { body: { amount: 10_000 } });
    expect([broke.status, broke.body.error.code, broke.body.error.details]).toEqual([
      400,
      'insufficient_balance',
      { available: '0', currency: 'TRY' },
    ]);
    await paidCharge(merchant, 20_000);
    // Pending funds are not available until released.
    const pendingOnly = await api(merchant, '/v1/payouts', { body: { amount: 10_000 } });
    expect(pendingOnly.body.error.code).toBe('insufficient_balance');
    await api(merchant, '/v1/test-helpers/settle', { body: {} });
    const over = await api(merchant, '/v1/payouts', { body: { amount: 19_201 } });
    expect(over.body.error).toMatchObject({ code: 'insufficient_balance', details: { available: '19200' } });
    const exact = await api(merchant, '/v1/payouts', { body: { amount: 19_200 } });
    expect(exact.status, exact.text).toBe(201);
    expect(await balanceOf(merchant)).toMatchObject({ available: '0', inTransit: '19200' });
    const invalid = await api(merchant, '/v1/payouts', { body: { amount: '100' } });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('never overdraws under concurrent payouts', async () => {
    // 964900 available; 50 payouts of 50000 ask for 2500000: at most 19 can pass.
    const merchant = await fundedMerchant();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api(merchant, '/v1/payouts', { body: { amount: 50_000 } })),
    );
    const created = results.filter((res) => res.status === 201);
    const refused = results.filter((res) => res.status !== 201);
    expect(created).toHaveLength(19);
    expect(refused.every((res) => res.status === 400 && res.body.error.code === 'insufficient_balance')).toBe(
      true,
    );
    expect(await balanceOf(merchant)).toMatchObject({ available: '14900', inTransit: '950000' });
  });

  it('honours idempotency keys', async () => {
    const merchant = await fundedMerchant();
    const headers = { 'x-idempotency-key': 'payout-1' };
    const first = await apiRequest<PayoutBody>(t.urls, '/v1/payouts', {
      key: merchant.keys.sandbox.secret,
      body: { amount: 100_000 },
      headers,
    } as Parameters<typeof apiRequest>[2]);
    const again = await apiRequest<PayoutBody>(t.urls, '/v1/payouts', {
      key: merchant.keys.sandbox.secret,
      body: { amount: 100_000 },
      headers,
    } as Parameters<typeof apiRequest>[2]);
    expect(first.status, first.text).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const reuse = await apiRequest<PayoutBody>(t.urls, '/v1/payouts', {
      key: merchant.keys.sandbox.secret,
      body: { amount: 100_001 },
      headers,
    } as Parameters<typeof apiRequest>[2]);
    expect([reuse.status, reuse.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
    expect(await balanceOf(merchant)).toMatchObject({ inTransit: '100000' });
  });

  it('makes one payout per idempotency key after a crash that lost the stored outcome (ADR 0051)', async () => {
    const merchant = await fundedMerchant();
    const key = 'payout-crash-1';
    const post = (body: unknown, secret = merchant.keys.sandbox.secret) =>
      apiRequest<PayoutBody>(t.urls, '/v1/payouts', {
        key: secret,
        body,
        headers: { 'x-idempotency-key': key },
      } as Parameters<typeof apiRequest>[2]);
    const first = await post({ amount: 100_000 });
    expect(first.status, first.text).toBe(201);
    const db = t.gateway.database.db;
    const storedKey = () => db.updateTable('idempotency_keys').where('key', '=', key);
    // What a process killed between the payout's commit and the stored outcome leaves: the claim in
    // flight, its lock lapsed, so the retry takes it over and runs again.
    const crashed = () =>
      storedKey()
        .set({
          state: 'in_flight',
          response_status: null,
          response_body: null,
          locked_until: new Date(t.clock.now().getTime() - 1),
        })
        .execute();
    await crashed();
    const retry = await post({ amount: 100_000 });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.id).toBe(first.body.id);

    // The claim released (a 5xx after the commit): the payout alone still answers for the key.
    await db.deleteFrom('idempotency_keys').where('key', '=', key).execute();
    const otherBody = await post({ amount: 100_001 });
    expect([otherBody.status, otherBody.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
    await db.deleteFrom('idempotency_keys').where('key', '=', key).execute();
    const otherKey = await issueKey(db, t.clock, merchant.organizationId, { scopes: ['payouts'] });
    const otherCaller = await post({ amount: 100_000 }, otherKey.secret);
    expect([otherCaller.status, otherCaller.body.error.code, otherCaller.body.error.details]).toEqual([
      409,
      'idempotency_key_reuse',
      { reason: 'other_api_key' },
    ]);
    await db.deleteFrom('idempotency_keys').where('key', '=', key).execute();
    const sameAgain = await post({ amount: 100_000 });
    expect(sameAgain.status, sameAgain.text).toBe(201);
    expect(sameAgain.body.id).toBe(first.body.id);

    const list = await api<{ data: PayoutBody[] }>(merchant, '/v1/payouts');
    expect(list.body.data.map((payout) => payout.id)).toEqual([first.body.id]);
    expect(await balanceOf(merchant)).toMatchObject({ available: '864900', inTransit: '100000' });
  });

  it('holds live payouts while the rate is stale (503 payouts_unavailable), never guessing a rate', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
    const chain = chainControl(t.liveChain);
    await chain.setRate('0.0290', new Date(t.clock.now().getTime() - 3_600_000).toISOString());
    try {
      const res = await api(merchant, '/v1/payouts', { environment: 'live', body: { amount: 100_000 } });
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
        503,
        'payouts_unavailable',
        { reason: 'rate_stale' },
      ]);
    } finally {
      await chain.setRate('0.0290', t.clock.now().toISOString());
    }
    // With a fresh rate the same request gets to the wallet check.
    const fresh = await api(merchant, '/v1/payouts', { environment: 'live', body: { amount: 100_000 } });
    expect(fresh.body.error.code).toBe('wallet_not_configured');
  });
});

describe('GET /v1/payouts', () => {
  it('lists newest first with status and time filters and cursors', async () => {
    const merchant = await fundedMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push((await api(merchant, '/v1/payouts', { body: { amount: 20_000 } })).body.id);
    }
    await t.gateway.services.payouts.cancel(ids[0] as string, { by: 'test', reason: 'test' });
    const page = await api<{ data: PayoutBody[]; nextCursor: string | null }>(
      merchant,
      '/v1/payouts?limit=2',
    );
    expect(page.body.data.map((payout) => payout.id)).toEqual([ids[2], ids[1]]);
    const next = await api<{ data: PayoutBody[]; nextCursor: string | null }>(
      merchant,
      `/v1/payouts?limit=2&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`,
    );
    expect([next.body.data.map((payout) => payout.id), next.body.nextCursor]).toEqual([[ids[0]], null]);
    const canceled = await api<{ data: PayoutBody[] }>(merchant, '/v1/payouts?status=canceled');
    expect(canceled.body.data.map((payout) => payout.id)).toEqual([ids[0]]);
    const since = await t.gateway.services.payouts.retrieve(
      { organizationId: merchant.organizationId, environment: 'sandbox' },
      ids[1] as string,
    );
    const from = since.ok ? since.value.createdAt : '';
    const recent = await api<{ data: PayoutBody[] }>(merchant, `/v1/payouts?createdFrom=${from}`);
    expect(recent.body.data.map((payout) => payout.id)).toEqual([ids[2], ids[1]]);
    const forged = await api(merchant, '/v1/payouts?cursor=abc.def');
    expect([forged.status, forged.body.error.code]).toEqual([400, 'validation_failed']);
  });
});

describe('the payout lifecycle', () => {
  it('records a hash once, completes, and a hash used twice changes nothing', async () => {
    const merchant = await fundedMerchant();
    const payouts = t.gateway.services.payouts;
    const a = (await api(merchant, '/v1/payouts', { body: { amount: 100_000 } })).body.id;
    const b = (await api(merchant, '/v1/payouts', { body: { amount: 200_000 } })).body.id;
    const hash = 'ab'.repeat(32);
    expect(await payouts.markSubmitting(a)).toBeDefined();
    expect(await payouts.markSubmitting(a)).toBeUndefined();
    expect(await payouts.recordSent(a, hash)).toBe('recorded');
    expect(await payouts.recordSent(a, hash)).toBe('already_recorded');
    expect(await payouts.recordSent(b, hash)).toBe('hash_in_use');
    expect((await api(merchant, `/v1/payouts/${b}`)).body).toMatchObject({ status: 'pending', txHash: null });
    // A submitted payout cannot be canceled; a recorded one cannot be sent again.
    expect(await payouts.cancel(a, { by: 'test', reason: 'x' })).toBe('not_cancelable');
    expect(await payouts.complete(a, { confirmedAt: t.clock.now() })).toBe('completed');
    expect(await payouts.complete(a, { confirmedAt: t.clock.now() })).toBe('already');
    expect(await payouts.fail(a, { code: 'late', message: 'too late' })).toBe('final');
    expect((await api(merchant, `/v1/payouts/${a}`)).body).toMatchObject({
      status: 'completed',
      txHash: hash,
    });
    expect(await balanceOf(merchant)).toMatchObject({ available: '664900', inTransit: '200000' });

    // A failed payout returns its funds and its transactions to the next payout.
    expect(await payouts.fail(b, { code: 'dropped', message: 'never mined' })).toBe('failed');
    expect(await payouts.fail(b, { code: 'dropped', message: 'never mined' })).toBe('already');
    expect((await api(merchant, `/v1/payouts/${b}`)).body).toMatchObject({
      status: 'failed',
      failureCode: 'dropped',
    });
    expect(await balanceOf(merchant)).toMatchObject({ available: '864900', inTransit: '0' });
    const c = (await api(merchant, '/v1/payouts', { body: { amount: 50_000 } })).body.id;
    expect(await payouts.cancel(c, { by: 'test', reason: 'merchant asked' })).toBe('canceled');
    expect(await balanceOf(merchant)).toMatchObject({ available: '864900', inTransit: '0' });

    const events = await t.gateway.database.db
      .selectFrom('events')
      .select(['type', 'resource_id'])
      .where('organization_id', '=', merchant.organizationId)
      .where('type', 'like', 'payout.%')
      .orderBy('created_at')
      .execute();
    expect(events.map((event) => `${event.type} ${event.resource_id}`).sort()).toEqual(
      [
        `payout.created ${a}`,
        `payout.created ${b}`,
        `payout.created ${c}`,
        `payout.completed ${a}`,
        `payout.failed ${b}`,
        `payout.canceled ${c}`,
      ].sort(),
    );
    // The database refuses a move backwards whatever the code does.
    await expect(
      t.gateway.database.db.updateTable('payouts').set({ status: 'pending' }).where('id', '=', a).execute(),
    ).rejects.toThrow(/not a transition/);
  });
});

describe('authentication, scope, environment, tenancy and the flag', () => {
  it('refuses what it must on every route', async () => {
    const merchant = await fundedMerchant();
    const payout = (await api(merchant, '/v1/payouts', { body: { amount: 20_000 } })).body.id;
    const missing = await apiRequest<PayoutBody>(t.urls, `/v1/payouts/${payout}`);
    expect([missing.status, missing.body.error.code]).toEqual([401, 'missing_api_key']);
    const bad = await api(merchant, `/v1/payouts/${payout}`, { key: `${merchant.keys.sandbox.secret}x` });
    expect([bad.status, bad.body.error.code]).toEqual([401, 'invalid_api_key']);
    const readKey = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['read'],
    });
    const readOnly = await api(merchant, '/v1/payouts', { key: readKey.secret, body: { amount: 20_000 } });
    expect([readOnly.status, readOnly.body.error.code]).toEqual([403, 'insufficient_scope']);
    expect((await api(merchant, `/v1/payouts/${payout}`, { key: readKey.secret })).status).toBe(200);
    const writeKey = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['write'],
    });
    const write = await api(merchant, '/v1/payouts', { key: writeKey.secret, body: { amount: 20_000 } });
    expect([write.status, write.body.error.code]).toEqual([403, 'insufficient_scope']);
    const payoutsKey = await issueKey(t.gateway.database.db, t.clock, merchant.organizationId, {
      scopes: ['payouts'],
    });
    expect(
      (await api(merchant, '/v1/payouts', { key: payoutsKey.secret, body: { amount: 20_000 } })).status,
    ).toBe(201);
    const wrongEnvironment = await api(merchant, `/v1/payouts/${payout}`, { key: merchant.keys.live.secret });
    expect(wrongEnvironment.status).toBe(401);
    const liveView = await api(merchant, `/v1/payouts/${payout}`, { environment: 'live' });
    expect([liveView.status, liveView.body.error.code]).toEqual([404, 'not_found']);

    const stranger = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
    for (const path of [`/v1/payouts/${payout}`, `/v1/payouts/${payout}/transactions`]) {
      const other = await api(stranger, path);
      expect([other.status, other.body.error.code]).toEqual([404, 'not_found']);
    }
    const off = await createMerchant(t, { featureFlags: ['wallets'] });
    for (const [method, path, body] of [
      ['POST', '/v1/payouts', { amount: 20_000 }],
      ['GET', '/v1/payouts', undefined],
      ['GET', `/v1/payouts/${payout}`, undefined],
      ['GET', `/v1/payouts/${payout}/transactions`, undefined],
    ] as const) {
      const res = await api(off, path, { method, ...(body ? { body } : {}) });
      expect([res.status, res.body.error.code], path).toEqual([503, 'payouts_unavailable']);
    }
  });
});

// Last in the file: once set, the sandbox chain's rate keeps the time it was set at.
describe('the sandbox rate', () => {
  it("is the sandbox chain's rate feed: a new rate is used at once, a stale one refused", async () => {
    const merchant = await fundedMerchant();
    const chain = chainControl(t.sandboxChain);
    await chain.setRate('0.0300', t.clock.now().toISOString());
    const res = await api(merchant, '/v1/payouts', { body: { amount: 100_000 } });
    expect(res.status, res.text).toBe(201);
    // 1000.00 TRY at 0.0300 USDT per TRY = 30 USDT.
    expect(res.body).toMatchObject({
      payoutAmount: '30000000',
      rate: { value: '0.0300', source: 'sandbox' },
    });

    await chain.setRate('0.0300', new Date(t.clock.now().getTime() - 3_600_000).toISOString());
    const stale = await api(merchant, '/v1/payouts', { body: { amount: 100_000 } });
    expect([stale.status, stale.body.error.code, stale.body.error.details]).toEqual([
      503,
      'payouts_unavailable',
      { reason: 'rate_stale' },
    ]);
    await chain.setRate('0.0285', t.clock.now().toISOString());
  });
});

describe('one payout per idempotency key when the first request outlives its claim (ADR 0051)', () => {
  // Its own gateway, whose live ticker is a stand-in the test holds: the first request waits there for
  // its rate while the idempotency claim's minute passes and the client retries.
  let u: TestGateway;
  let ticker: Server;
  let held: Promise<void> | undefined;
  let reached: (() => void) | undefined;

  beforeAll(async () => {
    ticker = createServer((_request, response) => {
      reached?.();
      const answer = () => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ rate: '0.0290', at: u.clock.now().toISOString() }));
      };
      if (held) void held.then(answer);
      else answer();
    });
    await new Promise<void>((resolve) => ticker.listen(0, '127.0.0.1', resolve));
    u = await startTestGateway({
      env: {
        ROLES: 'api,sandbox-acquirer,sandbox-chain',
        FX_TICKER_URL: `http://127.0.0.1:${(ticker.address() as AddressInfo).port}/rate`,
        FX_TICKER_TIME_FIELD: 'at',
      },
    });
  });
  afterAll(async () => {
    await u?.close();
    await new Promise((resolve) => ticker?.close(resolve));
  });

  it('answers the retry and the first request with the one payout, debited once', async () => {
    const merchant = await liveFundedMerchant(u);
    const balance = async () =>
      (await merchantApi<{ balances: BalanceRow[] }>(u, merchant, 'live', '/v1/balance')).body.balances[0];
    const before = await balance();
    const post = () =>
      apiRequest<PayoutBody>(u.urls, '/v1/payouts', {
        key: merchant.keys.live.secret,
        environment: 'live',
        body: { amount: 1_000_000 },
        headers: { 'x-idempotency-key': 'payout-outlived-1' },
      } as Parameters<typeof apiRequest>[2]);

    let release: () => void = () => undefined;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const atTicker = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const first = post();
    await atTicker;
    reached = undefined;
    held = undefined;
    // The claim's minute passes; the retry takes the claim over and runs.
    u.clock.advance(61_000);
    const retry = await post();
    release();
    const original = await first;

    expect(retry.status, retry.text).toBe(201);
    expect(original.status, original.text).toBe(201);
    expect(original.body.id).toBe(retry.body.id);
    const list = await merchantApi<{ data: PayoutBody[] }>(u, merchant, 'live', '/v1/payouts');
    expect(list.body.data.map((payout) => payout.id)).toEqual([retry.body.id]);
    const after = await balance();
    expect(BigInt(before?.available ?? '0') - BigInt(after?.available ?? '0')).toBe(1_000_000n);
    expect(after?.inTransit).toBe('1000000');
  });
});

describe('the arrival date', () => {
  it('is the next business day past the closures operators declared, for API and batch payouts', async () => {
    const calendar = createBusinessCalendar();
    const today = utcDateOf(t.clock.now());
    const closed = calendar.nextBusinessDay(today);
    const expected = calendar.nextBusinessDay(closed);
    const batches = t.gateway.services.settlementBatches;
    const declared = await batches.declareClosure(closed, 'Bank holiday declared', { actor: 'staff:test' });
    expect(declared.ok).toBe(true);
    try {
      const merchant = await fundedMerchant();
      const manual = await api(merchant, '/v1/payouts', { body: { amount: 100_000 } });
      expect(manual.status, manual.text).toBe(201);
      expect(manual.body.arrivalDate).toBe(expected);

      // The daily run's automatic payout of a merchant on the daily schedule.
      const daily = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
      const wallet = await api(daily, '/v1/wallets', { body: { network: 'tron', address: TRON_ADDRESS } });
      expect(wallet.status, wallet.text).toBe(201);
      await paidCharge(daily, 1_000_000);
      t.clock.advance(1000);
      await batches.runDay(t.clock.now());
      const list = await api<{ data: Array<PayoutBody & { automatic: boolean }> }>(daily, '/v1/payouts');
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ automatic: true, arrivalDate: expected });
    } finally {
      await batches.removeClosure(closed, { actor: 'staff:test' });
    }
  });
});
