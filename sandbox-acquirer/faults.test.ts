import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from './cards.js';
import type { CallRecord, FaultRule } from './faults.js';
import {
  authorize,
  createPayment,
  startTestAcquirer,
  uniqueReference,
  waitFor,
  type ErrorBody,
  type PaymentBody,
  type TestAcquirer,
} from './test-support.js';

let t: TestAcquirer;

beforeAll(async () => {
  t = await startTestAcquirer();
});
afterAll(async () => t?.close());
afterEach(async () => {
  await t.api.request('DELETE', '/_control/faults');
});

const addFault = async (body: Record<string, unknown>) => {
  const response = await t.api.request<{ id: string }>('POST', '/_control/faults', { body });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
};

const calls = async (operation: string) =>
  (await t.api.request<{ data: CallRecord[] }>('GET', `/_control/calls?operation=${operation}`)).body.data;

const createBody = (reference: string, amount = '12550') => ({
  amount,
  currency: 'TRY',
  method: 'card',
  reference,
});

const find = async (reference: string) =>
  (await t.api.request<{ data: PaymentBody[] }>('GET', `/v1/payments?reference=${reference}`)).body.data;

describe('fault rules', () => {
  it('are added (201 with an id), listed and removed', async () => {
    const id = await addFault({
      operation: 'get_payment',
      action: 'error',
      status: 503,
      code: 'unavailable',
    });
    expect(id).toMatch(/^flt_[0-9a-z]{26}$/);
    const listed = await t.api.request<{ data: FaultRule[] }>('GET', '/_control/faults');
    expect(listed.body.data).toEqual([
      {
        id,
        operation: 'get_payment',
        action: 'error',
        latencyMs: null,
        status: 503,
        code: 'unavailable',
        message: 'Fault injected by the sandbox acquirer.',
        times: null,
        match: null,
        createdAt: expect.any(String),
      },
    ]);
    expect((await t.api.request('DELETE', `/_control/faults/${id}`)).status).toBe(200);
    expect((await t.api.request('DELETE', `/_control/faults/${id}`)).status).toBe(404);
    await addFault({ operation: '*', action: 'latency', latencyMs: 1 });
    await addFault({ operation: 'refund', action: 'timeout' });
    expect((await t.api.request('DELETE', '/_control/faults')).body).toEqual({ deleted: 2 });
    expect((await t.api.request<{ data: FaultRule[] }>('GET', '/_control/faults')).body.data).toEqual([]);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['unknown operation', { operation: 'pay', action: 'timeout' }],
    ['unknown action', { operation: 'cancel', action: 'explode' }],
    ['drop on an API operation', { operation: 'create_payment', action: 'drop' }],
    ['error on notifications', { operation: 'notification', action: 'error', status: 500, code: 'x' }],
    ['error without code', { operation: 'cancel', action: 'error', status: 500 }],
    ['error with a 2xx status', { operation: 'cancel', action: 'error', status: 200, code: 'x' }],
    ['latency without latencyMs', { operation: 'cancel', action: 'latency' }],
    ['latencyMs on an error', { operation: 'cancel', action: 'error', status: 500, code: 'x', latencyMs: 5 }],
    ['times 0', { operation: 'cancel', action: 'timeout', times: 0 }],
    ['empty match', { operation: 'cancel', action: 'timeout', match: {} }],
    ['match on another field', { operation: 'cancel', action: 'timeout', match: { id: 'x' } }],
    ['unknown field', { operation: 'cancel', action: 'timeout', after: 1 }],
  ];

  it.each(invalid)('%s: 400 invalid_request', async (_name, body) => {
    const response = await t.api.request<ErrorBody>('POST', '/_control/faults', { body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });
});

describe('fault actions', () => {
  it('latency answers normally after latencyMs', async () => {
    const payment = await createPayment(t.api);
    await addFault({ operation: 'get_payment', action: 'latency', latencyMs: 300 });
    const started = Date.now();
    const response = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(payment.id);
  });

  it('delay_response does the work, then the client gives up before the answer', async () => {
    await addFault({ operation: 'create_payment', action: 'delay_response', latencyMs: 5000 });
    const reference = uniqueReference();
    const started = Date.now();
    await expect(
      t.api.request('POST', '/v1/payments', {
        headers: { 'idempotency-key': reference },
        body: createBody(reference),
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    await t.api.request('DELETE', '/_control/faults');
    const found = await find(reference);
    expect(found).toHaveLength(1);
    expect((await calls('create_payment')).at(-1)).toMatchObject({
      reference,
      status: 201,
      paymentId: found[0]?.id,
    });
    // The gateway's retry with the same key finds the payment instead of making a second one.
    const retry = await t.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': reference },
      body: createBody(reference),
    });
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(found[0]?.id);
  });

  it('error with a 4xx provider code answers it without doing the work', async () => {
    const payment = await createPayment(t.api);
    await addFault({
      operation: 'authorize',
      action: 'error',
      status: 402,
      code: 'do_not_honor',
      message: 'Do not honor.',
    });
    const response = await authorize(t.api, payment.id, TEST_CARDS.visa.number);
    expect(response.status).toBe(402);
    expect(response.body).toEqual({
      error: { code: 'do_not_honor', message: 'Do not honor.', status: 'awaiting_payment' },
    });
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.body).toMatchObject({ status: 'awaiting_payment', attempts: 0, card: null });
  });

  it('error with a 5xx: nothing is created; the same key then creates', async () => {
    await addFault({
      operation: 'create_payment',
      action: 'error',
      status: 503,
      code: 'service_unavailable',
    });
    const reference = uniqueReference();
    const request = () =>
      t.api.request<ErrorBody>('POST', '/v1/payments', {
        headers: { 'idempotency-key': reference },
        body: createBody(reference),
      });
    const failed = await request();
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({ code: 'service_unavailable', status: null });
    expect(await find(reference)).toEqual([]);
    await t.api.request('DELETE', '/_control/faults');
    expect((await request()).status).toBe(201);
  });

  it('timeout never answers; the client aborts and the acquirer goes on', async () => {
    const payment = await createPayment(t.api);
    await addFault({ operation: 'cancel', action: 'timeout' });
    await expect(
      t.api.request('POST', `/v1/payments/${payment.id}/cancel`, {
        body: {},
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow(/timeout|abort/i);
    expect((await calls('cancel')).at(-1)).toMatchObject({ paymentId: payment.id, status: null });
    // Without doing the work.
    expect((await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`)).body.status).toBe(
      'awaiting_payment',
    );
  });

  it('times: the rule applies to that many calls, then disappears', async () => {
    const payment = await createPayment(t.api);
    await addFault({ operation: 'get_payment', action: 'error', status: 500, code: 'internal', times: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push((await t.api.request('GET', `/v1/payments/${payment.id}`)).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect((await t.api.request<{ data: FaultRule[] }>('GET', '/_control/faults')).body.data).toEqual([]);
  });

  it('match: only the payments of that reference or amount', async () => {
    const targeted = uniqueReference();
    await addFault({
      operation: 'create_payment',
      action: 'error',
      status: 502,
      code: 'bad_gateway',
      match: { reference: targeted },
    });
    const create = (reference: string, amount = '12550') =>
      t.api.request('POST', '/v1/payments', {
        headers: { 'idempotency-key': reference },
        body: createBody(reference, amount),
      });
    expect((await create(targeted)).status).toBe(502);
    expect((await create(uniqueReference())).status).toBe(201);

    await t.api.request('DELETE', '/_control/faults');
    await addFault({
      operation: '*',
      action: 'error',
      status: 400,
      code: 'amount_refused',
      match: { amount: '666' },
    });
    expect((await create(uniqueReference(), '666')).status).toBe(400);
    const other = await createPayment(t.api, { amount: '667' });
    expect((await authorize(t.api, other.id, TEST_CARDS.visa.number)).status).toBe(200);
  });

  it('* applies to every API operation', async () => {
    const payment = await createPayment(t.api);
    await addFault({ operation: '*', action: 'error', status: 503, code: 'down' });
    expect((await t.api.request('GET', `/v1/payments/${payment.id}`)).status).toBe(503);
    expect((await t.api.request('GET', `/v1/payments?reference=${payment.reference}`)).status).toBe(503);
    expect((await t.api.request('POST', `/v1/payments/${payment.id}/cancel`, { body: {} })).status).toBe(503);
    // The control endpoints are not faulted.
    expect((await t.api.request('GET', '/_control/faults')).status).toBe(200);
  });
});

describe('GET /_control/calls', () => {
  it('lists the calls of an operation, newest last, with key, reference, payment and status', async () => {
    const reference = uniqueReference();
    const created = await createPayment(t.api, { reference }, `key-${reference}`);
    await t.api.request('POST', '/v1/payments', {
      headers: { 'idempotency-key': `key-${reference}` },
      body: { amount: 1 },
    });
    // Only this test's calls: a call of an earlier test whose client gave up may be recorded late.
    const list = (await calls('create_payment')).filter((call) => call.idempotencyKey === `key-${reference}`);
    expect(list).toEqual([
      {
        operation: 'create_payment',
        paymentId: created.id,
        idempotencyKey: `key-${reference}`,
        reference,
        status: 201,
        at: expect.any(String),
      },
      {
        operation: 'create_payment',
        paymentId: null,
        idempotencyKey: `key-${reference}`,
        reference: null,
        status: 400,
        at: expect.any(String),
      },
    ]);
    await t.api.request('POST', '/v1/payments', {
      headers: { 'idempotency-key': `bad-json-${reference}`, 'content-type': 'application/json' },
      rawBody: '{"amount":',
    });
    expect((await calls('create_payment')).at(-1)).toMatchObject({
      idempotencyKey: `bad-json-${reference}`,
      status: 400,
    });
    await t.api.request('GET', `/v1/payments/${created.id}`);
    expect((await calls('get_payment')).at(-1)).toMatchObject({
      paymentId: created.id,
      reference,
      status: 200,
    });
    const all = await t.api.request<{ data: CallRecord[] }>('GET', '/_control/calls');
    expect(new Set(all.body.data.map((c) => c.operation)).size).toBeGreaterThan(1);
    expect((await t.api.request('GET', '/_control/calls?operation=nope')).status).toBe(400);
  });

  it("counts one payment's calls of an operation, refused ones included (paymentId)", async () => {
    const [one, other] = await Promise.all([
      createPayment(t.api, { reference: uniqueReference() }),
      createPayment(t.api, { reference: uniqueReference() }),
    ]);
    expect((await authorize(t.api, one.id, TEST_CARDS.insufficientFunds.number)).status).toBe(200);
    expect((await authorize(t.api, one.id, TEST_CARDS.visa.number)).status).toBe(200);
    // Paid: the acquirer refuses another card, and still counts the call.
    expect((await authorize(t.api, one.id, TEST_CARDS.visa.number)).status).toBe(409);
    expect((await authorize(t.api, other.id, TEST_CARDS.visa.number)).status).toBe(200);

    const of = async (query: string) =>
      (await t.api.request<{ data: CallRecord[] }>('GET', `/_control/calls?${query}`)).body.data;
    const authorizations = await of(`operation=authorize&paymentId=${one.id}`);
    expect(authorizations.map((call) => call.status)).toEqual([200, 200, 409]);
    expect(authorizations.every((call) => call.paymentId === one.id)).toBe(true);
    expect((await of(`paymentId=${other.id}`)).map((call) => call.operation)).toEqual([
      'create_payment',
      'authorize',
    ]);
    expect(await of('operation=authorize&paymentId=pay_unknown')).toEqual([]);
    for (const bad of ['paymentId=', `paymentId=${one.id}&paymentId=${other.id}`, 'payment=x']) {
      expect((await t.api.request('GET', `/_control/calls?${bad}`)).status, bad).toBe(400);
    }
  });
});

describe('close()', () => {
  it('ends held connections and delayed answers promptly', async () => {
    const own = await startTestAcquirer();
    await own.api.request('POST', '/_control/faults', {
      body: { operation: 'get_payment', action: 'timeout' },
    });
    await own.api.request('POST', '/_control/faults', {
      body: { operation: 'create_payment', action: 'delay_response', latencyMs: 60_000 },
    });
    const held = own.api.request('GET', '/v1/payments/pay_x');
    const delayed = own.api.request('POST', '/v1/payments', {
      headers: { 'idempotency-key': 'k' },
      body: createBody(uniqueReference()),
    });
    held.catch(() => undefined);
    delayed.catch(() => undefined);
    await waitFor(async () => {
      const list = await own.api.request<{ data: CallRecord[] }>('GET', '/_control/calls');
      return list.body.data.length === 2 ? true : undefined;
    });
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(held).rejects.toThrow();
    await expect(delayed).rejects.toThrow();
  });
});
