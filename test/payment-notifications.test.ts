/**
 * The provider notification receiver, POST /webhooks/v1/payments (spec section 4, product decision 20):
 * real notifications from the sandbox acquirer over its socket, and hand-signed ones for forgeries,
 * stale timestamps, replays, out-of-order reports and 20 concurrent copies.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl, type AcquirerPaymentBody } from './helpers/acquirer.js';
import { t, useTestGateway } from './helpers/suite.js';
import { postCharge, readCharge } from './helpers/charges.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { eventually } from './helpers/process.js';

interface ChargeBody {
  id: string;
  status: string;
  providerStatus: string;
  providerPaymentId: string;
}

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
});

const db = () => t.gateway.database.db;
const acquirer = () => acquirerControl(t.sandboxAcquirer);
const secret = () => t.gateway.services.acquirers.sandbox.notificationSecret;
const receiver = () => `${t.urls.sandboxApi}/webhooks/v1/payments`;

async function createCharge(overrides: Record<string, unknown> = {}): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant, overrides);
}

async function getCharge(id: string): Promise<ChargeBody> {
  return (await readCharge<ChargeBody>(t, merchant, id)).body;
}

/** Pays at the acquirer directly, as the checkout would, so that the acquirer notifies the gateway. */
async function payAtAcquirer(paymentId: string, number: string = TEST_CARDS.visa.number) {
  const res = await acquirer().authorize(paymentId, number);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/**
 * Pays at the acquirer with its own notifications of this charge dropped, so that the test's signed
 * notifications are the only ones and the acquirer's read-back confirms the success they report.
 */
async function paidSilently(charge: ChargeBody): Promise<AcquirerPaymentBody> {
  await acquirer().addFault({ operation: 'notification', action: 'drop', match: { reference: charge.id } });
  await payAtAcquirer(charge.providerPaymentId);
  return acquirer().payment(charge.providerPaymentId);
}

function sign(body: string, timestamp = Math.floor(t.clock.now().getTime() / 1000), key = secret()) {
  const signature = createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex');
  return {
    'acquirer-timestamp': String(timestamp),
    'acquirer-signature': signature,
    'content-type': 'application/json',
  };
}

function notify(body: string, headers: Record<string, string>) {
  return request<{ received: boolean; outcome: string } & ErrorBody>(receiver(), { rawBody: body, headers });
}

function notificationFor(
  payment: AcquirerPaymentBody,
  id = `ntf_test${Math.random().toString(36).slice(2)}`,
) {
  return JSON.stringify({
    id,
    type: `payment.${payment.status}`,
    createdAt: t.clock.now().toISOString(),
    payment,
    refund: null,
  });
}

async function ledgerEntries(chargeId: string) {
  return db().selectFrom('journal_entries').selectAll().where('source_id', '=', chargeId).execute();
}

async function events(chargeId: string) {
  return db().selectFrom('events').selectAll().where('resource_id', '=', chargeId).execute();
}

describe('notifications from the sandbox acquirer', () => {
  it('a paid card charge becomes succeeded, with providerStatus, card, ledger entry and event', async () => {
    const charge = await createCharge({ metadata: { cart: 'c-1' } });
    await payAtAcquirer(charge.providerPaymentId);
    await eventually(
      async () => (await getCharge(charge.id)).status === 'succeeded',
      10_000,
      'the notification',
    );
    const after = await getCharge(charge.id);
    expect(after.providerStatus).toBe('succeeded');
    const row = await db()
      .selectFrom('charges')
      .selectAll()
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect([row.card_brand, row.card_last4]).toEqual(['visa', '4242']);
    expect(await ledgerEntries(charge.id)).toHaveLength(1);
    const [event] = await events(charge.id);
    expect(event?.type).toBe('charge.succeeded');
    const payload = event?.payload as { eventType: string; data: { metadata: unknown }; payment: unknown };
    expect(payload.eventType).toBe('charge.succeeded');
    expect(payload.data.metadata).toEqual({ cart: 'c-1' });
    expect(payload.payment).toEqual({
      id: charge.id,
      paymentId: charge.providerPaymentId,
      merchantReference: expect.any(String),
    });
    // The acquirer saw its notification acknowledged.
    const notifications = await request<{ data: Array<{ acknowledged?: boolean; state?: string }> }>(
      `${t.sandboxAcquirer.url}/_control/notifications?paymentId=${charge.providerPaymentId}`,
      { headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` } },
    );
    expect(notifications.status).toBe(200);
  });

  it('a payment failed at its attempt limit makes the charge failed, with its reason and a charge.failed event', async () => {
    const charge = await createCharge();
    for (let attempt = 0; attempt < 3; attempt++)
      await payAtAcquirer(charge.providerPaymentId, TEST_CARDS.insufficientFunds.number);
    await eventually(
      async () => (await getCharge(charge.id)).status === 'failed',
      10_000,
      'the notification',
    );
    const row = await db()
      .selectFrom('charges')
      .selectAll()
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row.failure_code).toBe('insufficient_funds');
    expect((await events(charge.id)).map((event) => event.type)).toEqual(['charge.failed']);
    expect(await ledgerEntries(charge.id)).toHaveLength(0);
  });
});

describe('a success after a decline', () => {
  it('clears the failure of the earlier declined attempt', async () => {
    const charge = await createCharge();
    await payAtAcquirer(charge.providerPaymentId, TEST_CARDS.insufficientFunds.number);
    await payAtAcquirer(charge.providerPaymentId);
    await eventually(
      async () => (await getCharge(charge.id)).status === 'succeeded',
      10_000,
      'the notification',
    );
    const after = (await getCharge(charge.id)) as ChargeBody & { failure: unknown; card: unknown };
    expect(after.failure).toBeNull();
    expect(after.card).toEqual({ brand: 'visa', last4: '4242' });
  });
});

describe('the receiver refuses what it cannot trust', () => {
  it('refuses a forged signature, a missing one, another secret and a stale or future timestamp with 401', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const body = notificationFor({ ...payment, status: 'succeeded' });
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const forged = { ...sign(body), 'acquirer-signature': 'a'.repeat(64) };
    for (const headers of [
      forged,
      { 'content-type': 'application/json' },
      sign(body, now, 'not-the-secret'),
      sign(body, now - 301),
      sign(body, now + 301),
      { ...sign(body), 'acquirer-signature': sign(body)['acquirer-signature'].toUpperCase() },
    ]) {
      const res = await notify(body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    // A signature over other bytes (the same JSON re-serialized) does not verify either.
    const reserialized = JSON.stringify(JSON.parse(body), null, 1);
    expect((await notify(reserialized, sign(body))).status).toBe(401);
    expect((await getCharge(charge.id)).status).toBe('pending');
    // Within the tolerance it is accepted.
    expect((await notify(body, sign(body, now - 299))).status).toBe(200);
  });

  it('answers 400 for a signed body that is not a notification', async () => {
    for (const body of [
      '{"id":1}',
      'not json',
      '{"id":"ntf_x","type":"payment.succeeded","payment":{"id":"pay_x","reference":"ch_x","status":"paid"}}',
    ]) {
      const res = await notify(body, sign(body));
      expect(res.status, body).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('answers 400 for a signed payment whose card, failure or bank transfer is malformed, and records nothing', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const card = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 };
    const failed = { ...payment, status: 'failed', attempts: 3, maxAttempts: 3 };
    for (const [path, changed] of [
      ['payment.card.last4', { ...failed, card: { ...card, last4: '12345' } }],
      ['payment.card.last4', { ...failed, card: { ...card, last4: 4242 } }],
      ['payment.card.expMonth', { ...failed, card: { ...card, expMonth: 13 } }],
      ['payment.card', { ...failed, card: 'visa 4242' }],
      ['payment.failure.message', { ...failed, failure: { code: 'card_declined', message: 7 } }],
      ['payment.failure.code', { ...failed, failure: { code: 'card declined <b>', message: 'Declined' } }],
      ['payment.failure', { ...failed, failure: ['card_declined'] }],
      [
        'payment.bankTransfer.iban',
        { ...failed, bankTransfer: { accountHolder: 'A', paymentReference: 'R' } },
      ],
    ] as const) {
      const id = `ntf_malformed${Math.random().toString(36).slice(2)}`;
      const body = notificationFor(changed as unknown as AcquirerPaymentBody, id);
      const res = await notify(body, sign(body));
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues?.map((issue) => issue.path)).toContain(path);
      expect(
        await db().selectFrom('provider_notifications').select('id').where('id', '=', id).execute(),
      ).toEqual([]);
    }
    const row = await db()
      .selectFrom('charges')
      .select(['status', 'card_last4', 'failure_code'])
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', card_last4: null, failure_code: null });
  });

  it("shows the merchant the acquirer's failure message sanitised, as its 4xx answers are", async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const body = notificationFor({
      ...payment,
      status: 'failed',
      attempts: 3,
      maxAttempts: 3,
      failure: {
        code: 'card_declined',
        message: 'Declined at /srv/psp/auth/engine.js:12:7 token 0xdeadbeefcafe',
      },
    });
    const res = await notify(body, sign(body));
    expect(res.status, res.text).toBe(200);
    const view = (await getCharge(charge.id)) as ChargeBody & {
      failure: { code: string; message: string } | null;
    };
    expect(view.status).toBe('failed');
    expect(view.failure?.code).toBe('card_declined');
    expect(view.failure?.message).toContain('Declined');
    for (const leak of ['/srv/', 'engine.js', 'deadbeef']) expect(view.failure?.message).not.toContain(leak);
  });

  it('acknowledges a payment it does not know (another environment or no charge) without changing anything', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const body = notificationFor({ ...payment, id: 'pay_unknown', status: 'succeeded' });
    const res = await notify(body, sign(body));
    expect(res.status).toBe(200);
    expect(res.body.outcome).toBe('unknown_payment');
    // The live listener uses the live acquirer's secret: a sandbox-signed notification is refused there.
    const live = await request<ErrorBody>(`${t.urls.liveApi}/webhooks/v1/payments`, {
      rawBody: body,
      headers: sign(body),
    });
    expect(live.status).toBe(401);
  });
});

describe('exactly once, in order', () => {
  it('applies a replayed notification once', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    const body = notificationFor({ ...payment, status: 'succeeded' });
    const first = await notify(body, sign(body));
    const second = await notify(body, sign(body));
    expect([first.body.outcome, second.body.outcome]).toEqual(['applied', 'duplicate']);
    expect(await ledgerEntries(charge.id)).toHaveLength(1);
    expect(await events(charge.id)).toHaveLength(1);
  });

  it('20 concurrent copies of one notification make one ledger entry and one event', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    const body = notificationFor({ ...payment, status: 'succeeded' });
    const results = await Promise.all(Array.from({ length: 20 }, () => notify(body, sign(body))));
    expect(results.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(results.filter((res) => res.body.outcome === 'applied')).toHaveLength(1);
    expect(await ledgerEntries(charge.id)).toHaveLength(1);
    expect(await events(charge.id)).toHaveLength(1);
    // 20 distinct notification ids of the same success also post once.
    const copies = await Promise.all(
      Array.from({ length: 20 }, () => {
        const distinct = notificationFor({ ...payment, status: 'succeeded' });
        return notify(distinct, sign(distinct));
      }),
    );
    expect(copies.every((res) => res.status === 200)).toBe(true);
    expect(await ledgerEntries(charge.id)).toHaveLength(1);
    expect(await events(charge.id)).toHaveLength(1);
  });

  it('never moves a final state backwards: late and out-of-order reports are stale', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    const succeeded = notificationFor({ ...payment, status: 'succeeded' });
    const late = notificationFor({ ...payment, status: 'awaiting_payment' });
    const failed = notificationFor({
      ...payment,
      status: 'failed',
      failure: { code: 'card_declined', message: 'Declined' },
    });
    expect((await notify(succeeded, sign(succeeded))).body.outcome).toBe('applied');
    expect((await notify(late, sign(late))).body.outcome).toBe('stale');
    await notify(failed, sign(failed));
    const after = await getCharge(charge.id);
    expect([after.status, after.providerStatus]).toEqual(['succeeded', 'succeeded']);
    expect(await events(charge.id)).toHaveLength(1);

    // A failure reported before the requires_action it followed keeps failed.
    const other = await createCharge();
    const otherPayment = await acquirer().payment(other.providerPaymentId);
    const failedFirst = notificationFor({
      ...otherPayment,
      status: 'failed',
      failure: { code: 'stolen_card', message: 'x' },
    });
    const actionLater = notificationFor({ ...otherPayment, status: 'requires_action' });
    await notify(failedFirst, sign(failedFirst));
    expect((await notify(actionLater, sign(actionLater))).body.outcome).toBe('stale');
    expect((await getCharge(other.id)).status).toBe('failed');
  });

  it('answers quickly', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const body = notificationFor({ ...payment, status: 'succeeded' });
    const started = performance.now();
    expect((await notify(body, sign(body))).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
