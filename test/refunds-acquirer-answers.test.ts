/**
 * What the acquirer answers to a refund, through the running gateway and a fake acquirer over HTTP (the
 * sandbox acquirer behind a proxy whose refund answers each test decides), ADR 0055: a success for
 * another amount, currency or payment is never booked (the refund stays pending and reserved, parked,
 * raised as a `refund_mismatch` alert); a refusal that meets the success another path recorded for the
 * same refund answers that success instead of a 500.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxAcquirer, type SandboxAcquirer } from '../sandbox-acquirer/server.js';
import { createManualClock, MINUTE } from '../src/shared/clock.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import { payByCard, postRefund } from './helpers/charges.js';

interface ChargeBody {
  id: string;
  amount: string;
  amountRefunded: string;
  providerPaymentId: string;
}
interface RefundBody {
  id: string;
  amount: string;
  status: string;
}
type Body = RefundBody & ErrorBody;

interface Answer {
  status: number;
  text: string;
}
/** One refund call that reached the fake acquirer: `forward` asks the real sandbox acquirer. */
interface RefundCall {
  paymentId: string;
  idempotencyKey: string;
  forward(): Promise<Answer>;
}

const credentials = {
  apiKey: `sa_test_${randomBytes(12).toString('hex')}`,
  notificationSecret: randomBytes(24).toString('hex'),
};
let acquirer: SandboxAcquirer;
let proxy: http.Server;
/** How the fake acquirer answers a refund; unset: as the sandbox acquirer does. */
let onRefund: ((call: RefundCall) => Promise<Answer>) | undefined;
let t: TestGateway;
let merchant: Merchant;
let admin: StaffSession;
let support: StaffSession;

async function startProxy(target: () => string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = async (): Promise<Answer> => {
        const headers: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'accept', 'idempotency-key']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const upstream = await fetch(`${target()}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body } : {}),
        });
        return { status: upstream.status, text: await upstream.text() };
      };
      const refund = /^\/v1\/payments\/([^/]+)\/refunds$/.exec(req.url ?? '');
      const answered =
        req.method === 'POST' && refund && onRefund
          ? onRefund({
              paymentId: decodeURIComponent(refund[1] ?? ''),
              idempotencyKey: String(req.headers['idempotency-key'] ?? ''),
              forward,
            })
          : forward();
      answered.then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(answer.text);
        },
        (error: unknown) => {
          res.writeHead(599);
          res.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The sandbox acquirer's answer with `change` applied to its JSON. */
const tampered =
  (change: (answer: Record<string, unknown>) => void) =>
  async (call: RefundCall): Promise<Answer> => {
    const real = await call.forward();
    const body = JSON.parse(real.text) as Record<string, unknown>;
    change(body);
    return { status: real.status, text: JSON.stringify(body) };
  };

beforeAll(async () => {
  const clock = createManualClock(new Date('2026-11-23T10:00:00.000Z'));
  acquirer = await startSandboxAcquirer({ port: 0, ...credentials, clock });
  proxy = await startProxy(() => acquirer.url);
  const { port } = proxy.address() as AddressInfo;
  t = await startTestGateway({
    clock,
    env: {
      // No worker: each test runs the refund retry job itself. The operator settles held refunds.
      ROLES: 'api,operator',
      SANDBOX_ACQUIRER_URL: `http://127.0.0.1:${port}`,
      SANDBOX_ACQUIRER_API_KEY: credentials.apiKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: credentials.notificationSecret,
      ACQUIRER_MAX_ATTEMPTS: '1',
      // The race tests hold refund calls at the fake acquirer while both paths are in flight.
      ACQUIRER_TIMEOUT_MS: '10000',
    },
  });
  merchant = await createMerchant(t);
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
  support = await loginStaff(t, await createStaffUser(t, 'support'));
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await acquirer?.close();
});

const db = () => t.gateway.database.db;
const api = <T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) => apiRequest<T>(t.urls, path, { ...init, key: merchant.keys.sandbox.secret });
const refund = (chargeId: string, body: unknown, headers: Record<string, string> = {}) =>
  postRefund<Body>(t, merchant, chargeId, body, headers);

async function paidCharge(amount = 4000): Promise<ChargeBody> {
  const created = await api<ChargeBody>('/v1/charges', { method: 'POST', body: validCharge({ amount }) });
  expect(created.status, created.text).toBe(201);
  await payByCard(t.gateway.services, created.body, 'Answer Test');
  return (await api<ChargeBody>(`/v1/charges/${created.body.id}`)).body;
}

async function alertsOf(refundId: string) {
  return db()
    .selectFrom('operator_alerts')
    .select(['kind', 'organization_id', 'charge_id', 'details'])
    .where('subject_id', '=', refundId)
    .execute();
}

async function refundedEvents(chargeId: string): Promise<number> {
  const rows = await db()
    .selectFrom('events')
    .select('id')
    .where('resource_id', '=', chargeId)
    .where('type', '=', 'charge.refunded')
    .execute();
  return rows.length;
}

async function pendingBalance(): Promise<string> {
  const res = await api<{ balances: Array<{ currency: string; pending: string }> }>('/v1/balance');
  return res.body.balances.find((row) => row.currency === 'TRY')?.pending ?? '0';
}

/** Polls until `check` holds (the fake acquirer's calls arrive on their own schedule). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

describe('a success the refund cannot be booked on', () => {
  it('another amount: nothing booked, the refund pending and reserved, parked, one alert', async () => {
    const charge = await paidCharge(4000);
    const pendingBefore = await pendingBalance();
    // An adapter that read major units as minor ones: the acquirer's 1000 answered as 100000.
    onRefund = tampered((answer) => {
      answer.amount = String(Number(answer.amount) * 100);
    });
    try {
      const res = await refund(charge.id, { amount: 1000 });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ amount: '1000', status: 'pending' });

      expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('0');
      expect(await refundedEvents(charge.id)).toBe(0);
      expect(await pendingBalance()).toBe(pendingBefore);
      const alerts = await alertsOf(res.body.id);
      expect(alerts).toEqual([
        expect.objectContaining({
          kind: 'refund_mismatch',
          organization_id: merchant.organizationId,
          charge_id: charge.id,
        }),
      ]);
      expect(alerts[0]?.details).toMatchObject({
        refundId: res.body.id,
        status: 'pending',
        differences: ['amount'],
        asked: { amount: '1000', currency: 'TRY', paymentId: charge.providerPaymentId },
        answered: { amount: '100000' },
      });

      // Still reserved: what remains refundable leaves the held 1000 out.
      const more = await refund(charge.id, { amount: 3500 });
      expect([more.status, more.body.error?.code]).toEqual([400, 'validation_failed']);
      // Parked: the retry job does not ask the acquirer again (it would repeat the same answer).
      t.clock.advance(2 * MINUTE);
      expect(await t.gateway.services.refunds.retryPendingBatch()).toMatchObject({ claimed: 0 });
      const row = await db()
        .selectFrom('refunds')
        .select(['status', 'parked_at', 'provider_refund_id'])
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'pending', provider_refund_id: null });
      expect(row.parked_at).not.toBeNull();
    } finally {
      onRefund = undefined;
    }
  });

  it('another currency or another payment named in the answer: held the same way', async () => {
    const cases: Array<[string, (answer: Record<string, unknown>) => void]> = [
      ['currency', (answer) => (answer.currency = 'USD')],
      ['paymentId', (answer) => (answer.paymentId = 'pay_someone_else')],
    ];
    for (const [difference, change] of cases) {
      const charge = await paidCharge(4000);
      onRefund = tampered(change);
      try {
        const res = await refund(charge.id, { amount: 1500 });
        expect([res.status, res.body.status], difference).toEqual([201, 'pending']);
        expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('0');
        const alerts = await alertsOf(res.body.id);
        expect(alerts.map((alert) => alert.kind)).toEqual(['refund_mismatch']);
        expect(alerts[0]?.details).toMatchObject({ differences: [difference] });
      } finally {
        onRefund = undefined;
      }
    }
  });

  it('books an answer that names the same amount and currency (in any letter case)', async () => {
    const charge = await paidCharge(4000);
    onRefund = tampered((answer) => (answer.currency = 'try'));
    try {
      const res = await refund(charge.id, { amount: 1000 });
      expect([res.status, res.body.status], res.text).toEqual([201, 'succeeded']);
      expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('1000');
      expect(await refundedEvents(charge.id)).toBe(1);
      expect(await alertsOf(res.body.id)).toEqual([]);
    } finally {
      onRefund = undefined;
    }
  });
});

describe('a refusal that meets the success another path recorded (the request and the retry job at once)', () => {
  const refusal: Answer = {
    status: 409,
    text: JSON.stringify({
      error: { code: 'request_in_progress', message: 'A request with this key is running.' },
    }),
  };

  /** A refund of 1000 left pending by an outage, due for the retry job. */
  async function pendingRefund(key: string): Promise<{ charge: ChargeBody; refundId: string }> {
    const charge = await paidCharge(4000);
    onRefund = () => Promise.resolve({ status: 503, text: '{"error":{"code":"down"}}' });
    const outage = await refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': key });
    expect([outage.status, outage.body.error?.code], outage.text).toEqual([502, 'provider_unavailable']);
    t.clock.advance(2 * MINUTE);
    return { charge, refundId: String((outage.body.error.details as { refundId?: string }).refundId) };
  }

  /** Holds every refund call until the test answers it; the calls in the order they arrived. */
  function holdRefunds(): Array<RefundCall & { answer(answer: Answer): void }> {
    const held: Array<RefundCall & { answer(answer: Answer): void }> = [];
    onRefund = (call) => new Promise<Answer>((resolve) => held.push({ ...call, answer: resolve }));
    return held;
  }

  it('the request refused after the job recorded the success answers 201 succeeded', async () => {
    const { charge, refundId } = await pendingRefund('race-request-refused');
    const held = holdRefunds();
    try {
      // Both ask the acquirer at the same time: the job first, then the merchant's retry of its request.
      const job = t.gateway.services.refunds.retryPendingBatch();
      await until(() => held.length === 1);
      const request = refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'race-request-refused' });
      await until(() => held.length === 2);
      const [first, second] = held;
      first?.answer(await first.forward());
      expect(await job).toMatchObject({ claimed: 1, done: 1, failed: 0 });
      second?.answer(refusal);
      const res = await request;
      expect([res.status, res.body.id, res.body.status], res.text).toEqual([201, refundId, 'succeeded']);
    } finally {
      onRefund = undefined;
    }
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('1000');
    expect(await refundedEvents(charge.id)).toBe(1);
    expect(await alertsOf(refundId)).toEqual([]);
  });

  it('the job refused after the request recorded the success ends its round as done', async () => {
    const { charge, refundId } = await pendingRefund('race-job-refused');
    const held = holdRefunds();
    try {
      const request = refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': 'race-job-refused' });
      await until(() => held.length === 1);
      const job = t.gateway.services.refunds.retryPendingBatch();
      await until(() => held.length === 2);
      const [first, second] = held;
      first?.answer(await first.forward());
      const res = await request;
      expect([res.status, res.body.id, res.body.status], res.text).toEqual([201, refundId, 'succeeded']);
      second?.answer(refusal);
      expect(await job).toMatchObject({ claimed: 1, done: 1, failed: 0 });
    } finally {
      onRefund = undefined;
    }
    const row = await db()
      .selectFrom('refunds')
      .select(['status', 'failure_code', 'last_error', 'lease_token'])
      .where('id', '=', refundId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'succeeded', failure_code: null, last_error: null, lease_token: null });
    expect(await refundedEvents(charge.id)).toBe(1);
  });

  it('both answers at the same moment: one outcome, the request answers it, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const key = `race-same-moment-${round}`;
      const { charge, refundId } = await pendingRefund(key);
      const held = holdRefunds();
      let res: HttpResult<Body>;
      try {
        const job = t.gateway.services.refunds.retryPendingBatch();
        await until(() => held.length === 1);
        const request = refund(charge.id, { amount: 1000 }, { 'x-idempotency-key': key });
        await until(() => held.length === 2);
        const [first, second] = held;
        const success = await first?.forward();
        // Released together: the two transactions meet on the refund's row.
        first?.answer(success as Answer);
        second?.answer(refusal);
        [res] = await Promise.all([request, job]);
      } finally {
        onRefund = undefined;
      }
      const stored = await db()
        .selectFrom('refunds')
        .select('status')
        .where('id', '=', refundId)
        .executeTakeFirstOrThrow();
      expect(res.status, res.text).not.toBe(500);
      if (stored.status === 'succeeded') {
        expect([res.status, res.body.status]).toEqual([201, 'succeeded']);
        expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('1000');
      } else {
        // The refusal was recorded first; the acquirer's success after it is raised, never booked.
        expect(stored.status).toBe('failed');
        expect([res.status, res.body.error?.code]).toEqual([502, 'provider_rejected']);
        expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('0');
        expect((await alertsOf(refundId)).map((alert) => alert.kind)).toEqual(['refund_mismatch']);
      }
    }
  });
});

/**
 * A refund of `amount` on `charge` held for an answer of another amount (ADR 0055): pending, parked. The
 * fake acquirer answers a success of a hundred times the amount without asking the sandbox acquirer,
 * which therefore refunded nothing: what the operator then says it did is the truth of the test.
 */
async function heldRefund(charge: ChargeBody, amount: number): Promise<RefundBody> {
  onRefund = (call) =>
    Promise.resolve({
      status: 200,
      text: JSON.stringify({
        id: `rf_claimed_${randomBytes(4).toString('hex')}`,
        paymentId: call.paymentId,
        amount: String(amount * 100),
        status: 'succeeded',
        createdAt: t.clock.now().toISOString(),
      }),
    });
  try {
    const res = await refund(charge.id, { amount });
    expect([res.status, res.body.status], res.text).toEqual([201, 'pending']);
    return res.body;
  } finally {
    onRefund = undefined;
  }
}

const settle = (refundId: string, body: Record<string, unknown>, as: StaffSession = admin) =>
  as.post<RefundBody & { status: string }>(`/operator/v1/refunds/${refundId}/settle`, body);

describe('an operator settles a held refund (ADR 0063)', () => {
  it('books what the acquirer really refunded under its refund id, audited; the rest is refundable again', async () => {
    const charge = await paidCharge(4000);
    const pendingBefore = BigInt(await pendingBalance());
    const held = await heldRefund(charge, 1000);
    const decision = {
      outcome: 'succeeded',
      providerRefundId: `rf_seen_${randomBytes(4).toString('hex')}`,
      amount: '800',
      reason: 'The acquirer confirms 8.00 TRY refunded',
    };

    const refused = await settle(held.id, decision, support);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    const settled = await settle(held.id, decision);
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ id: held.id, amount: '800', status: 'succeeded' });

    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('800');
    expect(await refundedEvents(charge.id)).toBe(1);
    expect(BigInt(await pendingBalance())).toBe(pendingBefore - 800n);
    const row = await db()
      .selectFrom('refunds')
      .select(['status', 'amount', 'provider_refund_id'])
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'succeeded',
      amount: '800',
      provider_refund_id: decision.providerRefundId,
    });
    const audit = await admin.get<{ data: Array<{ action: string; actor: string; after: unknown }> }>(
      `/operator/v1/audit-log?targetId=${held.id}`,
    );
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        action: 'refund.settled',
        actor: `staff:${admin.account.id}`,
        after: expect.objectContaining({ status: 'succeeded', amount: '800', reason: decision.reason }),
      }),
    ]);

    // What the acquirer did not refund is refundable again: 4000 - 800.
    const rest = await refund(charge.id, { amount: 3200 });
    expect([rest.status, rest.body.status], rest.text).toEqual([201, 'succeeded']);
    // Settled once: a second settlement is refused.
    const again = await settle(held.id, { ...decision, providerRefundId: 'rf_other' });
    expect([again.status, again.body.error.code]).toEqual([409, 'invalid_state_transition']);
  });

  it('fails it (its amount refundable again), and refuses what is not held, unknown, too much or a taken acquirer id', async () => {
    const charge = await paidCharge(4000);
    const booked = await refund(charge.id, { amount: 500 });
    expect([booked.status, booked.body.status], booked.text).toEqual([201, 'succeeded']);
    const held = await heldRefund(charge, 1000);
    const bookedRow = await db()
      .selectFrom('refunds')
      .select('provider_refund_id')
      .where('id', '=', booked.body.id)
      .executeTakeFirstOrThrow();
    const reason = 'Asked the acquirer';

    const unknown = await settle('re_nope', { outcome: 'failed', reason });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
    const notHeld = await settle(booked.body.id, { outcome: 'failed', reason });
    expect([notHeld.status, notHeld.body.error.code]).toEqual([409, 'invalid_state_transition']);
    // The charge can still give 4000 - 500: the held refund's own reserve is the operator's to replace.
    const tooMuch = await settle(held.id, {
      outcome: 'succeeded',
      providerRefundId: 'rf_too_much',
      amount: '3501',
      reason,
    });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([400, 'validation_failed']);
    expect(tooMuch.body.error.details?.issues?.[0]).toMatchObject({ path: 'amount', code: 'too_large' });
    const taken = await settle(held.id, {
      outcome: 'succeeded',
      providerRefundId: bookedRow.provider_refund_id,
      reason,
    });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'invalid_state_transition']);
    for (const body of [
      { outcome: 'succeeded', reason },
      { outcome: 'failed', reason: '   ' },
      { outcome: 'failed' },
      { outcome: 'refunded', reason },
      { outcome: 'succeeded', providerRefundId: 'rf_x', amount: '10.5', reason },
      { outcome: 'failed', reason, extra: true },
    ]) {
      const invalid = await settle(held.id, body);
      expect([invalid.status, invalid.body.error.code], JSON.stringify(body)).toEqual([
        400,
        'validation_failed',
      ]);
    }
    // Nothing of the refusals moved money.
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('500');

    const failed = await settle(held.id, { outcome: 'failed', reason: 'The acquirer has no such refund' });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toMatchObject({ id: held.id, amount: '1000', status: 'failed' });
    expect((await api<ChargeBody>(`/v1/charges/${charge.id}`)).body.amountRefunded).toBe('500');
    expect(await refundedEvents(charge.id)).toBe(1);
    const rest = await refund(charge.id, { amount: 3500 });
    expect([rest.status, rest.body.status], rest.text).toEqual([201, 'succeeded']);
  });
});
