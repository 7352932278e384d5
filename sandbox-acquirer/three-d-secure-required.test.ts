import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from './cards.js';
import {
  cardAttempt,
  createPayment,
  waitFor,
  type DisputeBody,
  type ErrorBody,
  type PaymentBody,
  type TestAcquirer,
  startTestAcquirer,
} from './test-support.js';

// `threeDSecure` of POST /v1/payments/{id}/authorize (docs/sandbox-acquirer.md): `required` opens the
// challenge for any card that would otherwise succeed; absent, null or `automatic` is the card's own rule.

let t: TestAcquirer;

beforeAll(async () => {
  t = await startTestAcquirer({ disputeDelayMs: 10 });
});
afterAll(async () => {
  await t?.close();
});

async function attempt(number: string, threeDSecure?: unknown) {
  const payment = await createPayment(t.api);
  const body = cardAttempt(number, threeDSecure === undefined ? {} : { threeDSecure });
  const response = await t.api.request<PaymentBody & ErrorBody>(
    'POST',
    `/v1/payments/${payment.id}/authorize`,
    { body },
  );
  return { payment, response };
}

const answer = (paymentId: string, code: string) =>
  t.api.request<PaymentBody & ErrorBody>('POST', `/v1/payments/${paymentId}/challenge`, { body: { code } });

describe('threeDSecure: "required"', () => {
  it('opens the challenge for a card that would succeed; 123456 completes it', async () => {
    const { payment, response } = await attempt(TEST_CARDS.visa.number, 'required');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      status: 'requires_action',
      card: { brand: 'visa', last4: '4242' },
      attempt: { outcome: 'challenge', failure: null },
    });
    expect(response.body.challenge?.url).toBe(`${t.acquirer.url}/3ds/${response.body.challenge?.id}`);

    const completed = await answer(payment.id, '123456');
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ status: 'succeeded', challenge: null, attempts: 0 });
  });

  it('is completed by the challenge page form too', async () => {
    const { payment, response } = await attempt(TEST_CARDS.mastercard.number, 'required');
    const page = await fetch(response.body.challenge?.url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('•••• 4444');
    const posted = await fetch(response.body.challenge?.url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=123456',
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(`https://shop.example/return?order=42&payment=${payment.id}`);
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.body.status).toBe('succeeded');
  });

  it('declines a wrong code as the challenge card does (authentication_failed), and the next attempt is challenged again', async () => {
    const { payment } = await attempt(TEST_CARDS.visa.number, 'required');
    const wrong = await answer(payment.id, '000000');
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'challenge_failed', status: 'awaiting_payment' });
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.body).toMatchObject({
      status: 'awaiting_payment',
      attempts: 1,
      failure: { code: 'authentication_failed' },
    });

    const again = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.visa.number, { threeDSecure: 'required' }),
    });
    expect(again.body).toMatchObject({ status: 'requires_action', attempt: { outcome: 'challenge' } });
  });

  it('leaves the declining cards declined and the failing challenge failing', async () => {
    const declined = await attempt(TEST_CARDS.insufficientFunds.number, 'required');
    expect(declined.response.body).toMatchObject({
      status: 'awaiting_payment',
      challenge: null,
      attempt: { outcome: 'declined', failure: { code: 'insufficient_funds' } },
    });

    const fails = await attempt(TEST_CARDS.challengeFails.number, 'required');
    expect(fails.response.body.status).toBe('requires_action');
    expect((await answer(fails.payment.id, '123456')).body.error).toMatchObject({ code: 'challenge_failed' });
  });

  it('raises a dispute card’s case once its required challenge succeeded', async () => {
    const { payment, response } = await attempt(TEST_CARDS.disputeFraudulent.number, 'required');
    expect(response.body.status).toBe('requires_action');
    expect((await answer(payment.id, '123456')).body.status).toBe('succeeded');
    const disputes = await waitFor(async () => {
      const listed = await t.api.request<{ data: DisputeBody[] }>(
        'GET',
        `/v1/payments/${payment.id}/disputes`,
      );
      return listed.body.data.length > 0 ? listed.body.data : undefined;
    });
    expect(disputes).toMatchObject([{ kind: 'dispute', reason: 'fraudulent', paymentId: payment.id }]);
  });
});

describe('threeDSecure absent, null or "automatic"', () => {
  it('is today’s behaviour: the Visa card succeeds, the challenge card opens its challenge', async () => {
    for (const value of [undefined, null, 'automatic']) {
      const visa = await attempt(TEST_CARDS.visa.number, value);
      expect(visa.response.body, String(value)).toMatchObject({
        status: 'succeeded',
        attempt: { outcome: 'succeeded' },
      });
      const challenge = await attempt(TEST_CARDS.challenge.number, value);
      expect(challenge.response.body.status, String(value)).toBe('requires_action');
    }
  });
});

describe('validation', () => {
  it('refuses any other value with 400 invalid_request and changes nothing', async () => {
    for (const value of ['REQUIRED', 'always', true, 1, {}, '']) {
      const { payment, response } = await attempt(TEST_CARDS.visa.number, value);
      expect(response.status, JSON.stringify(value)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', status: 'awaiting_payment' });
      expect(response.body.error.message).toBe('threeDSecure must be "automatic" or "required".');
      const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
      expect(read.body).toMatchObject({ status: 'awaiting_payment', attempts: 0, card: null });
    }
  });

  it('still refuses unknown members', async () => {
    const payment = await createPayment(t.api);
    const response = await t.api.request<ErrorBody>('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(TEST_CARDS.visa.number, { threeDSecure: 'required', threeDS: 'required' }),
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });
});
