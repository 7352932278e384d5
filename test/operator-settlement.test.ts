/**
 * Issue 14 item 8: the operator's settlement over the operator API (the console's and the CLI's backend):
 * batches by date and state, running a due or held date again, declared closures and payout schedules;
 * who may do what; every write audited.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/shared/canonical-json.js';
import { createManualClock } from '../src/shared/clock.js';
import { t, useTestGateway, accountGateway } from './helpers/suite.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { loginStaff, type OperatorClient, type StaffSession, operatorCallers } from './helpers/operator.js';
import { chainControl } from './helpers/chain.js';
import { liveFundedMerchant, merchantApi, paidCharge, TRON_ADDRESS } from './helpers/payouts.js';

interface Batch {
  id: string;
  organizationId: string;
  businessDate: string;
  status: string;
  payoutId: string | null;
  carryReason: string | null;
  net: string;
}

let admin: StaffSession;
let support: StaffSession;
let cli: OperatorClient;
let anonymous: OperatorClient;

useTestGateway(
  {
    ...accountGateway('api,operator,sandbox-acquirer,sandbox-chain'),
    clock: createManualClock(new Date('2027-02-01T10:00:00.000Z')), // a Monday
  },
  async () => {
    ({ admin, support, cli, anonymous } = await operatorCallers(t));
  },
);

/** Moves the clock; the staff sessions, idle for that long, are signed in again. */
async function at(iso: string): Promise<void> {
  t.clock.set(new Date(iso));
  admin = await loginStaff(t, admin.account);
  support = await loginStaff(t, support.account);
}

async function walletMerchant(): Promise<Merchant> {
  const merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
  const wallet = await merchantApi(t, merchant, 'sandbox', '/v1/wallets', {
    network: 'tron',
    address: TRON_ADDRESS,
  });
  expect(wallet.status, wallet.text).toBe(201);
  return merchant;
}

const auditOf = (action: string) =>
  t.gateway.database.db
    .selectFrom('audit_log')
    .select(['actor', 'action', 'target_id', 'before', 'after'])
    .where('action', '=', action)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

describe('who may see and run settlement', () => {
  it('refuses anyone without a session, lets support read only, and lets admins and the CLI act', async () => {
    expect((await anonymous.get('/operator/v1/settlement/batches')).status).toBe(401);
    expect((await anonymous.post('/operator/v1/settlement/runs', {})).status).toBe(401);
    expect((await support.get('/operator/v1/settlement/batches')).status).toBe(200);
    expect((await support.get('/operator/v1/settlement/closures?from=2027-01-01&to=2027-12-31')).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ['POST', '/operator/v1/settlement/runs', { businessDate: '2027-02-01' }],
      ['POST', '/operator/v1/settlement/closures', { businessDate: '2027-02-05', reason: 'x' }],
      ['DELETE', '/operator/v1/settlement/closures/2027-02-05', undefined],
      ['PUT', '/operator/v1/organizations/org_x/payout-schedule', { schedule: 'manual' }],
      ['PUT', '/operator/v1/organizations/org_x/reserve', { reserveBps: 500, days: 30 }],
    ] as const) {
      const refused = await support.send(method, path, body === undefined ? {} : { body });
      expect([method, path, refused.status, refused.body.error.code]).toEqual([
        method,
        path,
        403,
        'forbidden',
      ]);
    }
    expect((await cli.get('/operator/v1/settlement/batches')).status).toBe(200);
  });
});

describe('running a business date', () => {
  it("runs a due date once, refuses a weekend and a date not yet due, and lists the day's batches", async () => {
    const paid = await walletMerchant();
    const manual = await walletMerchant();
    expect(
      (
        await admin.put(`/operator/v1/organizations/${manual.organizationId}/payout-schedule`, {
          schedule: 'manual',
        })
      ).body,
    ).toEqual({ organizationId: manual.organizationId, schedule: 'manual' });
    await paidCharge(t, paid, 'sandbox', 1_000_000);
    await paidCharge(t, manual, 'sandbox', 1_000_000);

    // Tuesday's cutoff (03:00 UTC) has not come yet.
    const early = await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-02' });
    expect([early.status, early.body.error.code, early.body.error.details]).toEqual([
      409,
      'invalid_state_transition',
      { reason: 'not_due', businessDate: '2027-02-02', cutoff: '2027-02-02T03:00:00.000Z' },
    ]);
    const weekend = await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-06' });
    expect([weekend.status, weekend.body.error.details]).toEqual([
      409,
      { reason: 'not_a_business_day', businessDate: '2027-02-06', why: 'weekend' },
    ]);
    const invalid = await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-30' });
    expect([invalid.status, invalid.body.error.code]).toEqual([400, 'validation_failed']);

    await at('2027-02-02T03:05:00.000Z');
    const run = await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-02' });
    expect(run.status, run.text).toBe(200);
    expect(run.body).toMatchObject({ businessDate: '2027-02-02', skipped: false, held: 0, failed: 0 });
    expect((run.body as unknown as { paidOut: number }).paidOut).toBeGreaterThanOrEqual(1);
    const again = await cli.post('/operator/v1/settlement/runs', { businessDate: '2027-02-02' });
    expect(again.body).toMatchObject({ paidOut: 0, carried: 0, unchanged: 2 });

    const listed = await support.get<{ data: Batch[] }>(
      '/operator/v1/settlement/batches?businessDate=2027-02-02',
    );
    const ours = listed.body.data.filter((batch) =>
      [paid.organizationId, manual.organizationId].includes(batch.organizationId),
    );
    expect(ours.map((batch) => [batch.organizationId, batch.status, batch.carryReason])).toEqual(
      expect.arrayContaining([
        [paid.organizationId, 'paid_out', null],
        [manual.organizationId, 'carried', 'manual_schedule'],
      ]),
    );
    const carried = await admin.get<{ data: Batch[] }>(
      `/operator/v1/settlement/batches?status=carried&organizationId=${manual.organizationId}`,
    );
    expect(carried.body.data).toHaveLength(1);

    // One page at a time, with a cursor bound to its filter.
    const first = await admin.get<{ data: Batch[]; nextCursor: string | null }>(
      '/operator/v1/settlement/batches?limit=1',
    );
    expect(first.body.data).toHaveLength(1);
    const cursor = first.body.nextCursor ?? '';
    const second = await admin.get<{ data: Batch[] }>(
      `/operator/v1/settlement/batches?limit=1&cursor=${cursor}`,
    );
    expect(second.body.data[0]?.id).not.toBe(first.body.data[0]?.id);
    const foreign = await admin.get(
      `/operator/v1/settlement/batches?limit=1&status=paid_out&cursor=${cursor}`,
    );
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'validation_failed']);

    // The same filter in another order keeps its cursor; a malformed or impossible date is a 400, never a 500.
    const filtered = await admin.get<{ data: Batch[]; nextCursor: string | null }>(
      '/operator/v1/settlement/batches?environment=sandbox&businessDate=2027-02-02&limit=1',
    );
    const reordered = await admin.get<{ data: Batch[] }>(
      `/operator/v1/settlement/batches?limit=1&businessDate=2027-02-02&environment=sandbox&cursor=${filtered.body.nextCursor ?? ''}`,
    );
    expect(reordered.status, reordered.text).toBe(200);
    expect(reordered.body.data[0]?.id).not.toBe(filtered.body.data[0]?.id);
    for (const path of [
      '/operator/v1/settlement/batches?businessDate=abc',
      '/operator/v1/settlement/batches?businessDate=2027-02-30',
      '/operator/v1/settlement/closures?from=abc&to=2027-12-31',
    ]) {
      const refused = await admin.get(path);
      expect([path, refused.status, refused.body.error.code]).toEqual([path, 400, 'validation_failed']);
    }

    expect(await auditOf('settlement.run_requested')).toHaveLength(2);
    expect((await auditOf('settlement.payout_schedule_set'))[0]).toMatchObject({
      actor: `staff:${admin.account.id}`,
      target_id: manual.organizationId,
      after: { payoutSchedule: 'manual' },
    });
    const unknown = await admin.put('/operator/v1/organizations/org_nope/payout-schedule', {
      schedule: 'daily',
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });
});

describe('the rolling reserve', () => {
  it('sets an organization’s reserve, audited, and refuses what is out of range or unknown', async () => {
    const merchant = await walletMerchant();
    const path = `/operator/v1/organizations/${merchant.organizationId}/reserve`;
    const set = await admin.put(path, { reserveBps: 1500, days: 90 });
    expect([set.status, set.body]).toEqual([
      200,
      { organizationId: merchant.organizationId, reserveBps: 1500, days: 90 },
    ]);
    expect(await t.gateway.services.settlementBatches.reserve(merchant.organizationId)).toEqual({
      reserveBps: 1500,
      days: 90,
    });
    for (const body of [
      { reserveBps: 10_001, days: 1 },
      { reserveBps: 100, days: 366 },
      { reserveBps: 100 },
    ]) {
      const refused = await admin.put(path, body);
      expect([refused.status, refused.body.error.code]).toEqual([400, 'validation_failed']);
    }
    const unknown = await admin.put('/operator/v1/organizations/org_nope/reserve', {
      reserveBps: 100,
      days: 1,
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    expect((await auditOf('settlement.reserve_set')).at(-1)).toMatchObject({
      actor: `staff:${admin.account.id}`,
      target_id: merchant.organizationId,
      before: { reserveBps: 0, days: 0 },
      after: { reserveBps: 1500, days: 90 },
    });
  });
});

describe('an operator-entered rate', () => {
  it('is the live ticker’s fallback while fresh: a payout refused for a stale ticker goes through at it', async () => {
    const merchant = await liveFundedMerchant(t);
    const chain = chainControl(t.liveChain);
    // The ticker's rate is two hours old: stale.
    await chain.setRate('0.0290', new Date(t.clock.now().getTime() - 2 * 3_600_000).toISOString());
    const refused = await merchantApi(t, merchant, 'live', '/v1/payouts', { amount: 100_000 });
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      503,
      'payouts_unavailable',
      { reason: 'rate_stale' },
    ]);

    expect((await support.post('/operator/v1/fx-rates', { rate: '0.0291', reason: 'x' })).status).toBe(403);
    for (const body of [
      { rate: 'abc', reason: 'ticker down' },
      { rate: '0', reason: 'ticker down' },
      { rate: '0.0291', reason: '   ' },
      { rate: '0.0291', reason: 'x'.repeat(501) },
    ]) {
      const invalid = await admin.post('/operator/v1/fx-rates', body);
      expect([invalid.status, invalid.body.error.code]).toEqual([400, 'validation_failed']);
    }
    const entered = await admin.post('/operator/v1/fx-rates', {
      rate: '0.0291',
      reason: 'ticker down since 09:00',
    });
    expect(entered.status, entered.text).toBe(201);
    expect(entered.body).toMatchObject({
      environment: 'live',
      rate: '0.0291',
      enteredBy: `staff:${admin.account.id}`,
    });
    expect((await support.get<{ data: unknown[] }>('/operator/v1/fx-rates')).body.data[0]).toEqual(
      entered.body,
    );

    const paid = await merchantApi<{ rate: { value: string; source: string } }>(
      t,
      merchant,
      'live',
      '/v1/payouts',
      {
        amount: 100_000,
      },
    );
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.rate).toMatchObject({ value: '0.0291', source: `operator:staff:${admin.account.id}` });

    // An hour later (FX_OPERATOR_RATE_MAX_AGE_SECONDS) the operators' rate is stale too: refused again.
    await at(new Date(t.clock.now().getTime() + 3_601_000).toISOString());
    const later = await merchantApi(t, merchant, 'live', '/v1/payouts', { amount: 100_000 });
    expect([later.status, later.body.error.details]).toEqual([503, { reason: 'rate_stale' }]);
    // A fresh ticker rate is used again before any operator's.
    await chain.setRate('0.0290', t.clock.now().toISOString());
    const ticker = await merchantApi<{ rate: { value: string; source: string } }>(
      t,
      merchant,
      'live',
      '/v1/payouts',
      {
        amount: 100_000,
      },
    );
    expect(ticker.body.rate.value).toBe('0.0290');
    expect((await auditOf('fx_rate.entered')).map((row) => row.target_id)).toEqual([
      (entered.body as unknown as { id: string }).id,
    ]);
  });
});

describe('the live rate source', () => {
  it('is the ticker until an admin chooses the operators’ rate alone (audited); then the ticker is not asked', async () => {
    const merchant = await liveFundedMerchant(t);
    const chain = chainControl(t.liveChain);
    const payout = () =>
      merchantApi<{ rate: { value: string; source: string }; error: { code: string; details: unknown } }>(
        t,
        merchant,
        'live',
        '/v1/payouts',
        { amount: 100_000 },
      );
    await chain.setRate('0.0290', t.clock.now().toISOString());
    const entered = await admin.post('/operator/v1/fx-rates', { rate: '0.0293', reason: 'desk rate' });
    expect(entered.status, entered.text).toBe(201);

    const initial = await support.get('/operator/v1/fx-rate-source');
    expect(initial.status, initial.text).toBe(200);
    expect(initial.body).toEqual({
      environment: 'live',
      source: 'ticker',
      tickerConfigured: true,
      reason: null,
      updatedBy: null,
      updatedAt: null,
    });
    // The ticker is fresh: it is used, not the operators' rate.
    expect((await payout()).body.rate).toMatchObject({ value: '0.0290' });

    expect((await anonymous.get('/operator/v1/fx-rate-source')).status).toBe(401);
    const refused = await support.put('/operator/v1/fx-rate-source', { source: 'operator', reason: 'x' });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    for (const body of [
      { source: 'mars', reason: 'x' },
      { source: 'operator', reason: '   ' },
      { source: 'operator' },
      { source: 'operator', reason: 'x', extra: 1 },
      { source: 'operator', reason: 'x'.repeat(501) },
    ]) {
      const invalid = await admin.put('/operator/v1/fx-rate-source', body);
      expect([JSON.stringify(body), invalid.status, invalid.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'validation_failed',
      ]);
    }
    expect((await support.get('/operator/v1/fx-rate-source')).body).toMatchObject({ source: 'ticker' });

    const chosen = await admin.put('/operator/v1/fx-rate-source', {
      source: 'operator',
      reason: 'the ticker answers 0.02',
    });
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.body).toMatchObject({
      environment: 'live',
      source: 'operator',
      tickerConfigured: true,
      reason: 'the ticker answers 0.02',
      updatedBy: `staff:${admin.account.id}`,
    });
    expect((await support.get('/operator/v1/fx-rate-source')).body).toEqual(chosen.body);
    const atOperators = await payout();
    expect(atOperators.status, atOperators.text).toBe(201);
    expect(atOperators.body.rate).toMatchObject({
      value: '0.0293',
      source: `operator:staff:${admin.account.id}`,
    });

    // Once the operators' rate is stale, payouts are refused although the ticker is fresh: not asked.
    await at(new Date(t.clock.now().getTime() + 3_601_000).toISOString());
    await chain.setRate('0.0290', t.clock.now().toISOString());
    const stale = await payout();
    expect([stale.status, stale.body.error.code, stale.body.error.details]).toEqual([
      503,
      'payouts_unavailable',
      { reason: 'rate_stale' },
    ]);

    // Back to the ticker.
    expect(
      (await admin.put('/operator/v1/fx-rate-source', { source: 'ticker', reason: 'ticker fixed' })).status,
    ).toBe(200);
    expect((await payout()).body.rate).toMatchObject({ value: '0.0290' });
    expect(
      (await auditOf('fx_rate_source.updated')).map((row) => [
        row.actor,
        row.target_id,
        row.before,
        row.after,
      ]),
    ).toEqual([
      [
        `staff:${admin.account.id}`,
        'live',
        { source: 'ticker' },
        { source: 'operator', reason: 'the ticker answers 0.02' },
      ],
      [
        `staff:${admin.account.id}`,
        'live',
        { source: 'operator' },
        { source: 'ticker', reason: 'ticker fixed' },
      ],
    ]);
  });
});

describe('FX spreads', () => {
  it('lists each environment’s spread, lets admins set one (audited) and refuses support and bad values', async () => {
    const listed = await support.get<{
      data: Array<{ environment: string; spreadBps: number; source: string }>;
    }>('/operator/v1/fx-spreads');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((row) => row.environment)).toEqual(['sandbox', 'live']);
    const refused = await support.put('/operator/v1/fx-spreads/live', { spreadBps: 50 });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    for (const [path, body] of [
      ['/operator/v1/fx-spreads/live', { spreadBps: 1001 }],
      ['/operator/v1/fx-spreads/live', { spreadBps: -1 }],
      ['/operator/v1/fx-spreads/live', { spreadBps: '50' }],
      ['/operator/v1/fx-spreads/mars', { spreadBps: 50 }],
    ] as const) {
      const invalid = await admin.put(path, body);
      expect([path, invalid.status, invalid.body.error.code]).toEqual([path, 400, 'validation_failed']);
    }
    const set = await admin.put('/operator/v1/fx-spreads/live', { spreadBps: 75 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      environment: 'live',
      spreadBps: 75,
      source: 'operator',
      updatedBy: `staff:${admin.account.id}`,
    });
    expect((await auditOf('fx_spread.updated')).map((row) => row.target_id)).toEqual(['live']);
    expect((await admin.put('/operator/v1/fx-spreads/live', { spreadBps: 0 })).status).toBe(200);
  });
});

describe('closures', () => {
  it('declares, lists and removes a closure, audited; the closed date is refused', async () => {
    const declared = await admin.post('/operator/v1/settlement/closures', {
      businessDate: '2027-02-03',
      reason: 'Banking holiday declared by the regulator',
    });
    expect(declared.status, declared.text).toBe(201);
    expect(declared.body).toMatchObject({
      businessDate: '2027-02-03',
      declaredBy: `staff:${admin.account.id}`,
    });
    const twice = await admin.post('/operator/v1/settlement/closures', {
      businessDate: '2027-02-03',
      reason: 'x',
    });
    expect([twice.status, twice.body.error.details]).toEqual([409, { reason: 'closure_exists' }]);
    const blank = await admin.post('/operator/v1/settlement/closures', {
      businessDate: '2027-02-04',
      reason: '  ',
    });
    expect([blank.status, blank.body.error.code]).toEqual([400, 'validation_failed']);

    await at('2027-02-03T04:00:00.000Z');
    const closed = await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-03' });
    expect([closed.status, closed.body.error.details]).toMatchObject([
      409,
      { reason: 'not_a_business_day', why: 'closure: Banking holiday declared by the regulator' },
    ]);
    const listed = await support.get<{ data: Array<{ businessDate: string }> }>(
      '/operator/v1/settlement/closures?from=2027-02-01&to=2027-02-28',
    );
    expect(listed.body.data.map((closure) => closure.businessDate)).toEqual(['2027-02-03']);

    const removed = await admin.send('DELETE', '/operator/v1/settlement/closures/2027-02-03');
    expect(removed.status, removed.text).toBe(200);
    const gone = await admin.send('DELETE', '/operator/v1/settlement/closures/2027-02-03');
    expect([gone.status, gone.body.error.code]).toEqual([404, 'not_found']);
    expect((await auditOf('settlement.closure_declared')).map((row) => row.target_id)).toEqual([
      '2027-02-03',
    ]);
    expect((await auditOf('settlement.closure_removed')).map((row) => row.target_id)).toEqual(['2027-02-03']);
  });
});

describe('statements', () => {
  interface Statement {
    object: string;
    batch: { id: string; status: string; payout: { id: string; amount: string } | null; net: string };
    lines: Array<{
      type: string;
      amount: string;
      fee: string;
      net: string;
      merchantReference: string | null;
    }>;
    sequence: number;
    previousHash: string | null;
    hash: string;
  }

  it('serves each ended batch’s statement as JSON and CSV, chained by hash, and the operator detects a changed line', async () => {
    const merchant = await walletMerchant();
    const stranger = await walletMerchant();
    await at('2027-02-03T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    await at('2027-02-04T03:01:00.000Z');
    expect((await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-04' })).status).toBe(
      200,
    );
    await at('2027-02-04T10:00:00.000Z');
    await paidCharge(t, merchant, 'sandbox', 500_000);
    await at('2027-02-05T03:01:00.000Z');
    expect((await admin.post('/operator/v1/settlement/runs', { businessDate: '2027-02-05' })).status).toBe(
      200,
    );

    const list = await merchantApi<{ data: Array<{ id: string; businessDate: string; status: string }> }>(
      t,
      merchant,
      'sandbox',
      '/v1/settlements',
    );
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((batch) => [batch.businessDate, batch.status])).toEqual([
      ['2027-02-05', 'paid_out'],
      ['2027-02-04', 'paid_out'],
    ]);
    const [second, first] = list.body.data.map((batch) => batch.id) as [string, string];
    const one = await merchantApi<Statement>(t, merchant, 'sandbox', `/v1/settlements/${first}/statement`);
    const two = await merchantApi<Statement>(t, merchant, 'sandbox', `/v1/settlements/${second}/statement`);
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({
      object: 'settlement_statement',
      batch: { id: first, status: 'paid_out', net: '964900', payout: { amount: '964900' } },
      lines: [{ type: 'charge', amount: '1000000', fee: '35100', net: '964900' }],
      sequence: 1,
      previousHash: null,
    });
    expect(two.body).toMatchObject({ sequence: 2, previousHash: one.body.hash });
    // The hash is what the documentation says: a merchant recomputes it from the statement alone.
    const recomputed = (statement: Statement) =>
      createHash('sha256')
        .update(
          `${statement.previousHash ?? ''}\n${canonicalJson({
            batch: statement.batch,
            lines: statement.lines,
            sequence: statement.sequence,
          })}`,
        )
        .digest('hex');
    expect(recomputed(one.body)).toBe(one.body.hash);
    expect(recomputed(two.body)).toBe(two.body.hash);

    const csv = await merchantApi(t, merchant, 'sandbox', `/v1/settlements/${first}/statement.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toBe(
      'record,id,type,source_id,charge_id,merchant_reference,amount,fee,net,currency,occurred_at',
    );
    expect(rows.map((row) => row.split(',')[0])).toEqual([
      'record',
      'line',
      'batch',
      'rate',
      'payout',
      'payout_sent',
      'hash',
      'previous_hash',
    ]);
    expect(rows.find((row) => row.startsWith('hash,'))).toContain(one.body.hash);

    // Another organization's batch, and this one through the other environment's key, are 404.
    expect((await merchantApi(t, stranger, 'sandbox', `/v1/settlements/${first}`)).status).toBe(404);
    expect((await merchantApi(t, stranger, 'sandbox', `/v1/settlements/${first}/statement`)).status).toBe(
      404,
    );
    expect((await merchantApi(t, merchant, 'live', `/v1/settlements/${first}`)).status).toBe(404);
    expect((await merchantApi(t, merchant, 'sandbox', '/v1/settlements/stl_nope/statement.csv')).status).toBe(
      404,
    );

    const verify = `/operator/v1/settlement/statements/verify?organizationId=${merchant.organizationId}&environment=sandbox`;
    expect((await support.get(verify)).body).toEqual({
      organizationId: merchant.organizationId,
      environment: 'sandbox',
      valid: true,
      checked: 2,
      problems: [],
    });
    // A later change to a past line (here straight in the database) no longer matches its statement.
    // (The types refuse an update of a released line; a bug or an intruder with SQL would not be stopped.)
    await sql`update settlement_items set fee = 35000 where batch_id = ${first}`.execute(
      t.gateway.database.db,
    );
    expect((await support.get(verify)).body).toMatchObject({
      valid: false,
      checked: 2,
      problems: [{ batchId: first, sequence: 1, problem: 'content_changed' }],
    });
  });
});
