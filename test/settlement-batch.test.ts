/**
 * Issue 14: the daily settlement batch, driven by the injected clock through the job kit's calendar job
 * (`settlement-daily`, 03:00 UTC): business days only (weekends, Turkish public holidays, declared
 * closures), one batch per owner and business date however many runs, the automatic payout to the
 * default wallet at a locked rate, carried funds (no wallet, manual schedule) and held batches (no usable
 * rate). Charges are paid through the sandbox (or live) acquirer over HTTP; balances are read through the
 * API.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../src/shared/clock.js';
import { backgroundJobs } from '../src/jobs.js';
import type { Job } from '../src/worker/worker.js';
import { createActiveUser, mailsTo } from './helpers/accounts.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { chainControl } from './helpers/chain.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { type Merchant } from './helpers/merchants.js';
import {
  liveFundedMerchant,
  merchantApi,
  paidCharge,
  TRON_ADDRESS,
  sandboxMerchant,
} from './helpers/payouts.js';
import { payByCard, postCharge } from './helpers/charges.js';

interface Balance {
  pending: string;
  available: string;
  inTransit: string;
}
interface Payout {
  id: string;
  amount: string;
  payoutAmount: string;
  automatic: boolean;
  status: string;
  rail: string;
  arrivalDate: string;
  livemode: boolean;
  rate: { value: string; source: string; at: string };
}

let daily: Job;

useTestGateway(
  {
    // No worker: the test runs the daily job itself, at the clock's times.
    env: { ROLES: 'api,sandbox-acquirer,sandbox-chain', SETTLEMENT_CRON: '0 3 * * *' },
    clock: createManualClock(new Date('2027-01-08T10:00:00.000Z')), // a Friday
  },
  async () => {
    const job = backgroundJobs(t.gateway.services).find((candidate) => candidate.name === 'settlement-daily');
    if (!job) throw new Error('no settlement-daily job');
    daily = job;
  },
);

const at = (iso: string) => t.clock.set(new Date(iso));
const db = () => t.gateway.database.db;

async function balance(merchant: Merchant, environment: 'sandbox' | 'live' = 'sandbox'): Promise<Balance> {
  const res = await merchantApi<{ balances: Balance[] }>(t, merchant, environment, '/v1/balance');
  expect(res.status, res.text).toBe(200);
  return res.body.balances[0] as Balance;
}

async function payoutsOf(merchant: Merchant, environment: 'sandbox' | 'live' = 'sandbox'): Promise<Payout[]> {
  const res = await merchantApi<{ data: Payout[] }>(t, merchant, environment, '/v1/payouts');
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function batchesOf(merchant: Merchant) {
  return db()
    .selectFrom('settlement_batches')
    .selectAll()
    .where('organization_id', '=', merchant.organizationId)
    .orderBy('business_date')
    .execute();
}

/** 10 000.00 TRY by card: the default fee is 3.50 % + 1.00 TRY, so 9 649.00 TRY reach pending. */
const CHARGE = 1_000_000;
const NET = 964_900n;

describe('the daily batch across the calendar', () => {
  it("waits out the weekend: Friday's charges go in Monday's batch, paid out to the default wallet once", async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    expect(await balance(merchant)).toMatchObject({ pending: NET.toString(), available: '0' });

    for (const weekend of ['2027-01-09T03:00:30.000Z', '2027-01-10T03:00:30.000Z']) {
      at(weekend);
      await daily.run();
      expect(await batchesOf(merchant), weekend).toEqual([]);
    }
    at('2027-01-11T03:00:30.000Z');
    await daily.run();
    const [batch, ...more] = await batchesOf(merchant);
    expect(more).toEqual([]);
    expect(batch).toMatchObject({
      business_date: '2027-01-11',
      status: 'paid_out',
      net: NET.toString(),
      item_count: 1,
      rate: '0.0285',
      rate_source: 'sandbox',
    });
    expect(batch?.cutoff.toISOString()).toBe('2027-01-11T03:00:00.000Z');
    const payouts = await payoutsOf(merchant);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({
      id: batch?.payout_id,
      amount: NET.toString(),
      // 9 649.00 TRY x 0.0285 = 274.9965 USDT
      payoutAmount: '274996500',
      automatic: true,
      status: 'pending',
      rail: 'sandbox_chain',
      arrivalDate: '2027-01-12',
      livemode: false,
      rate: { value: '0.0285', source: 'sandbox' },
    });
    expect(await balance(merchant)).toMatchObject({
      pending: '0',
      available: '0',
      inTransit: NET.toString(),
    });

    // The same period again, and three more runs of the same day at once: nothing new.
    await daily.run();
    const services = t.gateway.services.settlementBatches;
    const cutoff = new Date('2027-01-11T03:00:00.000Z');
    await Promise.all([0, 1, 2].map(() => services.runDay(cutoff)));
    expect(await batchesOf(merchant)).toHaveLength(1);
    expect(await payoutsOf(merchant)).toHaveLength(1);

    // The batch is announced once, with its payout.
    const events = await db()
      .selectFrom('events')
      .select(['type', 'payload'])
      .where('organization_id', '=', merchant.organizationId)
      .where('type', '=', 'balance.settled')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({
      eventType: 'balance.settled',
      livemode: false,
      data: { id: batch?.id, object: 'settlement_batch', status: 'paid_out', payoutId: batch?.payout_id },
    });
  });

  it('skips the days of Ramazan Bayramı; the eve is a business day; the next business day takes everything', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    at('2027-03-08T10:00:00.000Z'); // Monday, the eve (arife): open, after its 03:00 cutoff
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    for (const holiday of ['2027-03-09', '2027-03-10', '2027-03-11']) {
      at(`${holiday}T03:00:30.000Z`);
      await daily.run();
      expect(await batchesOf(merchant), holiday).toEqual([]);
    }
    at('2027-03-11T12:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-03-12T03:00:30.000Z');
    await daily.run();
    expect(await batchesOf(merchant)).toEqual([
      expect.objectContaining({ business_date: '2027-03-12', status: 'paid_out', item_count: 2 }),
    ]);
    const [payout] = await payoutsOf(merchant);
    // Friday's payout arrives on the next business day, Monday.
    expect(payout).toMatchObject({
      amount: (2n * NET).toString(),
      arrivalDate: '2027-03-15',
      automatic: true,
    });
    expect(await t.gateway.services.settlementBatches.businessDay('2027-03-10')).toEqual({
      open: false,
      why: 'public holiday: Ramazan Bayramı',
    });
  });

  it('skips a closure the operator declared, audited; the next business day takes it', async () => {
    const services = t.gateway.services.settlementBatches;
    const by = { actor: 'staff:stf_test' };
    expect(await services.declareClosure('2027-04-02', '  Banking system maintenance ', by)).toEqual({
      ok: true,
      value: expect.objectContaining({ businessDate: '2027-04-02', reason: 'Banking system maintenance' }),
    });
    expect(await services.declareClosure('2027-04-02', 'again', by)).toEqual({
      ok: false,
      error: { code: 'closure_exists' },
    });
    expect((await services.declareClosure('2027-02-30', 'no such day', by)).ok).toBe(false);
    expect(await services.declareClosure('2027-04-05', '   ', by)).toEqual({
      ok: false,
      error: { code: 'reason_required' },
    });

    const merchant = await sandboxMerchant(t, { wallet: true });
    at('2027-04-01T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-04-02T03:00:30.000Z');
    await daily.run();
    expect(await batchesOf(merchant)).toEqual([]);
    at('2027-04-05T03:00:30.000Z');
    await daily.run();
    expect(await batchesOf(merchant)).toEqual([
      expect.objectContaining({ business_date: '2027-04-05', status: 'paid_out' }),
    ]);
    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'action', 'target_id'])
      .where('action', '=', 'settlement.closure_declared')
      .execute();
    expect(audit).toEqual([
      { actor: 'staff:stf_test', action: 'settlement.closure_declared', target_id: '2027-04-02' },
    ]);
    expect(await services.closures({ from: '2027-04-01', to: '2027-04-30' })).toHaveLength(1);
  });
});

describe('the payout phase', () => {
  it('holds a live batch while the rate is stale, raises it once, and pays it at a fresh rate, the remainder kept', async () => {
    at('2027-04-05T10:00:00.000Z');
    const chain = chainControl(t.liveChain);
    await chain.setRate('0.0290', t.clock.now().toISOString());
    const merchant = await liveFundedMerchant(t); // 50 000 TRY released today, a confirmed default wallet
    const released = await balance(merchant, 'live');
    await paidCharge(t, merchant, 'live', CHARGE);

    at('2027-04-06T03:00:30.000Z');
    // The ticker's rate is an hour old: stale.
    await chain.setRate('0.0290', new Date(t.clock.now().getTime() - 3_600_000).toISOString());
    await expect(daily.run()).rejects.toThrow(/1 batches held/);
    const [, held] = await batchesOf(merchant);
    expect(held).toMatchObject({ business_date: '2027-04-06', status: 'held', payout_id: null });
    expect(held?.hold_reason).toMatch(/^rate_unavailable:/);
    expect(await payoutsOf(merchant, 'live')).toEqual([]);
    expect(await balance(merchant, 'live')).toMatchObject({
      pending: '0',
      available: (BigInt(released.available) + NET).toString(),
    });
    const services = t.gateway.services.settlementBatches;
    const cutoff = new Date('2027-04-06T03:00:00.000Z');
    expect(await services.runDay(cutoff)).toMatchObject({ held: 1, paidOut: 0 });
    const alerts = await db()
      .selectFrom('operator_alerts')
      .select(['kind', 'subject_id'])
      .where('organization_id', '=', merchant.organizationId)
      .execute();
    expect(alerts).toEqual([{ kind: 'settlement_held', subject_id: held?.id }]);

    // A fresh rate that does not divide evenly: USDT rounded down, the TRY it does not cover stays.
    at('2027-04-06T03:20:00.000Z');
    await chain.setRate('0.029123457', t.clock.now().toISOString());
    const report = await services.runDay(cutoff);
    expect(report).toMatchObject({ businessDate: '2027-04-06', paidOut: 1, held: 0, failed: 0 });
    const [, paid] = await batchesOf(merchant);
    expect(paid).toMatchObject({ status: 'paid_out', rate: '0.029123457', hold_reason: null });
    const [payout] = await payoutsOf(merchant, 'live');
    expect(payout).toMatchObject({ automatic: true, rail: 'treasury', livemode: true, status: 'pending' });
    const total = BigInt(released.available) + NET;
    const after = await balance(merchant, 'live');
    expect(BigInt(payout?.amount ?? 0) + BigInt(after.available)).toBe(total);
    // What stays is less than the TRY of one micro-USDT, rounded up to kuruş.
    expect(BigInt(after.available)).toBeLessThan(100n);
    // payoutAmount is the USDT of everything available at the rate, rounded down to 6 decimals.
    expect(BigInt(payout?.payoutAmount ?? 0)).toBe((total * 29_123_457n) / 100_000n);
  });

  it('carries the funds without a wallet, e-mails the owner once, and pays everything once a wallet exists', async () => {
    const merchant = await sandboxMerchant(t, { wallet: false });
    const owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    at('2027-04-07T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-04-08T03:00:30.000Z');
    await daily.run();
    at('2027-04-08T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-04-09T03:00:30.000Z');
    await daily.run();
    expect((await batchesOf(merchant)).map((batch) => [batch.status, batch.carry_reason])).toEqual([
      ['carried', 'no_default_wallet'],
      ['carried', 'no_default_wallet'],
    ]);
    expect(await balance(merchant)).toMatchObject({ pending: '0', available: (2n * NET).toString() });
    const notices = (await mailsTo(t, owner.email)).filter(
      (mail) => mail.template === 'settlement_funds_waiting',
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain('2027-04-08');

    const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
    at('2027-04-09T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-04-12T03:00:30.000Z');
    await daily.run();
    const [payout] = await payoutsOf(merchant);
    expect(payout).toMatchObject({ amount: (3n * NET).toString(), automatic: true });
    expect(await balance(merchant)).toMatchObject({ available: '0', inTransit: (3n * NET).toString() });
    // Its transactions are every charge the three batches released.
    const lines = await merchantApi<{ data: unknown[] }>(
      t,
      merchant,
      'sandbox',
      `/v1/payouts/${payout?.id}/transactions`,
    );
    expect(lines.body.data).toHaveLength(3);
  });

  it('carries the funds of a merchant paying out by hand, and the schedule change is audited', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    const services = t.gateway.services.settlementBatches;
    expect(await services.schedule(merchant.organizationId)).toBe('daily');
    expect(await services.setSchedule(merchant.organizationId, 'manual', { actor: 'staff:stf_ops' })).toEqual(
      {
        ok: true,
        value: 'manual',
      },
    );
    expect(await services.setSchedule('org_nope', 'manual', { actor: 'staff:stf_ops' })).toEqual({
      ok: false,
      error: { code: 'organization_not_found' },
    });
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-04-13T03:00:30.000Z');
    await daily.run();
    expect(await batchesOf(merchant)).toEqual([
      expect.objectContaining({ status: 'carried', carry_reason: 'manual_schedule' }),
    ]);
    expect(await payoutsOf(merchant)).toEqual([]);
    expect(await balance(merchant)).toMatchObject({ available: NET.toString() });
    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'before', 'after'])
      .where('target_id', '=', merchant.organizationId)
      .where('action', '=', 'settlement.payout_schedule_set')
      .execute();
    expect(audit).toEqual([
      { actor: 'staff:stf_ops', before: { payoutSchedule: 'daily' }, after: { payoutSchedule: 'manual' } },
    ]);
  });

  it('resumes a batch released before a crash: the next run pays it out once', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    at('2027-04-13T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    // The release committed, then the process died before the payout phase.
    const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const cutoff = new Date('2027-04-14T03:00:00.000Z');
    at('2027-04-14T03:00:10.000Z');
    const released = await t.gateway.services.settlement.release(owner, {
      cutoff,
      businessDate: '2027-04-14',
    });
    expect(released).toMatchObject({ released: true, batch: { status: 'released' } });
    expect(await payoutsOf(merchant)).toEqual([]);
    await Promise.all([daily.run(), t.gateway.services.settlementBatches.runDay(cutoff)]);
    expect(await batchesOf(merchant)).toEqual([expect.objectContaining({ status: 'paid_out' })]);
    expect(await payoutsOf(merchant)).toHaveLength(1);
  });

  it('POST /v1/test-helpers/settle runs the same batch now: released and paid out on the sandbox chain', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    const res = await merchantApi<{ released: boolean; batch: { status: string; payoutId: string } }>(
      t,
      merchant,
      'sandbox',
      '/v1/test-helpers/settle',
      {},
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      released: true,
      batch: { object: 'settlement_batch', status: 'paid_out', livemode: false, rate: { value: '0.0285' } },
    });
    const [payout] = await payoutsOf(merchant);
    expect(payout).toMatchObject({ id: res.body.batch.payoutId, rail: 'sandbox_chain', automatic: true });
    // The engine sends one payout per claim, oldest first: the file's earlier payouts go first.
    for (let round = 0; round < 30; round++) await t.gateway.services.payoutEngine.submitBatch();
    const transfers = await chainControl(t.sandboxChain).transfers();
    expect(transfers.filter((transfer) => transfer.idempotencyKey === payout?.id)).toHaveLength(1);
  });
});

describe('where the daily run looks for owners', () => {
  it("is not moved by a sandbox settle-now cut later than another owner's credits", async () => {
    const quiet = await sandboxMerchant(t, { wallet: true });
    const tester = await sandboxMerchant(t, { wallet: true });
    at('2027-07-05T10:00:00.000Z');
    await paidCharge(t, quiet, 'sandbox', CHARGE);
    at('2027-07-05T20:00:00.000Z');
    await paidCharge(t, tester, 'sandbox', CHARGE);
    const settled = await merchantApi<{ batch: { businessDate: string } }>(
      t,
      tester,
      'sandbox',
      '/v1/test-helpers/settle',
      {},
    );
    expect(settled.body.batch.businessDate).toBe('2027-07-05');
    at('2027-07-06T03:00:30.000Z');
    await daily.run();
    expect(await batchesOf(quiet)).toEqual([
      expect.objectContaining({ business_date: '2027-07-06', origin: 'schedule', status: 'paid_out' }),
    ]);
    expect((await batchesOf(tester)).map((batch) => batch.origin)).toEqual(['test_helper']);
  });

  it('releases a credit entered before the last cutoff but committed after its run in the next batch, once', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    // Twenty minutes before Monday's cutoff: in Monday's batch, and inside the hour the next run reads again.
    at('2027-07-12T02:40:00.000Z');
    const early = await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-07-12T03:00:30.000Z');
    await daily.run();
    // A credit whose entry says 02:50, written by a transaction that committed after Monday's run read the
    // ledger (a late commit): Monday's batch could not see it.
    at('2027-07-12T02:50:00.000Z');
    const late = await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-07-12T10:00:00.000Z');
    const after = await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-07-13T03:00:30.000Z');
    await daily.run();

    const batches = await batchesOf(merchant);
    expect(batches.map((batch) => [batch.business_date, batch.status, batch.item_count, batch.net])).toEqual([
      ['2027-07-12', 'paid_out', 1, NET.toString()],
      ['2027-07-13', 'paid_out', 2, (2n * NET).toString()],
    ]);
    const items = await db()
      .selectFrom('settlement_items')
      .select(['batch_id', 'source_id'])
      .where('organization_id', '=', merchant.organizationId)
      .execute();
    const sourcesOf = (batchId: string | undefined) =>
      items
        .filter((item) => item.batch_id === batchId)
        .map((item) => item.source_id)
        .sort();
    expect(sourcesOf(batches[0]?.id)).toEqual([early.id]);
    expect(sourcesOf(batches[1]?.id)).toEqual([late.id, after.id].sort());
    expect(await balance(merchant)).toMatchObject({ pending: '0', inTransit: (3n * NET).toString() });
  });
});

describe("the items' charges and merchant references", () => {
  /** A refund of part of `chargeId`, succeeded at the sandbox acquirer; its id. */
  async function refunded(merchant: Merchant, chargeId: string, amount: number): Promise<string> {
    const res = await merchantApi<{ id: string; status: string }>(
      t,
      merchant,
      'sandbox',
      `/v1/charges/${chargeId}/refunds`,
      { amount },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('succeeded');
    return res.body.id;
  }

  /**
   * Two charges and a refund of the first whose entries record their charge and its reference (as the
   * gateway writes them since migration 0029), then a charge and a refund whose entries do not (as
   * entries written before it): the release reads the first from the entries and looks the others up.
   */
  async function creditsOfBoth(merchant: Merchant) {
    const recorded = await paidCharge(t, merchant, 'sandbox', CHARGE);
    const other = await paidCharge(t, merchant, 'sandbox', CHARGE);
    const recordedRefund = await refunded(merchant, recorded.id, 100_000);
    const legacy = await paidCharge(t, merchant, 'sandbox', CHARGE);
    const legacyRefund = await refunded(merchant, legacy.id, 50_000);
    const sources = [recorded.id, other.id, recordedRefund, legacy.id, legacyRefund];
    const entries = await db()
      .selectFrom('journal_entries')
      .select(['source_id', 'charge_id', 'merchant_reference'])
      .where('source_id', 'in', sources)
      .execute();
    const references = new Map(
      (
        await db()
          .selectFrom('charges')
          .select(['id', 'merchant_reference'])
          .where('id', 'in', [recorded.id, other.id, legacy.id])
          .execute()
      ).map((row) => [row.id, row.merchant_reference]),
    );
    // What the gateway records now: the charge and its reference, on the charge's and the refund's entry.
    expect(
      new Map(entries.map((entry) => [entry.source_id, [entry.charge_id, entry.merchant_reference]])),
    ).toEqual(
      new Map([
        [recorded.id, [recorded.id, references.get(recorded.id)]],
        [other.id, [other.id, references.get(other.id)]],
        [recordedRefund, [recorded.id, references.get(recorded.id)]],
        [legacy.id, [legacy.id, references.get(legacy.id)]],
        [legacyRefund, [legacy.id, references.get(legacy.id)]],
      ]),
    );
    // The entries of before migration 0029: the ledger is append-only, so its guard is lifted for this.
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql`alter table journal_entries disable trigger journal_entries_append_only`.execute(trx);
        await trx
          .updateTable('journal_entries')
          .set({ charge_id: null, merchant_reference: null } as never)
          .where('source_id', 'in', [legacy.id, legacyRefund])
          .execute();
        await sql`alter table journal_entries enable trigger journal_entries_append_only`.execute(trx);
      });
    return {
      expected: [
        [recorded.id, 'charge', recorded.id, references.get(recorded.id)],
        [other.id, 'charge', other.id, references.get(other.id)],
        [recordedRefund, 'refund', recorded.id, references.get(recorded.id)],
        [legacy.id, 'charge', legacy.id, references.get(legacy.id)],
        [legacyRefund, 'refund', legacy.id, references.get(legacy.id)],
      ].sort(),
    };
  }

  async function itemsOf(merchant: Merchant) {
    const rows = await db()
      .selectFrom('settlement_items')
      .select(['source_id', 'type', 'charge_id', 'merchant_reference'])
      .where('organization_id', '=', merchant.organizationId)
      .execute();
    return rows.map((row) => [row.source_id, row.type, row.charge_id, row.merchant_reference]).sort();
  }

  it('are read from the credit entries, or looked up for entries written before they recorded them', async () => {
    // The daily run settles a plain owner in a chunk; the sandbox test helper releases one owner alone.
    const chunked = await sandboxMerchant(t, { wallet: true });
    const alone = await sandboxMerchant(t, { wallet: true });
    at('2027-07-19T10:00:00.000Z');
    const ofChunked = await creditsOfBoth(chunked);
    const ofAlone = await creditsOfBoth(alone);
    const settled = await merchantApi(t, alone, 'sandbox', '/v1/test-helpers/settle', {});
    expect(settled.status, settled.text).toBe(200);
    at('2027-07-20T03:00:30.000Z');
    await daily.run();
    expect(await itemsOf(chunked)).toEqual(ofChunked.expected);
    expect(await itemsOf(alone)).toEqual(ofAlone.expected);
    for (const merchant of [chunked, alone]) {
      const [batch, ...more] = await batchesOf(merchant);
      expect(more).toEqual([]);
      // 3 x 10 000 TRY less fees of 351 TRY each, less 1 000 and 500 TRY refunded.
      expect(batch).toMatchObject({ item_count: 5, net: (3n * NET - 150_000n).toString() });
    }
  });
});

describe('money in equals money out', () => {
  /** A charge paid at the sandbox acquirer; its id. */
  async function paid(merchant: Merchant, amount: number): Promise<string> {
    const res = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, { amount });
    await payByCard(t.gateway.services, res, 'Property');
    return res.id;
  }

  it('charges = fees + refunds + payouts + what stays available, to the minor unit, whatever the sequence', async () => {
    // Business days from a Monday on; each batch runs at 03:00:30 of the next business day.
    let day = Date.parse('2027-06-07T00:00:00.000Z');
    const nextBusinessDay = async () => {
      do day += 86_400_000;
      while (
        !(await t.gateway.services.settlementBatches.businessDay(new Date(day).toISOString().slice(0, 10)))
          .open
      );
      at(new Date(day + 3 * 3_600_000 + 30_000).toISOString());
      await daily.run();
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 1_000, max: 2_000_000 }),
            refundPercent: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
            batchAfter: fc.boolean(),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (steps) => {
          const merchant = await sandboxMerchant(t, { wallet: true });
          at(new Date(day + 10 * 3_600_000).toISOString());
          let gross = 0n;
          for (const step of steps) {
            const id = await paid(merchant, step.amount);
            gross += BigInt(step.amount);
            if (step.refundPercent !== undefined) {
              const amount = Math.max(1, Math.floor((step.amount * step.refundPercent) / 100));
              const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${id}/refunds`, {
                amount,
              });
              expect(refund.status, refund.text).toBe(201);
            }
            if (step.batchAfter) {
              await nextBusinessDay();
              at(new Date(day + 10 * 3_600_000).toISOString());
            }
          }
          // A last charge larger than any refund, so that the last batch releases everything left.
          await paid(merchant, 3_000_000);
          gross += 3_000_000n;
          await nextBusinessDay();

          const batches = await batchesOf(merchant);
          const fees = batches.reduce((sum, batch) => sum + BigInt(batch.fees), 0n);
          const refunds = batches.reduce((sum, batch) => sum + BigInt(batch.refunds), 0n);
          expect(batches.reduce((sum, batch) => sum + BigInt(batch.gross), 0n)).toBe(gross);
          const payouts = await payoutsOf(merchant);
          const paidOut = payouts.reduce((sum, payout) => sum + BigInt(payout.amount), 0n);
          const left = await balance(merchant);
          expect(left.pending).toBe('0');
          expect(BigInt(left.inTransit)).toBe(paidOut);
          expect(fees + refunds + paidOut + BigInt(left.available)).toBe(gross);
          // A batch pays out, or carries what is below the network minimum (or nothing) to a later one;
          // the last batch pays everything (the sandbox rate divides evenly: nothing stays).
          for (const batch of batches) {
            expect(
              batch.status === 'paid_out' ||
                ['below_minimum', 'nothing_available'].includes(batch.carry_reason ?? ''),
              `${batch.status} ${batch.carry_reason}`,
            ).toBe(true);
          }
          expect(batches.at(-1)?.status).toBe('paid_out');
          expect(left.available).toBe('0');
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);
});

describe('the rolling reserve', () => {
  it('holds a share of each batch for its days and releases it with the first batch on or after its date', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    const services = t.gateway.services.settlementBatches;
    // 10 % held for 3 days.
    expect(
      await services.setReserve(
        merchant.organizationId,
        { reserveBps: 1000, days: 3 },
        { actor: 'staff:stf_risk' },
      ),
    ).toEqual({ ok: true, value: { reserveBps: 1000, days: 3 } });
    const reserved = NET / 10n; // 96 490 of 964 900

    at('2027-08-02T10:00:00.000Z'); // Monday
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2027-08-03T03:00:30.000Z');
    await daily.run();
    expect(await balance(merchant)).toMatchObject({
      pending: '0',
      available: '0',
      inTransit: (NET - reserved).toString(),
      reserve: reserved.toString(),
    });
    at('2027-08-03T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    for (const day of ['2027-08-04', '2027-08-05']) {
      at(`${day}T03:00:30.000Z`);
      await daily.run();
    }
    expect(await balance(merchant)).toMatchObject({ reserve: (2n * reserved).toString() });
    // Friday 6 August: the first reserve's date; no new credits, the batch releases it alone.
    at('2027-08-06T03:00:30.000Z');
    await daily.run();
    // Monday 9 August: the second reserve (due Saturday the 7th).
    at('2027-08-09T03:00:30.000Z');
    await daily.run();

    const batches = await batchesOf(merchant);
    expect(
      batches.map((batch) => [
        batch.business_date,
        batch.net,
        batch.reserve_held,
        batch.reserve_released,
        batch.status,
      ]),
    ).toEqual([
      ['2027-08-03', NET.toString(), reserved.toString(), '0', 'paid_out'],
      ['2027-08-04', NET.toString(), reserved.toString(), '0', 'paid_out'],
      ['2027-08-06', '0', '0', reserved.toString(), 'paid_out'],
      ['2027-08-09', '0', '0', reserved.toString(), 'paid_out'],
    ]);
    expect(batches.map((batch) => batch.reserve_release_date)).toEqual([
      '2027-08-06',
      '2027-08-07',
      null,
      null,
    ]);
    const payouts = await payoutsOf(merchant);
    expect(payouts.map((payout) => payout.amount).sort()).toEqual(
      [NET - reserved, NET - reserved, reserved, reserved].map(String).sort(),
    );
    expect(await balance(merchant)).toMatchObject({
      pending: '0',
      available: '0',
      reserve: '0',
      inTransit: (2n * NET).toString(),
    });

    // The statement of Friday's batch says whose reserve it released.
    const friday = batches[2];
    const statement = await merchantApi<{ batch: { reserve: unknown }; lines: unknown[] }>(
      t,
      merchant,
      'sandbox',
      `/v1/settlements/${friday?.id}/statement`,
    );
    expect(statement.body.batch.reserve).toEqual({
      held: '0',
      releaseDate: null,
      released: reserved.toString(),
      releasedFrom: [{ batchId: batches[0]?.id, amount: reserved.toString() }],
    });
    expect(statement.body.lines).toEqual([]);
    const retrieved = await merchantApi<{ reserve: unknown }>(
      t,
      merchant,
      'sandbox',
      `/v1/settlements/${batches[0]?.id}`,
    );
    expect(retrieved.body.reserve).toEqual({
      held: reserved.toString(),
      releaseDate: '2027-08-06',
      released: '0',
    });
  });
});

describe('a reserve released while a refund debt waits', () => {
  it('releases the reserve alone and nets the waiting refund against the next credits', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    const services = t.gateway.services.settlementBatches;
    await services.setReserve(
      merchant.organizationId,
      { reserveBps: 1000, days: 1 },
      { actor: 'staff:stf_risk' },
    );
    at('2027-09-06T10:00:00.000Z'); // Monday
    const charge = await merchantApi<{ id: string; providerPaymentId: string }>(
      t,
      merchant,
      'sandbox',
      '/v1/charges',
      validCharge({ amount: CHARGE }),
    );
    const acquirer = t.gateway.services.acquirers.sandbox?.acquirer;
    if (!acquirer) throw new Error('no sandbox acquirer');
    await t.gateway.services.completion.apply(
      charge.body.id,
      await acquirer.authorize(
        charge.body.providerPaymentId,
        { number: TEST_CARDS.visa.number, expMonth: 12, expYear: 2030, cvc: '123', holderName: 'Debt' },
        'https://shop.example/back',
      ),
    );
    at('2027-09-07T03:00:30.000Z');
    await daily.run(); // releases the charge, holds 10 % until Wednesday
    at('2027-09-07T10:00:00.000Z');
    const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${charge.body.id}/refunds`, {});
    expect(refund.status, refund.text).toBe(201);
    // The charge was released already: the whole refund is owed, as debt (pending never goes below 0).
    expect(await balance(merchant)).toMatchObject({ pending: '0', debt: CHARGE.toString() });
    at('2027-09-08T03:00:30.000Z');
    await daily.run(); // the refund waits (a debt); the reserve is due and goes alone
    at('2027-09-08T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', 2 * CHARGE);
    at('2027-09-09T03:00:30.000Z');
    await daily.run(); // the new charge, less the waiting refund

    const batches = await batchesOf(merchant);
    expect(batches.map((batch) => [batch.business_date, batch.item_count, batch.reserve_released])).toEqual([
      ['2027-09-07', 1, '0'],
      ['2027-09-08', 0, (NET / 10n).toString()],
      ['2027-09-09', 2, '0'],
    ]);
    const refunded = await db()
      .selectFrom('settlement_items')
      .select(['type', 'batch_id'])
      .where('organization_id', '=', merchant.organizationId)
      .where('type', '=', 'refund')
      .execute();
    expect(refunded).toEqual([{ type: 'refund', batch_id: batches[2]?.id }]);
    // 20 000.00 TRY nets 19 299.00 TRY (fee 3.50 % + 1.00 TRY), less the 10 000.00 TRY refund: 10 % of
    // 9 299.00 TRY is held.
    expect(await balance(merchant)).toMatchObject({
      pending: '0',
      reserve: ((1_929_900n - BigInt(CHARGE)) / 10n).toString(),
    });
  });
});

// Last in the file: the live ticker's rate is set again at the end.
describe('a live batch without any rate', () => {
  it('holds a live batch while the ticker has no rate at all, and pays it at the rate an operator enters', async () => {
    at('2027-10-04T10:00:00.000Z'); // a Monday
    const chain = chainControl(t.liveChain);
    await chain.setRate('0.0290', t.clock.now().toISOString());
    const merchant = await liveFundedMerchant(t);
    await paidCharge(t, merchant, 'live', CHARGE);

    at('2027-10-05T03:00:30.000Z');
    await chain.setRate(null);
    const services = t.gateway.services.settlementBatches;
    const cutoff = new Date('2027-10-05T03:00:00.000Z');
    // (Earlier tests' sandbox owners with credits since the last cutoff are paid out by the same run.)
    expect(await services.runDay(cutoff)).toMatchObject({ held: 1 });
    const [, held] = await batchesOf(merchant);
    expect(held).toMatchObject({ business_date: '2027-10-05', status: 'held', payout_id: null });
    expect(held?.hold_reason).toBe('rate_unavailable:missing');
    expect(await payoutsOf(merchant, 'live')).toEqual([]);

    // The operators' rate backs the ticker: the held batch is paid at it, once.
    const entered = await t.gateway.services.payouts.enterRate(
      'live',
      { rate: '0.0288', reason: 'ticker without a quote' },
      { actor: 'staff:test' },
    );
    expect(entered.ok).toBe(true);
    expect(await services.runDay(cutoff)).toMatchObject({ paidOut: 1, held: 0, failed: 0 });
    expect(await services.runDay(cutoff)).toMatchObject({ paidOut: 0, held: 0 });
    const [, paid] = await batchesOf(merchant);
    expect(paid).toMatchObject({ status: 'paid_out', rate: '0.0288', rate_source: 'operator:staff:test' });
    expect(await payoutsOf(merchant, 'live')).toHaveLength(1);
    await chain.setRate('0.0290', t.clock.now().toISOString());
  });
});

describe('owners side by side', () => {
  it('settles owners concurrently (SETTLEMENT_CONCURRENCY lanes), three runs at once: one batch and payout each, one rate', async () => {
    at('2027-11-01T10:00:00.000Z'); // a Monday
    const merchants: Merchant[] = [];
    for (let i = 0; i < 9; i += 1) {
      const merchant = await sandboxMerchant(t, { wallet: i % 3 !== 2 }); // every third has no wallet: carried
      await paidCharge(t, merchant, 'sandbox', CHARGE);
      merchants.push(merchant);
    }
    at('2027-11-02T03:00:30.000Z');
    const services = t.gateway.services.settlementBatches;
    const cutoff = new Date('2027-11-02T03:00:00.000Z');
    // The lanes of three runs of the same date meet on the same owners: each owner's locks decide.
    const reports = await Promise.all([0, 1, 2].map(() => services.runDay(cutoff)));
    for (const report of reports) expect(report).toMatchObject({ failed: 0, held: 0 });
    expect(reports.reduce((total, report) => total + report.paidOut, 0)).toBe(6);
    expect(reports.reduce((total, report) => total + report.carried, 0)).toBe(3);
    // The six plain owners (a default wallet, nothing held back) went through the set-based chunks
    // (chunk.ts), not the per-owner fallback, and no chunk failed.
    expect(reports.reduce((total, report) => total + report.chunked, 0)).toBe(6);
    for (const report of reports) expect(report.chunksFailed).toBe(0);

    const rates = new Set<string>();
    for (const [i, merchant] of merchants.entries()) {
      const batches = await batchesOf(merchant);
      expect(batches, `merchant ${i}`).toHaveLength(1);
      const [batch] = batches;
      const payouts = await payoutsOf(merchant);
      if (i % 3 === 2) {
        expect(batch).toMatchObject({
          status: 'carried',
          carry_reason: 'no_default_wallet',
          payout_id: null,
        });
        expect(payouts).toEqual([]);
        expect(await balance(merchant)).toMatchObject({ pending: '0', available: NET.toString() });
      } else {
        expect(batch).toMatchObject({ status: 'paid_out', net: NET.toString(), statement_seq: 1 });
        expect(payouts).toHaveLength(1);
        expect(payouts[0]).toMatchObject({ id: batch?.payout_id, amount: NET.toString() });
        expect(await balance(merchant)).toMatchObject({ pending: '0', inTransit: NET.toString() });
        rates.add(`${batch?.rate}@${batch?.rate_at?.toISOString()}`);
      }
    }
    // Each run quotes once per environment; the batches of the date share the rate of the run that paid them.
    expect(rates.size).toBeLessThanOrEqual(3);
  });
});

describe('an open batch of an earlier business date', () => {
  it('is taken up by the next business day: paid out for a quiet owner, carried when the new batch paid everything', async () => {
    const chain = chainControl(t.sandboxChain);
    const services = t.gateway.services.settlementBatches;
    at('2027-12-02T10:00:00.000Z'); // a Thursday
    const quiet = await sandboxMerchant(t, { wallet: true }); // no credits after Thursday
    const busy = await sandboxMerchant(t, { wallet: true }); // new credits on Saturday
    const crashed = await sandboxMerchant(t, { wallet: true }); // released on Friday, then the worker died
    for (const merchant of [quiet, busy, crashed]) await paidCharge(t, merchant, 'sandbox', CHARGE);

    // Friday: the rate is an hour old all day (a ticker outage); the period is run again, still held.
    const stale = async () =>
      chain.setRate('0.0285', new Date(t.clock.now().getTime() - 3_600_000).toISOString());
    at('2027-12-03T03:00:00.000Z');
    expect(
      await t.gateway.services.settlement.release(
        { organizationId: crashed.organizationId, environment: 'sandbox' },
        { cutoff: new Date('2027-12-03T03:00:00.000Z'), businessDate: '2027-12-03' },
      ),
    ).toMatchObject({ released: true, batch: { status: 'released' } });
    for (const time of ['2027-12-03T03:00:30.000Z', '2027-12-03T22:00:00.000Z']) {
      at(time);
      await stale();
      await expect(daily.run()).rejects.toThrow(/3 batches held/);
    }
    for (const merchant of [quiet, busy, crashed])
      expect((await batchesOf(merchant)).map((batch) => batch.status)).toEqual(['held']);

    // Saturday: the rate is back, and its period is not a business day: nothing runs.
    at('2027-12-04T03:00:30.000Z');
    await chain.setRate('0.0285', t.clock.now().toISOString());
    await daily.run();
    expect((await batchesOf(quiet)).map((batch) => batch.status)).toEqual(['held']);
    at('2027-12-04T12:00:00.000Z');
    await paidCharge(t, busy, 'sandbox', CHARGE);

    // Monday: three runs of the date at once meet on the owners' locks, then the job's own run.
    at('2027-12-06T03:00:30.000Z');
    await chain.setRate('0.0285', t.clock.now().toISOString());
    const cutoff = new Date('2027-12-06T03:00:00.000Z');
    const reports = await Promise.all([0, 1, 2].map(() => services.runDay(cutoff)));
    for (const report of reports)
      expect(report).toMatchObject({ held: 0, frozen: 0, failed: 0, chunksFailed: 0 });
    const sum = (field: 'paidOut' | 'carried') => reports.reduce((total, report) => total + report[field], 0);
    // Busy's batch of Monday, quiet's and crashed's batches of Friday; busy's batch of Friday carried.
    expect(sum('paidOut')).toBe(3);
    expect(sum('carried')).toBe(1);
    await daily.run();
    expect(await services.runDay(cutoff)).toMatchObject({ paidOut: 0, carried: 0, held: 0 });

    // The quiet owner (and the one whose worker died): Friday's batch paid out once, at Monday's rate.
    for (const merchant of [quiet, crashed]) {
      const [friday, ...more] = await batchesOf(merchant);
      expect(more).toEqual([]);
      expect(friday).toMatchObject({
        business_date: '2027-12-03',
        status: 'paid_out',
        hold_reason: null,
        rate: '0.0285',
        statement_seq: 1,
      });
      const payouts = await payoutsOf(merchant);
      expect(payouts).toHaveLength(1);
      expect(payouts[0]).toMatchObject({ id: friday?.payout_id, amount: NET.toString(), automatic: true });
      expect(await balance(merchant)).toMatchObject({
        pending: '0',
        available: '0',
        inTransit: NET.toString(),
      });
    }

    // The busy owner: Monday's batch paid everything available, Friday's then found nothing and is carried.
    const [friday, monday] = await batchesOf(busy);
    expect(monday).toMatchObject({ business_date: '2027-12-06', status: 'paid_out', statement_seq: 1 });
    expect(friday).toMatchObject({
      business_date: '2027-12-03',
      status: 'carried',
      carry_reason: 'nothing_available',
      hold_reason: null,
      payout_id: null,
      statement_seq: 2,
    });
    const payouts = await payoutsOf(busy);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ id: monday?.payout_id, amount: (2n * NET).toString() });
    expect(await balance(busy)).toMatchObject({ available: '0', inTransit: (2n * NET).toString() });
    expect(
      (await services.verifyStatements({ organizationId: busy.organizationId, environment: 'sandbox' }))
        .valid,
    ).toBe(true);

    // Every batch ended is announced once.
    for (const merchant of [quiet, busy, crashed]) {
      const events = await db()
        .selectFrom('events')
        .select('resource_id')
        .where('organization_id', '=', merchant.organizationId)
        .where('type', '=', 'balance.settled')
        .execute();
      const ids = (await batchesOf(merchant)).map((batch) => batch.id);
      expect(events.map((event) => event.resource_id).sort()).toEqual([...ids].sort());
    }
  });
});

describe('a frozen organization', () => {
  it('has its batch held (organization_frozen), not paid out, until a run after it is unfrozen', async () => {
    const services = t.gateway.services.settlementBatches;
    const organizations = t.gateway.services.organizations;
    at('2027-12-07T10:00:00.000Z'); // a Tuesday
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    const frozen = await organizations.freeze(merchant.organizationId, 'risk review', {
      actor: 'staff:risk',
    });
    expect(frozen.ok).toBe(true);

    // Frozen is not a missing rate: the period is not run again for it, and no alert is raised.
    const chain = chainControl(t.sandboxChain);
    at('2027-12-08T03:00:30.000Z');
    await chain.setRate('0.0285', t.clock.now().toISOString());
    await daily.run();
    const cutoff = new Date('2027-12-08T03:00:00.000Z');
    expect(await services.runDay(cutoff)).toMatchObject({ frozen: 1, held: 0, paidOut: 0, failed: 0 });
    expect(await batchesOf(merchant)).toEqual([
      expect.objectContaining({
        business_date: '2027-12-08',
        status: 'held',
        hold_reason: 'organization_frozen',
        payout_id: null,
      }),
    ]);
    // (Its API answers 403 organization_frozen while it is frozen: read the table.)
    const payoutRows = () =>
      db()
        .selectFrom('payouts')
        .select('id')
        .where('organization_id', '=', merchant.organizationId)
        .execute();
    expect(await payoutRows()).toEqual([]);
    const alerts = await db()
      .selectFrom('operator_alerts')
      .select('kind')
      .where('organization_id', '=', merchant.organizationId)
      .execute();
    expect(alerts).toEqual([]);

    // Still frozen on Thursday: held again. Unfrozen, Friday's run pays it out once.
    at('2027-12-09T03:00:30.000Z');
    await daily.run();
    expect((await batchesOf(merchant)).map((batch) => batch.status)).toEqual(['held']);
    expect(await payoutRows()).toEqual([]);
    expect((await organizations.unfreeze(merchant.organizationId, { actor: 'staff:risk' })).ok).toBe(true);
    expect(await balance(merchant)).toMatchObject({
      pending: '0',
      available: NET.toString(),
      inTransit: '0',
    });
    at('2027-12-10T03:00:30.000Z');
    await chain.setRate('0.0285', t.clock.now().toISOString());
    await daily.run();
    const [batch] = await batchesOf(merchant);
    expect(batch).toMatchObject({ business_date: '2027-12-08', status: 'paid_out', hold_reason: null });
    const payouts = await payoutsOf(merchant);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ id: batch?.payout_id, amount: NET.toString(), automatic: true });
    expect(await balance(merchant)).toMatchObject({ available: '0', inTransit: NET.toString() });
  });
});

describe("the sandbox's settle-now", () => {
  const settleNow = (merchant: Merchant) =>
    merchantApi<{
      released: boolean;
      reason?: string;
      batch: { id: string; businessDate: string; status: string; payoutId: string | null } | null;
    }>(t, merchant, 'sandbox', '/v1/test-helpers/settle', {});

  it('dates every batch the day of its call, however many that day has; the daily run makes its own beside them', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    const chain = chainControl(t.sandboxChain);
    at('2028-03-07T01:00:00.000Z'); // a Tuesday
    await chain.setRate('0.0285', t.clock.now().toISOString());
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    const first = await settleNow(merchant);
    expect(first.body).toMatchObject({
      released: true,
      batch: { businessDate: '2028-03-07', status: 'paid_out' },
    });

    // The daily run of the same date releases what came after the helper's cut, as a batch of its own.
    at('2028-03-07T02:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    at('2028-03-07T03:00:30.000Z');
    await chain.setRate('0.0285', t.clock.now().toISOString());
    await t.gateway.services.settlementBatches.runDay(new Date('2028-03-07T03:00:00.000Z'));

    // Two more calls later that day, each with a new charge, and one with nothing new.
    const later: string[] = [];
    for (const time of ['2028-03-07T10:00:00.000Z', '2028-03-07T10:05:00.000Z']) {
      at(time);
      await chain.setRate('0.0285', t.clock.now().toISOString());
      await paidCharge(t, merchant, 'sandbox', CHARGE);
      const res = await settleNow(merchant);
      expect(res.body, time).toMatchObject({ released: true, batch: { businessDate: '2028-03-07' } });
      later.push(res.body.batch?.id ?? '');
    }
    expect((await settleNow(merchant)).body).toEqual({
      released: false,
      reason: 'nothing_to_release',
      batch: null,
    });

    const batches = (await batchesOf(merchant)).sort((a, b) => a.cutoff.getTime() - b.cutoff.getTime());
    expect(
      batches.map((batch) => [batch.business_date, batch.origin, batch.status, batch.item_count]),
    ).toEqual([
      ['2028-03-07', 'test_helper', 'paid_out', 1],
      ['2028-03-07', 'schedule', 'paid_out', 1],
      ['2028-03-07', 'test_helper', 'paid_out', 1],
      ['2028-03-07', 'test_helper', 'paid_out', 1],
    ]);
    expect(batches.map((batch) => batch.id)).toEqual([first.body.batch?.id, expect.any(String), ...later]);
    expect(await payoutsOf(merchant)).toHaveLength(4);
    expect(await balance(merchant)).toMatchObject({ pending: '0', available: '0' });
  });

  it('pays out, at its next call, a batch an earlier call released but whose process died before the payout', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    at('2028-03-08T10:00:00.000Z');
    await chainControl(t.sandboxChain).setRate('0.0285', t.clock.now().toISOString());
    await paidCharge(t, merchant, 'sandbox', CHARGE);
    // The release of a settle-now call committed, then its process was killed.
    const owner = { organizationId: merchant.organizationId, environment: 'sandbox' as const };
    const cut = await t.gateway.services.settlement.releaseNow(owner);
    expect(cut).toMatchObject({ released: true, batch: { businessDate: '2028-03-08', status: 'released' } });
    expect(await payoutsOf(merchant)).toEqual([]);

    const again = await settleNow(merchant);
    expect(again.body).toMatchObject({
      released: true,
      batch: { id: cut.released ? cut.batch.id : '', status: 'paid_out', payoutId: expect.any(String) },
    });
    const payouts = await payoutsOf(merchant);
    expect(payouts).toMatchObject([
      { id: again.body.batch?.payoutId, amount: NET.toString(), automatic: true },
    ]);
    expect((await settleNow(merchant)).body).toMatchObject({ released: false, reason: 'nothing_to_release' });
    expect(await payoutsOf(merchant)).toHaveLength(1);
  });

  it('leaves a released batch to its run for SETTLEMENT_RESUME_AFTER_SECONDS, then the worker pass pays it out (live)', async () => {
    at('2028-03-09T10:00:00.000Z');
    // A live batch released, its process killed before the payout phase.
    const merchant = await liveFundedMerchant(t);
    const [released] = await batchesOf(merchant);
    expect(released).toMatchObject({ status: 'released', environment: 'live' });
    const resume = backgroundJobs(t.gateway.services).find((job) => job.name === 'settlement-resume');
    if (!resume) throw new Error('no settlement-resume job');

    at('2028-03-09T10:00:30.000Z');
    await resume.run();
    expect((await batchesOf(merchant)).map((batch) => batch.status)).toEqual(['released']);

    at('2028-03-09T10:01:01.000Z');
    await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
    await resume.run();
    const [batch] = await batchesOf(merchant);
    expect(batch).toMatchObject({ id: released?.id, status: 'paid_out', payout_attempts: 1 });
    const payouts = await payoutsOf(merchant, 'live');
    expect(payouts).toMatchObject([{ id: batch?.payout_id, amount: batch?.net, automatic: true }]);
    // The next pass, and the date's run, find it done.
    await resume.run();
    expect(await payoutsOf(merchant, 'live')).toHaveLength(1);
  });
});
