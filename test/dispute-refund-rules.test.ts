/**
 * Issue 37 item 5: the merchant's auto-refund rules (`/v1/dispute-refund-rules`, flag `disputes`) and the
 * `dispute-auto-refund` job, through the real stack: the sandbox acquirer raises a pre-dispute alert or an
 * early fraud warning after a card payment, the rule's refund goes through the refund path, and the
 * acquirer's `dispute_alert.resolved` resolves the alert without a dispute. The dashboard's page of the
 * same rules, in both languages, behind the session's CSRF token and the role that may refund.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { expectEachRefused, expectKeyRequired, type ApiCall } from './helpers/api-checks.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { payByCard } from './helpers/charges.js';
import type { ErrorBody, HttpResult } from './helpers/http.js';
import { validCharge } from './helpers/http.js';
import { ACCOUNT_TEST_ENV, createActiveUser, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { eventually } from './helpers/process.js';
import { t, useTestGateway } from './helpers/suite.js';

useTestGateway({ env: { ...ACCOUNT_TEST_ENV, SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '100' } });

interface RuleBody {
  object: string;
  kind: string;
  enabled: boolean;
  maxAmount: string | null;
  enabledAt: string | null;
  updatedAt: string | null;
}

const db = () => t.gateway.database.db;
const job = () => t.gateway.services.disputeRefundRules;

const disputesMerchant = () => createMerchant(t, { featureFlags: ['apiKeys', 'disputes'] });

function callAs(merchant: Merchant): ApiCall {
  return (path: string, init: ApiInit = {}) =>
    apiRequest<ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init }) as Promise<
      HttpResult<ErrorBody>
    >;
}

const setRule = (merchant: Merchant, kind: string, body: unknown) =>
  apiRequest<RuleBody & ErrorBody>(t.urls, `/v1/dispute-refund-rules/${kind}`, {
    method: 'PUT',
    body,
    key: merchant.keys.sandbox.secret,
  });

/** 100.00 TRY (10,000 minor units) paid with `number`. */
async function paidWith(
  merchant: Merchant,
  number: string,
): Promise<{ id: string; providerPaymentId: string }> {
  const res = await apiRequest<{ id: string; providerPaymentId: string }>(t.urls, '/v1/charges', {
    body: validCharge({ amount: 10_000 }),
    key: merchant.keys.sandbox.secret,
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Alert Test', { number });
  return res.body;
}

const readAlert = (chargeId: string) =>
  db().selectFrom('dispute_alerts').selectAll().where('charge_id', '=', chargeId).executeTakeFirst();
const readWarning = (chargeId: string) =>
  db().selectFrom('fraud_warnings').selectAll().where('charge_id', '=', chargeId).executeTakeFirst();
const refundsOf = (chargeId: string) =>
  db().selectFrom('refunds').selectAll().where('charge_id', '=', chargeId).orderBy('created_at').execute();
const queuedOf = (id: string) =>
  db().selectFrom('dispute_auto_refunds').selectAll().where('id', '=', id).executeTakeFirst();

async function arrived<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  let row: T | undefined;
  await eventually(async () => (row = await read()) !== undefined, 15_000, what);
  return row!;
}

/** A row of the job's queue as the poll leaves it for an alert that was open then. */
async function queueByHand(merchant: Merchant, id: string, chargeId: string) {
  const now = t.clock.now();
  await db()
    .insertInto('dispute_auto_refunds')
    .values({
      id,
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      kind: 'dispute_alert',
      charge_id: chargeId,
      max_amount: null,
      outcome: null,
      refund_id: null,
      skip_reason: null,
      next_attempt_at: now,
      lease_token: null,
      parked_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

describe('the rules API', () => {
  it('answers both rules off until set, then what was set, audited', async () => {
    const merchant = await disputesMerchant();
    const api = callAs(merchant);
    const initial = await api('/v1/dispute-refund-rules');
    expect(initial.status, initial.text).toBe(200);
    expect((initial.body as unknown as { data: RuleBody[] }).data).toEqual([
      expect.objectContaining({ kind: 'dispute_alert', enabled: false, maxAmount: null, updatedAt: null }),
      expect.objectContaining({ kind: 'fraud_warning', enabled: false, maxAmount: null, updatedAt: null }),
    ]);

    const set = await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: 200_000 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      object: 'dispute_refund_rule',
      kind: 'dispute_alert',
      enabled: true,
      maxAmount: '200000',
      livemode: false,
    });
    expect(set.body.enabledAt).not.toBeNull();
    // A new limit keeps the rule's start; switching it off ends it.
    t.clock.advance(1_000);
    const raised = await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: null });
    expect(raised.body).toMatchObject({ maxAmount: null, enabledAt: set.body.enabledAt });
    const off = await setRule(merchant, 'dispute_alert', { enabled: false, maxAmount: null });
    expect(off.body).toMatchObject({ enabled: false, enabledAt: null });

    const audit = await db()
      .selectFrom('audit_log')
      .selectAll()
      .where('organization_id', '=', merchant.organizationId)
      .where('action', '=', 'dispute_refund_rule.updated')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audit).toHaveLength(3);
    expect(audit[0]).toMatchObject({
      actor: `key:${merchant.keys.sandbox.id}`,
      target_id: 'sandbox:dispute_alert',
      after: { enabled: true, maxAmount: '200000' },
    });
  });

  it('refuses bad bodies and kinds (400)', async () => {
    const merchant = await disputesMerchant();
    for (const body of [
      {},
      { enabled: true },
      { enabled: 'yes', maxAmount: null },
      { enabled: true, maxAmount: 0 },
      { enabled: true, maxAmount: -5 },
      { enabled: true, maxAmount: 1.5 },
      { enabled: true, maxAmount: '2000' },
      { enabled: true, maxAmount: null, extra: 1 },
    ]) {
      const res = await setRule(merchant, 'dispute_alert', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const kind = await setRule(merchant, 'dispute', { enabled: true, maxAmount: null });
    expect(kind.status).toBe(400);
  });

  it('refuses a missing key, a read-only key for the write, and a merchant without the flag', async () => {
    const merchant = await disputesMerchant();
    const api = callAs(merchant);
    await expectKeyRequired(t.urls, api, '/v1/dispute-refund-rules');
    const readOnly = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    expect((await api('/v1/dispute-refund-rules', { key: readOnly.secret })).status).toBe(200);
    const body = { enabled: true, maxAmount: null };
    await expectEachRefused(
      api,
      readOnly.secret,
      [['/v1/dispute-refund-rules/dispute_alert', 'PUT', body]],
      403,
      'insufficient_scope',
    );
    const off = await createMerchant(t, { featureFlags: ['apiKeys'] });
    await expectEachRefused(
      api,
      off.keys.sandbox.secret,
      [
        ['/v1/dispute-refund-rules', 'GET', undefined],
        ['/v1/dispute-refund-rules/fraud_warning', 'PUT', body],
      ],
      403,
      'forbidden',
    );
  });

  it('keeps environments and organizations apart', async () => {
    const merchant = await disputesMerchant();
    await setRule(merchant, 'fraud_warning', { enabled: true, maxAmount: null });
    const live = await apiRequest<{ data: RuleBody[] }>(t.urls, '/v1/dispute-refund-rules', {
      key: merchant.keys.live.secret,
      environment: 'live',
    });
    expect(live.status, live.text).toBe(200);
    expect(live.body.data.map((rule) => rule.enabled)).toEqual([false, false]);
    const stranger = await disputesMerchant();
    const theirs = await callAs(stranger)('/v1/dispute-refund-rules');
    expect((theirs.body as unknown as { data: RuleBody[] }).data[1]).toMatchObject({ enabled: false });
  });
});

describe('pre-dispute alerts under a rule', () => {
  it('refunds an alert within the limit: the alert resolves, records its refund, and no dispute follows', async () => {
    const merchant = await disputesMerchant();
    // "Refund every alert up to 2,000 TRY automatically."
    expect((await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: 200_000 })).status).toBe(
      200,
    );
    const charge = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    const alert = await arrived(() => readAlert(charge.id), 'an alert');
    expect(alert).toMatchObject({ status: 'open', amount: '10000' });

    await job().autoRefundBatch();
    await eventually(async () => (await readAlert(charge.id))?.status === 'resolved', 15_000, 'resolved');
    const [refund, ...more] = await refundsOf(charge.id);
    expect(more).toEqual([]);
    expect(refund).toMatchObject({ amount: '10000', status: 'succeeded', created_by_key_id: null });
    expect(await readAlert(charge.id)).toMatchObject({ refund_id: refund!.id, status: 'resolved' });
    expect(await queuedOf(alert.id)).toMatchObject({ outcome: 'refunded', refund_id: refund!.id });
    expect(
      await db().selectFrom('disputes').select('id').where('charge_id', '=', charge.id).execute(),
    ).toEqual([]);

    // The job again, as a second worker or a later poll would run it: still one refund.
    await job().autoRefundBatch();
    await job().autoRefundBatch();
    expect(await refundsOf(charge.id)).toHaveLength(1);

    // As after a crash between the refund and its record: the alert is resolved by then, and the row
    // worked again records the refund that resolved it.
    await db().deleteFrom('dispute_auto_refunds').where('id', '=', alert.id).execute();
    await db().updateTable('dispute_alerts').set({ refund_id: null }).where('id', '=', alert.id).execute();
    await queueByHand(merchant, alert.id, charge.id);
    await job().autoRefundBatch();
    await eventually(async () => (await queuedOf(alert.id))?.outcome === 'refunded', 15_000, 'recorded');
    expect(await readAlert(charge.id)).toMatchObject({ refund_id: refund!.id });
    expect(await refundsOf(charge.id)).toHaveLength(1);
  });

  it('leaves an alert above the limit, and one that arrived before the rule, to the merchant', async () => {
    const merchant = await disputesMerchant();
    await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: 5_000 });
    const above = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    const alert = await arrived(() => readAlert(above.id), 'an alert');
    await job().autoRefundBatch();
    expect(await refundsOf(above.id)).toEqual([]);
    expect(await readAlert(above.id)).toMatchObject({ status: 'open', refund_id: null });
    expect(await queuedOf(alert.id)).toBeUndefined();

    // Switched off and on again later: what arrived before is not covered, even within the limit.
    await setRule(merchant, 'dispute_alert', { enabled: false, maxAmount: null });
    const before = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    await arrived(() => readAlert(before.id), 'a second alert');
    t.clock.advance(1_000);
    await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: null });
    await job().autoRefundBatch();
    expect(await refundsOf(before.id)).toEqual([]);
    expect(await refundsOf(above.id)).toEqual([]);
  });

  it('retries while the acquirer cannot refund, with the same refund', async () => {
    const merchant = await disputesMerchant();
    await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: null });
    const control = acquirerControl(t.sandboxAcquirer);
    // Every refund call, the acquirer client's own retries included, until cleared.
    await control.addFault(errorFault('refund', 503, 'service_unavailable'));
    try {
      const charge = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
      const alert = await arrived(() => readAlert(charge.id), 'an alert');
      // The first attempt (this one, or the worker's) finds the acquirer unavailable: the refund is
      // reserved and pending, the alert's row due again after the backoff.
      await job().autoRefundBatch();
      await eventually(
        async () => (await queuedOf(alert.id))?.last_error != null,
        15_000,
        'a failed attempt',
      );
      expect(await queuedOf(alert.id)).toMatchObject({ outcome: null, attempts: 1 });
      expect((await queuedOf(alert.id))!.last_error).toMatch(/provider_unavailable/);
      expect(await refundsOf(charge.id)).toMatchObject([{ status: 'pending' }]);
      await control.clearFaults();
      t.clock.advance(60_000);
      await job().autoRefundBatch();
      await eventually(async () => (await queuedOf(alert.id))?.outcome === 'refunded', 15_000, 'refunded');
      const refunds = await refundsOf(charge.id);
      expect(refunds).toHaveLength(1);
      expect(refunds[0]).toMatchObject({ status: 'succeeded', amount: '10000' });
      await eventually(async () => (await readAlert(charge.id))?.status === 'resolved', 15_000, 'resolved');
      expect(await readAlert(charge.id)).toMatchObject({ refund_id: refunds[0]!.id });
    } finally {
      await control.clearFaults();
    }
  });
});

describe('an alert that expired', () => {
  it('is never refunded: not queued once expired, skipped when it expired after it was queued', async () => {
    const merchant = await disputesMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.preDisputeAlert.number);
    const alert = await arrived(() => readAlert(charge.id), 'an alert');
    // As `dispute_alert.expired` leaves it (the acquirer's deadline passed).
    await db()
      .updateTable('dispute_alerts')
      .set({ status: 'expired', rank: 1 })
      .where('id', '=', alert.id)
      .execute();
    await setRule(merchant, 'dispute_alert', { enabled: true, maxAmount: null });
    await job().autoRefundBatch();
    expect(await queuedOf(alert.id)).toBeUndefined();
    // A row queued while it was still open, worked after it expired.
    await queueByHand(merchant, alert.id, charge.id);
    await job().autoRefundBatch();
    await eventually(async () => (await queuedOf(alert.id))?.outcome === 'skipped', 15_000, 'skipped');
    expect(await queuedOf(alert.id)).toMatchObject({ skip_reason: 'alert_expired', refund_id: null });
    expect(await refundsOf(charge.id)).toEqual([]);
  });
});

describe('early fraud warnings under a rule', () => {
  it('refunds what remains refundable, once, even when the job runs again after losing its record', async () => {
    const merchant = await disputesMerchant();
    // "Refund every early fraud warning that is still refundable."
    await setRule(merchant, 'fraud_warning', { enabled: true, maxAmount: null });
    const charge = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    const warning = await arrived(() => readWarning(charge.id), 'a fraud warning');
    await job().autoRefundBatch();
    await eventually(async () => (await readWarning(charge.id))?.refund_id !== null, 15_000, 'refunded');
    const refunds = await refundsOf(charge.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: '10000', status: 'succeeded' });
    expect(await readWarning(charge.id)).toMatchObject({ refund_id: refunds[0]!.id });

    // As after a crash between the refund and its record: the job queues the warning again, and the
    // refund path finds the refund of the same key instead of making another.
    await db().deleteFrom('dispute_auto_refunds').where('id', '=', warning.id).execute();
    await db().updateTable('fraud_warnings').set({ refund_id: null }).where('id', '=', warning.id).execute();
    await job().autoRefundBatch();
    await eventually(async () => (await queuedOf(warning.id))?.outcome === 'refunded', 15_000, 'recorded');
    expect(await refundsOf(charge.id)).toHaveLength(1);
    expect(await readWarning(charge.id)).toMatchObject({ refund_id: refunds[0]!.id });
  });

  it('skips a warning whose charge has nothing left to refund, or is above the limit', async () => {
    const merchant = await disputesMerchant();
    const refunded = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    const warning = await arrived(() => readWarning(refunded.id), 'a fraud warning');
    const manual = await apiRequest(t.urls, `/v1/charges/${refunded.id}/refunds`, {
      body: {},
      key: merchant.keys.sandbox.secret,
    });
    expect(manual.status, manual.text).toBe(201);
    // Switched on at the instant the warning arrived (the test's clock stands still): it is covered.
    await setRule(merchant, 'fraud_warning', { enabled: true, maxAmount: 5_000 });
    await job().autoRefundBatch();
    await eventually(async () => (await queuedOf(warning.id))?.outcome === 'skipped', 15_000, 'skipped');
    expect(await queuedOf(warning.id)).toMatchObject({ skip_reason: 'above_limit', refund_id: null });
    expect(await refundsOf(refunded.id)).toHaveLength(1);

    // Refunded by hand before the rule covers it (switched on at the instant the warning arrived).
    await setRule(merchant, 'fraud_warning', { enabled: false, maxAmount: null });
    const second = await paidWith(merchant, TEST_CARDS.earlyFraudWarning.number);
    const next = await arrived(() => readWarning(second.id), 'a second fraud warning');
    expect(
      (
        await apiRequest(t.urls, `/v1/charges/${second.id}/refunds`, {
          body: {},
          key: merchant.keys.sandbox.secret,
        })
      ).status,
    ).toBe(201);
    await setRule(merchant, 'fraud_warning', { enabled: true, maxAmount: null });
    await job().autoRefundBatch();
    await eventually(async () => (await queuedOf(next.id))?.outcome === 'skipped', 15_000, 'skipped');
    expect(await queuedOf(next.id)).toMatchObject({ skip_reason: 'nothing_to_refund' });
    expect(await refundsOf(second.id)).toHaveLength(1);
  });
});

describe('the dashboard page', () => {
  const PAGE = '/dashboard/dispute-refund-rules';

  async function signedIn(merchant: Merchant, role: 'owner' | 'developer' = 'owner') {
    const user = await createActiveUser(t, { organizationId: merchant.organizationId, role });
    const client = new WebClient(t.urls.web);
    expect((await client.login(user.email, user.password)).status).toBe(303);
    return { client, userId: user.userId };
  }

  const rulesOf = async (merchant: Merchant) =>
    ((await callAs(merchant)('/v1/dispute-refund-rules')).body as unknown as { data: RuleBody[] }).data;

  it('an owner switches a rule on with a limit in TRY, audited; a bad amount is refused beside its field', async () => {
    const merchant = await disputesMerchant();
    const { client, userId } = await signedIn(merchant);
    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain(`<a href="${PAGE}?lang=en" id="auto-refunds-link">Auto-refund rules</a>`);
    const page = await client.get(`${PAGE}?lang=en`);
    expect(page.status).toBe(200);
    expect(textOf(page.text, 'dispute-alert-summary')).toBe('Off');

    const saved = await client.postForm(`${PAGE}?lang=en`, {
      _csrf: csrfIn(page.text),
      kind: 'dispute_alert',
      enabled: 'true',
      maxAmount: '2000',
    });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${PAGE}?lang=en&notice=saved`);
    expect((await rulesOf(merchant))[0]).toMatchObject({ enabled: true, maxAmount: '200000' });
    const shown = await client.get(saved.location!);
    expect(textOf(shown.text, 'notice')).toBe('Rule saved.');
    expect(textOf(shown.text, 'dispute-alert-summary')).toMatch(/^On, up to TRY 2,000.00, since 2026-11-23/);
    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('organization_id', '=', merchant.organizationId)
      .execute();
    expect(audit).toContainEqual({ actor: `user:${userId}`, action: 'dispute_refund_rule.updated' });

    const refused = await client.postForm(`${PAGE}?lang=tr`, {
      _csrf: csrfIn(shown.text),
      kind: 'fraud_warning',
      enabled: 'true',
      maxAmount: '12,345',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.text, 'fraud-warning-max-error')).toBe(
      'Sıfırdan büyük, en fazla iki ondalıklı bir TRY tutarı girin.',
    );
    expect(refused.text).toContain('<h1>Otomatik iade kuralları</h1>');
    expect((await rulesOf(merchant))[1]).toMatchObject({ enabled: false });
  });

  it('needs the CSRF token, a role that may refund, and the disputes flag', async () => {
    const merchant = await disputesMerchant();
    const { client } = await signedIn(merchant);
    for (const form of [{}, { _csrf: 'forged' }] as Record<string, string>[]) {
      const post = await client.postForm(`${PAGE}?lang=en`, {
        ...form,
        kind: 'dispute_alert',
        enabled: 'true',
      });
      expect(post.status).toBe(403);
    }
    const { client: developer } = await signedIn(merchant, 'developer');
    const page = await developer.get(`${PAGE}?lang=en`);
    expect(page.status).toBe(200);
    expect(textOf(page.text, 'dispute-alert-read-only')).toMatch(/cannot|not change/);
    const post = await developer.postForm(`${PAGE}?lang=en`, {
      _csrf: csrfIn(page.text),
      kind: 'dispute_alert',
      enabled: 'true',
    });
    expect(post.status).toBe(403);
    expect(textOf(post.text, 'not-permitted')).toMatch(/cannot change/);
    expect((await rulesOf(merchant)).map((rule) => rule.enabled)).toEqual([false, false]);

    const off = await createMerchant(t, { featureFlags: ['apiKeys'] });
    const { client: other } = await signedIn(off);
    expect((await other.get('/dashboard?lang=en')).text).not.toContain('auto-refunds-link');
    expect((await other.get(`${PAGE}?lang=en`)).status).toBe(404);
  });
});
