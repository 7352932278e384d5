/**
 * Issue 14 item 7: the daily reconciliation of the acquirer's settlement report with the ledger, through
 * the real stack: live charges paid at the stand-in live acquirer (a sandbox acquirer program reached over
 * HTTP), its `GET /v1/settlement-reports/{date}`, and the operator API and console. A payment whose
 * notification the acquirer lost is missing in the ledger; one booked across midnight is a timing
 * difference on both dates; an unreadable report records nothing and is retried.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../src/shared/clock.js';
import { ACCOUNT_TEST_ENV } from './helpers/accounts.js';
import { acquirerControl } from './helpers/acquirer.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import {
  anonymousClient,
  createStaffUser,
  loginStaff,
  type OperatorClient,
  type StaffSession,
} from './helpers/operator.js';
import { merchantApi, paidCharge } from './helpers/payouts.js';

interface Difference {
  kind: string;
  item: string;
  providerId: string | null;
  gatewayId: string | null;
  organizationId: string | null;
  acquirerAmount: string | null;
  ledgerAmount: string | null;
  acquirerAt: string | null;
  ledgerAt: string | null;
}
interface Run {
  id: string;
  environment: string;
  reportDate: string;
  origin: string;
  status: string;
  acquirer: { payments: number; refunds: number; net: string };
  ledger: { payments: number; refunds: number; net: string };
  differenceCount: number;
  runBy: string;
  differences: Difference[];
}

let admin: StaffSession;
let support: StaffSession;
let anonymous: OperatorClient;
let merchant: Merchant;

useTestGateway(
  {
    env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' },
    clock: createManualClock(new Date('2027-03-01T10:00:00.000Z')),
  },
  async () => {
    admin = await loginStaff(t, await createStaffUser(t, 'admin'));
    support = await loginStaff(t, await createStaffUser(t, 'support'));
    anonymous = anonymousClient(t);
    merchant = await createMerchant(t);
  },
);

/** Moves the clock; the staff sessions, idle for that long, are signed in again. */
async function at(iso: string): Promise<void> {
  t.clock.set(new Date(iso));
  admin = await loginStaff(t, admin.account);
  support = await loginStaff(t, support.account);
}

const reconcile = (reportDate: string, environment = 'live') =>
  admin.post<Run>('/operator/v1/reconciliations', { environment, reportDate });

/** A live charge paid at the acquirer whose notification the acquirer drops: the gateway never hears of it. */
async function paidUnheard(amount: number) {
  const acquirer = acquirerControl(t.liveAcquirer);
  await acquirer.addFault({ operation: 'notification', action: 'drop', match: { amount: String(amount) } });
  const charge = await merchantApi<{ id: string; providerPaymentId: string }>(
    t,
    merchant,
    'live',
    '/v1/charges',
    validCharge({ amount }),
  );
  expect(charge.status, charge.text).toBe(201);
  const paid = await acquirer.authorize(charge.body.providerPaymentId);
  expect(paid.body.status).toBe('succeeded');
  return charge.body;
}

describe('a day the acquirer and the ledger agree on', () => {
  it('is matched: the same payments and refunds, the same net; support reads, admins run, audited', async () => {
    const first = await paidCharge(t, merchant, 'live', 120_000);
    await paidCharge(t, merchant, 'live', 45_050);
    const refund = await merchantApi(t, merchant, 'live', `/v1/charges/${first.id}/refunds`, {
      amount: 20_000,
    });
    expect(refund.status, refund.text).toBe(201);

    // The day is not over: its report is not final.
    const early = await reconcile('2027-03-01');
    expect([early.status, early.body.error.code, early.body.error.details]).toEqual([
      409,
      'invalid_state_transition',
      { reason: 'not_over', reportDate: '2027-03-01' },
    ]);

    await at('2027-03-02T05:00:00.000Z');
    const run = await reconcile('2027-03-01');
    expect(run.status, run.text).toBe(201);
    expect(run.body).toMatchObject({
      environment: 'live',
      reportDate: '2027-03-01',
      origin: 'operator',
      status: 'matched',
      acquirer: { payments: 2, refunds: 1, net: '145050' },
      ledger: { payments: 2, refunds: 1, net: '145050' },
      differenceCount: 0,
      differences: [],
      runBy: `staff:${admin.account.id}`,
    });
    expect((await support.get<Run>(`/operator/v1/reconciliations/${run.body.id}`)).body).toEqual(run.body);
    const listed = await support.get<{ data: Run[] }>('/operator/v1/reconciliations?environment=live');
    expect(listed.body.data.map((row) => row.id)).toContain(run.body.id);
    const audit = await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['actor', 'target_id'])
      .where('action', '=', 'reconciliation.run')
      .execute();
    expect(audit).toEqual([{ actor: `staff:${admin.account.id}`, target_id: run.body.id }]);
  });
});

describe('a day with differences', () => {
  it('lists a payment the ledger never booked and one booked across midnight, and raises it once', async () => {
    // 23:59:59 on the 2nd: paid at the acquirer, its notification lost; booked by the gateway at 00:00:02.
    await at('2027-03-02T23:59:59.000Z');
    const late = await paidUnheard(42_424);
    await at('2027-03-03T00:00:02.000Z');
    const payment = await t.gateway.services.acquirers.live?.acquirer.getPayment(late.providerPaymentId);
    if (!payment) throw new Error('no live acquirer');
    await t.gateway.services.completion.apply(late.id, payment);
    // On the 3rd: a payment the gateway never heard of, and one both sides know.
    const unheard = await paidUnheard(31_337);
    const known = await paidCharge(t, merchant, 'live', 10_000);

    await at('2027-03-04T06:00:00.000Z');
    const run = await reconcile('2027-03-03');
    expect(run.status, run.text).toBe(201);
    expect(run.body).toMatchObject({
      status: 'differences',
      acquirer: { payments: 2, refunds: 0, net: '41337' },
      ledger: { payments: 2, refunds: 0, net: '52424' },
      differenceCount: 2,
    });
    expect(run.body.differences).toEqual([
      {
        kind: 'missing_in_ledger',
        item: 'payment',
        providerId: unheard.providerPaymentId,
        gatewayId: unheard.id,
        organizationId: merchant.organizationId,
        acquirerAmount: '31337',
        ledgerAmount: null,
        acquirerAt: '2027-03-03T00:00:02.000Z',
        ledgerAt: null,
      },
      {
        kind: 'timing',
        item: 'payment',
        providerId: late.providerPaymentId,
        gatewayId: late.id,
        organizationId: merchant.organizationId,
        acquirerAmount: '42424',
        ledgerAmount: '42424',
        acquirerAt: '2027-03-02T23:59:59.000Z',
        ledgerAt: '2027-03-03T00:00:02.000Z',
      },
    ]);
    expect(run.body.differences.map((difference) => difference.gatewayId)).not.toContain(known.id);

    // The 2nd sees the same late payment from the other side: timing only, so matched.
    const before = await reconcile('2027-03-02');
    expect(before.body).toMatchObject({
      status: 'matched',
      acquirer: { payments: 1, net: '42424' },
      ledger: { payments: 0, net: '0' },
      differences: [{ kind: 'timing', gatewayId: late.id, ledgerAt: '2027-03-03T00:00:02.000Z' }],
    });

    // Raised once for the date, however often it is run.
    expect((await reconcile('2027-03-03')).body.status).toBe('differences');
    const alerts = await t.gateway.database.db
      .selectFrom('operator_alerts')
      .select(['subject_id', 'environment'])
      .where('kind', '=', 'reconciliation_differences')
      .execute();
    expect(alerts).toEqual([{ subject_id: 'live:2027-03-03', environment: 'live' }]);

    // The console shows the runs and the differences, escaped, to support too.
    const list = await support.get('/reconciliation?environment=live');
    expect(list.status).toBe(200);
    expect(list.text).toContain(run.body.id);
    const page = await support.get(`/reconciliation/${run.body.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('missing_in_ledger');
    expect(page.text).toContain(unheard.providerPaymentId);
    expect((await support.get('/reconciliation/rcn_nothing')).status).toBe(404);
  });
});

describe('the daily job', () => {
  it('reconciles the day before in each environment once, however often the period is run', async () => {
    await at('2027-03-05T04:00:00.000Z');
    const made = await t.gateway.services.reconciliation.runDay(new Date('2027-03-05T04:00:00.000Z'));
    expect(made.map((run) => [run.environment, run.reportDate, run.origin, run.runBy])).toEqual([
      ['sandbox', '2027-03-04', 'schedule', 'system:reconciliation'],
      ['live', '2027-03-04', 'schedule', 'system:reconciliation'],
    ]);
    expect(await t.gateway.services.reconciliation.runDay(new Date('2027-03-05T04:00:00.000Z'))).toEqual([]);
  });

  it('records nothing when the report cannot be read, and says so (502), so the period runs again', async () => {
    const acquirer = acquirerControl(t.liveAcquirer);
    await acquirer.addFault({ operation: 'settlement_report', action: 'error', status: 503, code: 'down' });
    try {
      const before = (
        await support.get<{ data: Run[] }>('/operator/v1/reconciliations?reportDate=2027-03-04')
      ).body.data.length;
      const refused = await reconcile('2027-03-04');
      expect([refused.status, refused.body.error.code]).toEqual([502, 'provider_unavailable']);
      await at('2027-03-06T04:00:00.000Z');
      await expect(
        t.gateway.services.reconciliation.runDay(new Date('2027-03-06T04:00:00.000Z')),
      ).rejects.toThrow(/live: acquirer_unavailable/);
      const after = await support.get<{ data: Run[] }>('/operator/v1/reconciliations?reportDate=2027-03-04');
      expect(after.body.data.length).toBe(before);
    } finally {
      await acquirer.clearFaults();
    }
  });
});

describe('who may reconcile, and bad input', () => {
  it('refuses anyone without a session and support’s runs; a bad date is 400, an unknown run 404', async () => {
    expect((await anonymous.get('/operator/v1/reconciliations')).status).toBe(401);
    expect((await anonymous.post('/operator/v1/reconciliations', {})).status).toBe(401);
    const refused = await support.post('/operator/v1/reconciliations', {
      environment: 'live',
      reportDate: '2027-03-01',
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    for (const body of [
      { environment: 'live', reportDate: '2027-02-30' },
      { environment: 'live', reportDate: 'yesterday' },
      { environment: 'mars', reportDate: '2027-03-01' },
      { environment: 'live' },
      { environment: 'live', reportDate: '2027-03-01', extra: 1 },
    ]) {
      const invalid = await admin.post('/operator/v1/reconciliations', body);
      expect([JSON.stringify(body), invalid.status, invalid.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'validation_failed',
      ]);
    }
    const unknown = await support.get('/operator/v1/reconciliations/rcn_0000000000000000000000000');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const cursor = await support.get('/operator/v1/reconciliations?cursor=forged');
    expect([cursor.status, cursor.body.error.code]).toEqual([400, 'validation_failed']);
  });
});
