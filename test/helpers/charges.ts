// Charges made and read over plain HTTP with a merchant's key, as a merchant's system calls the API.
import { expect } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import type { Environment } from '../../src/db/schema.js';
import { apiRequest } from './client.js';
import type { TestGateway } from './gateway.js';
import { request, validCharge, type HttpResult } from './http.js';
import { apiUrl, type Merchant } from './merchants.js';

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
  const payment = await t.gateway.services.acquirers.sandbox.acquirer.authorize(
    res.body.providerPaymentId,
    { number: TEST_CARDS.visa.number, expMonth: 12, expYear: 2030, cvc: '123', holderName },
    'https://shop.example/back',
  );
  await t.gateway.services.completion.apply(res.body.id, payment);
  return res.body;
}

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
