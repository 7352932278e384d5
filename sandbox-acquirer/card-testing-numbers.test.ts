import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_TESTING_PREFIX, DECLINE_MESSAGES, luhnValid, TEST_CARDS } from './cards.js';
import {
  authorize,
  cardAttempt,
  createPayment,
  startTestAcquirer,
  type ErrorBody,
  type PaymentBody,
  type TestAcquirer,
} from './test-support.js';

// Every Luhn-valid number beginning 4000 012 is declined `do_not_honor` (docs/sandbox-acquirer.md, "Test
// cards"): what an issuer answers a card-testing bot's generated numbers.

let t: TestAcquirer;

beforeAll(async () => {
  t = await startTestAcquirer();
});
afterAll(async () => {
  await t?.close();
});

/** A Luhn-valid number of `length` digits: `prefix`, random digits, and the check digit that fits. */
function generated(prefix: string, length = 16): string {
  const body = `${prefix}${Array.from({ length: length - prefix.length - 1 }, () => Math.floor(Math.random() * 10)).join('')}`;
  for (let check = 0; check < 10; check += 1) {
    if (luhnValid(`${body}${check}`)) return `${body}${check}`;
  }
  throw new Error('unreachable: one check digit always fits');
}

const DO_NOT_HONOR = { code: 'do_not_honor', message: DECLINE_MESSAGES.do_not_honor };

describe('the card-testing range 4000 012', () => {
  it('declines every generated Luhn-valid number, of any length, with do_not_honor', async () => {
    const numbers = [generated(CARD_TESTING_PREFIX), generated(CARD_TESTING_PREFIX), '4000012000000007'];
    numbers.push(generated(CARD_TESTING_PREFIX, 13), generated(CARD_TESTING_PREFIX, 19));
    for (const number of numbers) {
      const payment = await createPayment(t.api, { maxAttempts: 10 });
      const response = await authorize(t.api, payment.id, number);
      expect(response.status, response.text).toBe(200);
      expect(response.body, number).toMatchObject({
        status: 'awaiting_payment',
        attempts: 1,
        failure: DO_NOT_HONOR,
        attempt: { outcome: 'declined', failure: DO_NOT_HONOR },
        card: { brand: 'visa', last4: number.slice(-4) },
        challenge: null,
      });
      expect(response.text).not.toContain(number);
    }
  });

  it('counts each decline as an attempt: a burst fails the payment at maxAttempts, and a real card still pays another', async () => {
    const payment = await createPayment(t.api, { maxAttempts: 3 });
    const statuses: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await authorize(t.api, payment.id, generated(CARD_TESTING_PREFIX))).body.status);
    }
    expect(statuses).toEqual(['awaiting_payment', 'awaiting_payment', 'failed']);
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.body).toMatchObject({ status: 'failed', attempts: 3, failure: DO_NOT_HONOR });

    const other = await createPayment(t.api);
    expect((await authorize(t.api, other.id, TEST_CARDS.visa.number)).body.status).toBe('succeeded');
  });

  it('is declined, never challenged, when the authorization requires 3-D Secure', async () => {
    const payment = await createPayment(t.api);
    const response = await t.api.request<PaymentBody>('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(generated(CARD_TESTING_PREFIX), { threeDSecure: 'required' }),
    });
    expect(response.body).toMatchObject({
      status: 'awaiting_payment',
      challenge: null,
      attempt: { outcome: 'declined', failure: DO_NOT_HONOR },
    });
  });

  it('ends at its prefix: 4000 010…, 4000 011… and 4000 013… succeed, and a number failing Luhn is refused first', async () => {
    for (const prefix of ['4000010', '4000011', '4000013']) {
      const payment = await createPayment(t.api);
      const number = generated(prefix);
      const response = await authorize(t.api, payment.id, number);
      expect(response.body.status, number).toBe('succeeded');
    }
    const payment = await createPayment(t.api);
    const valid = generated(CARD_TESTING_PREFIX);
    const broken = `${valid.slice(0, -1)}${(Number(valid.slice(-1)) + 1) % 10}`;
    const refused = await t.api.request<ErrorBody>('POST', `/v1/payments/${payment.id}/authorize`, {
      body: cardAttempt(broken),
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', status: 'awaiting_payment' });
    const read = await t.api.request<PaymentBody>('GET', `/v1/payments/${payment.id}`);
    expect(read.body).toMatchObject({ status: 'awaiting_payment', attempts: 0 });
  });

  it('leaves the named test cards as they are', async () => {
    for (const card of Object.values(TEST_CARDS)) {
      expect(card.number.startsWith(CARD_TESTING_PREFIX), card.number).toBe(false);
    }
    const payment = await createPayment(t.api);
    const response = await authorize(t.api, payment.id, TEST_CARDS.insufficientFunds.number);
    expect(response.body.failure).toMatchObject({ code: 'insufficient_funds' });
  });
});
