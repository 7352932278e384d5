import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, DAY } from '../src/shared/clock.js';
import { TEST_CARDS } from './cards.js';
import {
  paidWith,
  raiseDispute,
  receivedAbout,
  startReceiver,
  startTestAcquirer,
  untilReceived,
  waitFor,
  type DisputeBody,
  type ErrorBody,
  type Receiver,
  type TestAcquirer,
} from './test-support.js';

const FAST = { initialDelayMs: 30, maxDelayMs: 120, giveUpAfterMs: 10_000, attemptTimeoutMs: 250 };
const TIMINGS = { disputeDelayMs: 10, disputeDecisionMs: 30, disputeDeadlineCheckMs: 20 };
const clock = createManualClock(new Date('2026-12-01T09:00:00.000Z'));
const directory = mkdtempSync(join(tmpdir(), 'sandbox-acquirer-disputes-'));
let receiver: Receiver;
let t: TestAcquirer;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestAcquirer({
    clock,
    defaultNotificationUrl: receiver.url,
    notificationRetry: FAST,
    ...TIMINGS,
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  rmSync(directory, { recursive: true, force: true });
});

const getDispute = async (acquirer: TestAcquirer, id: string) =>
  (await acquirer.api.request<DisputeBody>('GET', `/v1/disputes/${id}`)).body;

describe('deadlines, on the acquirer clock', () => {
  it('an alert not refunded in time expires and its dispute follows; unanswered disputes are lost, inquiries escalate', async () => {
    const [alerted, disputed, inquired] = [
      await paidWith(t.api, TEST_CARDS.visa.number),
      await paidWith(t.api, TEST_CARDS.mastercard.number),
      await paidWith(t.api, TEST_CARDS.troy.number),
    ];
    const alert = await raiseDispute(t.api, {
      paymentId: alerted.id,
      kind: 'pre_dispute_alert',
      amount: '10000',
    });
    const dispute = await raiseDispute(t.api, { paymentId: disputed.id, kind: 'dispute' });
    const inquiry = await raiseDispute(t.api, { paymentId: inquired.id, kind: 'inquiry' });
    expect(alert.refundBy).toBe('2026-12-04T09:00:00.000Z');

    clock.advance(8 * DAY);
    // A refund now is too late: the alert expired first, and the dispute that followed holds the amount.
    const late = await t.api.request<ErrorBody>('POST', `/v1/payments/${alerted.id}/refunds`, {
      headers: { 'idempotency-key': `${alerted.id}-late` },
      body: { amount: '12550' },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('payment_disputed');
    const alertNotes = await untilReceived(receiver, alerted.id, 5);
    expect(alertNotes.slice(1).map((request) => request.body.type)).toEqual([
      'dispute_alert.created',
      'dispute_alert.expired',
      'dispute.created',
      'dispute.funds_withdrawn',
    ]);
    expect(await getDispute(t, alert.id)).toMatchObject({ status: 'expired', closedBy: 'deadline' });
    expect(alertNotes[3]?.body.dispute).toMatchObject({
      kind: 'dispute',
      alertId: alert.id,
      amount: '10000',
      evidenceDueBy: '2026-12-16T09:00:00.000Z',
    });

    const disputeNotes = await untilReceived(receiver, disputed.id, 4);
    expect(disputeNotes[3]?.body).toMatchObject({
      type: 'dispute.closed',
      dispute: { status: 'lost', closedBy: 'deadline' },
    });
    const tooLate = await t.api.request<ErrorBody>('POST', `/v1/disputes/${dispute.id}/evidence`, {
      body: { text: 'winning_evidence' },
    });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.error).toMatchObject({ code: 'evidence_past_due', status: 'succeeded' });

    const inquiryNotes = await untilReceived(receiver, inquired.id, 4);
    expect(inquiryNotes.slice(2).map((request) => request.body.type)).toEqual([
      'dispute.updated',
      'dispute.funds_withdrawn',
    ]);
    expect(await getDispute(t, inquiry.id)).toMatchObject({
      kind: 'dispute',
      status: 'needs_response',
      evidenceDueBy: '2026-12-16T09:00:00.000Z',
    });
  });
});

describe('the settlement report', () => {
  it('a day without disputes is the report it always was, byte for byte', async () => {
    clock.set(new Date('2026-12-20T10:00:00.000Z'));
    const payment = await paidWith(t.api, TEST_CARDS.visa.number, { amount: '20000' });
    const refund = await t.api.request<{ id: string; createdAt: string }>(
      'POST',
      `/v1/payments/${payment.id}/refunds`,
      { headers: { 'idempotency-key': `${payment.id}-r` }, body: { amount: '5000' } },
    );
    const report = await t.api.request('GET', '/v1/settlement-reports/2026-12-20');
    const at = clock.now().toISOString();
    expect(report.text).toBe(
      JSON.stringify({
        date: '2026-12-20',
        currency: 'TRY',
        payments: [{ id: payment.id, reference: payment.reference, amount: '20000', succeededAt: at }],
        refunds: [
          {
            id: refund.body.id,
            paymentId: payment.id,
            reference: payment.reference,
            amount: '5000',
            createdAt: at,
          },
        ],
        totals: { payments: '20000', refunds: '5000', net: '15000' },
      }),
    );
  });

  it('lists dispute debits and reversals as lines of their own, in the net', async () => {
    clock.set(new Date('2026-12-21T10:00:00.000Z'));
    const payment = await paidWith(t.api, TEST_CARDS.visa.number);
    const dispute = await raiseDispute(t.api, { paymentId: payment.id, kind: 'dispute', amount: '4000' });
    await t.api.request('POST', `/v1/disputes/${dispute.id}/evidence`, {
      body: { text: 'winning_evidence' },
    });
    await untilReceived(receiver, payment.id, 6);
    const won = await getDispute(t, dispute.id);
    const line = (index: number) => ({
      id: won.movements[index]?.id,
      disputeId: dispute.id,
      paymentId: payment.id,
      reference: payment.reference,
      amount: '4000',
      createdAt: clock.now().toISOString(),
    });
    const report = await t.api.request<Record<string, unknown>>('GET', '/v1/settlement-reports/2026-12-21');
    expect(Object.keys(report.body)).toEqual([
      'date',
      'currency',
      'payments',
      'refunds',
      'disputeDebits',
      'disputeReversals',
      'totals',
    ]);
    expect(report.body).toMatchObject({
      refunds: [],
      disputeDebits: [line(0)],
      disputeReversals: [line(1)],
      totals: {
        payments: '12550',
        refunds: '0',
        disputeDebits: '4000',
        disputeReversals: '4000',
        net: '12550',
      },
    });
    // The day before keeps its shape.
    const before = await t.api.request<Record<string, unknown>>('GET', '/v1/settlement-reports/2026-12-20');
    expect(Object.keys(before.body)).toEqual(['date', 'currency', 'payments', 'refunds', 'totals']);
  });
});

describe('a restart', () => {
  it('keeps disputes, and resumes a planned dispute and a pending decision', async () => {
    const journalFile = join(directory, 'acquirer.jsonl');
    const slow = { disputeDelayMs: 400, disputeDecisionMs: 400, disputeDeadlineCheckMs: 20 };
    const options = { journalFile, defaultNotificationUrl: receiver.url, notificationRetry: FAST };
    const first = await startTestAcquirer({ ...options, ...slow });
    const planned = await paidWith(first.api, TEST_CARDS.disputeProductNotReceived.number);
    const other = await paidWith(first.api, TEST_CARDS.visa.number);
    const warning = await raiseDispute(first.api, { paymentId: other.id, kind: 'early_fraud_warning' });
    const dispute = await raiseDispute(first.api, { paymentId: other.id, kind: 'dispute', amount: '100' });
    await first.api.request('POST', `/v1/disputes/${dispute.id}/evidence`, {
      body: { text: 'winning_evidence' },
    });
    const warningBefore = await getDispute(first, warning.id);
    await first.close();
    const text = readFileSync(journalFile, 'utf8');
    expect(text).toContain('"kind":"dispute"');
    expect(text).not.toContain(TEST_CARDS.disputeProductNotReceived.number);

    const second = await startTestAcquirer({ ...options, ...TIMINGS });
    try {
      expect(await getDispute(second, warning.id)).toEqual(warningBefore);
      const raised = await waitFor(async () => {
        const list = await second.api.request<{ data: DisputeBody[] }>(
          'GET',
          `/v1/payments/${planned.id}/disputes`,
        );
        return list.body.data[0];
      });
      expect(raised).toMatchObject({ kind: 'dispute', reason: 'product_not_received', reasonCode: '13.1' });
      const decided = await waitFor(async () => {
        const current = await getDispute(second, dispute.id);
        return current.status === 'won' ? current : undefined;
      });
      expect(decided).toMatchObject({ fundsWithdrawn: false, amountReinstated: '100' });
      // A notification in flight at the close is sent again by the second start: count each id once.
      const notes = await waitFor(() => {
        const byId = new Map(receivedAbout(receiver, other.id).map((request) => [request.body.id, request]));
        return byId.size >= 7 ? [...byId.values()] : undefined;
      });
      expect(notes.map((request) => request.body.type)).toEqual([
        'payment.succeeded',
        'fraud_warning.created',
        'dispute.created',
        'dispute.funds_withdrawn',
        'dispute.updated',
        'dispute.closed',
        'dispute.funds_reinstated',
      ]);
    } finally {
      await second.close();
    }
    // A third start raises the planned dispute no second time.
    const third = await startTestAcquirer({ ...options, ...TIMINGS });
    try {
      await new Promise((resolve) => setTimeout(resolve, 60));
      const list = await third.api.request<{ data: DisputeBody[] }>(
        'GET',
        `/v1/payments/${planned.id}/disputes`,
      );
      expect(list.body.data).toHaveLength(1);
    } finally {
      await third.close();
    }
  });
});
