/**
 * Issue 37 item 6 (docs/dispute-ratios.md): the card schemes' ratios per merchant. The acquirer's
 * disputes and fraud warnings are seeded straight into their tables (the fixture below), over charges of
 * several schemes and months; then `GET /v1/dispute-ratios` and the operator's routes are asserted to the
 * count: the Visa-style ratio with the count-once setting, the Mastercard-style ratio over the previous
 * month, the projection, six months of history, the hourly evaluation raising one alert and one e-mail
 * however often it runs, the settings' validation and audit, and the authentication cases.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DisputeStage, Environment } from '../src/db/schema.js';
import { expectKeyRequired } from './helpers/api-checks.js';
import { createActiveUser, mailsTo } from './helpers/accounts.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';
import { operatorCallers, type OperatorCallers } from './helpers/operator.js';
import { t, useTestGateway } from './helpers/suite.js';

// The test clock: 2026-11-23T10:00Z, so the month so far is 22 days and 10 hours of November's 30 days.
const db = () => t.gateway.database.db;
const uid = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

// --- The fixture: rows as the acquirer's notifications would leave them. ---

type Scheme = 'visa' | 'mastercard' | 'troy';

interface ChargeSeed {
  scheme: Scheme | null;
  at: string;
  status?: 'succeeded' | 'failed';
  method?: 'credit_card_tr' | 'credit_card_international' | 'bank_transfer';
  environment?: Environment;
}

async function seedCharge(organizationId: string, seed: ChargeSeed): Promise<string> {
  const id = uid('ch');
  const at = new Date(seed.at);
  await db()
    .insertInto('charges')
    .values({
      id,
      organization_id: organizationId,
      environment: seed.environment ?? 'sandbox',
      amount: '10000',
      currency: 'TRY',
      payment_method: seed.method ?? 'credit_card_tr',
      merchant_reference: id,
      status: seed.status ?? 'succeeded',
      creation_state: 'created',
      creation_locked_until: null,
      idempotency_key: null,
      provider: 'sandbox',
      provider_request: JSON.stringify({ reference: id }),
      provider_payment_id: uid('pay'),
      provider_status: seed.status === 'failed' ? 'failed' : 'succeeded',
      provider_error: null,
      customer_name: null,
      customer_email: null,
      customer_phone: null,
      customer_reference: null,
      customer_id_number_enc: null,
      metadata: null,
      return_url: null,
      card_brand: seed.scheme,
      card_last4: seed.scheme === null ? null : '4242',
      finalized_at: at,
      expires_at: new Date(at.getTime() + 3_600_000),
      created_at: new Date(at.getTime() - 60_000),
      updated_at: at,
    })
    .execute();
  return id;
}

/** `count` succeeded card charges of one scheme at `at`. */
async function seedSales(
  organizationId: string,
  scheme: Scheme,
  at: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await seedCharge(organizationId, { scheme, at }));
  return ids;
}

async function seedDispute(
  organizationId: string,
  chargeId: string,
  at: string,
  options: { stage?: DisputeStage; escalatedAt?: string; network?: Scheme } = {},
): Promise<void> {
  const stage = options.stage ?? 'chargeback';
  const created = new Date(at);
  await db()
    .insertInto('disputes')
    .values({
      id: uid('dp'),
      organization_id: organizationId,
      environment: 'sandbox',
      charge_id: chargeId,
      provider: 'sandbox',
      provider_dispute_id: uid('sdp'),
      amount: '10000',
      currency: 'TRY',
      reason: 'fraudulent',
      reason_code: '10.4',
      network: options.network ?? 'visa',
      status: stage === 'inquiry' ? 'warning_needs_response' : 'needs_response',
      stage,
      rank: stage === 'inquiry' ? 1 : 11,
      evidence_due_by: null,
      escalated_at: options.escalatedAt === undefined ? null : new Date(options.escalatedAt),
      provider_created_at: created,
      provider_updated_at: created,
      created_at: created,
      updated_at: created,
    })
    .execute();
}

async function seedFraudWarning(organizationId: string, chargeId: string, at: string): Promise<void> {
  const created = new Date(at);
  await db()
    .insertInto('fraud_warnings')
    .values({
      id: uid('efw'),
      organization_id: organizationId,
      environment: 'sandbox',
      charge_id: chargeId,
      provider: 'sandbox',
      provider_warning_id: uid('sfw'),
      reason: 'fraudulent',
      reason_code: '10.4',
      network: 'visa',
      refund_id: null,
      provider_created_at: created,
      created_at: created,
      updated_at: created,
    })
    .execute();
}

// --- The merchant of the figures, another one, and who calls. ---

let merchant: Merchant;
let other: Merchant;
let ownerEmail: string;
let operator: OperatorCallers;

/**
 * November so far (visa): 50 sales; chargebacks: 2 opened in November, 1 inquiry opened on 28 October and
 * escalated on 2 November (counted in November), 1 inquiry not escalated (not counted), 1 on a charge
 * whose fraud warning came in October; fraud warnings: 3, one on a charge with a November chargeback.
 * So disputes 4, warnings 3 of which 1 also disputed: counted 6 once, 7 both, over 50.
 * October (visa): 40 sales, 1 fraud warning (its charge's dispute is November's): 1/40.
 * September (visa): 30 sales, 1 chargeback, 1 fraud warning on the same charge: 1 once, 2 both.
 * Mastercard: 20 sales in October, 10 in November with 2 chargebacks: 2/20 over the previous month.
 * Troy: 10 sales in October, 5 in November, 1 chargeback. Not counted anywhere: a bank transfer, a failed
 * card charge, a card charge without a brand and the other merchant's rows.
 */
async function seedFigures(): Promise<void> {
  const org = merchant.organizationId;
  const novemberVisa = await seedSales(org, 'visa', '2026-11-05T12:00:00.000Z', 50);
  const octoberVisa = await seedSales(org, 'visa', '2026-10-10T12:00:00.000Z', 40);
  const septemberVisa = await seedSales(org, 'visa', '2026-09-15T12:00:00.000Z', 30);
  await seedSales(org, 'mastercard', '2026-10-20T12:00:00.000Z', 20);
  const novemberMastercard = await seedSales(org, 'mastercard', '2026-11-10T12:00:00.000Z', 10);
  await seedSales(org, 'troy', '2026-10-03T12:00:00.000Z', 10);
  const novemberTroy = await seedSales(org, 'troy', '2026-11-03T12:00:00.000Z', 5);
  await seedCharge(org, { scheme: null, at: '2026-11-06T00:00:00.000Z', method: 'bank_transfer' });
  await seedCharge(org, { scheme: 'visa', at: '2026-11-06T00:00:00.000Z', status: 'failed' });
  await seedCharge(org, { scheme: null, at: '2026-11-06T00:00:00.000Z' });

  const [a, b, c, d, e, f] = novemberVisa as [string, string, string, string, string, string];
  await seedDispute(org, a, '2026-11-07T00:00:00.000Z');
  await seedDispute(org, b, '2026-11-08T00:00:00.000Z');
  await seedDispute(org, c, '2026-10-28T00:00:00.000Z', {
    stage: 'chargeback',
    escalatedAt: '2026-11-02T00:00:00.000Z',
  });
  await seedDispute(org, d, '2026-11-09T00:00:00.000Z', { stage: 'inquiry' });
  await seedFraudWarning(org, a, '2026-11-06T00:00:00.000Z');
  await seedFraudWarning(org, e, '2026-11-10T00:00:00.000Z');
  await seedFraudWarning(org, f, '2026-11-11T00:00:00.000Z');
  const [october] = octoberVisa as [string];
  await seedFraudWarning(org, october, '2026-10-15T00:00:00.000Z');
  await seedDispute(org, october, '2026-11-05T00:00:00.000Z');
  const [september] = septemberVisa as [string];
  await seedDispute(org, september, '2026-09-20T00:00:00.000Z');
  await seedFraudWarning(org, september, '2026-09-21T00:00:00.000Z');
  const [m1, m2] = novemberMastercard as [string, string];
  await seedDispute(org, m1, '2026-11-12T00:00:00.000Z', { network: 'mastercard' });
  await seedDispute(org, m2, '2026-11-13T00:00:00.000Z', { network: 'mastercard', stage: 'pre_arbitration' });
  const [troy] = novemberTroy as [string];
  await seedDispute(org, troy, '2026-11-14T00:00:00.000Z', { network: 'troy' });

  const others = await seedSales(other.organizationId, 'visa', '2026-11-05T12:00:00.000Z', 100);
  await seedDispute(other.organizationId, others[0] ?? '', '2026-11-07T00:00:00.000Z');
}

useTestGateway({}, async () => {
  merchant = await createMerchant(t, { featureFlags: ['disputes'] });
  other = await createMerchant(t);
  ownerEmail = (await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' })).email;
  operator = await operatorCallers(t);
  await seedFigures();
});

interface ErrorBody {
  error: { code: string; details?: { issues?: Array<{ path: string; code: string }> } };
}
interface Level {
  level: string;
  thresholdPercent: string;
  minimumCount: number;
  crossed: boolean;
  projectedCrossed: boolean;
  proximityPercent: string;
}
interface VisaStyle {
  fraudWarnings: number;
  disputes: number;
  fraudWarningsAlsoDisputed: number;
  counted: number;
  sales: number;
  percent: string | null;
}
interface MastercardStyle {
  chargebacks: number;
  previousMonthSales: number;
  percent: string | null;
}
interface Projected {
  count: number;
  sales: number;
  percent: string | null;
}
interface SchemeRatios {
  scheme: Scheme;
  visaStyle: VisaStyle & { projected: Projected; levels: Level[] };
  mastercardStyle: MastercardStyle & { projected: Projected; levels: Level[] };
  history: Array<{ month: string; visaStyle: VisaStyle; mastercardStyle: MastercardStyle }>;
}
interface RatiosBody {
  object: 'dispute_ratios';
  month: string;
  asOf: string;
  countFraudAndDisputeOnce: boolean;
  schemes: SchemeRatios[];
}

const api = <T = RatiosBody>(path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init });

async function ratios(): Promise<RatiosBody> {
  const res = await api('/v1/dispute-ratios');
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const schemeOf = (body: RatiosBody, scheme: Scheme): SchemeRatios => {
  const found = body.schemes.find((entry) => entry.scheme === scheme);
  if (!found) throw new Error(`no ${scheme} in ${JSON.stringify(body)}`);
  return found;
};

interface LevelInput {
  scheme: Scheme;
  ratio: 'visa_style' | 'mastercard_style';
  level: string;
  thresholdPercent: string;
  minimumCount: number;
  fromMonth: string | null;
  untilMonth: string | null;
}
const level = (input: Partial<LevelInput> & Pick<LevelInput, 'level' | 'thresholdPercent'>): LevelInput => ({
  scheme: 'visa',
  ratio: 'visa_style',
  minimumCount: 0,
  fromMonth: null,
  untilMonth: null,
  ...input,
});

/** Levels under which exactly one is crossed this month: Visa's `excessive` (9.5% with 6). */
const TEST_LEVELS: LevelInput[] = [
  level({ level: 'watch', thresholdPercent: '9', minimumCount: 10 }),
  level({ level: 'excessive', thresholdPercent: '9.5', minimumCount: 6 }),
  level({
    scheme: 'mastercard',
    ratio: 'mastercard_style',
    level: 'early_warning',
    thresholdPercent: '12',
    minimumCount: 1,
  }),
];

async function putSettings(body: Record<string, unknown>) {
  return operator.admin.put<{ countFraudAndDisputeOnce: boolean; levels: unknown[] }>(
    '/operator/v1/dispute-ratio-settings',
    body,
  );
}

describe('GET /v1/dispute-ratios', () => {
  it('counts the Visa-style ratio of the month so far, a charge with both once', async () => {
    const body = await ratios();
    expect(body).toMatchObject({
      object: 'dispute_ratios',
      month: '2026-11',
      countFraudAndDisputeOnce: true,
    });
    expect(body.asOf).toBe('2026-11-23T10:00:00.000Z');
    expect(body.schemes.map((entry) => entry.scheme)).toEqual(['visa', 'mastercard', 'troy']);
    const visa = schemeOf(body, 'visa');
    expect(visa.visaStyle).toMatchObject({
      fraudWarnings: 3,
      disputes: 4,
      fraudWarningsAlsoDisputed: 1,
      counted: 6,
      sales: 50,
      percent: '12.0000',
    });
  });

  it('divides the Mastercard-style ratio by the previous month’s sales', async () => {
    const body = await ratios();
    expect(schemeOf(body, 'mastercard').mastercardStyle).toMatchObject({
      chargebacks: 2,
      previousMonthSales: 20,
      percent: '10.0000',
    });
    expect(schemeOf(body, 'mastercard').visaStyle).toMatchObject({
      counted: 2,
      sales: 10,
      percent: '20.0000',
    });
    expect(schemeOf(body, 'troy').mastercardStyle).toMatchObject({
      chargebacks: 1,
      previousMonthSales: 10,
      percent: '10.0000',
    });
    // Visa's chargebacks over October's 40 Visa sales.
    expect(schemeOf(body, 'visa').mastercardStyle).toMatchObject({
      chargebacks: 4,
      previousMonthSales: 40,
      percent: '10.0000',
    });
  });

  it('projects linearly by elapsed time to the month end', async () => {
    const visa = schemeOf(await ratios(), 'visa');
    // 538 of November's 720 hours: 6 × 720 / 538 = 8.03 -> 8; 50 × 720 / 538 = 66.9 -> 67.
    expect(visa.visaStyle.projected).toEqual({ count: 8, sales: 67, percent: '11.9403' });
    // 4 × 720 / 538 = 5.35 -> 5 chargebacks over October's 40 sales, which do not change.
    expect(visa.mastercardStyle.projected).toEqual({ count: 5, sales: 40, percent: '12.5000' });
  });

  it('has the six complete months before, oldest first', async () => {
    const visa = schemeOf(await ratios(), 'visa');
    expect(visa.history.map((month) => month.month)).toEqual([
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
    ]);
    const [may, , , august, september, october] = visa.history;
    expect(may?.visaStyle).toEqual({
      fraudWarnings: 0,
      disputes: 0,
      fraudWarningsAlsoDisputed: 0,
      counted: 0,
      sales: 0,
      percent: null,
    });
    expect(august?.mastercardStyle.percent).toBeNull();
    expect(september?.visaStyle).toMatchObject({
      fraudWarnings: 1,
      disputes: 1,
      fraudWarningsAlsoDisputed: 1,
      counted: 1,
      sales: 30,
      percent: '3.3333',
    });
    // No sales in August: September's chargeback over nothing.
    expect(september?.mastercardStyle).toEqual({ chargebacks: 1, previousMonthSales: 0, percent: null });
    // October's warning counts there; its charge's dispute came in November. The escalated inquiry opened
    // in October counts in November, when it escalated.
    expect(october?.visaStyle).toMatchObject({
      fraudWarnings: 1,
      disputes: 0,
      counted: 1,
      sales: 40,
      percent: '2.5000',
    });
    expect(october?.mastercardStyle).toEqual({ chargebacks: 0, previousMonthSales: 30, percent: '0.0000' });
  });

  it('shows the default levels of the schemes’ programmes for the month', async () => {
    const body = await ratios();
    expect(schemeOf(body, 'visa').visaStyle.levels).toEqual([
      {
        level: 'watch',
        thresholdPercent: '1.125',
        minimumCount: 1125,
        crossed: false,
        projectedCrossed: false,
        proximityPercent: '0.53',
      },
      {
        level: 'excessive',
        thresholdPercent: '1.5',
        minimumCount: 1500,
        crossed: false,
        projectedCrossed: false,
        proximityPercent: '0.40',
      },
    ]);
    expect(schemeOf(body, 'mastercard').mastercardStyle.levels.map((entry) => entry.level)).toEqual([
      'watch',
      'early_warning',
      'excessive',
      'high_excessive',
    ]);
    expect(schemeOf(body, 'mastercard').visaStyle.levels).toEqual([]);
    expect(schemeOf(body, 'troy').mastercardStyle.levels).toEqual([]);
  });
});

describe('the settings', () => {
  it('reads the defaults, with Visa’s level by month', async () => {
    const res = await operator.support.get<{ countFraudAndDisputeOnce: boolean; levels: LevelInput[] }>(
      '/operator/v1/dispute-ratio-settings',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.countFraudAndDisputeOnce).toBe(true);
    const visaExcessive = res.body.levels.filter(
      (entry) => entry.scheme === 'visa' && entry.level === 'excessive',
    );
    expect(visaExcessive).toEqual([
      level({ level: 'excessive', thresholdPercent: '2.2', minimumCount: 1500, untilMonth: '2026-03' }),
      level({ level: 'excessive', thresholdPercent: '1.5', minimumCount: 1500, fromMonth: '2026-04' }),
    ]);
    const mastercard = res.body.levels.filter((entry) => entry.scheme === 'mastercard');
    expect(mastercard.map((entry) => [entry.level, entry.thresholdPercent, entry.minimumCount])).toEqual([
      ['watch', '0.75', 75],
      ['early_warning', '1', 100],
      ['excessive', '1.5', 100],
      ['high_excessive', '3', 300],
    ]);
  });

  it('refuses what it cannot take, naming each member', async () => {
    const refused = await putSettings({
      countFraudAndDisputeOnce: true,
      reason: 'test',
      levels: [
        level({ level: 'watch', thresholdPercent: '0' }),
        level({ level: 'excessive', thresholdPercent: '101' }),
        level({ level: 'late', thresholdPercent: '1', fromMonth: '2026-05', untilMonth: '2026-04' }),
        level({ level: 'excessive', thresholdPercent: '2', ratio: 'mastercard_style' }),
      ],
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(refused.body.error.details?.issues?.map((entry) => entry.path)).toEqual([
      'levels.0.thresholdPercent',
      'levels.1.thresholdPercent',
      'levels.2.untilMonth',
      'levels.3',
    ]);
    const malformed = await putSettings({
      countFraudAndDisputeOnce: 'yes',
      reason: 'test',
      levels: [{ ...level({ level: 'watch', thresholdPercent: '1.12345' }), scheme: 'amex' }],
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('validation_failed');
    const noReason = await putSettings({ countFraudAndDisputeOnce: true, levels: [] });
    expect(noReason.status).toBe(400);
  });

  it('is an admin’s to change, audited', async () => {
    const bySupport = await operator.support.put('/operator/v1/dispute-ratio-settings', {
      countFraudAndDisputeOnce: false,
      levels: [],
      reason: 'test',
    });
    expect(bySupport.status).toBe(403);
    const anonymous = await operator.anonymous.get('/operator/v1/dispute-ratio-settings');
    expect(anonymous.status).toBe(401);

    const changed = await putSettings({
      countFraudAndDisputeOnce: false,
      levels: TEST_LEVELS,
      reason: 'tighter for the test',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ countFraudAndDisputeOnce: false, levels: TEST_LEVELS });
    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'after'])
      .where('action', '=', 'dispute_ratio_settings.updated')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor).toBe(`staff:${operator.admin.account.id}`);
    expect(JSON.stringify(audit[0]?.after)).toContain('tighter for the test');
  });

  it('counts both when a charge with both is set to count twice', async () => {
    const body = await ratios();
    expect(body.countFraudAndDisputeOnce).toBe(false);
    expect(schemeOf(body, 'visa').visaStyle).toMatchObject({ counted: 7, sales: 50, percent: '14.0000' });
    expect(schemeOf(body, 'visa').history[4]?.visaStyle).toMatchObject({ counted: 2, percent: '6.6667' });
    const restored = await putSettings({
      countFraudAndDisputeOnce: true,
      levels: TEST_LEVELS,
      reason: 'back',
    });
    expect(restored.status).toBe(200);
    expect(schemeOf(await ratios(), 'visa').visaStyle.counted).toBe(6);
  });
});

describe('crossing a level', () => {
  it('raises one alert and one e-mail however often the evaluation runs', async () => {
    const levels = schemeOf(await ratios(), 'visa').visaStyle.levels;
    expect(levels.map((entry) => [entry.level, entry.crossed, entry.proximityPercent])).toEqual([
      ['watch', false, '60.00'],
      ['excessive', true, '100.00'],
    ]);
    const first = await t.gateway.services.disputeRatios.evaluate();
    expect(first).toMatchObject({ raised: 1, failed: 0 });
    expect(first.owners).toBeGreaterThanOrEqual(2);
    const second = await t.gateway.services.disputeRatios.evaluate();
    expect(second.raised).toBe(0);

    const alerts = await db()
      .selectFrom('operator_alerts')
      .selectAll()
      .where('kind', '=', 'dispute_ratio')
      .execute();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      subject_id: `${merchant.organizationId}:sandbox:2026-11:visa:excessive`,
    });
    const mails = await mailsTo(t, ownerEmail);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toContain('Visa');
    expect(mails[0]?.text).toContain('%12.0000');
    expect(mails[0]?.text).toContain('12.0000%');
  });

  it('puts the merchant at the top of the operator’s watchlist', async () => {
    const res = await operator.support.get<{
      month: string;
      data: Array<{ organizationId: string; proximityPercent: string; level: string; crossed: string[] }>;
    }>('/operator/v1/dispute-ratios/watchlist?environment=sandbox');
    expect(res.status, res.text).toBe(200);
    expect(res.body.month).toBe('2026-11');
    expect(res.body.data[0]).toMatchObject({
      organizationId: merchant.organizationId,
      proximityPercent: '100.00',
      scheme: 'visa',
      ratio: 'visa_style',
      level: 'excessive',
      crossed: ['visa:visa_style:excessive'],
      percent: '12.0000',
      count: 6,
      projectedPercent: '11.9403',
    });
    // The other merchant: 1 dispute over 100 sales, closest to `excessive`: 1% of its 9.5% (10.52%) with a
    // sixth of its count.
    expect(res.body.data.find((row) => row.organizationId === other.organizationId)).toMatchObject({
      proximityPercent: '10.52',
      level: 'excessive',
      crossed: [],
    });
    const live = await operator.support.get<{ data: unknown[] }>(
      '/operator/v1/dispute-ratios/watchlist?environment=live',
    );
    expect(live.body.data).toEqual([]);
  });
});

describe('the operator’s view of an organization', () => {
  it('answers what the merchant sees', async () => {
    const res = await operator.support.get(
      `/operator/v1/organizations/${merchant.organizationId}/dispute-ratios?environment=sandbox`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(await ratios());
    const live = await operator.support.get<RatiosBody>(
      `/operator/v1/organizations/${merchant.organizationId}/dispute-ratios`,
    );
    expect(live.status).toBe(200);
    expect(schemeOf(live.body, 'visa').visaStyle.sales).toBe(0);
  });

  it('is 404 for an unknown organization and 401 without a session', async () => {
    const unknown = await operator.support.get('/operator/v1/organizations/org_unknown/dispute-ratios');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const anonymous = await operator.anonymous.get(
      `/operator/v1/organizations/${merchant.organizationId}/dispute-ratios`,
    );
    expect(anonymous.status).toBe(401);
    const watchlist = await operator.anonymous.get('/operator/v1/dispute-ratios/watchlist');
    expect(watchlist.status).toBe(401);
  });
});

describe('authentication', () => {
  let payoutsOnly: string;
  beforeAll(async () => {
    payoutsOnly = (await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['payouts'] })).secret;
  });

  it('needs a key', async () => {
    await expectKeyRequired(t.urls, api, '/v1/dispute-ratios');
  });

  it('needs scope read', async () => {
    const res = await api('/v1/dispute-ratios', { key: payoutsOnly });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    const reader = (await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] })).secret;
    expect((await api('/v1/dispute-ratios', { key: reader })).status).toBe(200);
  });

  it('needs the disputes feature', async () => {
    const res = await api('/v1/dispute-ratios', { key: other.keys.sandbox.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('keeps the environments apart: the live key sees the live month, empty', async () => {
    const res = await api('/v1/dispute-ratios', { key: merchant.keys.live.secret, environment: 'live' });
    expect(res.status).toBe(200);
    expect(schemeOf(res.body, 'visa').visaStyle).toMatchObject({ counted: 0, sales: 0, percent: null });
    expect((await api('/v1/dispute-ratios', { environment: 'live' })).status).toBe(401);
  });
});
