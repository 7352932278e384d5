/**
 * Issue 11 item 2: a correctly signed acquirer notification is not trusted for what it says about money.
 * Its payment must match the charge (reference, amount, currency) before anything is applied, and a
 * notification that would credit money is applied only once the acquirer's own read-back of the payment
 * confirms it. Refusals are acknowledged (so the acquirer stops retrying), recorded, and raised to the
 * operator: an alert in the operator API and console, an audit entry, a log line
 * (docs/decisions/0013-notification-trust.md).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acquirerControl, type AcquirerPaymentBody, errorFault } from './helpers/acquirer.js';
import { t, useTestGateway } from './helpers/suite.js';
import { postCharge, readCharge } from './helpers/charges.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import type { AlertBody } from './helpers/bodies.js';

interface ChargeBody {
  id: string;
  status: string;
  amount: string;
  providerStatus: string;
  providerPaymentId: string;
}

let merchant: Merchant;
let admin: StaffSession;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
});

const db = () => t.gateway.database.db;
const acquirer = () => acquirerControl(t.sandboxAcquirer);
const secret = () => t.gateway.services.acquirers.sandbox.notificationSecret;

async function createCharge(): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant, { amount: 10_000 });
}

async function getCharge(id: string): Promise<ChargeBody> {
  return (await readCharge<ChargeBody>(t, merchant, id)).body;
}

/** Really paid at the acquirer, with the acquirer's own notifications of it dropped: the test sends its own. */
async function paidSilently(charge: ChargeBody): Promise<AcquirerPaymentBody> {
  await acquirer().addFault({ operation: 'notification', action: 'drop', match: { reference: charge.id } });
  const res = await acquirer().authorize(charge.providerPaymentId);
  expect(res.status, res.text).toBe(200);
  const payment = await acquirer().payment(charge.providerPaymentId);
  expect(payment.status).toBe('succeeded');
  return payment;
}

function notify(payment: Record<string, unknown>, id = `ntf_test${Math.random().toString(36).slice(2)}`) {
  const body = JSON.stringify({
    id,
    type: `payment.${String(payment.status)}`,
    createdAt: t.clock.now().toISOString(),
    payment,
    refund: null,
  });
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = createHmac('sha256', secret()).update(`${timestamp}.${body}`).digest('hex');
  return request<{ received: boolean; outcome: string } & ErrorBody>(
    `${t.urls.sandboxApi}/webhooks/v1/payments`,
    {
      rawBody: body,
      headers: {
        'acquirer-timestamp': String(timestamp),
        'acquirer-signature': signature,
        'content-type': 'application/json',
      },
    },
  );
}

async function moneyOf(chargeId: string) {
  return {
    entries: await db().selectFrom('journal_entries').selectAll().where('source_id', '=', chargeId).execute(),
    events: await db().selectFrom('events').selectAll().where('resource_id', '=', chargeId).execute(),
  };
}

async function alertsFor(chargeId: string): Promise<AlertBody[]> {
  const res = await admin.get<{ data: AlertBody[] }>('/operator/v1/alerts?open=true&limit=100');
  expect(res.status, res.text).toBe(200);
  return res.body.data.filter((alert) => alert.chargeId === chargeId);
}

async function recorded(id: string) {
  return db()
    .selectFrom('provider_notifications')
    .select(['outcome', 'charge_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

describe('a signed notification whose payment differs from the charge', () => {
  it('with another amount: acknowledged as mismatch, recorded, raised to the operator, never applied', async () => {
    const charge = await createCharge();
    // Even a payment that really succeeded is not credited at the amount a notification claims.
    const payment = await paidSilently(charge);
    const res = await notify({ ...payment, amount: '1000000' }, 'ntf_amount_mismatch');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: 'mismatch' });
    expect((await getCharge(charge.id)).status).toBe('pending');
    const money = await moneyOf(charge.id);
    expect(money.entries).toHaveLength(0);
    expect(money.events).toHaveLength(0);
    expect(await recorded('ntf_amount_mismatch')).toEqual({ outcome: 'mismatch', charge_id: charge.id });

    const [alert, ...others] = await alertsFor(charge.id);
    expect(others).toHaveLength(0);
    expect(alert).toMatchObject({
      kind: 'notification_mismatch',
      organizationId: merchant.organizationId,
      environment: 'sandbox',
      subjectId: 'sandbox:ntf_amount_mismatch',
      chargeId: charge.id,
      acknowledgedAt: null,
    });
    expect(alert?.details).toMatchObject({
      outcome: 'mismatch',
      differences: ['amount'],
      expected: { amount: '10000', currency: 'TRY', reference: charge.id },
      reported: { amount: '1000000', status: 'succeeded' },
    });
    const audit = await admin.get<{ data: Array<{ action: string; actor: string }> }>(
      `/operator/v1/audit-log?limit=100&targetId=${charge.id}`,
    );
    expect(audit.body.data.map((entry) => [entry.action, entry.actor])).toContainEqual([
      'alert.notification_mismatch',
      'system',
    ]);
    expect(
      t.logs.some((line) => line.includes('operator alert') && line.includes('ntf_amount_mismatch')),
    ).toBe(true);

    // The acquirer retrying it changes nothing and raises nothing new.
    expect((await notify({ ...payment, amount: '1000000' }, 'ntf_amount_mismatch')).body.outcome).toBe(
      'duplicate',
    );
    expect(await alertsFor(charge.id)).toHaveLength(1);

    // The true notification still applies, once, at the charge's amount.
    expect((await notify(payment)).body.outcome).toBe('applied');
    expect((await getCharge(charge.id)).status).toBe('succeeded');
    const [entry] = (await moneyOf(charge.id)).entries;
    const postings = await db()
      .selectFrom('ledger_postings')
      .select(['account', 'amount'])
      .where('entry_id', '=', entry?.id ?? '0')
      .where('account', '=', 'acquirer_clearing')
      .execute();
    expect(postings).toEqual([{ account: 'acquirer_clearing', amount: '10000' }]);
  });

  it('with another currency, another reference, or an amount in another shape: refused the same way', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ ...payment, currency: 'USD' }, ['currency']],
      [{ ...payment, reference: 'ch_someone_else' }, ['reference']],
      [{ ...payment, amount: '10000', currency: 'EUR', reference: 'ch_x' }, ['reference', 'currency']],
    ];
    for (const [forged, differences] of cases) {
      const res = await notify(forged);
      expect(res.status, res.text).toBe(200);
      expect(res.body.outcome, JSON.stringify(forged)).toBe('mismatch');
      expect(
        (await alertsFor(charge.id)).some(
          (a) => JSON.stringify(a.details.differences) === JSON.stringify(differences),
        ),
      ).toBe(true);
    }
    // Not a decimal string of minor units: not a notification at all.
    for (const amount of [10000, '10000.00', '010000', '-10000']) {
      const res = await notify({ ...payment, amount });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await getCharge(charge.id)).status).toBe('pending');
    expect((await moneyOf(charge.id)).entries).toHaveLength(0);
  });
});

describe('a notification that would credit money is confirmed by a read-back', () => {
  it('a signed success the acquirer does not confirm is unconfirmed: no money moves, the operator is told', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    expect(payment.status).toBe('awaiting_payment');
    const res = await notify({ ...payment, status: 'succeeded' }, 'ntf_unconfirmed');
    expect(res.status, res.text).toBe(200);
    expect(res.body.outcome).toBe('unconfirmed');
    const after = await getCharge(charge.id);
    expect([after.status, after.providerStatus]).toEqual(['pending', 'awaiting_payment']);
    expect((await moneyOf(charge.id)).entries).toHaveLength(0);
    expect(await recorded('ntf_unconfirmed')).toEqual({ outcome: 'unconfirmed', charge_id: charge.id });
    const [alert] = await alertsFor(charge.id);
    expect(alert?.details).toMatchObject({
      outcome: 'unconfirmed',
      reported: { status: 'succeeded' },
      readBack: { status: 'awaiting_payment', amount: '10000' },
    });
    const reads = await acquirer().calls('get_payment');
    expect(reads.length).toBeGreaterThan(0);
  });

  it('when the acquirer cannot be asked: 502 provider_unavailable, nothing recorded; the retry is confirmed', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    await acquirer().addFault(
      errorFault('get_payment', 503, 'maintenance', { match: { reference: charge.id }, times: 1000 }),
    );
    try {
      const res = await notify(payment, 'ntf_read_back_down');
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('provider_unavailable');
      expect(await recorded('ntf_read_back_down')).toBeUndefined();
      expect((await getCharge(charge.id)).status).toBe('pending');
    } finally {
      await acquirer().clearFaults();
    }
    const retry = await notify(payment, 'ntf_read_back_down');
    expect(retry.body.outcome).toBe('applied');
    expect((await getCharge(charge.id)).status).toBe('succeeded');
    expect((await moneyOf(charge.id)).entries).toHaveLength(1);
    expect(await alertsFor(charge.id)).toHaveLength(0);
  });

  it('when the acquirer answers the read-back "not now" (429) on every attempt: the same, never refused', async () => {
    const charge = await createCharge();
    const payment = await paidSilently(charge);
    await acquirer().addFault(
      errorFault('get_payment', 429, 'rate_limited', { match: { reference: charge.id }, times: 1000 }),
    );
    try {
      const res = await notify(payment, 'ntf_read_back_throttled');
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('provider_unavailable');
      expect(await recorded('ntf_read_back_throttled')).toBeUndefined();
      expect(await alertsFor(charge.id)).toHaveLength(0);
    } finally {
      await acquirer().clearFaults();
    }
    const retry = await notify(payment, 'ntf_read_back_throttled');
    expect(retry.body.outcome).toBe('applied');
    expect((await getCharge(charge.id)).status).toBe('succeeded');
  });

  it('a notification that moves no money (a decline) is applied without a read-back', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    const before = (await acquirer().calls('get_payment')).length;
    const res = await notify({
      ...payment,
      status: 'requires_action',
    });
    expect(res.body.outcome).toBe('applied');
    expect((await acquirer().calls('get_payment')).length).toBe(before);
  });
});

describe('the operator sees and acknowledges refused notifications', () => {
  it('lists the alert on the console page and lets an admin acknowledge it', async () => {
    const charge = await createCharge();
    const payment = await acquirer().payment(charge.providerPaymentId);
    expect((await notify({ ...payment, amount: '1' })).body.outcome).toBe('mismatch');
    const page = await request(`${t.urls.operator}/alerts`, { headers: { cookie: admin.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(charge.id);
    expect(page.text).toContain('notification_mismatch');
    const [alert] = await alertsFor(charge.id);
    const ack = await admin.post<AlertBody>(`/operator/v1/alerts/${alert?.id}/acknowledge`);
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body.acknowledgedAt).not.toBeNull();
    expect(await alertsFor(charge.id)).toHaveLength(0);
    const support = await loginStaff(t, await createStaffUser(t, 'support'));
    expect((await support.post(`/operator/v1/alerts/${alert?.id}/acknowledge`)).status).toBe(403);
    expect((await support.get('/operator/v1/alerts')).status).toBe(200);
  });
});
