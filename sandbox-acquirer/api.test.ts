import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/shared/clock.js';
import { ibanValid } from './bank.js';
import { TEST_CARDS } from './cards.js';
import {
  API_KEY,
  authorize,
  cardAttempt,
  createPayment,
  startTestAcquirer,
  uniqueReference,
  type ApiResponse,
  type ErrorBody,
  type PaymentBody,
  type TestAcquirer,
} from './test-support.js';

const START = new Date('2026-11-23T10:00:00.000Z');
const clock = createManualClock(START);
const logLines: string[] = [];
let t: TestAcquirer;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await startTestAcquirer({ clock, logger: pino({ level: 'trace' }, sink) });
});
afterAll(async () => t?.close());

function expectError(
  response: ApiResponse,
  status: number,
  code: string,
  paymentStatus: string | null = null,
) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/json');
  const body = response.body as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.status).toBe(paymentStatus);
  return body.error;
}

const createBody = (fields: Record<string, unknown> = {}) => ({
  amount: '12550',
  currency: 'TRY',
  method: 'card',
  reference: uniqueReference(),
  ...fields,
});

describe('authentication', () => {
  it('refuses a missing, wrong or malformed key with 401 authentication_failed', async () => {
    for (const apiKey of [null, 'wrong', `${API_KEY}x`, API_KEY.slice(0, -1)]) {
      const response = await t.api.request('GET', '/v1/payments?reference=x', { apiKey });
      expectError(response, 401, 'authentication_failed');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    const basic = await t.api.request('GET', '/v1/payments?reference=x', {
      apiKey: null,
      headers: { authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}` },
    });
    expectError(basic, 401, 'authentication_failed');
  });

  it('protects /_control too, and does nothing for an unauthenticated create', async () => {
    expectError(
      await t.api.request('GET', '/_control/faults', { apiKey: null }),
      401,
      'authentication_failed',
    );
    const reference = uniqueReference();
    const refused = await t.api.request('POST', '/v1/payments', {
      apiKey: 'nope',
      headers: { 'idempotency-key': reference },
      body: createBody({ reference }),
    });
    expectError(refused, 401, 'authentication_failed');
    const found = await t.api.request<{ data: unknown[] }>('GET', `/v1/payments?reference=${reference}`);
    expect(found.body.data).toEqual([]);
  });
});

describe('the error envelope', () => {
  it('unknown routes and methods: 404 not_found', async () => {
    expectError(await t.api.request('GET', '/v1/nothing'), 404, 'not_found');
    expectError(await t.api.request('DELETE', '/v1/payments'), 404, 'not_found');
    expectError(await t.api.request('GET', '/', { apiKey: null }), 404, 'not_found');
  });

  it('bad JSON: 400 invalid_request that does not quote the body', async () => {
    const raw = `{"number":"${TEST_CARDS.visa.number}",`;
    const response = await t.api.request('POST', '/v1/payments', {
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k' },
    });
    const error = expectError(response, 400, 'invalid_request');
    expect(error.message).toBe('The body is not valid JSON.');
    expect(response.text).not.toContain(TEST_CARDS.visa.number);
  });

  it('other bodies than a JSON object: 400 invalid_request', async () => {
    const cases: { rawBody: string; type: string }[] = [
      { rawBody: '[1]', type: 'application/json' },
      { rawBody: '"x"', type: 'application/json' },
      { rawBody: 'null', type: 'application/json' },
      { rawBody: 'amount=1', type: 'text/plain' },
      { rawBody: 'amount=1', type: 'application/x-www-form-urlencoded' },
      { rawBody: `{"a":"${'x'.repeat(70_000)}"}`, type: 'application/json' },
    ];
    for (const { rawBody, type } of cases) {
      const response = await t.api.request('POST', '/v1/payments', {
        rawBody,
        headers: { 'content-type': type, 'idempotency-key': 'k' },
      });
      expectError(response, 400, 'invalid_request');
    }
  });
});

describe('POST /v1/payments validation', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['amount as a number', { amount: 12550 }, /amount must be a string.*not a number/],
    ['amount zero', { amount: '0' }, /positive whole number/],
    ['amount with a leading zero', { amount: '012' }, /leading zero/],
    ['negative amount', { amount: '-5' }, /amount/],
    ['decimal amount', { amount: '1.50' }, /amount/],
    ['amount beyond safe integers', { amount: '9007199254740992' }, /9007199254740991/],
    ['missing amount', { amount: undefined }, /amount/],
    ['currency', { currency: 'USD' }, /currency must be "TRY"/],
    ['method', { method: 'cash' }, /method must be "card" or "bank_transfer"/],
    ['missing reference', { reference: undefined }, /reference is required/],
    ['empty reference', { reference: '' }, /reference must be 1 to 255/],
    ['long reference', { reference: 'r'.repeat(256) }, /reference must be 1 to 255/],
    ['long description', { description: 'd'.repeat(256) }, /description must be 1 to 255/],
    ['notificationUrl scheme', { notificationUrl: 'ftp://example.com/x' }, /notificationUrl must be an http/],
    ['notificationUrl relative', { notificationUrl: '/webhooks' }, /notificationUrl must be an absolute/],
    ['maxAttempts 0', { maxAttempts: 0 }, /maxAttempts must be a whole number .* from 1 to 10/],
    ['maxAttempts 11', { maxAttempts: 11 }, /maxAttempts/],
    ['maxAttempts fraction', { maxAttempts: 2.5 }, /maxAttempts/],
    ['unknown field', { amountt: '1' }, /Unknown field "amountt"/],
  ];

  it.each(cases)('%s: 400 invalid_request', async (_name, fields, message) => {
    const response = await t.api.request('POST', '/v1/payments', {
      headers: { 'idempotency-key': uniqueReference() },
      body: createBody(fields),
    });
    expect(expectError(response, 400, 'invalid_request').message).toMatch(message);
  });

  it('the Idempotency-Key header is required, 1 to 255 printable ASCII characters', async () => {
    const missing = await t.api.request('POST', '/v1/payments', { body: createBody() });
    expect(expectError(missing, 400, 'invalid_request').message).toMatch(/Idempotency-Key/);
    for (const key of ['k'.repeat(256), 'tab\there']) {
      const response = await t.api.request('POST', '/v1/payments', {
        headers: { 'idempotency-key': key },
        body: createBody(),
      });
      expect(expectError(response, 400, 'invalid_request').message).toMatch(/Idempotency-Key/);
    }
  });

  it('accepts the largest safe amount and 255-character fields', async () => {
    const payment = await createPayment(t.api, {
      amount: '9007199254740991',
      reference: `r${'x'.repeat(254)}`,
      description: 'd'.repeat(255),
      maxAttempts: 10,
    });
    expect(payment.amount).toBe('9007199254740991');
    expect(payment.maxAttempts).toBe(10);
  });
});

describe('creating and reading payments', () => {
  it('201 with the payment as documented', async () => {
    const reference = uniqueReference();
    const response = await t.api.request<PaymentBody & Record<string, unknown>>('POST', '/v1/payments', {
      headers: { 'idempotency-key': reference },
      body: createBody({
        reference,
        description: 'Order 1042',
        notificationUrl: 'http://127.0.0.1:3000/webhooks/v1/payments',
      }),
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^pay_[0-9a-z]{29}$/),
      reference,
      amount: '12550',
      currency: 'TRY',
      method: 'card',
      status: 'awaiting_payment',
      description: 'Order 1042',
      notificationUrl: 'http://127.0.0.1:3000/webhooks/v1/payments',
      card: null,
      bankTransfer: null,
      challenge: null,
      failure: null,
      attempts: 0,
      maxAttempts: 3,
      refundedAmount: '0',
      refunds: [],
      createdAt: START.toISOString(),
      updatedAt: START.toISOString(),
    });
    expect(Object.keys(response.body)).toEqual([
      'id',
      'reference',
      'amount',
      'currency',
      'method',
      'status',
      'description',
      'notificationUrl',
      'card',
      'bankTransfer',
      'challenge',
      'failure',
      'attempts',
      'maxAttempts',
      'refundedAmount',
      'refunds',
      'createdAt',
      'updatedAt',
    ]);
  });

  it('the same key and body answer 200 with the same payment; another body 409 idempotency_conflict', async () => {
    const key = uniqueReference();
    const body = createBody({ description: 'first' });
    const first = await t.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body,
    });
    expect(first.status).toBe(201);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await t.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body: reordered,
    });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const conflict = await t.api.request('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body: { ...body, amount: '1' },
    });
    expectError(conflict, 409, 'idempotency_conflict', 'awaiting_payment');
  });

  it('a replay answers the payment as it is now', async () => {
    const key = uniqueReference();
    const body = createBody();
    const created = await t.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body,
    });
    await authorize(t.api, created.body.id, TEST_CARDS.visa.number);
    const replay = await t.api.request<PaymentBody>('POST', '/v1/payments', {
      headers: { 'idempotency-key': key },
      body,
    });
    expect(replay.status).toBe(200);
    expect(replay.body.status).toBe('succeeded');
  });

  it('20 concurrent identical creates with one key make one payment', async () => {
    const key = uniqueReference();
    const body = createBody();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.api.request<PaymentBody>('POST', '/v1/payments', { headers: { 'idempotency-key': key }, body }),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    const found = await t.api.request<{ data: PaymentBody[] }>(
      'GET',
      `/v1/payments?reference=${body.reference}`,
    );
    expect(found.body.data).toHaveLength(1);
  });

  it('GET /v1/payments/{id}: 200, or 404 payment_not_found', async () => {
    const payment = await createPayment(t.api);
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(payment);
    expectError(await t.api.request('GET', '/v1/payments/pay_nope'), 404, 'payment_not_found');
  });

  it('GET /v1/payments?reference= lists the payments of a reference, oldest first', async () => {
    const reference = uniqueReference();
    const first = await createPayment(t.api, { reference });
    clock.advance(1000);
    const second = await createPayment(t.api, { reference, amount: '1' });
    const found = await t.api.request<{ data: PaymentBody[] }>(
      'GET',
      `/v1/payments?reference=${encodeURIComponent(reference)}`,
    );
    expect(found.status).toBe(200);
    expect(found.body.data.map((p) => p.id)).toEqual([first.id, second.id]);
    const none = await t.api.request<{ data: PaymentBody[] }>('GET', '/v1/payments?reference=nothing-here');
    expect(none.body).toEqual({ data: [] });
    expectError(await t.api.request('GET', '/v1/payments'), 400, 'invalid_request');
    expectError(await t.api.request('GET', '/v1/payments?reference=a&reference=b'), 400, 'invalid_request');
    expectError(await t.api.request('GET', '/v1/payments?reference=a&limit=2'), 400, 'invalid_request');
  });
});

describe('card attempts', () => {
  const approved = [TEST_CARDS.visa, TEST_CARDS.mastercard, TEST_CARDS.troy] as const;

  it.each(approved)('$number ($brand) succeeds', async (card) => {
    const payment = await createPayment(t.api);
    const response = await authorize(t.api, payment.id, card.number);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('succeeded');
    expect(response.body.card).toEqual({
      brand: card.brand,
      last4: card.number.slice(-4),
      expMonth: 12,
      expYear: 2099,
    });
    expect(response.body.attempt).toEqual({ outcome: 'succeeded', failure: null });
    expect(response.text).not.toContain(card.number);
    expect(response.text).not.toContain('"cvc"');
  });

  it('any other Luhn-valid number succeeds, with the brand of its first digits', async () => {
    const payment = await createPayment(t.api);
    const response = await authorize(t.api, payment.id, '378282246310005');
    expect(response.body.status).toBe('succeeded');
    expect(response.body.card?.brand).toBe('amex');
  });

  const declines = [
    [TEST_CARDS.insufficientFunds, 'insufficient_funds'],
    [TEST_CARDS.stolenCard, 'stolen_card'],
    [TEST_CARDS.cardDeclined, 'card_declined'],
    [TEST_CARDS.expiredCard, 'expired_card'],
    [TEST_CARDS.incorrectCvc, 'incorrect_cvc'],
    [TEST_CARDS.processingError, 'processing_error'],
  ] as const;

  it.each(declines)('$number is declined with %s', async (card, code) => {
    const payment = await createPayment(t.api);
    const response = await authorize(t.api, payment.id, card.number);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('awaiting_payment');
    expect(response.body.attempts).toBe(1);
    expect(response.body.failure).toEqual({ code, message: expect.any(String) });
    expect(response.body.attempt).toEqual({ outcome: 'declined', failure: response.body.failure });
  });

  it('3-D Secure cards open a challenge', async () => {
    const payment = await createPayment(t.api);
    const response = await authorize(t.api, payment.id, TEST_CARDS.challenge.number);
    expect(response.body.status).toBe('requires_action');
    expect(response.body.attempt).toEqual({ outcome: 'challenge', failure: null });
    expect(response.body.challenge).toEqual({
      id: expect.stringMatching(/^3ds_[0-9a-z]{26}$/),
      url: `${t.acquirer.url}/3ds/${response.body.challenge?.id}`,
    });
    // While the challenge is open the payment takes no other card.
    expectError(
      await authorize(t.api, payment.id, TEST_CARDS.visa.number),
      409,
      'invalid_state',
      'requires_action',
    );
  });

  it('fails at the maxAttempts-th decline, with the last decline as failure', async () => {
    const payment = await createPayment(t.api, { maxAttempts: 2 });
    const first = await authorize(t.api, payment.id, TEST_CARDS.insufficientFunds.number);
    expect(first.body).toMatchObject({ status: 'awaiting_payment', attempts: 1 });
    const second = await authorize(t.api, payment.id, TEST_CARDS.stolenCard.number);
    expect(second.body).toMatchObject({ status: 'failed', attempts: 2, failure: { code: 'stolen_card' } });
    expect(second.body.attempt?.outcome).toBe('declined');
    expectError(await authorize(t.api, payment.id, TEST_CARDS.visa.number), 409, 'invalid_state', 'failed');
  });

  it('defaults to 3 attempts; a later good card still succeeds', async () => {
    const payment = await createPayment(t.api);
    await authorize(t.api, payment.id, TEST_CARDS.cardDeclined.number);
    await authorize(t.api, payment.id, TEST_CARDS.cardDeclined.number);
    const third = await authorize(t.api, payment.id, TEST_CARDS.visa.number);
    expect(third.body).toMatchObject({ status: 'succeeded', attempts: 2, card: { last4: '4242' } });
    const other = await createPayment(t.api);
    for (let i = 0; i < 3; i += 1) await authorize(t.api, other.id, TEST_CARDS.cardDeclined.number);
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${other.id}`);
    expect(read.body).toMatchObject({ status: 'failed', attempts: 3 });
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['a number that fails Luhn', { number: '4242424242424241' }, /Luhn/],
    ['a number with spaces', { number: '4242 4242 4242 4242' }, /12 to 19 digits/],
    ['a short number', { number: '42424242424' }, /12 to 19 digits/],
    ['a number as a JSON number', { number: 4242424242424242 }, /number must be/],
    ['a past expiry (by the clock)', { expMonth: 10, expYear: 2026 }, /expired/],
    ['a month of 13', { expMonth: 13 }, /expMonth/],
    ['a two-digit year', { expYear: 30 }, /expYear/],
    ['a 2-digit CVC', { cvc: '12' }, /cvc must be/],
    ['a 5-digit CVC', { cvc: '12345' }, /cvc must be/],
    ['a CVC as a number', { cvc: 123 }, /cvc must be/],
    ['no returnUrl', { returnUrl: undefined }, /returnUrl is required/],
    ['a javascript: returnUrl', { returnUrl: 'javascript:alert(1)' }, /returnUrl must be an http/],
    ['an unknown field', { pin: '0000' }, /Unknown field "pin"/],
  ];

  it.each(invalid)('%s: 400 invalid_request, echoing nothing', async (_name, overrides, message) => {
    const payment = await createPayment(t.api);
    const response = await t.api.request('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.visa.number, overrides),
    });
    expect(expectError(response, 400, 'invalid_request', 'awaiting_payment').message).toMatch(message);
    expect(response.text).not.toContain('4242424242424');
  });

  it('the expiry month of now is still valid; holderName is optional', async () => {
    const payment = await createPayment(t.api);
    const response = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.visa.number, {
        expMonth: 11,
        expYear: 2026,
        holderName: undefined,
        cvc: '1234',
      }),
    });
    expect(response.body.status).toBe('succeeded');
  });

  it('unknown payment 404; a bank-transfer payment takes no card: 409 invalid_state', async () => {
    expectError(await authorize(t.api, 'pay_unknown', TEST_CARDS.visa.number), 404, 'payment_not_found');
    const transfer = await createPayment(t.api, { method: 'bank_transfer' });
    expectError(
      await authorize(t.api, transfer.id, TEST_CARDS.visa.number),
      409,
      'invalid_state',
      'awaiting_payment',
    );
  });
});

describe('bank transfers', () => {
  it('a bank-transfer payment says where to send the money', async () => {
    const payment = await createPayment(t.api, { method: 'bank_transfer' });
    expect(payment.status).toBe('awaiting_payment');
    expect(payment.bankTransfer).toEqual({
      iban: expect.stringMatching(/^TR[0-9]{24}$/),
      accountHolder: 'Sandbox Acquirer A.Ş.',
      paymentReference: expect.stringMatching(/^SA[0-9A-Z]{8}$/),
    });
    expect(ibanValid(payment.bankTransfer?.iban ?? '')).toBe(true);
  });

  it('the right amount (or none, or an empty body) makes it succeeded', async () => {
    const withAmount = await createPayment(t.api, { method: 'bank_transfer' });
    const matched = await t.api.request<PaymentBody>(
      'POST',
      `/v1/payments/${withAmount.id}/simulate-transfer`,
      {
        body: { amount: '12550' },
      },
    );
    expect(matched.status).toBe(200);
    expect(matched.body).toMatchObject({ status: 'succeeded', failure: null });
    const again = await t.api.request('POST', `/v1/payments/${withAmount.id}/simulate-transfer`, {
      body: {},
    });
    expectError(again, 409, 'invalid_state', 'succeeded');

    const withoutBody = await createPayment(t.api, { method: 'bank_transfer' });
    const noBody = await t.api.request<PaymentBody>(
      'POST',
      `/v1/payments/${withoutBody.id}/simulate-transfer`,
    );
    expect(noBody.body.status).toBe('succeeded');
  });

  it('another amount makes it failed with amount_mismatch', async () => {
    const payment = await createPayment(t.api, { method: 'bank_transfer' });
    const response = await t.api.request<PaymentBody>(
      'POST',
      `/v1/payments/${payment.id}/simulate-transfer`,
      {
        body: { amount: '100' },
      },
    );
    expect(response.body).toMatchObject({ status: 'failed', failure: { code: 'amount_mismatch' } });
  });

  it('refuses card payments, bad amounts and unknown payments', async () => {
    const card = await createPayment(t.api);
    const refused = await t.api.request('POST', `/v1/payments/${card.id}/simulate-transfer`, { body: {} });
    expectError(refused, 409, 'invalid_state', 'awaiting_payment');
    const transfer = await createPayment(t.api, { method: 'bank_transfer' });
    const bad = await t.api.request('POST', `/v1/payments/${transfer.id}/simulate-transfer`, {
      body: { amount: 5 },
    });
    expectError(bad, 400, 'invalid_request', 'awaiting_payment');
    expectError(
      await t.api.request('POST', '/v1/payments/pay_x/simulate-transfer', { body: {} }),
      404,
      'payment_not_found',
    );
  });
});

describe('cancel', () => {
  it('cancels an unpaid payment; canceling again answers it unchanged', async () => {
    const payment = await createPayment(t.api);
    clock.advance(1000);
    const canceled = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/cancel`, {
      body: {},
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    clock.advance(1000);
    const again = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(canceled.body);
    expectError(await authorize(t.api, payment.id, TEST_CARDS.visa.number), 409, 'invalid_state', 'canceled');
  });

  it('cancels a payment with an open challenge, which then cannot be completed', async () => {
    const payment = await createPayment(t.api);
    const challenged = await authorize(t.api, payment.id, TEST_CARDS.challenge.number);
    const canceled = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/cancel`, {
      body: {},
    });
    expect(canceled.body).toMatchObject({ status: 'canceled', challenge: null });
    const late = await t.api.request('POST', `/v1/payments/${payment.id}/challenge`, {
      body: { code: '123456' },
    });
    expectError(late, 409, 'invalid_state', 'canceled');
    const page = await t.api.request('GET', `/3ds/${challenged.body.challenge?.id}`, { apiKey: null });
    expectError(page, 409, 'invalid_state', 'canceled');
  });

  it('a succeeded or failed payment: 409 invalid_state', async () => {
    const payment = await createPayment(t.api);
    await authorize(t.api, payment.id, TEST_CARDS.visa.number);
    expectError(
      await t.api.request('POST', `/v1/payments/${payment.id}/cancel`, { body: {} }),
      409,
      'invalid_state',
      'succeeded',
    );
    const failed = await createPayment(t.api, { maxAttempts: 1 });
    await authorize(t.api, failed.id, TEST_CARDS.cardDeclined.number);
    expectError(
      await t.api.request('POST', `/v1/payments/${failed.id}/cancel`, { body: {} }),
      409,
      'invalid_state',
      'failed',
    );
    const bad = await t.api.request('POST', `/v1/payments/${payment.id}/cancel`, { body: { reason: 'x' } });
    expectError(bad, 400, 'invalid_request', 'succeeded');
  });
});

describe('refunds', () => {
  async function paidPayment(amount = '10000'): Promise<PaymentBody> {
    const payment = await createPayment(t.api, { amount });
    return (await authorize(t.api, payment.id, TEST_CARDS.visa.number)).body;
  }
  const refund = (paymentId: string, amount: unknown, key: string | null = uniqueReference()) =>
    t.api.request<Record<string, unknown>>('POST', `/v1/payments/${paymentId}/refunds`, {
      headers: key === null ? {} : { 'idempotency-key': key },
      body: { amount },
    });

  it('partial then full refunds; the same key replays; more than remains is refused', async () => {
    const payment = await paidPayment();
    const key = uniqueReference();
    const first = await refund(payment.id, '4000', key);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^rf_[0-9a-z]{26}$/),
      paymentId: payment.id,
      amount: '4000',
      status: 'succeeded',
      createdAt: expect.any(String),
    });
    const afterFirst = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(afterFirst.body).toMatchObject({ status: 'partially_refunded', refundedAmount: '4000' });
    expect(afterFirst.body.refunds).toEqual([first.body]);

    const replay = await refund(payment.id, '4000', key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expectError(await refund(payment.id, '4001', key), 409, 'idempotency_conflict', 'partially_refunded');

    const tooMuch = await refund(payment.id, '6001');
    expectError(tooMuch, 400, 'refund_exceeds_payment', 'partially_refunded');

    const rest = await refund(payment.id, '6000');
    expect(rest.status).toBe(201);
    const refunded = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(refunded.body).toMatchObject({ status: 'refunded', refundedAmount: '10000' });
    expect(refunded.body.refunds.map((r) => r.amount)).toEqual(['4000', '6000']);
    expectError(await refund(payment.id, '1'), 409, 'invalid_state', 'refunded');
    // A replay still answers after the payment is fully refunded.
    expect((await refund(payment.id, '4000', key)).status).toBe(200);
  });

  it('one full refund at once; a key of another payment conflicts', async () => {
    const payment = await paidPayment('500');
    const key = uniqueReference();
    expect((await refund(payment.id, '500', key)).status).toBe(201);
    const other = await paidPayment('500');
    expectError(await refund(other.id, '500', key), 409, 'idempotency_conflict', 'refunded');
  });

  it('refuses unpaid payments, bad amounts and a missing key', async () => {
    const unpaid = await createPayment(t.api);
    expectError(await refund(unpaid.id, '1'), 409, 'invalid_state', 'awaiting_payment');
    const payment = await paidPayment();
    expectError(await refund(payment.id, '0'), 400, 'invalid_request', 'succeeded');
    expectError(await refund(payment.id, 5), 400, 'invalid_request', 'succeeded');
    expectError(await refund(payment.id, '1', null), 400, 'invalid_request', 'succeeded');
    expectError(await refund('pay_none', '1'), 404, 'payment_not_found');
  });
});

describe('card data', () => {
  it('the logger never receives a card number or CVC', async () => {
    const payment = await createPayment(t.api);
    await t.api.request('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.mastercard.number, { cvc: '9753' }),
    });
    // A body that is not JSON, and one that fails validation, both holding a card number.
    await t.api.request('POST', `/v1/payments/${payment.id}/authorize`, {
      rawBody: `{"number":"${TEST_CARDS.troy.number}","cvc":"8642"`,
      headers: { 'content-type': 'application/json' },
    });
    const other = await createPayment(t.api);
    await t.api.request('POST', `/v1/payments/${other.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.troy.number, { cvc: '8642', expYear: 2001 }),
    });
    const log = logLines.join('');
    expect(log).toContain(payment.id);
    for (const secret of [TEST_CARDS.mastercard.number, TEST_CARDS.troy.number, '"9753"', '"8642"']) {
      expect(log).not.toContain(secret);
    }
    // A member named cvc anywhere in a log line (not the letters alone: random ids in URLs can hold them).
    expect(log).not.toMatch(/"cvc"\s*:/i);
  });
});

describe('GET /v1/settlement-reports/{date}', () => {
  it('lists the payments that succeeded and the refunds made on a UTC date, with totals', async () => {
    clock.set(new Date('2026-12-01T23:59:58.000Z'));
    const first = await createPayment(t.api, { amount: '10000' });
    await authorize(t.api, first.id, TEST_CARDS.visa.number);
    const unpaid = await createPayment(t.api, { amount: '777' });
    clock.set(new Date('2026-12-02T00:00:01.000Z'));
    const second = await createPayment(t.api, { amount: '2500' });
    await authorize(t.api, second.id, TEST_CARDS.visa.number);
    const refunded = await t.api.request<{ id: string }>('POST', `/v1/payments/${first.id}/refunds`, {
      headers: { 'idempotency-key': uniqueReference() },
      body: { amount: '4000' },
    });
    expect(refunded.status).toBe(201);

    const dayOne = await t.api.request<Record<string, unknown>>('GET', '/v1/settlement-reports/2026-12-01');
    expect(dayOne.status, dayOne.text).toBe(200);
    expect(dayOne.body).toEqual({
      date: '2026-12-01',
      currency: 'TRY',
      // Refunded the next day, the payment still counts on the day it succeeded.
      payments: [
        {
          id: first.id,
          reference: first.reference,
          amount: '10000',
          succeededAt: '2026-12-01T23:59:58.000Z',
        },
      ],
      refunds: [],
      totals: { payments: '10000', refunds: '0', net: '10000' },
    });
    const dayTwo = await t.api.request<{
      payments: Array<{ id: string }>;
      refunds: unknown[];
      totals: unknown;
    }>('GET', '/v1/settlement-reports/2026-12-02');
    expect(dayTwo.body.payments.map((payment) => payment.id)).toEqual([second.id]);
    expect(dayTwo.body.payments.map((payment) => payment.id)).not.toContain(unpaid.id);
    expect(dayTwo.body.refunds).toEqual([
      {
        id: refunded.body.id,
        paymentId: first.id,
        reference: first.reference,
        amount: '4000',
        createdAt: '2026-12-02T00:00:01.000Z',
      },
    ]);
    expect(dayTwo.body.totals).toEqual({ payments: '2500', refunds: '4000', net: '-1500' });
    clock.set(START);
  });

  it('refuses a date that is not a calendar date, and a missing key', async () => {
    for (const date of ['2026-02-30', '20261201', 'yesterday']) {
      expectError(await t.api.request('GET', `/v1/settlement-reports/${date}`), 400, 'invalid_request');
    }
    const anonymous = await t.api.request('GET', '/v1/settlement-reports/2026-12-01', { apiKey: null });
    expect(anonymous.status).toBe(401);
  });
});
