// Charges made and read over plain HTTP with a merchant's key, as a merchant's system calls the API.
import { expect } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import type { Environment } from '../../src/db/schema.js';
import { luhnValid } from '../../src/shared/card-numbers.js';
import { apiRequest } from './client.js';
import type { TestGateway } from './gateway.js';
import { request, validCharge, type HttpResult } from './http.js';
import { apiUrl, type Merchant } from './merchants.js';

/** A charge as the checkout tests read it. */
export interface CheckoutCharge {
  id: string;
  status: string;
  providerPaymentId: string;
  providerStatus: string;
  paymentPageUrl: string;
  expiresAt: string;
}

/** A valid charge with `overrides`, created with the merchant's key of `environment` (201 expected). */
export async function postCharge<T>(
  t: TestGateway,
  merchant: Merchant,
  overrides: Record<string, unknown> = {},
  environment: Environment = 'sandbox',
): Promise<T> {
  const res = await request<T>(`${apiUrl(t.urls, environment)}/v1/charges`, {
    method: 'POST',
    body: validCharge(overrides),
    headers: { 'x-api-key': merchant.keys[environment].secret },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** `GET /v1/charges/{id}` with the merchant's key of `environment`. */
export function readCharge<T>(
  t: TestGateway,
  merchant: Merchant,
  id: string,
  environment: Environment = 'sandbox',
): Promise<HttpResult<T>> {
  return request<T>(`${apiUrl(t.urls, environment)}/v1/charges/${id}`, {
    headers: { 'x-api-key': merchant.keys[environment].secret },
  });
}

const sandboxCall = <T>(t: TestGateway, merchant: Merchant, path: string, body?: unknown) =>
  apiRequest<T>(t.urls, path, { body, key: merchant.keys.sandbox.secret });

/** A sandbox charge of `amount` paid by card at the acquirer, its success applied as the checkout does. */
export async function cardPaidCharge<T extends { id: string; providerPaymentId: string }>(
  t: TestGateway,
  merchant: Merchant,
  amount: number,
  holderName: string,
): Promise<T> {
  const res = await sandboxCall<T>(t, merchant, '/v1/charges', validCharge({ amount }));
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, holderName);
  return res.body;
}

type Services = TestGateway['gateway']['services'];

export interface PayByCardOptions {
  /** The card's number: the Visa test card's unless told. */
  number?: string;
  returnUrl?: string;
  environment?: Environment;
}

/**
 * Pays the charge by card at its environment's acquirer (sandbox unless told) and applies the answer as
 * the checkout applies it.
 */
export async function payByCard(
  services: Services,
  charge: { id: string; providerPaymentId: string },
  holderName: string,
  {
    number = TEST_CARDS.visa.number,
    returnUrl = 'https://shop.example/back',
    environment = 'sandbox',
  }: PayByCardOptions = {},
): Promise<void> {
  const acquirer = services.acquirers[environment]?.acquirer;
  if (!acquirer) throw new Error(`no ${environment} acquirer`);
  const payment = await acquirer.authorize(
    charge.providerPaymentId,
    { number, expMonth: 12, expYear: 2030, cvc: '123', holderName },
    returnUrl,
  );
  await services.completion.apply(charge.id, payment);
}

/** A valid sandbox charge of the organization made by the charges service itself, as a request makes it. */
export async function serviceCharge(services: Services, organizationId: string) {
  const charge = await services.charges.create(
    { organizationId, environment: 'sandbox' },
    validCharge() as Parameters<Services['charges']['create']>[1],
    { idempotencyKey: undefined },
  );
  if (!charge.ok) throw new Error(charge.error.code);
  return charge.value;
}

/** `POST /v1/charges/{id}/refunds` with the merchant's sandbox key (and `headers`); the raw answer. */
export const postRefund = <T>(
  t: TestGateway,
  merchant: Merchant,
  chargeId: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  apiRequest<T>(t.urls, `/v1/charges/${chargeId}/refunds`, {
    method: 'POST',
    body,
    headers,
    key: merchant.keys.sandbox.secret,
  });

/** A refund of the sandbox charge (in full without `amount`) that succeeded at once. */
export async function succeededRefund(t: TestGateway, merchant: Merchant, chargeId: string, amount?: number) {
  const res = await sandboxCall<{ id: string; status: string }>(
    t,
    merchant,
    `/v1/charges/${chargeId}/refunds`,
    amount === undefined ? {} : { amount },
  );
  expect(res.status, res.text).toBe(201);
  expect(res.body.status).toBe('succeeded');
  return res.body;
}

/** The merchant's sandbox TRY balance from `GET /v1/balance`. */
export async function tryBalanceOf<T extends { currency: string }>(
  t: TestGateway,
  merchant: Merchant,
): Promise<T> {
  const res = await sandboxCall<{ balances: T[] }>(t, merchant, '/v1/balance');
  expect(res.status, res.text).toBe(200);
  const row = res.body.balances.find((balance) => balance.currency === 'TRY');
  if (!row) throw new Error('no TRY balance');
  return row;
}

/** A Luhn-valid Visa-like number that no test card uses: the sandbox approves it. */
export function freshCardNumber(): string {
  for (;;) {
    const body = `4${Array.from({ length: 14 }, () => Math.floor(Math.random() * 10)).join('')}`;
    // The sandbox declines generated numbers of the card-testing range (docs/sandbox-acquirer.md).
    if (body.startsWith('4000012')) continue;
    for (let check = 0; check < 10; check++) {
      const number = `${body}${check}`;
      if (luhnValid(number)) return number;
    }
  }
}
