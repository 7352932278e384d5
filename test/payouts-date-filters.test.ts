/**
 * `GET /v1/payouts?createdFrom=` and `createdTo=` (found by an audit of the read side): RFC 3339's
 * `date-time` admits a leap second (`2026-06-30T23:59:60Z`) and the year 0000. No JavaScript Date reads
 * the first (an Invalid Date reached the query: 500 on PGlite and PostgreSQL), and PostgreSQL refuses the
 * second as PGlite sends it (500 on PGlite). Every `date-time` the API reads is now refused unless it is
 * an instant the service can use as written (src/http/validation.ts): 400 `validation_failed` at the
 * parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import type { ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

let t: TestGateway;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestGateway({ env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } });
  merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
});
afterAll(async () => t?.close());

describe('GET /v1/payouts date filters', () => {
  it.each([
    ['createdFrom', '2026-06-30T23:59:60Z'],
    ['createdTo', '2026-06-30T23:59:60Z'],
    ['createdFrom', '2026-12-31T23:59:60%2B03:00'],
    ['createdFrom', '0000-01-01T00:00:00Z'],
    ['createdTo', '0000-06-01T00:00:00Z'],
  ])('%s=%s is refused at the parameter, never a 500', async (name, value) => {
    const res = await apiRequest<{ data: unknown[] } & ErrorBody>(t.urls, `/v1/payouts?${name}=${value}`, {
      key: merchant.keys.sandbox.secret,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details?.issues?.[0]).toMatchObject({ path: name, in: 'query' });
  });

  it('takes an ordinary instant, with its offset', async () => {
    for (const value of ['2026-06-30T23:59:59Z', '2026-06-30T23:59:59.999%2B03:00']) {
      const res = await apiRequest<{ data: unknown[] }>(t.urls, `/v1/payouts?createdFrom=${value}`, {
        key: merchant.keys.sandbox.secret,
      });
      expect(res.status, res.text).toBe(200);
    }
  });
});
