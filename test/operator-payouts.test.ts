/**
 * Issue 13 items 5 and 8: the operator's payouts through the operator API of the running gateway. The
 * queue by status, rail, network and environment; the treasury rail of live money (export as JSON and
 * CSV, a transaction sent outside and recorded by hash, confirmed by the chain explorer of the stand-in
 * live chain, or marked not sent); cancelation; the per-network minimums; the audit trail; and who may
 * do what (anonymous, support, admin, the CLI's token).
 */
import { describe, expect, it } from 'vitest';
import { chainControl } from './helpers/chain.js';
import { t, useTestGateway, accountGateway } from './helpers/suite.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { type OperatorClient, type StaffSession, operatorCallers } from './helpers/operator.js';
import {
  ETH_ADDRESS,
  liveFundedMerchant,
  livePayout as payoutOf,
  merchantApi,
  paidCharge as chargePaid,
  TRON_ADDRESS,
} from './helpers/payouts.js';

interface OperatorPayout {
  id: string;
  organizationId: string;
  amount: string;
  payoutAmount: string;
  status: string;
  rail: string;
  network: string;
  address: string;
  txHash: string | null;
  livemode: boolean;
  handedOverAt: string | null;
  failureCode: string | null;
  lastError: string | null;
}
interface ExportLine {
  payoutId: string;
  organizationId: string;
  network: string;
  token: string;
  tokenContract: string;
  toAddress: string;
  amountMinor: string;
  amount: string;
  debitedAmount: string;
  debitedCurrency: string;
  rate: string;
  arrivalDate: string | null;
  createdAt: string;
  exportedAt: string;
}
interface Balance {
  available: string;
  inTransit: string;
}

let admin: StaffSession;
let support: StaffSession;
let cli: OperatorClient;
let anonymous: OperatorClient;

// No worker role: the test runs the engine's confirmation batches itself, so every step is observed.
useTestGateway(accountGateway('api,operator,sandbox-acquirer,sandbox-chain'), async () => {
  ({ admin, support, cli, anonymous } = await operatorCallers(t));
});

const api = <T>(merchant: Merchant, environment: 'sandbox' | 'live', path: string, body?: unknown) =>
  merchantApi<T>(t, merchant, environment, path, body);

const liveMerchant = (network: 'tron' | 'ethereum' = 'tron') => liveFundedMerchant(t, network);
const livePayout = (merchant: Merchant, amount: number) => payoutOf<OperatorPayout>(t, merchant, amount);
const paidCharge = (merchant: Merchant, environment: 'sandbox' | 'live', amount: number) =>
  chargePaid(t, merchant, environment, amount);

const balance = async (merchant: Merchant): Promise<Balance> => {
  const res = await api<{ balances: Balance[] }>(merchant, 'live', '/v1/balance');
  const [only] = res.body.balances;
  if (!only) throw new Error(res.text);
  return only;
};

const auditOf = async (targetId: string) =>
  (
    await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['actor', 'action', 'after'])
      .where('target_id', '=', targetId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => ({ actor: row.actor, action: row.action, after: row.after }));

describe('who may see and move payouts', () => {
  it('refuses anyone without a session, lets support read only, and lets admins and the CLI act', async () => {
    expect((await anonymous.get('/operator/v1/payouts')).status).toBe(401);
    expect((await anonymous.post('/operator/v1/payouts/treasury-exports', {})).status).toBe(401);
    expect((await support.get('/operator/v1/payouts')).status).toBe(200);
    expect((await support.get('/operator/v1/payout-minimums')).status).toBe(200);
    const refused = await support.post('/operator/v1/payouts/treasury-exports', {});
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    const minimum = await support.put('/operator/v1/payout-minimums/live/tron', { amount: '1' });
    expect(minimum.status).toBe(403);
    expect((await cli.get('/operator/v1/payouts')).status).toBe(200);
    const missing = await admin.get('/operator/v1/payouts/po_doesnotexist');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    const bad = await admin.get('/operator/v1/payouts?status=lost');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
  });
});

describe('the treasury rail', () => {
  it('exports due live payouts, records the hash of a transfer sent outside, and completes on confirmation', async () => {
    const merchant = await liveMerchant();
    const funded = await balance(merchant);
    const payout = await livePayout(merchant, 1_000_000);
    expect(await balance(merchant)).toMatchObject({ inTransit: '1000000' });

    const exported = await admin.post<{ data: ExportLine[]; count: number }>(
      '/operator/v1/payouts/treasury-exports',
      { format: 'json', network: 'tron' },
    );
    expect(exported.status, exported.text).toBe(200);
    const line = exported.body.data.find((l) => l.payoutId === payout.id);
    expect(line).toEqual({
      payoutId: payout.id,
      organizationId: merchant.organizationId,
      network: 'tron',
      token: 'USDT',
      tokenContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      toAddress: TRON_ADDRESS,
      amountMinor: payout.payoutAmount,
      amount: expect.stringMatching(/^[0-9]+\.[0-9]{6}$/),
      debitedAmount: '1000000',
      debitedCurrency: 'TRY',
      rate: expect.any(String),
      arrivalDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      createdAt: expect.any(String),
      exportedAt: t.clock.now().toISOString(),
    });
    expect(line?.amount.replace('.', '').replace(/^0+/, '')).toBe(payout.payoutAmount);
    // Nothing but treasury payouts of the network asked for.
    expect(exported.body.data.every((l) => l.network === 'tron')).toBe(true);

    // Exported: handed over, so it can no longer be canceled.
    const handed = await admin.get<OperatorPayout>(`/operator/v1/payouts/${payout.id}`);
    expect(handed.body).toMatchObject({ status: 'pending', handedOverAt: t.clock.now().toISOString() });
    const cancel = await admin.post(`/operator/v1/payouts/${payout.id}/cancel`, { reason: 'too late' });
    expect([cancel.status, cancel.body.error.code]).toEqual([409, 'invalid_state_transition']);

    // The CSV carries the same line, under a header.
    t.clock.advance(60_000);
    const csv = await admin.send('POST', '/operator/v1/payouts/treasury-exports', {
      body: { format: 'csv', network: 'tron' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = csv.text.trim().split('\r\n');
    expect(header).toBe(
      'payoutId,organizationId,network,token,tokenContract,toAddress,amountMinor,amount,debitedAmount,' +
        'debitedCurrency,rate,arrivalDate,createdAt,exportedAt',
    );
    const row = rows.find((r) => r.startsWith(`${payout.id},`));
    // A second export keeps the first export's time.
    expect(row).toBe(
      [
        line?.payoutId,
        line?.organizationId,
        'tron',
        'USDT',
        line?.tokenContract,
        TRON_ADDRESS,
        line?.amountMinor,
        line?.amount,
        '1000000',
        'TRY',
        line?.rate,
        line?.arrivalDate,
        line?.createdAt,
        line?.exportedAt,
      ].join(','),
    );

    // The treasury sends it outside the gateway; the operator records the hash (pasted in upper case).
    const live = chainControl(t.liveChain);
    const sent = await live.externalTransfer({
      network: 'tron',
      to: TRON_ADDRESS,
      amount: payout.payoutAmount,
    });
    const badHash = await admin.post(`/operator/v1/payouts/${payout.id}/transaction`, { txHash: 'abc' });
    expect([badHash.status, badHash.body.error.code]).toEqual([400, 'validation_failed']);
    const recorded = await admin.post<OperatorPayout>(`/operator/v1/payouts/${payout.id}/transaction`, {
      txHash: sent.txHash.toUpperCase(),
    });
    expect(recorded.status, recorded.text).toBe(200);
    expect(recorded.body).toMatchObject({ status: 'in_transit', txHash: sent.txHash });
    const again = await admin.post<OperatorPayout>(`/operator/v1/payouts/${payout.id}/transaction`, {
      txHash: sent.txHash,
    });
    expect([again.status, again.body.status]).toEqual([200, 'in_transit']);
    const other = await admin.post(`/operator/v1/payouts/${payout.id}/transaction`, {
      txHash: 'cd'.repeat(32),
    });
    expect([other.status, other.body.error.code]).toEqual([409, 'invalid_state_transition']);

    // Not confirmed yet: it stays in transit; confirmed: completed, and the money is paid out.
    const engine = t.gateway.services.payoutEngine;
    await engine.confirmBatch();
    expect((await admin.get<OperatorPayout>(`/operator/v1/payouts/${payout.id}`)).body.status).toBe(
      'in_transit',
    );
    await live.mine(3);
    t.clock.advance(10 * 60_000);
    await engine.confirmBatch();
    const done = await admin.get<OperatorPayout>(`/operator/v1/payouts/${payout.id}`);
    expect(done.body).toMatchObject({ status: 'completed', txHash: sent.txHash });
    expect(await balance(merchant)).toMatchObject({
      inTransit: '0',
      available: String(BigInt(funded.available) - 1_000_000n),
    });
    const merchantView = await api<OperatorPayout>(merchant, 'live', `/v1/payouts/${payout.id}`);
    expect(merchantView.body).toMatchObject({ status: 'completed', txHash: sent.txHash });

    const trail = await auditOf(payout.id);
    expect(trail.map((entry) => entry.action)).toEqual([
      'payout.exported',
      'payout.exported',
      'payout.transaction_recorded',
    ]);
    expect(trail[0]).toMatchObject({ actor: `staff:${admin.account.id}`, after: { firstExport: true } });
    expect(trail[1]).toMatchObject({ after: { firstExport: false } });
    expect(trail[2]).toMatchObject({ after: { txHash: sent.txHash, status: 'in_transit' } });
  });

  it('holds one payout per hash, and never completes on a transfer that pays someone else or less', async () => {
    const merchant = await liveMerchant();
    const first = await livePayout(merchant, 600_000);
    const second = await livePayout(merchant, 700_000);
    const live = chainControl(t.liveChain);
    // The treasury sent less than the payout says.
    const short = await live.externalTransfer({
      network: 'tron',
      to: TRON_ADDRESS,
      amount: String(BigInt(first.payoutAmount) - 1n),
    });
    expect(
      (await cli.post(`/operator/v1/payouts/${first.id}/transaction`, { txHash: short.txHash })).status,
    ).toBe(200);
    const reused = await cli.post(`/operator/v1/payouts/${second.id}/transaction`, { txHash: short.txHash });
    expect([reused.status, reused.body.error.code, reused.body.error.details]).toEqual([
      409,
      'tx_hash_in_use',
      { payoutId: first.id },
    ]);
    expect((await cli.get<OperatorPayout>(`/operator/v1/payouts/${second.id}`)).body).toMatchObject({
      status: 'pending',
      txHash: null,
    });
    await live.mine(3);
    t.clock.advance(10 * 60_000);
    await t.gateway.services.payoutEngine.confirmBatch();
    const held = await cli.get<OperatorPayout>(`/operator/v1/payouts/${first.id}`);
    expect(held.body.status).toBe('in_transit');
    expect(held.body.lastError).toContain(`not ${first.payoutAmount} to ${TRON_ADDRESS}`);
  });

  it('records one hash for one of two payouts asked at the same moment, the other 409, never a 500', async () => {
    const merchant = await liveMerchant();
    const first = await livePayout(merchant, 400_000);
    const second = await livePayout(merchant, 400_000);
    const hash = 'ef'.repeat(32);
    const answers = await Promise.all(
      [first, second].map((payout) =>
        admin.post(`/operator/v1/payouts/${payout.id}/transaction`, { txHash: hash }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body.error.code).toBe('tx_hash_in_use');
    const holders = await t.gateway.database.db
      .selectFrom('payouts')
      .select('id')
      .where('tx_hash', '=', hash)
      .execute();
    expect(holders).toHaveLength(1);
    expect(refused?.body.error.details).toEqual({ payoutId: holders[0]?.id });
  });

  it('marks an exported payout not sent: it fails and the funds are available again', async () => {
    const merchant = await liveMerchant('ethereum');
    const before = await balance(merchant);
    const payout = await livePayout(merchant, 2_000_000);
    const exported = await admin.post<{ data: ExportLine[] }>('/operator/v1/payouts/treasury-exports', {
      format: 'json',
      network: 'ethereum',
    });
    expect(exported.body.data.find((l) => l.payoutId === payout.id)).toMatchObject({
      tokenContract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      toAddress: ETH_ADDRESS,
    });
    const noReason = await admin.post(`/operator/v1/payouts/${payout.id}/not-sent`, { reason: '   ' });
    expect([noReason.status, noReason.body.error.code]).toEqual([400, 'validation_failed']);
    const failed = await admin.post<OperatorPayout>(`/operator/v1/payouts/${payout.id}/not-sent`, {
      reason: 'custody refused the address',
    });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', failureCode: 'treasury_not_sent' });
    expect(await balance(merchant)).toEqual(before);
    const again = await admin.post(`/operator/v1/payouts/${payout.id}/not-sent`, { reason: 'again' });
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state_transition']);
    // An Ethereum hash has the 0x form.
    const recorded = await admin.post(`/operator/v1/payouts/${payout.id}/transaction`, {
      txHash: 'ab'.repeat(32),
    });
    expect([recorded.status, recorded.body.error.code]).toEqual([400, 'validation_failed']);
    expect((await auditOf(payout.id)).map((entry) => entry.action)).toEqual([
      'payout.exported',
      'payout.marked_not_sent',
    ]);
  });
});

describe('the queue and cancelation', () => {
  it('filters by status, rail, network and environment, pages, and cancels a payout never handed over', async () => {
    const merchant = await liveMerchant();
    const a = await livePayout(merchant, 300_000);
    t.clock.advance(1000);
    const b = await livePayout(merchant, 400_000);
    const mine = (query: string) =>
      admin.get<{ data: OperatorPayout[]; nextCursor: string | null }>(
        `/operator/v1/payouts?organizationId=${merchant.organizationId}&${query}`,
      );
    const page = await mine('limit=1&rail=treasury&network=tron&environment=live&status=pending');
    expect(page.body.data.map((p) => p.id)).toEqual([b.id]);
    const next = await mine(
      `limit=1&rail=treasury&network=tron&environment=live&status=pending&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`,
    );
    expect([next.body.data.map((p) => p.id), next.body.nextCursor]).toEqual([[a.id], null]);
    expect((await mine('rail=sandbox_chain')).body.data).toEqual([]);
    expect((await mine('network=ethereum')).body.data).toEqual([]);
    // A cursor of another filter is refused.
    const foreign = await mine(`status=failed&cursor=${encodeURIComponent(page.body.nextCursor ?? '')}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'validation_failed']);

    const before = await balance(merchant);
    const canceled = await admin.post<OperatorPayout>(`/operator/v1/payouts/${a.id}/cancel`, {
      reason: 'merchant asked by phone',
    });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled' });
    const after = await balance(merchant);
    expect(BigInt(after.available) - BigInt(before.available)).toBe(300_000n);
    expect(BigInt(before.inTransit) - BigInt(after.inTransit)).toBe(300_000n);
    expect((await mine('status=canceled')).body.data.map((p) => p.id)).toEqual([a.id]);
    expect(await auditOf(a.id)).toEqual([
      {
        actor: `staff:${admin.account.id}`,
        action: 'payout.canceled',
        after: { status: 'canceled', reason: 'merchant asked by phone' },
      },
    ]);
    const events = await t.gateway.database.db
      .selectFrom('events')
      .select('type')
      .where('resource_id', '=', a.id)
      .orderBy('created_at')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['payout.created', 'payout.canceled']);
    // A sandbox payout already sent to the chain is not cancelable.
    const sandbox = await createMerchant(t, {
      featureFlags: ['payouts', 'wallets'],
      payoutSchedule: 'manual',
    });
    expect(
      (await api(sandbox, 'sandbox', '/v1/wallets', { network: 'tron', address: TRON_ADDRESS })).status,
    ).toBe(201);
    await paidCharge(sandbox, 'sandbox', 1_000_000);
    expect((await api(sandbox, 'sandbox', '/v1/test-helpers/settle', {})).status).toBe(200);
    const sent = (await api<OperatorPayout>(sandbox, 'sandbox', '/v1/payouts', { amount: 100_000 })).body;
    await t.gateway.services.payoutEngine.submitBatch();
    const late = await admin.post(`/operator/v1/payouts/${sent.id}/cancel`, { reason: 'late' });
    expect([late.status, late.body.error.code]).toEqual([409, 'invalid_state_transition']);
    const sandboxRecord = await admin.post(`/operator/v1/payouts/${sent.id}/transaction`, {
      txHash: 'ab'.repeat(32),
    });
    expect([sandboxRecord.status, sandboxRecord.body.error.code]).toEqual([409, 'invalid_state_transition']);
  });
});

describe('payout minimums', () => {
  it('lists and sets the minimum per network and environment, audited, and payouts obey it', async () => {
    const listed = await admin.get<{ data: Array<{ network: string; environment: string; amount: string }> }>(
      '/operator/v1/payout-minimums',
    );
    expect(listed.body.data.map((m) => [m.environment, m.network, m.amount])).toEqual([
      ['live', 'ethereum', '500000'],
      ['live', 'tron', '50000'],
      ['sandbox', 'ethereum', '10000'],
      ['sandbox', 'tron', '10000'],
    ]);
    for (const amount of ['0', '-1', '1.5', '12345678901234567']) {
      const bad = await admin.put('/operator/v1/payout-minimums/live/tron', { amount });
      expect([bad.status, bad.body.error.code], amount).toEqual([400, 'validation_failed']);
    }
    const unknown = await admin.put('/operator/v1/payout-minimums/live/bitcoin', { amount: '1' });
    expect(unknown.status).toBe(400);
    const set = await admin.put('/operator/v1/payout-minimums/live/tron', { amount: '60000' });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      environment: 'live',
      network: 'tron',
      amount: '60000',
      updatedBy: `staff:${admin.account.id}`,
    });
    try {
      const merchant = await liveMerchant();
      await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
      const below = await api(merchant, 'live', '/v1/payouts', { amount: 59_999 });
      expect([below.status, below.body.error.code, below.body.error.details]).toEqual([
        400,
        'amount_below_minimum',
        { minimum: '60000', currency: 'TRY', network: 'tron' },
      ]);
      expect((await api(merchant, 'live', '/v1/payouts', { amount: 60_000 })).status).toBe(201);
      expect(await auditOf('live:tron')).toEqual([
        {
          actor: `staff:${admin.account.id}`,
          action: 'payout_minimum.updated',
          after: { amount: '60000' },
        },
      ]);
    } finally {
      expect((await admin.put('/operator/v1/payout-minimums/live/tron', { amount: '50000' })).status).toBe(
        200,
      );
    }
  });
});
