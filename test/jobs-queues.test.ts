/**
 * The job kit's queues (docs/decisions/0021-job-kit.md) under charge expiry and refund retry, through the
 * running gateway and the sandbox acquirer over its socket: rows that keep failing back off and park
 * instead of starving the rest, and two kits on one database never make the same acquirer call twice.
 * No worker runs in this gateway: the test drives the jobs by hand.
 */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createChargeCompletionService, EXPIRY_RETRY } from '../src/modules/charges/completion.js';
import { createChargeRefunds } from '../src/modules/charges/service.js';
import { createRefundService, REFUND_RETRY } from '../src/modules/refunds/service.js';
import { DAY, HOUR, MINUTE } from '../src/shared/clock.js';
import { createJobKit } from '../src/worker/kit.js';
import { drain } from '../src/worker/queue.js';
import { backgroundJobs } from '../src/jobs.js';
import { acquirerControl, errorFault } from './helpers/acquirer.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validCharge } from './helpers/http.js';
import { apiUrl, createMerchant, type Merchant } from './helpers/merchants.js';
import {
  anonymousClient,
  createStaffUser,
  loginStaff,
  type StaffAccount,
  type StaffSession,
} from './helpers/operator.js';
import { payByCard } from './helpers/charges.js';

interface ChargeBody {
  id: string;
  status: string;
  providerPaymentId: string;
}

let t: TestGateway;
let merchant: Merchant;
let staff: StaffAccount;

beforeAll(async () => {
  t = await startTestGateway({
    env: { ROLES: 'api,operator,sandbox-acquirer', ACQUIRER_TIMEOUT_MS: '2000', ACQUIRER_MAX_ATTEMPTS: '1' },
  });
  merchant = await createMerchant(t);
  staff = await createStaffUser(t, 'admin');
});
afterAll(async () => t?.close());
afterEach(async () => acquirerControl(t.sandboxAcquirer).clearFaults());

const services = () => t.gateway.services;
/** A fresh staff session: the tests move the clock past a session's lifetime. */
const operator = (): Promise<StaffSession> => loginStaff(t, staff);
const db = () => t.gateway.database.db;
const control = () => acquirerControl(t.sandboxAcquirer);

const api = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
  request<T>(`${apiUrl(t.urls, 'sandbox')}${path}`, {
    ...(init.method ? { method: init.method } : {}),
    ...(init.body !== undefined ? { body: init.body } : {}),
    headers: { 'x-api-key': merchant.keys.sandbox.secret },
  });

async function createCharges(count: number, amount: number): Promise<ChargeBody[]> {
  const charges: ChargeBody[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api<ChargeBody>('/v1/charges', { method: 'POST', body: validCharge({ amount }) });
    expect(res.status, res.text).toBe(201);
    charges.push(res.body);
  }
  return charges;
}

async function paidCharge(amount: number): Promise<ChargeBody> {
  const [charge] = await createCharges(1, amount);
  if (!charge) throw new Error('no charge');
  await payByCard(services(), charge, 'Jobs Test');
  return charge;
}

/** Pending refunds: the acquirer is down for their first ask (`times` of them), so they stay pending. */
async function pendingRefunds(count: number, amount: number): Promise<string[]> {
  const charges: ChargeBody[] = [];
  for (let i = 0; i < count; i++) charges.push(await paidCharge(amount));
  await control().addFault({ operation: 'refund', action: 'error', status: 503, code: 'down', times: count });
  const ids: string[] = [];
  for (const charge of charges) {
    const res = await api<{ error: { details: { refundId: string } } }>(`/v1/charges/${charge.id}/refunds`, {
      method: 'POST',
      body: { amount: 100 },
    });
    expect(res.status, res.text).toBe(502);
    ids.push(res.body.error.details.refundId);
  }
  return ids;
}

const chargeStatuses = async (ids: string[]) =>
  (await db().selectFrom('charges').select('status').where('id', 'in', ids).execute()).map(
    (row) => row.status,
  );
const refundStatuses = async (ids: string[]) =>
  (await db().selectFrom('refunds').select('status').where('id', 'in', ids).execute()).map(
    (row) => row.status,
  );

/** How many times the acquirer was called for each key (payment id or idempotency key) in `keys`. */
async function callsPer(operation: string, keys: string[], key: 'paymentId' | 'idempotencyKey') {
  const calls = await control().calls(operation);
  return keys.map((id) => calls.filter((call) => call[key] === id).length);
}

/** A second worker on the same database: its own kit and its own services, as another process has. */
function secondWorker() {
  const s = services();
  const jobs = createJobKit({
    db: s.db,
    clock: s.clock,
    alerts: s.alerts,
    logger: s.logger,
    workerId: 'second',
  });
  const acquirerFor = (environment: 'sandbox' | 'live') => s.acquirers[environment]?.acquirer;
  return {
    completion: createChargeCompletionService({
      db: s.db,
      clock: s.clock,
      logger: s.logger,
      acquirerFor,
      ledger: s.ledger,
      events: s.events,
      checkoutUrl: () => s.urls.checkout(),
      cardAttempts: s.config.checkout.cardAttempts,
      cardClaimLeaseMs: s.config.idempotencyLockMs,
      jobs,
    }),
    refunds: createRefundService({
      disputes: s.disputes.holds,
      db: s.db,
      clock: s.clock,
      logger: s.logger,
      fingerprints: s.idempotencyStore.fingerprints,
      cursors: s.cursors,
      audit: s.audit,
      acquirerFor,
      ledger: s.ledger,
      events: s.events,
      alerts: s.alerts,
      checkoutUrl: () => s.urls.checkout(),
      retryAfterMs: s.config.idempotencyLockMs,
      charges: createChargeRefunds({ db: s.db }),
      jobs,
    }),
  };
}

/** Each backoff of these policies is below 2 hours; after this many rounds a failing row is parked. */
const ROUND_MS = 2 * HOUR;

describe('charge expiry on the job kit', () => {
  it('expires the good charges behind more failing ones than a batch, backs the failing ones off, then parks them', async () => {
    const failing = await createCharges(6, 666);
    const good = await createCharges(3, 777);
    await control().addFault(errorFault('cancel', 503, 'down', { match: { amount: '666' } }));
    t.clock.advance(DAY + MINUTE);

    // Batches of 4: the failing charges come first in due order and fill the first batch.
    const first = await drain(() => services().completion.expireDueBatch(4));
    expect(first).toEqual({ rows: 3, errors: 6 });
    expect(await chargeStatuses(good.map((c) => c.id))).toEqual(['expired', 'expired', 'expired']);
    expect(await chargeStatuses(failing.map((c) => c.id))).toEqual(Array(6).fill('pending'));
    // Backed off: not due again at once.
    expect(await services().completion.expireDueBatch(4)).toEqual({ claimed: 0, done: 0, failed: 0 });
    const rows = await db()
      .selectFrom('charges')
      .select(['expiry_attempts', 'expiry_next_attempt_at', 'expiry_lease_token', 'expiry_last_error'])
      .where(
        'id',
        'in',
        failing.map((c) => c.id),
      )
      .execute();
    for (const row of rows) {
      expect(row.expiry_attempts).toBe(1);
      expect(row.expiry_lease_token).toBeNull();
      expect(row.expiry_last_error).toMatch(/unavailable|503|down/i);
      const wait = (row.expiry_next_attempt_at?.getTime() ?? 0) - t.clock.now().getTime();
      expect(wait).toBeGreaterThanOrEqual(0.8 * MINUTE - 1);
      expect(wait).toBeLessThanOrEqual(1.2 * MINUTE + 1);
    }

    for (let round = 2; round <= EXPIRY_RETRY.maxAttempts; round++) {
      t.clock.advance(ROUND_MS);
      expect(await drain(() => services().completion.expireDueBatch(4))).toEqual({ rows: 0, errors: 6 });
    }
    const parked = await db()
      .selectFrom('charges')
      .select(['status', 'expiry_attempts', 'expiry_parked_at'])
      .where(
        'id',
        'in',
        failing.map((c) => c.id),
      )
      .execute();
    expect(parked.map((row) => [row.status, row.expiry_attempts, row.expiry_parked_at !== null])).toEqual(
      Array(6).fill(['pending', EXPIRY_RETRY.maxAttempts, true]),
    );
    // Parked: never asked again.
    t.clock.advance(10 * DAY);
    expect(await drain(() => services().completion.expireDueBatch(4))).toEqual({ rows: 0, errors: 0 });
    expect(
      await callsPer(
        'cancel',
        failing.map((c) => c.providerPaymentId),
        'paymentId',
      ),
    ).toEqual(Array(6).fill(EXPIRY_RETRY.maxAttempts));

    // Surfaced to the operator: one alert each, and the parked list in the API and on the console.
    const admin = await operator();
    const alerts = await admin.get<{ data: Array<{ kind: string; subjectId: string }> }>(
      '/operator/v1/alerts?open=true&limit=100',
    );
    const subjects = alerts.body.data.filter((a) => a.kind === 'job_parked').map((a) => a.subjectId);
    for (const charge of failing) expect(subjects).toContain(`charge-expiry:${charge.id}`);
    const list = await admin.get<{ data: Array<{ job: string; id: string; attempts: number }> }>(
      '/operator/v1/jobs/parked?limit=100',
    );
    expect(list.status, list.text).toBe(200);
    for (const charge of failing) {
      expect(list.body.data).toContainEqual(
        expect.objectContaining({ job: 'charge-expiry', id: charge.id, attempts: EXPIRY_RETRY.maxAttempts }),
      );
    }
    const page = await request(`${t.urls.operator}/jobs`, { headers: { cookie: admin.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(failing[0]?.id);
  });

  it('two kits on one database never cancel the same charge twice', async () => {
    const charges = await createCharges(8, 888);
    t.clock.advance(DAY + MINUTE);
    // Slow cancels: both kits claim while the other's calls are in flight.
    await control().addFault({ operation: 'cancel', action: 'latency', latencyMs: 150 });
    const second = secondWorker();
    const [a, b] = await Promise.all([
      drain(() => services().completion.expireDueBatch(2)),
      drain(() => second.completion.expireDueBatch(2)),
    ]);
    expect(a.rows + b.rows).toBe(8);
    expect(await chargeStatuses(charges.map((c) => c.id))).toEqual(Array(8).fill('expired'));
    expect(
      await callsPer(
        'cancel',
        charges.map((c) => c.providerPaymentId),
        'paymentId',
      ),
    ).toEqual(Array(8).fill(1));
  });
});

describe('refund retry on the job kit', () => {
  it('finishes the good refunds behind more failing ones than a batch, backs the failing ones off, then parks them', async () => {
    const failing = await pendingRefunds(6, 666);
    const good = await pendingRefunds(3, 777);
    await control().addFault(errorFault('refund', 503, 'down', { match: { amount: '666' } }));
    t.clock.advance(2 * MINUTE);

    expect(await drain(() => services().refunds.retryPendingBatch(4))).toEqual({ rows: 3, errors: 6 });
    expect(await refundStatuses(good)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(await refundStatuses(failing)).toEqual(Array(6).fill('pending'));
    expect(await services().refunds.retryPendingBatch(4)).toEqual({ claimed: 0, done: 0, failed: 0 });

    for (let round = 2; round <= REFUND_RETRY.maxAttempts; round++) {
      t.clock.advance(ROUND_MS);
      expect(await drain(() => services().refunds.retryPendingBatch(4))).toEqual({ rows: 0, errors: 6 });
    }
    t.clock.advance(10 * DAY);
    expect(await drain(() => services().refunds.retryPendingBatch(4))).toEqual({ rows: 0, errors: 0 });
    const rows = await db()
      .selectFrom('refunds')
      .select(['status', 'attempts', 'parked_at'])
      .where('id', 'in', failing)
      .execute();
    expect(rows.map((row) => [row.status, row.attempts, row.parked_at !== null])).toEqual(
      Array(6).fill(['pending', REFUND_RETRY.maxAttempts, true]),
    );
    // The first ask (the request) and one per attempt of the job, nothing more.
    const admin = await operator();
    expect(await callsPer('refund', failing, 'idempotencyKey')).toEqual(
      Array(6).fill(1 + REFUND_RETRY.maxAttempts),
    );
    const list = await admin.get<{ data: Array<{ job: string; id: string }> }>(
      '/operator/v1/jobs/parked?limit=100',
    );
    for (const id of failing)
      expect(list.body.data).toContainEqual(expect.objectContaining({ job: 'refund-retry', id }));
  });

  it('two kits on one database never ask for the same refund twice', async () => {
    const refunds = await pendingRefunds(8, 999);
    t.clock.advance(2 * MINUTE);
    await control().addFault({ operation: 'refund', action: 'latency', latencyMs: 150 });
    const second = secondWorker();
    const [a, b] = await Promise.all([
      drain(() => services().refunds.retryPendingBatch(2)),
      drain(() => second.refunds.retryPendingBatch(2)),
    ]);
    expect(a.rows + b.rows).toBe(8);
    expect(await refundStatuses(refunds)).toEqual(Array(8).fill('succeeded'));
    // The request's own ask (refused) and exactly one retry each.
    expect(await callsPer('refund', refunds, 'idempotencyKey')).toEqual(Array(8).fill(2));
  });
});

describe('a claim', () => {
  it('is taken over after its lease, and the first holder can then record nothing', async () => {
    const s = services();
    const queue = createJobKit({ db: s.db, clock: s.clock, alerts: s.alerts, logger: s.logger }).queue({
      job: 'test-lease',
      table: 'emails',
      eligible: sql`status = 'pending' and template = 'test-lease'`,
      leaseMs: MINUTE,
      retry: { schedule: [MINUTE], jitter: 0, maxAttempts: 5 },
    });
    await db()
      .insertInto('emails')
      .values({
        id: 'eml_test_lease',
        to_address: 'lease@example.test',
        subject: 'lease',
        body_enc: 'sealed',
        template: 'test-lease',
        locale: 'en',
        status: 'pending',
        next_attempt_at: t.clock.now(),
        created_at: t.clock.now(),
      })
      .execute();
    const [first] = await queue.claim(5);
    expect(first).toMatchObject({ id: 'eml_test_lease', attempt: 1 });
    expect(await queue.claim(5)).toEqual([]);
    t.clock.advance(MINUTE);
    const [second] = await queue.claim(5);
    expect(second).toMatchObject({ id: 'eml_test_lease', attempt: 2 });
    if (!first || !second) throw new Error('no claim');
    expect(
      await db()
        .transaction()
        .execute((trx) => queue.fail(trx, first, new Error('late'))),
    ).toBe('lost');
    expect(
      await db()
        .transaction()
        .execute((trx) => queue.succeed(trx, first)),
    ).toBe(false);
    expect(
      await db()
        .transaction()
        .execute((trx) => queue.fail(trx, second, new Error('refused'))),
    ).toBe('retry');
    const row = await db()
      .selectFrom('emails')
      .select(['attempts', 'last_error', 'lease_token', 'next_attempt_at'])
      .where('id', '=', 'eml_test_lease')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      attempts: 2,
      last_error: 'Error: refused',
      lease_token: null,
      next_attempt_at: new Date(t.clock.now().getTime() + MINUTE),
    });
    await db().deleteFrom('emails').where('id', '=', 'eml_test_lease').execute();
  });
});

describe('the run log', () => {
  it('records the runs of the background jobs, shown in the operator API and console', async () => {
    await createCharges(2, 555);
    t.clock.advance(DAY + MINUTE);
    const expiry = backgroundJobs(services()).find((job) => job.name === 'charge-expiry');
    if (!expiry) throw new Error('no charge-expiry job');
    await expiry.run();
    await expiry.run(); // idle: not logged
    const admin = await operator();

    const runs = await admin.get<{ data: Array<Record<string, unknown>>; nextCursor: string | null }>(
      '/operator/v1/jobs/runs?job=charge-expiry&limit=5',
    );
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.data).toHaveLength(1);
    expect(runs.body.data[0]).toMatchObject({
      job: 'charge-expiry',
      workerId: services().jobs.workerId,
      rowsProcessed: 2,
      errors: 0,
      outcome: 'succeeded',
      error: null,
      periodStart: null,
    });

    const page = await request(`${t.urls.operator}/jobs?job=charge-expiry`, {
      headers: { cookie: admin.cookie },
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Runs of charge-expiry');
    expect(page.text).toContain(services().jobs.workerId);
  });

  it('pages with a cursor, refuses a cursor it did not issue, and needs an operator', async () => {
    for (let i = 0; i < 3; i++) {
      await services().jobs.runs.record({
        job: 'paging-test',
        workerId: 'w',
        startedAt: t.clock.now(),
        endedAt: t.clock.now(),
        rows: i + 1,
        errors: 0,
        outcome: 'succeeded',
      });
    }
    const admin = await operator();
    const first = await admin.get<{ data: Array<{ rowsProcessed: number }>; nextCursor: string }>(
      '/operator/v1/jobs/runs?job=paging-test&limit=2',
    );
    expect(first.body.data.map((run) => run.rowsProcessed)).toEqual([3, 2]);
    const second = await admin.get<{ data: Array<{ rowsProcessed: number }>; nextCursor: string | null }>(
      `/operator/v1/jobs/runs?job=paging-test&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.data.map((run) => run.rowsProcessed)).toEqual([1]);
    expect(second.body.nextCursor).toBeNull();

    const bad = await admin.get('/operator/v1/jobs/runs?cursor=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');

    const anonymous = anonymousClient(t);
    for (const path of ['/operator/v1/jobs/runs', '/operator/v1/jobs/parked']) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const page = await fetch(`${t.urls.operator}/jobs`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fjobs');
  });

  it('prunes runs past the retention', async () => {
    t.clock.advance(31 * DAY);
    expect(await services().jobs.runs.prune()).toBeGreaterThan(0);
    const admin = await operator();
    const left = await admin.get<{ data: unknown[] }>('/operator/v1/jobs/runs?job=paging-test');
    expect(left.body.data).toHaveLength(0);
  });
});
