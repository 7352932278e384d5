/**
 * Issue 37 items 2 and 3: what the sandbox acquirer raises after a payment reaches the gateway by its
 * signed notifications, is read back and applied once (docs/decisions/0076-disputes.md): the dispute, the
 * ledger's entries of its money, its events, and the refunds it forbids.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl } from './helpers/acquirer.js';
import { apiRequest } from './helpers/client.js';
import { request } from './helpers/http.js';
import { payByCard, tryBalanceOf } from './helpers/charges.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { anonymousClient, createStaffUser, loginStaff } from './helpers/operator.js';
import { eventually } from './helpers/process.js';
import { t, useTestGateway } from './helpers/suite.js';
import type { BalanceRow } from './helpers/bodies.js';

useTestGateway({
  env: { SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '100', SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '100' },
});

interface ChargeBody {
  id: string;
  providerPaymentId: string;
}

const db = () => t.gateway.database.db;
const acquirer = () => {
  const sandbox = t.gateway.services.acquirers.sandbox.acquirer;
  return sandbox;
};

/** 100.00 TRY paid with `number`: the default card fee is 450, the net 9550. */
async function paidWith(merchant: Merchant, number: string): Promise<ChargeBody> {
  const res = await apiRequest<ChargeBody>(t.urls, '/v1/charges', {
    body: validCharge({ amount: 10_000 }),
    key: merchant.keys.sandbox.secret,
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Dispute Test', { number });
  return res.body;
}

async function disputeOf(chargeId: string, status?: string) {
  let row: Awaited<ReturnType<typeof readDispute>>;
  await eventually(
    async () => {
      row = await readDispute(chargeId);
      return row !== undefined && (status === undefined || row.status === status);
    },
    15_000,
    `a dispute of ${chargeId}${status ? ` ${status}` : ''}`,
  );
  return row!;
}

const readDispute = (chargeId: string) =>
  db().selectFrom('disputes').selectAll().where('charge_id', '=', chargeId).executeTakeFirst();

const eventTypesOf = async (resourceId: string) =>
  (
    await db()
      .selectFrom('events')
      .select('type')
      .where('resource_id', '=', resourceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.type);

const entriesOf = async (chargeId: string) =>
  (
    await db()
      .selectFrom('journal_entries')
      .select(['kind', 'source_id'])
      .where('charge_id', '=', chargeId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.kind);

const refund = (merchant: Merchant, chargeId: string, amount?: number) =>
  apiRequest<{ id: string; status: string; error?: { code: string; details?: { refundable?: string } } }>(
    t.urls,
    `/v1/charges/${chargeId}/refunds`,
    { body: amount === undefined ? {} : { amount }, key: merchant.keys.sandbox.secret },
  );

describe('a chargeback', () => {
  it('is applied from the read-back: the amount and the fee leave pending, once, with its events', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(charge.id);
    await eventually(
      async () => BigInt((await readDispute(charge.id))!.amount_withdrawn) > 0n,
      15_000,
      'the funds withdrawn',
    );
    const row = (await readDispute(charge.id))!;
    expect(row).toMatchObject({
      id: dispute.id,
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      status: 'needs_response',
      stage: 'chargeback',
      reason: 'fraudulent',
      reason_code: '10.4',
      network: 'visa',
      amount: '10000',
      amount_withdrawn: '10000',
      credit_processed: false,
    });
    expect(row.id).toMatch(/^dp_/);
    expect(row.evidence_due_by).not.toBeNull();
    // 9550 credited, 10000 withdrawn, the 250.00 TRY dispute fee: 25450 owed.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ pending: '0', debt: '25450' });
    expect(await entriesOf(charge.id)).toEqual([
      'charge_succeeded',
      'dispute_funds_withdrawn',
      'dispute_fee',
    ]);
    expect(await eventTypesOf(row.id)).toEqual(['dispute.created', 'dispute.funds_withdrawn']);

    // What the chargeback holds cannot be refunded as well.
    const refused = await refund(merchant, charge.id, 100);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'charge_disputed', details: { refundable: '0' } });

    // Winning evidence: the issuer decides, the amount comes back (the fee does not, by default).
    await acquirer().submitDisputeEvidence(row.provider_dispute_id, 'winning_evidence: delivered, signed');
    const won = await disputeOf(charge.id, 'won');
    expect(won).toMatchObject({ amount_reinstated: '10000', closed_by: 'decision' });
    await eventually(
      async () => (await eventTypesOf(row.id)).includes('dispute.funds_reinstated'),
      15_000,
      'reinstated',
    );
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ pending: '0', debt: '15450' });
    const types = await eventTypesOf(row.id);
    expect(types.filter((type) => type === 'dispute.closed')).toHaveLength(1);
    expect(types.filter((type) => type === 'dispute.funds_withdrawn')).toHaveLength(1);
    expect(await entriesOf(charge.id)).toEqual([
      'charge_succeeded',
      'dispute_funds_withdrawn',
      'dispute_fee',
      'dispute_funds_reinstated',
    ]);
    const again = await refund(merchant, charge.id, 100);
    expect(again.status, again.text).toBe(201);
  });

  it('lost by losing evidence keeps the funds withdrawn', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.disputeMastercard.number);
    const row = await disputeOf(charge.id);
    expect(row).toMatchObject({ network: 'mastercard', reason_code: '4837' });
    await eventually(
      async () => BigInt((await readDispute(charge.id))!.amount_withdrawn) > 0n,
      15_000,
      'withdrawn',
    );
    await acquirer().submitDisputeEvidence(row.provider_dispute_id, 'losing_evidence');
    const lost = await disputeOf(charge.id, 'lost');
    expect(lost).toMatchObject({ amount_withdrawn: '10000', amount_reinstated: '0' });
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ debt: '25450' });
  });
});

describe('an inquiry, an early fraud warning and a pre-dispute alert', () => {
  it('an inquiry withdraws nothing and does not block refunds', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.disputeInquiry.number);
    const row = await disputeOf(charge.id);
    expect(row).toMatchObject({ status: 'warning_needs_response', stage: 'inquiry', amount_withdrawn: '0' });
    expect(await entriesOf(charge.id)).toEqual(['charge_succeeded']);
    expect(await eventTypesOf(row.id)).toEqual(['dispute.created']);
    const made = await refund(merchant, charge.id, 1000);
    expect(made.status, made.text).toBe(201);
  });

  it('an early fraud warning is recorded once, with its event', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    let warning: { id: string } | undefined;
    await eventually(
      async () => {
        warning = await db()
          .selectFrom('fraud_warnings')
          .select('id')
          .where('charge_id', '=', charge.id)
          .executeTakeFirst();
        return warning !== undefined;
      },
      15_000,
      'a fraud warning',
    );
    expect(warning!.id).toMatch(/^efw_/);
    expect(await eventTypesOf(warning!.id)).toEqual(['fraud_warning.created']);
    const made = await refund(merchant, charge.id);
    expect(made.status, made.text).toBe(201);
  });

  it('a pre-dispute alert is resolved by a refund in time', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    const readAlert = () =>
      db().selectFrom('dispute_alerts').selectAll().where('charge_id', '=', charge.id).executeTakeFirst();
    await eventually(async () => (await readAlert()) !== undefined, 15_000, 'an alert');
    expect(await readAlert()).toMatchObject({ status: 'open', amount: '10000' });
    const made = await refund(merchant, charge.id);
    expect(made.status, made.text).toBe(201);
    await eventually(async () => (await readAlert())?.status === 'resolved', 15_000, 'the alert resolved');
    const alert = (await readAlert())!;
    // Two notifications, two transactions of one instant of the test's clock: their order is not the ids'.
    expect((await eventTypesOf(alert.id)).sort()).toEqual([
      'dispute_alert.created',
      'dispute_alert.resolved',
    ]);
    expect(await readDispute(charge.id)).toBeUndefined();
  });
});

describe('a settlement batch after a chargeback', () => {
  const settleNow = (merchant: Merchant) =>
    apiRequest<{ released: boolean; reason?: string; batch: { id: string } | null }>(
      t.urls,
      '/v1/test-helpers/settle',
      { body: {}, key: merchant.keys.sandbox.secret },
    );

  it('nets the dispute entries with the credits: nothing is released around a debt, then the items name them', async () => {
    const merchant = await createMerchant(t);
    await paidWith(merchant, TEST_CARDS.visa.number);
    const disputed = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    await disputeOf(disputed.id);
    await eventually(
      async () => BigInt((await readDispute(disputed.id))!.amount_withdrawn) > 0n,
      15_000,
      'withdrawn',
    );
    // 2 x 9550 credited, 10000 and the 25000 fee withdrawn: 15900 owed, and nothing to release.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ debt: '15900', available: '0' });
    expect((await settleNow(merchant)).body).toMatchObject({ released: false, reason: 'net_not_positive' });
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ debt: '15900', available: '0' });

    // Two more charges cover the debt: the batch releases 4 x 9550 - 35000, its items naming the dispute's.
    for (let index = 0; index < 2; index++) await paidWith(merchant, TEST_CARDS.visa.number);
    const released = await settleNow(merchant);
    expect(released.body, released.text).toMatchObject({ released: true });
    const items = await db()
      .selectFrom('settlement_items')
      .select(['type', 'source_id', 'net'])
      .where('batch_id', '=', released.body.batch!.id)
      .execute();
    expect(
      items
        .filter((item) => item.type === 'dispute')
        .map((item) => item.net)
        .sort(),
    ).toEqual(['-10000', '-25000']);
    expect(items.filter((item) => item.type === 'charge')).toHaveLength(4);
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({
      pending: '0',
      debt: '0',
      available: '3200',
    });
  });
});

describe('a debt the credits do not cover', () => {
  const settleNow = (merchant: Merchant) =>
    apiRequest<{ released: boolean; reason?: string }>(t.urls, '/v1/test-helpers/settle', {
      body: {},
      key: merchant.keys.sandbox.secret,
    });

  it('is taken from the available balance at the next batch; what is left raises the operator alert once', async () => {
    const merchant = await createMerchant(t);
    await paidWith(merchant, TEST_CARDS.visa.number);
    expect((await settleNow(merchant)).body).toMatchObject({ released: true });
    // No wallet: the batch is carried, its 9550 stay available.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ available: '9550', pending: '0' });
    const disputed = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    await disputeOf(disputed.id);
    await eventually(
      async () => BigInt((await readDispute(disputed.id))!.amount_withdrawn) > 0n,
      15_000,
      'withdrawn',
    );
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ available: '9550', debt: '25450' });

    for (let run = 0; run < 2; run++) {
      expect((await settleNow(merchant)).body).toMatchObject({ released: false, reason: 'net_not_positive' });
      expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ available: '0', debt: '15900' });
    }
    const alerts = await db()
      .selectFrom('operator_alerts')
      .select(['kind', 'details'])
      .where('organization_id', '=', merchant.organizationId)
      .where('kind', '=', 'dispute_debt_unrecoverable')
      .execute();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.details).toMatchObject({ debt: '25450', recovered: '9550', left: '15900' });

    // New credits then cover the rest; the batch that releases them lists the recovery as an item.
    for (let index = 0; index < 2; index++) await paidWith(merchant, TEST_CARDS.visa.number);
    expect((await settleNow(merchant)).body).toMatchObject({ released: true });
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ available: '3200', debt: '0' });
    const recovery = await db()
      .selectFrom('settlement_items')
      .select(['net'])
      .where('organization_id', '=', merchant.organizationId)
      .where('type', '=', 'recovery')
      .execute();
    expect(recovery).toEqual([{ net: '9550' }]);
  });
});

describe('a debt beyond the available balance', () => {
  type ReserveBalance = BalanceRow & { reserve: string };
  const settleNow = (merchant: Merchant) =>
    apiRequest<{ released: boolean; reason?: string }>(t.urls, '/v1/test-helpers/settle', {
      body: {},
      key: merchant.keys.sandbox.secret,
    });
  const setReserve = async (merchant: Merchant, days: number) =>
    expect(
      await t.gateway.services.settlementBatches.setReserve(
        merchant.organizationId,
        { reserveBps: 5000, days },
        { actor: 'staff:stf_risk' },
      ),
    ).toMatchObject({ ok: true });
  const batchesOf = (merchant: Merchant) =>
    db()
      .selectFrom('settlement_batches')
      .select(['id', 'reserve_held', 'reserve_release_date', 'reserve_released'])
      .where('organization_id', '=', merchant.organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  it('is taken from the held reserves, the earliest release date first, and a reserve releases what is left', async () => {
    const merchant = await createMerchant(t);
    // Batch A: two charges (net 19100), half held for 30 days. Batch B: one charge, half held for 10.
    await setReserve(merchant, 30);
    for (let index = 0; index < 2; index++) await paidWith(merchant, TEST_CARDS.visa.number);
    expect((await settleNow(merchant)).body).toMatchObject({ released: true });
    await setReserve(merchant, 10);
    await paidWith(merchant, TEST_CARDS.visa.number);
    expect((await settleNow(merchant)).body).toMatchObject({ released: true });
    const held = await batchesOf(merchant);
    const a = held.find((batch) => batch.reserve_held === '9550');
    const b = held.find((batch) => batch.reserve_held === '4775');
    expect(held).toHaveLength(2);
    expect(b!.reserve_release_date! < a!.reserve_release_date!).toBe(true);
    expect(await tryBalanceOf<ReserveBalance>(t, merchant)).toMatchObject({
      available: '14325',
      reserve: '14325',
    });

    const disputed = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    await eventually(
      async () => BigInt((await readDispute(disputed.id))?.amount_withdrawn ?? 0) > 0n,
      15_000,
      'withdrawn',
    );
    expect(await tryBalanceOf<ReserveBalance>(t, merchant)).toMatchObject({ debt: '25450' });

    // 14325 from available, then B's 4775, then 6350 of A's 9550; nothing left for the operator.
    for (let run = 0; run < 2; run++) {
      expect((await settleNow(merchant)).body).toMatchObject({ released: false, reason: 'net_not_positive' });
      expect(await tryBalanceOf<ReserveBalance>(t, merchant)).toMatchObject({
        available: '0',
        reserve: '3200',
        pending: '0',
        debt: '0',
      });
    }
    const recoveries = await db()
      .selectFrom('settlement_reserve_recoveries')
      .select(['batch_id', 'amount'])
      .where('organization_id', '=', merchant.organizationId)
      .orderBy('amount')
      .execute();
    expect(recoveries).toEqual([
      { batch_id: b!.id, amount: '4775' },
      { batch_id: a!.id, amount: '6350' },
    ]);
    const entries = await db()
      .selectFrom('journal_entries as e')
      .innerJoin('ledger_postings as p', 'p.entry_id', 'e.id')
      .select(['e.source_id', 'p.account', 'p.amount'])
      .where('e.kind', '=', 'debt_recovered')
      .where('p.organization_id', '=', merchant.organizationId)
      .where('p.amount', '>', '0')
      .execute();
    expect(entries.map((entry) => [entry.account, entry.amount]).sort()).toEqual([
      ['merchant_available', '14325'],
      ['merchant_reserve', '4775'],
      ['merchant_reserve', '6350'],
    ]);
    expect(
      await db()
        .selectFrom('operator_alerts')
        .select('id')
        .where('organization_id', '=', merchant.organizationId)
        .where('kind', '=', 'dispute_debt_unrecoverable')
        .execute(),
    ).toEqual([]);

    // The day both reserves are due: B gave everything, A releases its 3200; the recoveries net the debt.
    const due = new Date(Date.parse(`${a!.reserve_release_date!}T00:00:00Z`) + 86_400_000);
    const released = await t.gateway.services.settlement.release(
      { organizationId: merchant.organizationId, environment: 'sandbox' },
      { cutoff: new Date(), businessDate: due.toISOString().slice(0, 10), origin: 'schedule' },
    );
    expect(released).toMatchObject({ released: true, batch: { net: '0' } });
    const reserveBatch = (await batchesOf(merchant)).find((batch) => batch.reserve_held === '0');
    expect(reserveBatch).toMatchObject({ reserve_released: '3200' });
    expect(
      await db()
        .selectFrom('settlement_reserve_releases')
        .select(['batch_id', 'amount'])
        .where('released_in', '=', reserveBatch!.id)
        .execute(),
    ).toEqual([{ batch_id: a!.id, amount: '3200' }]);
    expect(await tryBalanceOf<ReserveBalance>(t, merchant)).toMatchObject({
      available: '3200',
      reserve: '0',
      debt: '0',
    });
  });
});

describe('notifications out of order, replayed, and a second dispute', () => {
  const control = () => acquirerControl(t.sandboxAcquirer);
  const controlPost = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await request<T>(`${t.sandboxAcquirer.url}${path}`, {
      body,
      headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` },
    });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };
  /** The acquirer's notifications of a payment, oldest first, as it made them (dropped ones included). */
  const notificationsOf = async (paymentId: string) =>
    (
      await request<{ data: Array<{ id: string; type: string; disputeId: string | null; body: unknown }> }>(
        `${t.sandboxAcquirer.url}/_control/notifications?paymentId=${paymentId}`,
        { headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` } },
      )
    ).body.data;
  /** Sends the acquirer's notification to the gateway as the acquirer would, signed now. */
  const deliver = async (body: unknown) => {
    const raw = JSON.stringify(body);
    const timestamp = String(Math.floor(t.clock.now().getTime() / 1000));
    const signature = createHmac('sha256', t.gateway.services.acquirers.sandbox.notificationSecret)
      .update(`${timestamp}.${raw}`)
      .digest('hex');
    const res = await request<{ outcome: string }>(`${t.urls.sandboxApi}/webhooks/v1/payments`, {
      rawBody: raw,
      headers: {
        'acquirer-timestamp': timestamp,
        'acquirer-signature': signature,
        'content-type': 'application/json',
      },
    });
    expect(res.status, res.text).toBe(200);
    return res.body.outcome;
  };

  it('a won dispute first heard of by its last notification is applied whole, once; the earlier ones and replays change nothing', async () => {
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.visa.number);
    // The acquirer's own notifications of this payment are lost: the test delivers them, late and out of order.
    await control().addFault({ operation: 'notification', action: 'drop', match: { reference: charge.id } });
    const raised = await controlPost<{ id: string }>('/_control/disputes', {
      paymentId: charge.providerPaymentId,
      kind: 'dispute',
      reason: 'product_not_received',
      amount: '4000',
    });
    await acquirer().submitDisputeEvidence(raised.id, 'winning_evidence');
    await eventually(
      async () => (await acquirer().getDispute(raised.id)).status === 'won',
      15_000,
      'won at the acquirer',
    );
    const notes = (await notificationsOf(charge.providerPaymentId)).filter(
      (note) => note.disputeId === raised.id,
    );
    expect(notes.map((note) => note.type)).toEqual([
      'dispute.created',
      'dispute.funds_withdrawn',
      'dispute.updated',
      'dispute.closed',
      'dispute.funds_reinstated',
    ]);

    // The last one first: the read-back says won, so the row is created won, with both movements.
    expect(await deliver(notes[4]!.body)).toBe('applied');
    const row = (await readDispute(charge.id))!;
    expect(row).toMatchObject({
      status: 'won',
      amount: '4000',
      amount_withdrawn: '4000',
      amount_reinstated: '4000',
    });
    expect((await eventTypesOf(row.id)).sort()).toEqual([
      'dispute.closed',
      'dispute.created',
      'dispute.funds_reinstated',
      'dispute.funds_withdrawn',
    ]);
    // 9550 - 4000 - 25000 + 4000: the fee stays.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({ debt: '15450' });
    // The earlier ones, and a replay: nothing more is booked or announced.
    for (const note of notes.slice(0, 4)) expect(await deliver(note.body)).toBe('stale');
    expect(await deliver(notes[4]!.body)).toBe('duplicate');
    // One transaction wrote the three dispute entries, at one instant: their order is not asserted.
    expect((await entriesOf(charge.id)).sort()).toEqual([
      'charge_succeeded',
      'dispute_fee',
      'dispute_funds_reinstated',
      'dispute_funds_withdrawn',
    ]);
    expect(await eventTypesOf(row.id)).toHaveLength(4);

    // A second dispute on the same charge is a second row; pre-arbitration of the first is a new stage.
    const second = await controlPost<{ id: string }>('/_control/disputes', {
      paymentId: charge.providerPaymentId,
      kind: 'dispute',
      amount: '3000',
    });
    await controlPost(`/_control/disputes/${raised.id}/pre-arbitration`, {});
    const later = (await notificationsOf(charge.providerPaymentId)).filter(
      (note) => note.disputeId !== null && notes.every((old) => old.id !== note.id),
    );
    for (const note of later) expect(['applied', 'stale']).toContain(await deliver(note.body));
    const rows = await db()
      .selectFrom('disputes')
      .selectAll()
      .where('charge_id', '=', charge.id)
      .orderBy('created_at')
      .execute();
    expect(rows).toHaveLength(2);
    const first = rows.find((candidate) => candidate.provider_dispute_id === raised.id)!;
    expect(first).toMatchObject({
      status: 'needs_response',
      stage: 'pre_arbitration',
      amount_withdrawn: '8000',
    });
    expect(rows.find((candidate) => candidate.provider_dispute_id === second.id)).toMatchObject({
      status: 'needs_response',
      stage: 'chargeback',
      amount_withdrawn: '3000',
    });
    // Two more fees (the second dispute's and the pre-arbitration's), 4000 and 3000 withdrawn again.
    expect(await tryBalanceOf<BalanceRow>(t, merchant)).toMatchObject({
      debt: String(15450 + 4000 + 3000 + 2 * 25000),
    });
    // A notification naming this dispute under another charge's payment: the read-back disagrees, so it
    // is recorded as a mismatch and raised to the operator, never applied to the other charge.
    const other = await paidWith(merchant, TEST_CARDS.visa.number);
    const forged = {
      ...(notes[0]!.body as Record<string, unknown>),
      id: `ntf_forged${Date.now()}`,
      payment: await acquirer().getPayment(other.providerPaymentId),
    };
    expect(await deliver(forged)).toBe('mismatch');
    expect(await readDispute(other.id)).toBeUndefined();
    const mismatch = await db()
      .selectFrom('operator_alerts')
      .select(['kind', 'charge_id'])
      .where('subject_id', '=', `sandbox:${forged.id}`)
      .executeTakeFirst();
    expect(mismatch).toMatchObject({ kind: 'notification_mismatch', charge_id: other.id });

    // 10000 - 4000 (held again) - 3000 held: 3000 can still be refunded.
    const refused = await refund(merchant, charge.id, 3001);
    expect(refused.body.error).toMatchObject({ code: 'charge_disputed', details: { refundable: '3000' } });
  });
});

describe("the day's reconciliation", () => {
  it("matches the acquirer report's dispute debits and reversals with the ledger's dispute entries", async () => {
    // Every test above booked its disputes on the test clock's day; the report of that day is over tomorrow.
    const day = t.clock.now().toISOString().slice(0, 10);
    t.clock.advance(86_400_000);
    const outcome = await t.gateway.services.reconciliation.run('sandbox', day, {
      origin: 'schedule',
      actor: 'test',
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const report = await acquirer().settlementReport(day);
    expect(report.disputeDebits?.length).toBeGreaterThan(0);
    expect(report.disputeReversals?.length).toBeGreaterThan(0);
    expect(outcome.value.differences.filter((difference) => difference.item.startsWith('dispute'))).toEqual(
      [],
    );
    expect(outcome.value.acquirer.net).toBe(outcome.value.ledger.net);
  });
});

describe("the operator's disputes queue", () => {
  it('lists open disputes across merchants, nearest deadline first, to staff only (API and console)', async () => {
    const support = await loginStaff(t, await createStaffUser(t, 'support'));
    const merchant = await createMerchant(t);
    const charge = await paidWith(merchant, TEST_CARDS.disputeProductNotReceived.number);
    const row = await disputeOf(charge.id);
    const queue = await support.get<{ data: Array<Record<string, unknown>> }>(
      `/operator/v1/disputes?organizationId=${merchant.organizationId}`,
    );
    expect(queue.status, queue.text).toBe(200);
    expect(queue.body.data).toEqual([
      expect.objectContaining({
        id: row.id,
        organizationId: merchant.organizationId,
        chargeId: charge.id,
        reason: 'product_not_received',
        reasonCode: '13.1',
        status: 'needs_response',
      }),
    ]);
    const all = await support.get<{ data: Array<{ evidenceDueBy: string | null }> }>('/operator/v1/disputes');
    const dues = all.body.data.map((item) => item.evidenceDueBy ?? '9999');
    expect(dues).toEqual([...dues].sort());
    expect((await support.get('/operator/v1/disputes?status=nope')).status).toBe(400);
    expect((await anonymousClient(t).get('/operator/v1/disputes')).status).toBe(401);

    const page = await support.get<string>(`/disputes?organizationId=${merchant.organizationId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-dispute-id="${row.id}"`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
