/**
 * Issue 13 item 5: the payout engine against the sandbox chain over a socket. A sandbox payout is sent
 * once, recorded in transit with its hash, and completed when the chain confirms it; a crash between any
 * two steps is recovered by asking the chain, never by sending again; every chain fault (dropped, failed,
 * slow, a hash reported twice, an outage) ends with one transfer per payout and a balanced ledger. Only
 * the run that marks a payout submitting sends it: one an operator canceled first is never sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutService } from '../src/modules/payouts/service.js';
import { MINUTE } from '../src/shared/clock.js';
import { chainControl } from './helpers/chain.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { payByCard } from './helpers/charges.js';

interface PayoutBody {
  id: string;
  status: string;
  txHash: string | null;
  address: string;
  payoutAmount: string;
  failureCode: string | null;
}
interface BalanceRow {
  available: string;
  inTransit: string;
}

const TRON_ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
let t: TestGateway;
let chain: ReturnType<typeof chainControl>;

beforeAll(async () => {
  // The worker role is left out: the test runs the engine's batches itself, step by step.
  t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } });
  chain = chainControl(t.sandboxChain);
});
afterAll(async () => t?.close());

const engine = () => t.gateway.services.payoutEngine;
const api = <T>(merchant: Merchant, path: string, body?: unknown) =>
  apiRequest<T>(t.urls, path, { key: merchant.keys.sandbox.secret, ...(body ? { body } : {}) });

async function fundedMerchant(): Promise<Merchant> {
  const merchant = await createMerchant(t, {
    featureFlags: ['payouts', 'wallets'],
    payoutSchedule: 'manual',
  });
  expect((await api(merchant, '/v1/wallets', { network: 'tron', address: TRON_ADDRESS })).status).toBe(201);
  const charge = await api<{ id: string; providerPaymentId: string }>(
    merchant,
    '/v1/charges',
    validCharge({ amount: 1_000_000 }),
  );
  await payByCard(t.gateway.services, charge.body, 'Engine Test');
  expect((await api<{ released: boolean }>(merchant, '/v1/test-helpers/settle', {})).body.released).toBe(
    true,
  );
  return merchant;
}

async function payout(merchant: Merchant, amount = 100_000): Promise<PayoutBody> {
  const res = await api<PayoutBody>(merchant, '/v1/payouts', { amount });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const fetchPayout = async (merchant: Merchant, id: string) =>
  (await api<PayoutBody>(merchant, `/v1/payouts/${id}`)).body;
const balanceOf = async (merchant: Merchant) =>
  (await api<{ balances: BalanceRow[] }>(merchant, '/v1/balance')).body.balances[0] as BalanceRow;
const transfersOf = async (payoutId: string) =>
  (await chain.transfers()).filter((transfer) => transfer.idempotencyKey === payoutId);

/** Runs the submission and confirmation batches until nothing is due. */
async function drainEngine(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const sent = await engine().submitBatch();
    const confirmed = await engine().confirmBatch();
    if (sent.claimed === 0 && confirmed.claimed === 0) return;
  }
}

describe('the payout engine on the sandbox chain', () => {
  it('sends once, records the hash in transit, and completes on confirmation', async () => {
    const merchant = await fundedMerchant();
    const created = await payout(merchant);
    await drainEngine();
    const sent = await fetchPayout(merchant, created.id);
    expect(sent.status).toBe('in_transit');
    const transfers = await transfersOf(created.id);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      txHash: sent.txHash,
      to: TRON_ADDRESS,
      amount: created.payoutAmount,
    });
    // Not yet confirmed: it stays in transit and is looked at again later.
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('in_transit');
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    expect(await fetchPayout(merchant, created.id)).toMatchObject({
      status: 'completed',
      txHash: sent.txHash,
    });
    expect(await balanceOf(merchant)).toMatchObject({ available: '864900', inTransit: '0' });
    expect(await transfersOf(created.id)).toHaveLength(1);
  });

  it('recovers a crash after the chain took the transfer by asking it, never sending again', async () => {
    const merchant = await fundedMerchant();
    const created = await payout(merchant);
    // The worker marked the payout, the chain took the transfer, and the worker died before recording it.
    await t.gateway.services.payouts.markSubmitting(created.id);
    const first = await fetch(`${t.sandboxChain.url}/v1/transfers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.sandboxChain.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        idempotencyKey: created.id,
        network: 'tron',
        to: TRON_ADDRESS,
        amount: created.payoutAmount,
      }),
    });
    const taken = (await first.json()) as { txHash: string };
    await drainEngine();
    expect(await fetchPayout(merchant, created.id)).toMatchObject({
      status: 'in_transit',
      txHash: taken.txHash,
    });
    expect(await transfersOf(created.id)).toHaveLength(1);
    // A crash after marking but before the chain heard of it: the chain knows nothing, so it is sent once.
    const second = await payout(merchant);
    await t.gateway.services.payouts.markSubmitting(second.id);
    await drainEngine();
    expect((await fetchPayout(merchant, second.id)).status).toBe('in_transit');
    expect(await transfersOf(second.id)).toHaveLength(1);
    // Two workers draining at once never send one payout twice.
    const third = await payout(merchant);
    await Promise.all([engine().submitBatch(), engine().submitBatch(), engine().submitBatch()]);
    expect(await transfersOf(third.id)).toHaveLength(1);
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    for (const id of [created.id, second.id, third.id]) {
      expect((await fetchPayout(merchant, id)).status).toBe('completed');
    }
    expect(await balanceOf(merchant)).toMatchObject({ available: '664900', inTransit: '0' });
  });

  it('fails a dropped or failed transfer and returns the funds', async () => {
    const merchant = await fundedMerchant();
    await chain.fault('drop');
    const dropped = await payout(merchant);
    await drainEngine();
    await chain.fault('fail');
    const failed = await payout(merchant);
    await drainEngine();
    expect((await fetchPayout(merchant, dropped.id)).status).toBe('in_transit');
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    expect(await fetchPayout(merchant, dropped.id)).toMatchObject({
      status: 'failed',
      failureCode: 'transaction_failed',
    });
    expect((await fetchPayout(merchant, failed.id)).status).toBe('failed');
    expect(await balanceOf(merchant)).toMatchObject({ available: '964900', inTransit: '0' });
  });

  it('waits out slow confirmations and an outage of the chain', async () => {
    const merchant = await fundedMerchant();
    await chain.fault('error_5xx');
    const created = await payout(merchant);
    const outage = await engine().submitBatch();
    expect(outage).toMatchObject({ claimed: 1, failed: 1 });
    expect((await fetchPayout(merchant, created.id)).status).toBe('pending');
    expect(await transfersOf(created.id)).toHaveLength(0);
    t.clock.advance(MINUTE);
    await chain.fault('slow');
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('in_transit');
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('in_transit');
    await chain.mine(5);
    t.clock.advance(10 * MINUTE);
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('completed');
  });

  it('changes nothing for a payout told a hash another payout holds', async () => {
    const merchant = await fundedMerchant();
    const first = await payout(merchant);
    await drainEngine();
    await chain.fault('duplicate_hash');
    const second = await payout(merchant);
    await drainEngine();
    const a = await fetchPayout(merchant, first.id);
    const b = await fetchPayout(merchant, second.id);
    expect(a.status).toBe('in_transit');
    expect(b).toMatchObject({ status: 'pending', txHash: null });
    const row = await t.gateway.database.db
      .selectFrom('payouts')
      .select(['last_error', 'submitted_at'])
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    expect(row.last_error).toMatch(/another payout holds/);
    await chain.mine(3);
    t.clock.advance(MINUTE);
    await drainEngine();
    // The first completes once; the second is never completed with the first one's hash.
    expect((await fetchPayout(merchant, first.id)).status).toBe('completed');
    expect(await fetchPayout(merchant, second.id)).toMatchObject({ status: 'pending', txHash: null });
    expect(await balanceOf(merchant)).toMatchObject({ available: '764900', inTransit: '100000' });
  });
});

describe('the payout engine against changes made while it works', () => {
  type MarkSubmitting = PayoutService['markSubmitting'];
  /**
   * Runs one submission round with `around` in place of the engine's `markSubmitting` (given the real
   * one): the interleaving of a job that read the payout, then raced what `around` does.
   */
  async function submitWith(
    around: (payoutId: string, markSubmitting: MarkSubmitting) => ReturnType<MarkSubmitting>,
  ) {
    const service = t.gateway.services.payouts;
    const original = service.markSubmitting.bind(service);
    service.markSubmitting = (payoutId: string) => around(payoutId, original);
    try {
      await engine().submitBatch();
    } finally {
      service.markSubmitting = original;
    }
  }

  it('never sends a payout an operator canceled before the run marked it submitting', async () => {
    const merchant = await fundedMerchant();
    const created = await payout(merchant);
    const service = t.gateway.services.payouts;
    let canceled: string | undefined;
    await submitWith(async (payoutId, markSubmitting) => {
      const outcome = await service.operatorCancel(payoutId, 'merchant asked', { actor: 'staff:test' });
      canceled = outcome.ok ? outcome.value.status : outcome.error.code;
      return markSubmitting(payoutId);
    });
    expect(canceled).toBe('canceled');
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('canceled');
    expect(await transfersOf(created.id)).toHaveLength(0);
    expect(await balanceOf(merchant)).toMatchObject({ available: '964900', inTransit: '0' });
  });

  it('leaves a payout another run marked submitting to the lookup, and sends it once', async () => {
    const merchant = await fundedMerchant();
    const created = await payout(merchant);
    let markedFirst: boolean | undefined;
    await submitWith(async (payoutId, markSubmitting) => {
      markedFirst = (await markSubmitting(payoutId)) !== undefined;
      return markSubmitting(payoutId);
    });
    expect(markedFirst).toBe(true);
    expect(await transfersOf(created.id)).toHaveLength(0);
    t.clock.advance(MINUTE);
    await drainEngine();
    expect((await fetchPayout(merchant, created.id)).status).toBe('in_transit');
    expect(await transfersOf(created.id)).toHaveLength(1);
  });

  it('logs and raises a transfer the rail made for a payout that is no longer pending, recording nothing', async () => {
    const merchant = await fundedMerchant();
    const created = await payout(merchant);
    const service = t.gateway.services.payouts;
    let failed: string | undefined;
    // Marked by this run, then failed before the rail answered: the transfer goes out, the payout is final.
    await submitWith(async (payoutId, markSubmitting) => {
      const marked = await markSubmitting(payoutId);
      failed = await service.fail(payoutId, { code: 'test', message: 'failed while sending' });
      return marked;
    });
    expect(failed).toBe('failed');
    expect(await fetchPayout(merchant, created.id)).toMatchObject({ status: 'failed', txHash: null });
    expect(await transfersOf(created.id)).toHaveLength(1);
    expect(
      t.logs.some(
        (line) =>
          line.includes('no longer pending') && line.includes(created.id) && line.includes('"level":50'),
      ),
    ).toBe(true);
    // Money may have left twice: the operator is alerted (ADR 0055), once, with the transfer's hash.
    const [transfer] = await transfersOf(created.id);
    const alerts = await t.gateway.database.db
      .selectFrom('operator_alerts')
      .select(['kind', 'organization_id', 'environment', 'details'])
      .where('subject_id', '=', created.id)
      .execute();
    expect(alerts).toEqual([
      {
        kind: 'payout_sent_not_pending',
        organization_id: merchant.organizationId,
        environment: 'sandbox',
        details: expect.objectContaining({
          payoutId: created.id,
          txHash: transfer?.txHash,
          status: 'failed',
          txHashRecorded: null,
        }) as unknown,
      },
    ]);
    // Nothing more is sent or recorded for it.
    t.clock.advance(MINUTE);
    await drainEngine();
    expect(await transfersOf(created.id)).toHaveLength(1);
    expect(await fetchPayout(merchant, created.id)).toMatchObject({ status: 'failed', txHash: null });
  });
});
