import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, HOUR } from '../src/shared/clock.js';
import { TEST_CARDS, type TestCardName } from './cards.js';
import { readDisputeTimingEnv } from './env.js';
import type { NotificationView } from './notifier.js';
import { verifyNotificationSignature } from './signature.js';
import {
  createPayment,
  NOTIFICATION_SECRET,
  paidWith,
  raiseDispute,
  receivedAbout,
  startReceiver,
  startTestAcquirer,
  untilReceived,
  waitFor,
  type ApiResponse,
  type DisputeBody,
  type ErrorBody,
  type ReceivedRequest,
  type Receiver,
  type TestAcquirer,
} from './test-support.js';

const FAST = { initialDelayMs: 30, maxDelayMs: 120, giveUpAfterMs: 10_000, attemptTimeoutMs: 250 };
const clock = createManualClock(new Date('2026-11-23T10:05:00.000Z'));
let receiver: Receiver;
let t: TestAcquirer;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestAcquirer({
    clock,
    defaultNotificationUrl: receiver.url,
    notificationRetry: FAST,
    disputeDelayMs: 10,
    disputeDecisionMs: 30,
    disputeDeadlineCheckMs: 20,
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
afterEach(async () => {
  await t.api.request('DELETE', '/_control/faults');
});

const typesOf = (requests: ReceivedRequest[]) => requests.map((request) => request.body.type);

function expectError(response: ApiResponse, status: number, code: string, paymentStatus: string | null) {
  expect(response.status, response.text).toBe(status);
  expect((response.body as ErrorBody).error).toMatchObject({ code, status: paymentStatus });
}

/** Pays with a dispute test card and waits for what the issuer raises. */
async function raisedBy(card: TestCardName, count: number) {
  const payment = await paidWith(t.api, TEST_CARDS[card].number);
  const received = await untilReceived(receiver, payment.id, count);
  const dispute = received.find((request) => request.body.dispute)?.body.dispute;
  if (!dispute) throw new Error('no dispute notification');
  return { payment, dispute, received };
}

const getDispute = async (id: string) => (await t.api.request<DisputeBody>('GET', `/v1/disputes/${id}`)).body;

const submit = (id: string, text: string) =>
  t.api.request<DisputeBody>('POST', `/v1/disputes/${id}/evidence`, { body: { text } });

describe('the dispute test cards', () => {
  const cases: [TestCardName, Partial<DisputeBody>, string[]][] = [
    [
      'disputeFraudulent',
      { kind: 'dispute', reason: 'fraudulent', reasonCode: '10.4', network: 'visa', fundsWithdrawn: true },
      ['dispute.created', 'dispute.funds_withdrawn'],
    ],
    [
      'disputeProductNotReceived',
      { kind: 'dispute', reason: 'product_not_received', reasonCode: '13.1', network: 'visa' },
      ['dispute.created', 'dispute.funds_withdrawn'],
    ],
    [
      'disputeInquiry',
      { kind: 'inquiry', status: 'needs_response', stage: null, fundsWithdrawn: false, amountWithdrawn: '0' },
      ['dispute.created'],
    ],
    [
      'earlyFraudWarning',
      {
        kind: 'early_fraud_warning',
        status: 'open',
        evidenceDueBy: null,
        refundBy: null,
        fundsWithdrawn: false,
      },
      ['fraud_warning.created'],
    ],
    [
      'preDisputeAlert',
      {
        kind: 'pre_dispute_alert',
        status: 'open',
        refundBy: new Date(clock.now().getTime() + 72 * HOUR).toISOString(),
        fundsWithdrawn: false,
      },
      ['dispute_alert.created'],
    ],
    [
      'disputeMastercard',
      { kind: 'dispute', reason: 'fraudulent', reasonCode: '4837', network: 'mastercard' },
      ['dispute.created', 'dispute.funds_withdrawn'],
    ],
    [
      'disputeTroy',
      { kind: 'dispute', reason: 'fraudulent', reasonCode: '1101', network: 'troy' },
      ['dispute.created', 'dispute.funds_withdrawn'],
    ],
  ];

  it.each(cases)('%s pays, then raises its case as signed notifications', async (card, expected, types) => {
    const { payment, dispute, received } = await raisedBy(card, types.length + 1);
    expect(typesOf(received)).toEqual(['payment.succeeded', ...types]);
    for (const request of received.slice(1)) {
      const timestamp = String(request.headers['acquirer-timestamp']);
      const signature = String(request.headers['acquirer-signature']);
      expect(verifyNotificationSignature(NOTIFICATION_SECRET, timestamp, request.rawBody, signature)).toBe(
        true,
      );
      expect(Object.keys(request.body)).toEqual(['id', 'type', 'createdAt', 'payment', 'refund', 'dispute']);
      expect(request.body.refund).toBeNull();
      expect(request.body.payment).toEqual({ ...payment, attempt: undefined });
    }
    expect(dispute).toMatchObject({
      paymentId: payment.id,
      reference: payment.reference,
      amount: '12550',
      ...expected,
    });
    expect(await getDispute(dispute.id)).toEqual(received.at(-1)?.body.dispute);
    const listed = await t.api.request<{ data: DisputeBody[] }>('GET', `/v1/payments/${payment.id}/disputes`);
    expect(listed.body.data).toEqual([received.at(-1)?.body.dispute]);
  });

  it('a dispute as documented, and its notifications in the control list', async () => {
    const { payment, dispute } = await raisedBy('disputeFraudulent', 3);
    expect(dispute).toEqual({
      id: expect.stringMatching(/^dsp_[0-9a-z]{26}$/),
      kind: 'dispute',
      paymentId: payment.id,
      reference: payment.reference,
      amount: '12550',
      currency: 'TRY',
      reason: 'fraudulent',
      reasonCode: '10.4',
      network: 'visa',
      status: 'needs_response',
      stage: 'chargeback',
      evidenceDueBy: '2026-11-30T10:05:00.000Z',
      refundBy: null,
      fundsWithdrawn: true,
      amountWithdrawn: '12550',
      amountReinstated: '0',
      movements: [
        {
          id: expect.stringMatching(/^dmv_[0-9a-z]{26}$/),
          type: 'funds_withdrawn',
          amount: '12550',
          createdAt: clock.now().toISOString(),
        },
      ],
      evidence: [],
      alertId: null,
      escalatedAt: null,
      closedBy: null,
      closedAt: null,
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    const records = await t.api.request<{ data: NotificationView[] }>(
      'GET',
      `/_control/notifications?paymentId=${payment.id}`,
    );
    expect(records.body.data.map((record) => [record.type, record.disputeId])).toEqual([
      ['payment.succeeded', null],
      ['dispute.created', dispute.id],
      ['dispute.funds_withdrawn', dispute.id],
    ]);
  });
});

describe('evidence and acceptance', () => {
  it('winning evidence wins: under review, then closed as won with the funds reinstated', async () => {
    const { payment, dispute } = await raisedBy('disputeFraudulent', 3);
    const text = 'IPTV access log: the customer watched 41 hours. winning_evidence';
    const answer = await submit(dispute.id, text);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'under_review',
      evidence: [{ stage: 'chargeback', text, submittedAt: clock.now().toISOString() }],
    });
    const received = await untilReceived(receiver, payment.id, 6);
    expect(typesOf(received).slice(3)).toEqual([
      'dispute.updated',
      'dispute.closed',
      'dispute.funds_reinstated',
    ]);
    expect(await getDispute(dispute.id)).toMatchObject({
      status: 'won',
      closedBy: 'decision',
      fundsWithdrawn: false,
      amountWithdrawn: '12550',
      amountReinstated: '12550',
      movements: [{ type: 'funds_withdrawn' }, { type: 'funds_reinstated', amount: '12550' }],
    });
    expectError(
      await submit(dispute.id, 'more winning_evidence'),
      409,
      'evidence_already_submitted',
      'succeeded',
    );
  });

  it('losing evidence loses, and so does evidence without either word; nothing is reinstated', async () => {
    for (const text of ['losing_evidence', 'We shipped it, honest.']) {
      const { payment, dispute } = await raisedBy('disputeProductNotReceived', 3);
      expect((await submit(dispute.id, text)).status).toBe(200);
      const received = await untilReceived(receiver, payment.id, 5);
      expect(typesOf(received).slice(3)).toEqual(['dispute.updated', 'dispute.closed']);
      expect(received[4]?.body.dispute).toMatchObject({ status: 'lost', fundsWithdrawn: true });
    }
  });

  it('accept closes the dispute as lost; accepting again answers it unchanged', async () => {
    const { payment, dispute } = await raisedBy('disputeMastercard', 3);
    const accepted = await t.api.request<DisputeBody>('POST', `/v1/disputes/${dispute.id}/accept`);
    expect(accepted.body).toMatchObject({ status: 'lost', closedBy: 'acceptance', fundsWithdrawn: true });
    const again = await t.api.request<DisputeBody>('POST', `/v1/disputes/${dispute.id}/accept`, { body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(accepted.body);
    expectError(await submit(dispute.id, 'winning_evidence'), 409, 'invalid_state', 'succeeded');
    const received = await untilReceived(receiver, payment.id, 4);
    expect(typesOf(received).slice(3)).toEqual(['dispute.closed']);
  });

  it('an inquiry: losing evidence escalates it to a dispute that withdraws the funds; other evidence closes it', async () => {
    const { payment, dispute } = await raisedBy('disputeInquiry', 2);
    expect((await submit(dispute.id, 'losing_evidence')).body.status).toBe('under_review');
    const received = await untilReceived(receiver, payment.id, 5);
    expect(typesOf(received).slice(2)).toEqual([
      'dispute.updated',
      'dispute.updated',
      'dispute.funds_withdrawn',
    ]);
    expect(await getDispute(dispute.id)).toMatchObject({
      kind: 'dispute',
      stage: 'chargeback',
      status: 'needs_response',
      fundsWithdrawn: true,
      escalatedAt: clock.now().toISOString(),
    });
    // The dispute takes evidence of its own.
    expect((await submit(dispute.id, 'winning_evidence')).status).toBe(200);

    const other = await raisedBy('disputeInquiry', 2);
    await submit(other.dispute.id, 'The order confirmation and the delivery photo.');
    const closed = await untilReceived(receiver, other.payment.id, 4);
    expect(closed[3]?.body).toMatchObject({
      type: 'dispute.closed',
      dispute: { kind: 'inquiry', status: 'closed', closedBy: 'decision', fundsWithdrawn: false },
    });
  });
});

describe('pre-dispute alerts', () => {
  it('a refund of the alert amount before its deadline resolves it; a smaller one does not', async () => {
    const { payment, dispute } = await raisedBy('preDisputeAlert', 2);
    const refund = (amount: string) =>
      t.api.request('POST', `/v1/payments/${payment.id}/refunds`, {
        headers: { 'idempotency-key': `${payment.id}-${amount}` },
        body: { amount },
      });
    expect((await refund('5000')).status).toBe(201);
    expect((await getDispute(dispute.id)).status).toBe('open');
    expect((await refund('7550')).status).toBe(201);
    const received = await untilReceived(receiver, payment.id, 5);
    expect(typesOf(received).slice(2)).toEqual([
      'refund.succeeded',
      'refund.succeeded',
      'dispute_alert.resolved',
    ]);
    expect(received[4]?.body.payment.status).toBe('refunded');
    expect(await getDispute(dispute.id)).toMatchObject({ status: 'resolved', closedBy: 'refund' });
  });
});

describe('the control endpoint', () => {
  it('takes a lost dispute to pre-arbitration, where winning evidence reinstates the funds', async () => {
    const { payment, dispute } = await raisedBy('disputeFraudulent', 3);
    await submit(dispute.id, 'losing_evidence');
    await untilReceived(receiver, payment.id, 5);
    const dueBy = '2026-12-05T00:00:00.000Z';
    const reopened = await t.api.request<DisputeBody>(
      'POST',
      `/_control/disputes/${dispute.id}/pre-arbitration`,
      {
        body: { dueBy },
      },
    );
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({
      stage: 'pre_arbitration',
      status: 'needs_response',
      evidenceDueBy: dueBy,
      closedBy: null,
      fundsWithdrawn: true,
    });
    expect((await submit(dispute.id, 'winning_evidence')).body.evidence.map((e) => e.stage)).toEqual([
      'chargeback',
      'pre_arbitration',
    ]);
    const received = await untilReceived(receiver, payment.id, 9);
    expect(typesOf(received).slice(5)).toEqual([
      'dispute.updated',
      'dispute.updated',
      'dispute.closed',
      'dispute.funds_reinstated',
    ]);
    expect(await getDispute(dispute.id)).toMatchObject({ status: 'won', amountReinstated: '12550' });
    const twice = await t.api.request('POST', `/_control/disputes/${dispute.id}/pre-arbitration`);
    expectError(twice, 409, 'invalid_state', 'succeeded');
  });

  it('takes a won dispute to pre-arbitration: its funds are withdrawn again', async () => {
    const { payment, dispute } = await raisedBy('disputeTroy', 3);
    await submit(dispute.id, 'winning_evidence');
    await untilReceived(receiver, payment.id, 6);
    const reopened = await t.api.request<DisputeBody>(
      'POST',
      `/_control/disputes/${dispute.id}/pre-arbitration`,
    );
    expect(reopened.body).toMatchObject({
      fundsWithdrawn: true,
      amountWithdrawn: '25100',
      amountReinstated: '12550',
    });
    const received = await untilReceived(receiver, payment.id, 8);
    expect(typesOf(received).slice(6)).toEqual(['dispute.updated', 'dispute.funds_withdrawn']);
  });

  it('raises any kind on a succeeded payment, a second dispute included, never more than the payment', async () => {
    const payment = await paidWith(t.api, TEST_CARDS.visa.number);
    const first = await raiseDispute(t.api, { paymentId: payment.id, kind: 'dispute', amount: '5000' });
    const second = await raiseDispute(t.api, {
      paymentId: payment.id,
      kind: 'dispute',
      reason: 'duplicate',
      amount: '7550',
    });
    expect(second).toMatchObject({ reason: 'duplicate', reasonCode: '12.6.1', amount: '7550' });
    const warning = await raiseDispute(t.api, { paymentId: payment.id, kind: 'early_fraud_warning' });
    expect(warning).toMatchObject({ kind: 'early_fraud_warning', reason: 'fraudulent', amount: '12550' });
    const third = await t.api.request('POST', '/_control/disputes', {
      body: { paymentId: payment.id, kind: 'dispute', amount: '1' },
    });
    expectError(third, 400, 'dispute_exceeds_payment', 'succeeded');
    const refund = await t.api.request('POST', `/v1/payments/${payment.id}/refunds`, {
      headers: { 'idempotency-key': `${payment.id}-r` },
      body: { amount: '100' },
    });
    expectError(refund, 409, 'payment_disputed', 'succeeded');
    const listed = await t.api.request<{ data: DisputeBody[] }>('GET', `/v1/payments/${payment.id}/disputes`);
    expect(listed.body.data.map((d) => d.id)).toEqual([first.id, second.id, warning.id]);
    const received = await untilReceived(receiver, payment.id, 6);
    expect(typesOf(received)).toEqual([
      'payment.succeeded',
      'dispute.created',
      'dispute.funds_withdrawn',
      'dispute.created',
      'dispute.funds_withdrawn',
      'fraud_warning.created',
    ]);
  });

  it('escalates an inquiry; refuses what cannot be disputed', async () => {
    const payment = await paidWith(t.api, TEST_CARDS.visa.number);
    const inquiry = await raiseDispute(t.api, { paymentId: payment.id, kind: 'inquiry', reason: 'general' });
    const escalated = await t.api.request<DisputeBody>('POST', `/_control/disputes/${inquiry.id}/escalate`);
    expect(escalated.body).toMatchObject({ kind: 'dispute', reasonCode: '13.7', fundsWithdrawn: true });
    expectError(
      await t.api.request('POST', `/_control/disputes/${inquiry.id}/escalate`),
      409,
      'invalid_state',
      'succeeded',
    );

    const unpaid = await createPayment(t.api);
    const transfer = await createPayment(t.api, { method: 'bank_transfer' });
    await t.api.request('POST', `/v1/payments/${transfer.id}/simulate-transfer`);
    const raise = (body: Record<string, unknown>) => t.api.request('POST', '/_control/disputes', { body });
    expectError(
      await raise({ paymentId: unpaid.id, kind: 'dispute' }),
      409,
      'invalid_state',
      'awaiting_payment',
    );
    expectError(await raise({ paymentId: transfer.id, kind: 'dispute' }), 409, 'invalid_state', 'succeeded');
    expectError(await raise({ paymentId: 'pay_nope', kind: 'dispute' }), 404, 'payment_not_found', null);
    expectError(await raise({ paymentId: payment.id, kind: 'chargeback' }), 400, 'invalid_request', null);
    expectError(
      await raise({ paymentId: payment.id, kind: 'dispute', reason: 'x' }),
      400,
      'invalid_request',
      null,
    );
    expectError(
      await raise({ paymentId: payment.id, kind: 'inquiry', dueBy: 'soon' }),
      400,
      'invalid_request',
      null,
    );
    const past = { paymentId: payment.id, kind: 'inquiry', dueBy: '2026-11-01T00:00:00Z' };
    expectError(await raise(past), 400, 'invalid_request', null);
    expectError(
      await raise({ paymentId: payment.id, kind: 'dispute', extra: 1 }),
      400,
      'invalid_request',
      null,
    );
  });
});

describe('errors of the dispute API', () => {
  it('answers in the envelope: not found, wrong state, bad bodies, no key', async () => {
    expectError(await t.api.request('GET', '/v1/disputes/dsp_nope'), 404, 'dispute_not_found', null);
    expectError(await submit('dsp_nope', 'x'), 404, 'dispute_not_found', null);
    expectError(await t.api.request('GET', '/v1/payments/pay_nope/disputes'), 404, 'payment_not_found', null);
    expectError(
      await t.api.request('GET', '/v1/disputes/dsp_x', { apiKey: 'wrong' }),
      401,
      'authentication_failed',
      null,
    );

    const payment = await paidWith(t.api, TEST_CARDS.visa.number);
    const warning = await raiseDispute(t.api, { paymentId: payment.id, kind: 'early_fraud_warning' });
    const inquiry = await raiseDispute(t.api, { paymentId: payment.id, kind: 'inquiry' });
    expectError(await submit(warning.id, 'winning_evidence'), 409, 'invalid_state', 'succeeded');
    expectError(
      await t.api.request('POST', `/v1/disputes/${warning.id}/accept`),
      409,
      'invalid_state',
      'succeeded',
    );
    expectError(
      await t.api.request('POST', `/v1/disputes/${inquiry.id}/accept`),
      409,
      'invalid_state',
      'succeeded',
    );
    for (const body of [
      {},
      { text: '' },
      { text: 7 },
      { text: 'x', files: [] },
      { text: 'x'.repeat(20_001) },
    ]) {
      expectError(
        await t.api.request('POST', `/v1/disputes/${inquiry.id}/evidence`, { body }),
        400,
        'invalid_request',
        'succeeded',
      );
    }
    const accept = await t.api.request('POST', `/v1/disputes/${inquiry.id}/accept`, { body: { now: true } });
    expectError(accept, 400, 'invalid_request', 'succeeded');
  });

  it('dispute calls go through fault rules and the call log; dispute notifications through drop rules', async () => {
    const payment = await paidWith(t.api, TEST_CARDS.visa.number);
    await untilReceived(receiver, payment.id, 1);
    await t.api.request('POST', '/_control/faults', {
      body: { operation: 'notification', action: 'drop', match: { reference: payment.reference } },
    });
    const dispute = await raiseDispute(t.api, { paymentId: payment.id, kind: 'dispute' });
    await t.api.request('POST', '/_control/faults', {
      body: { operation: 'get_dispute', action: 'error', status: 503, code: 'down', times: 1 },
    });
    expectError(await t.api.request('GET', `/v1/disputes/${dispute.id}`), 503, 'down', 'succeeded');
    expect((await t.api.request('GET', `/v1/disputes/${dispute.id}`)).status).toBe(200);
    const calls = await t.api.request<{ data: { paymentId: string; status: number }[] }>(
      'GET',
      `/_control/calls?operation=get_dispute&paymentId=${payment.id}`,
    );
    expect(calls.body.data.map((call) => call.status)).toEqual([503, 200]);
    const statuses = await waitFor(async () => {
      const records = await t.api.request<{ data: NotificationView[] }>(
        'GET',
        `/_control/notifications?paymentId=${payment.id}`,
      );
      const list = records.body.data.map((record) => record.status);
      return list.includes('pending') ? undefined : list;
    });
    expect(statuses).toEqual(['acknowledged', 'dropped', 'dropped']);
    expect(receivedAbout(receiver, payment.id)).toHaveLength(1);
  });
});

describe('settings', () => {
  it('reads the dispute delays from the environment', () => {
    expect(readDisputeTimingEnv({})).toEqual({});
    expect(
      readDisputeTimingEnv({
        SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '250',
        SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '0',
      }),
    ).toEqual({ disputeDelayMs: 250, disputeDecisionMs: 0 });
    expect(() => readDisputeTimingEnv({ SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '-1' })).toThrow(
      'SANDBOX_ACQUIRER_DISPUTE_DELAY_MS',
    );
  });

  it('refuses a dispute delay that is not a whole number of milliseconds', async () => {
    await expect(startTestAcquirer({ disputeDeadlineCheckMs: 0 })).rejects.toThrow('disputeDeadlineCheckMs');
    await expect(startTestAcquirer({ disputeDelayMs: 1.5 })).rejects.toThrow('disputeDelayMs');
  });
});
