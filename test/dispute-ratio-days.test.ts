/**
 * Issue 37 item 8 (ADR 0077, docs/dispute-ratios.md "Closed days"): one merchant's ratio page reads its
 * closed days from a summary and counts only the days since live, with the same numbers as counting every
 * row. Each case changes the rows as the gateway's own writes change them (a sale at its success time, a
 * dispute or fraud warning written now, whatever day it counts in), then compares `GET /v1/dispute-ratios`
 * with the answer rebuilt from the rows alone (the summary forgotten): a late chargeback on a closed day,
 * an inquiry escalated into an earlier month, a chargeback today that makes an earlier warning "also
 * disputed", a day closing, the clock set back.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY } from '../src/shared/clock.js';
import { apiRequest } from './helpers/client.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { t, useTestGateway } from './helpers/suite.js';

// The test clock starts at 2026-11-23T10:00Z: November's days until the 22nd are closed.
const db = () => t.gateway.database.db;
const uid = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

let merchant: Merchant;

async function sale(at: Date, scheme: 'visa' | 'mastercard' = 'visa'): Promise<string> {
  const id = uid('ch');
  await db()
    .insertInto('charges')
    .values({
      id,
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      amount: '10000',
      currency: 'TRY',
      payment_method: 'credit_card_tr',
      merchant_reference: id,
      status: 'succeeded',
      creation_state: 'created',
      provider: 'sandbox',
      provider_request: JSON.stringify({ reference: id }),
      provider_payment_id: uid('pay'),
      provider_status: 'succeeded',
      card_brand: scheme,
      card_last4: '4242',
      finalized_at: at,
      expires_at: new Date(at.getTime() + 3_600_000),
      created_at: new Date(at.getTime() - 60_000),
      updated_at: at,
    })
    .execute();
  return id;
}

/** A dispute as the gateway writes it: opened at `openedAt` by the acquirer, written now. */
async function dispute(chargeId: string, openedAt: Date, stage: 'inquiry' | 'chargeback' = 'chargeback') {
  const id = uid('dp');
  const now = t.clock.now();
  await db()
    .insertInto('disputes')
    .values({
      id,
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      charge_id: chargeId,
      provider: 'sandbox',
      provider_dispute_id: uid('sdp'),
      amount: '10000',
      currency: 'TRY',
      reason: 'fraudulent',
      reason_code: '10.4',
      network: 'visa',
      status: stage === 'inquiry' ? 'warning_needs_response' : 'needs_response',
      stage,
      rank: stage === 'inquiry' ? 1 : 11,
      provider_created_at: openedAt,
      provider_updated_at: openedAt,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

async function fraudWarning(chargeId: string, reportedAt: Date): Promise<void> {
  const now = t.clock.now();
  await db()
    .insertInto('fraud_warnings')
    .values({
      id: uid('efw'),
      organization_id: merchant.organizationId,
      environment: 'sandbox',
      charge_id: chargeId,
      provider: 'sandbox',
      provider_warning_id: uid('sfw'),
      reason: 'fraudulent',
      reason_code: '10.4',
      network: 'visa',
      provider_created_at: reportedAt,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

interface Counts {
  fraudWarnings: number;
  disputes: number;
  fraudWarningsAlsoDisputed: number;
  counted: number;
  sales: number;
}
interface Ratios {
  month: string;
  schemes: Array<{ scheme: string; visaStyle: Counts; history: Array<{ month: string; visaStyle: Counts }> }>;
}

async function ratios(): Promise<Ratios> {
  const res = await apiRequest<Ratios>(t.urls, '/v1/dispute-ratios', { key: merchant.keys.sandbox.secret });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The answer from the rows alone: the summary forgotten, so that the read counts every closed day again. */
async function rebuilt(): Promise<Ratios> {
  await db()
    .deleteFrom('dispute_ratio_summaries')
    .where('organization_id', '=', merchant.organizationId)
    .execute();
  return ratios();
}

const summary = () =>
  db()
    .selectFrom('dispute_ratio_summaries')
    .selectAll()
    .where('organization_id', '=', merchant.organizationId)
    .executeTakeFirst();

const visa = (body: Ratios, month: string): Counts => {
  const scheme = body.schemes.find((entry) => entry.scheme === 'visa');
  const figure =
    month === body.month
      ? scheme?.visaStyle
      : scheme?.history.find((entry) => entry.month === month)?.visaStyle;
  if (!figure) throw new Error(`no visa figure of ${month}`);
  return figure;
};

/** The incremental answer is the rebuilt one, and `month`'s Visa counts are `expected`. */
async function expectCounts(month: string, expected: Partial<Counts>): Promise<void> {
  const incremental = await ratios();
  expect(visa(incremental, month)).toMatchObject(expected);
  expect(incremental).toEqual(await rebuilt());
}

let octoberSale: string;
let novemberSale: string;
let warned: string;

useTestGateway({}, async () => {
  merchant = await createMerchant(t, { featureFlags: ['disputes'] });
  octoberSale = await sale(new Date('2026-10-20T12:00:00.000Z'));
  novemberSale = await sale(new Date('2026-11-05T12:00:00.000Z'));
  warned = await sale(new Date('2026-11-06T12:00:00.000Z'));
  await sale(new Date('2026-11-07T12:00:00.000Z'), 'mastercard');
  await fraudWarning(warned, new Date('2026-11-08T00:00:00.000Z'));
});

describe('the closed days of a merchant’s ratios', () => {
  it('are summarised by the first read, and the next reads only read them', async () => {
    const first = await ratios();
    expect(visa(first, '2026-11')).toMatchObject({ sales: 2, fraudWarnings: 1, disputes: 0 });
    expect(visa(first, '2026-10')).toMatchObject({ sales: 1 });
    const written = await summary();
    expect(written).toMatchObject({ days_from: '2026-04-01', days_until: '2026-11-23' });
    const days = await db()
      .selectFrom('dispute_ratio_days')
      .select(['day', 'scheme', 'sales', 'fraud_warnings'])
      .where('organization_id', '=', merchant.organizationId)
      .orderBy('day')
      .orderBy('scheme')
      .execute();
    expect(days).toEqual([
      { day: '2026-10-20', scheme: 'visa', sales: 1, fraud_warnings: 0 },
      { day: '2026-11-05', scheme: 'visa', sales: 1, fraud_warnings: 0 },
      { day: '2026-11-06', scheme: 'visa', sales: 1, fraud_warnings: 0 },
      { day: '2026-11-07', scheme: 'mastercard', sales: 1, fraud_warnings: 0 },
      { day: '2026-11-08', scheme: 'visa', sales: 0, fraud_warnings: 1 },
    ]);
    await ratios();
    expect((await summary())?.refreshed_at).toEqual(written?.refreshed_at);
  });

  it('count a chargeback the acquirer opened on a closed day and the gateway wrote later', async () => {
    await dispute(novemberSale, new Date('2026-11-10T09:00:00.000Z'));
    await expectCounts('2026-11', { disputes: 1, counted: 2, sales: 2 });
  });

  it('count an inquiry in the earlier month it escalated in, once the escalation is written', async () => {
    const inquiry = await dispute(octoberSale, new Date('2026-10-21T00:00:00.000Z'), 'inquiry');
    await expectCounts('2026-10', { disputes: 0 });
    await db()
      .updateTable('disputes')
      .set({
        stage: 'chargeback',
        status: 'needs_response',
        rank: 11,
        escalated_at: new Date('2026-10-30T00:00:00.000Z'),
        updated_at: t.clock.now(),
      })
      .where('id', '=', inquiry)
      .execute();
    await expectCounts('2026-10', { disputes: 1, counted: 1 });
  });

  it('make an earlier warning of the month “also disputed” when its charge is disputed today', async () => {
    await dispute(warned, t.clock.now());
    await expectCounts('2026-11', {
      disputes: 2,
      fraudWarnings: 1,
      fraudWarningsAlsoDisputed: 1,
      counted: 2,
    });
  });

  it('take in a day once it has closed, and count the new day live', async () => {
    await sale(t.clock.now());
    await expectCounts('2026-11', { sales: 3 });
    t.clock.advance(DAY);
    await sale(t.clock.now());
    const incremental = await ratios();
    expect(visa(incremental, '2026-11')).toMatchObject({ sales: 4 });
    expect(await summary()).toMatchObject({ days_until: '2026-11-24' });
    expect(incremental).toEqual(await rebuilt());
  });

  it('are counted again when the clock is set back before them', async () => {
    const now = t.clock.now();
    t.clock.set(new Date('2026-10-25T10:00:00.000Z'));
    try {
      const body = await ratios();
      expect(body.month).toBe('2026-10');
      expect(await summary()).toMatchObject({ days_from: '2026-03-01', days_until: '2026-10-25' });
      expect(body).toEqual(await rebuilt());
    } finally {
      t.clock.set(now);
    }
    await expectCounts('2026-11', { sales: 4 });
  });
});
