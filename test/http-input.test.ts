/**
 * Malformed input is never a 500 (issue 11, items 11 to 13; docs/decisions/0011-untrusted-input.md):
 * NUL characters and lone UTF-16 surrogates in any body, query or path parameter, JSON nested thousands
 * of levels deep, bodies in a charset other than UTF-8 and numbers in a query written other than in
 * decimal, on every listener: both APIs, the web listener (application form, dashboard, checkout pages),
 * the operator listener and the acquirer's notification receiver.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEST_ENV, createActiveUser, WebClient } from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { type OperatorClient, cliClient } from './helpers/operator.js';

let t: TestGateway;
let merchant: Merchant;
let operator: OperatorClient;
let dashboard: WebClient;

beforeAll(async () => {
  t = await startTestGateway({ env: ACCOUNT_TEST_ENV });
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'events'] });
  operator = cliClient(t);
  const user = await createActiveUser(t);
  dashboard = new WebClient(t.urls.web);
  const login = await dashboard.login(user.email, user.password);
  expect(login.status).toBe(303);
});
afterAll(async () => t?.close());

const api = () => t.urls.sandboxApi;
const key = () => ({ 'x-api-key': merchant.keys.sandbox.secret });

function expectEnvelope(
  res: { status: number; headers: Headers; text: string },
  status: number,
  code: string,
) {
  expect(res.status, res.text).toBe(status);
  const body = JSON.parse(res.text) as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.requestId).toMatch(/^req_/);
  return body;
}

function expectIssue(res: HttpResult, path: string, where = 'body') {
  const body = expectEnvelope(res, 400, 'validation_failed');
  expect(body.error.details?.issues).toContainEqual(
    expect.objectContaining({ path, in: where, code: 'invalid_value' }),
  );
  return body;
}

/** JSON text with `\u0000`, `\ud800` or `\udc00` escapes where the marker stood. */
function jsonWith(value: unknown, marker: string, escape: string): string {
  const text = JSON.stringify(value);
  expect(text).toContain(marker);
  return text.replaceAll(marker, escape);
}

const BAD_ESCAPES = ['\\u0000', '\\ud800', '\\udfff', 'x\\ud83dy'];

function signed(body: string) {
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const secret = t.gateway.services.acquirers.sandbox.notificationSecret;
  return {
    'content-type': 'application/json',
    'acquirer-timestamp': String(timestamp),
    'acquirer-signature': createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'),
  };
}

describe('item 11: NUL and lone surrogates in bodies are 400 validation_failed naming the field', () => {
  it.each(BAD_ESCAPES)(
    'charges: merchantReference, metadata names and values, customer (%s)',
    async (escape) => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [validCharge({ merchantReference: 'order-MARK' }), 'merchantReference'],
        [validCharge({ metadata: { note: 'MARK' } }), 'metadata.note'],
        [validCharge({ metadata: { MARK: 'value' } }), 'metadata.<name>'],
        [validCharge({ metadata: { list: ['ok', { deep: 'aMARKb' }] } }), 'metadata.list.1.deep'],
        [validCharge({ customer: { name: 'Ayşe MARK' } }), 'customer.name'],
      ];
      for (const [body, path] of cases) {
        const res = await request(`${api()}/v1/charges`, {
          rawBody: jsonWith(body, 'MARK', escape),
          headers: { ...key(), 'content-type': 'application/json' },
        });
        const error = expectIssue(res, path);
        expect(error.error.message).not.toContain('\u0000');
      }
    },
  );

  it.each(BAD_ESCAPES)('the application form on the API and on the web listener (%s)', async (escape) => {
    for (const base of [t.urls.sandboxApi, t.urls.liveApi, t.urls.web]) {
      for (const field of ['companyName', 'contactName', 'whySwitching', 'telegram']) {
        const res = await request(`${base}/v1/applications`, {
          rawBody: jsonWith(validApplication({ [field]: 'Anatolia MARK' }), 'MARK', escape),
          headers: { 'content-type': 'application/json' },
        });
        expectIssue(res, field);
      }
    }
  });

  it('api keys, webhook endpoints and refunds', async () => {
    const headers = { ...key(), 'content-type': 'application/json' };
    const cases: Array<[string, unknown, string]> = [
      ['/v1/api-keys', { name: 'ci MARK', scopes: ['read'] }, 'name'],
      ['/v1/webhook-endpoints', { url: 'https://hooks.example/MARK', events: ['charge.succeeded'] }, 'url'],
      ['/v1/charges/ch_nothing/refunds', { amount: 100, reason: 'MARK' }, 'reason'],
    ];
    for (const [path, body, field] of cases) {
      for (const escape of BAD_ESCAPES) {
        expectIssue(
          await request(`${api()}${path}`, { rawBody: jsonWith(body, 'MARK', escape), headers }),
          field,
        );
      }
    }
  });

  it('the operator API', async () => {
    const created = await request<{ id: string }>(`${api()}/v1/applications`, { body: validApplication() });
    expect(created.status).toBe(201);
    for (const escape of BAD_ESCAPES) {
      const res = await fetch(`${operator.base}/operator/v1/applications/${created.body.id}/reject`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.gateway.operatorCliToken ?? ''}`,
          'content-type': 'application/json',
        },
        body: jsonWith({ reason: 'not MARK today' }, 'MARK', escape),
      });
      const text = await res.text();
      expectIssue({ status: res.status, headers: res.headers, text, body: JSON.parse(text) }, 'reason');
    }
  });

  it('forms of the dashboard and of the checkout pages: NUL is refused, never a 500', async () => {
    const anonymous = new WebClient(t.urls.web);
    const login = await anonymous.submit('/login', {
      email: 'owner\u0000@merchant.example',
      password: 'x\u0000',
    });
    expect(login.status).toBe(400);
    const csrf = await dashboard.sessionCsrf();
    const created = await dashboard.postForm('/dashboard/api-keys', {
      _csrf: csrf,
      name: 'key\u0000',
      scopes: 'read',
    });
    expect(created.status).toBe(400);
    const charge = await request<{ paymentPageUrl: string }>(`${api()}/v1/charges`, {
      body: validCharge(),
      headers: key(),
    });
    expect(charge.status).toBe(201);
    const page = new URL(charge.body.paymentPageUrl).pathname;
    const card = await anonymous.postForm(`${page}/card`, {
      holderName: 'Ayşe\u0000',
      cardNumber: '',
      expiry: '12/30',
      cvc: '123',
    });
    expect(card.status).toBe(400);
  });

  it('the query string: NUL or a lone surrogate in any parameter is 400', async () => {
    for (const value of ['%00', 'a%00b']) {
      expectIssue(
        await request(`${api()}/v1/charges?cursor=${value}`, { headers: key() }),
        'cursor',
        'query',
      );
      expectIssue(await request(`${api()}/v1/events?type=${value}`, { headers: key() }), 'type', 'query');
    }
    const nameRes = await request(`${api()}/v1/charges?x%00=1`, { headers: key() });
    expectIssue(nameRes, '<name>', 'query');
  });

  it('a signed acquirer notification with NUL or a lone surrogate is 400, not a 500', async () => {
    for (const escape of BAD_ESCAPES) {
      const body = jsonWith(
        {
          id: 'ntf_MARK',
          type: 'payment.updated',
          payment: { id: 'pay_x', reference: 'ch_x', status: 'succeeded' },
        },
        'MARK',
        escape,
      );
      const res = await request(`${api()}/webhooks/v1/payments`, { rawBody: body, headers: signed(body) });
      expectIssue(res, 'id');
    }
  });
});

describe('item 11: invalid bytes in a path parameter are 404 or 400, never a 500', () => {
  const paths = ['%00', 'ch_%00', 'x%00y', '%00%00%00'];

  it('API routes, with a valid key', async () => {
    for (const param of paths) {
      for (const route of [
        '/v1/charges/:id',
        '/v1/charges/:id/refunds',
        '/v1/charges/:id/webhook-deliveries',
        '/v1/api-keys/:id',
        '/v1/webhook-endpoints/:id',
        '/v1/events/:id',
      ]) {
        const res = await request(`${api()}${route.replace(':id', param)}`, { headers: key() });
        expectEnvelope(res, 404, 'not_found');
      }
      const post = await request(`${api()}/v1/api-keys/${param}/revoke`, { method: 'POST', headers: key() });
      expectEnvelope(post, 404, 'not_found');
    }
  });

  it('checkout pages, the dashboard and account links on the web listener', async () => {
    for (const param of paths) {
      for (const path of [`/c/${param}`, `/c/${param}/status`, `/c/${param}/return`, `/activate/${param}`]) {
        const res = await request(`${t.urls.web}${path}`);
        expect(res.status, path).toBe(404);
      }
      const card = await request(`${t.urls.web}/c/${param}/card`, {
        rawBody: 'holderName=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(card.status).toBe(404);
      for (const path of [`/dashboard/webhooks/${param}`, `/dashboard/webhooks/${param}/edit`]) {
        expect((await dashboard.get(path)).status, path).toBe(404);
      }
    }
  });

  it('the operator API, authenticated', async () => {
    for (const param of paths) {
      for (const path of [
        `/operator/v1/applications/${param}`,
        `/operator/v1/organizations/${param}`,
        `/operator/v1/emails/${param}`,
      ]) {
        expectEnvelope(await operator.get(path), 404, 'not_found');
      }
    }
  });

  it('percent-encoded bytes that are not UTF-8 are 400 on every listener', async () => {
    for (const base of [t.urls.sandboxApi, t.urls.web, t.urls.operator]) {
      for (const param of ['%C0%80', '%ED%A0%80', '%FF', '%E2%82']) {
        const res = await request(`${base}/c/${param}`);
        expect([400, 404]).toContain(res.status);
        expect(res.status).not.toBe(500);
      }
    }
  });
});

describe('item 12: deeply nested JSON is refused at parse time with 400', () => {
  const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

  it('thousands of levels, a few KB, on every JSON route of every listener', async () => {
    for (const nested of [deepArray(5000), deepObject(3000), `{"metadata":${deepArray(20000)}}`]) {
      const targets: Array<[string, Record<string, string>]> = [
        [`${api()}/v1/charges`, key()],
        [`${t.urls.liveApi}/v1/charges`, { 'x-api-key': merchant.keys.live.secret }],
        [`${api()}/v1/applications`, {}],
        [`${t.urls.web}/v1/applications`, {}],
        [`${api()}/v1/api-keys`, key()],
        [`${api()}/v1/webhook-endpoints`, key()],
        [`${t.urls.web}/v1/auth/forgot-password`, {}],
      ];
      for (const [url, headers] of targets) {
        const res = await request(url, {
          rawBody: nested,
          headers: { ...headers, 'content-type': 'application/json' },
        });
        const body = expectEnvelope(res, 400, 'validation_failed');
        expect(body.error.details?.issues?.[0]).toMatchObject({ path: '', in: 'body', code: 'invalid_json' });
      }
      const op = await fetch(`${operator.base}/operator/v1/applications/app_x/reject`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.gateway.operatorCliToken ?? ''}`,
          'content-type': 'application/json',
        },
        body: nested,
      });
      expect(op.status).toBe(400);
      const notification = await request(`${api()}/webhooks/v1/payments`, {
        rawBody: nested,
        headers: signed(nested),
      });
      expectEnvelope(notification, 400, 'validation_failed');
    }
  });

  it('nesting up to the limit is still read', async () => {
    let value: unknown = 'leaf';
    for (let level = 0; level < 29; level++) value = { level: value };
    const res = await request(`${api()}/v1/charges`, {
      body: validCharge({ metadata: { deep: value } }),
      headers: key(),
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('item 13: bodies in UTF-8 only, decimal integers only in queries', () => {
  it.each(['utf-16', 'UTF-16LE', 'iso-8859-1', 'latin1', '"utf-16"', 'us-ascii'])(
    'Content-Type application/json; charset=%s is 415 on every listener',
    async (charset) => {
      const contentType = `application/json; charset=${charset}`;
      const cases: Array<[string, Record<string, string>]> = [
        [`${api()}/v1/applications`, {}],
        [`${api()}/v1/charges`, key()],
        [`${t.urls.web}/v1/applications`, {}],
        [`${api()}/webhooks/v1/payments`, {}],
        [`${operator.base}/operator/v1/session`, {}],
      ];
      for (const [url, headers] of cases) {
        const res = await request(url, {
          rawBody: JSON.stringify(validApplication()),
          headers: { ...headers, 'content-type': contentType },
        });
        expectEnvelope(res, 415, 'unsupported_media_type');
      }
      const form = await request(`${t.urls.web}/login`, {
        rawBody: 'email=a%40b.example&password=x',
        headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` },
      });
      expect(form.status).toBe(415);
    },
  );

  it('UTF-8 in any spelling is read', async () => {
    for (const charset of ['utf-8', 'UTF-8', '"utf-8"', 'utf8']) {
      const res = await request(`${api()}/v1/applications`, {
        rawBody: JSON.stringify(validApplication()),
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expect(res.status, charset).toBe(201);
    }
  });

  it.each(['0x10', '1e1', '0b1', '0o7', '+10', ' 10', '10 ', 'Infinity', '1_0', '١٠'])(
    'limit=%s is 400 invalid_type on every list',
    async (limit) => {
      for (const path of ['/v1/charges', '/v1/webhook-endpoints', '/v1/events']) {
        const res = await request(`${api()}${path}?limit=${encodeURIComponent(limit)}`, { headers: key() });
        const body = expectEnvelope(res, 400, 'validation_failed');
        expect(body.error.details?.issues).toContainEqual(
          expect.objectContaining({ path: 'limit', in: 'query', code: 'invalid_type' }),
        );
      }
    },
  );

  it('decimal limits still work', async () => {
    for (const limit of ['1', '10', '100', '010']) {
      const res = await request(`${api()}/v1/charges?limit=${limit}`, { headers: key() });
      expect(res.status, limit).toBe(200);
    }
    expectEnvelope(
      await request(`${api()}/v1/charges?limit=101`, { headers: key() }),
      400,
      'validation_failed',
    );
  });
});

describe('metadata key names are as long as the schema says, no longer', () => {
  it('a charge takes a 100-character key and refuses a 101-character one with 400 naming metadata', async () => {
    const post = (name: string) =>
      request<ErrorBody>(`${api()}/v1/charges`, {
        method: 'POST',
        headers: key(),
        body: validCharge({ metadata: { [name]: 'v' } }),
      });
    expect((await post('k'.repeat(100))).status).toBe(201);
    const refused = expectEnvelope(await post('k'.repeat(101)), 400, 'validation_failed');
    expect(refused.error.details?.issues).toEqual([
      { path: 'metadata.<name>', in: 'body', code: 'too_long', message: 'must be at most 100 characters' },
    ]);
    expect(refused.error.message).not.toContain('k'.repeat(101));
  });
});

describe('number literals are read as written (docs/decisions/0052), on every JSON listener', () => {
  const charge = (members: string) =>
    request<ErrorBody & { amount?: string; metadata?: Record<string, unknown> }>(`${api()}/v1/charges`, {
      rawBody: `{"currency":"TRY","paymentMethod":"bank_transfer","merchantReference":"num-${Math.random().toString(36).slice(2)}",${members}}`,
      headers: { ...key(), 'content-type': 'application/json' },
    });

  it.each([
    ['0.99999999999999999', 'invalid_type'],
    ['1.0000000000000001', 'invalid_type'],
    ['9007199254740991.4', 'invalid_type'],
    ['100.00000000000000001', 'invalid_type'],
    ['1.00000000000000001e2', 'invalid_type'],
    ['1e-400', 'invalid_type'],
    ['9007199254740993', 'too_large'],
    ['1e400', 'too_large'],
  ])('amount %s, which JSON.parse rounds to an integer, is 400 naming amount (%s)', async (literal, code) => {
    const res = await charge(`"amount":${literal}`);
    const body = expectEnvelope(res, 400, 'validation_failed');
    expect(body.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'amount', in: 'body', code }),
    ]);
  });

  it('metadata numbers: an integer beyond 2^53 or one that rounded is refused by its path; fractions are kept', async () => {
    const big = await charge(`"amount":100,"metadata":{"ids":[1,123456789012345678901234567890]}`);
    expect(expectEnvelope(big, 400, 'validation_failed').error.details?.issues).toEqual([
      expect.objectContaining({ path: 'metadata.ids.1', code: 'too_large' }),
    ]);
    const rounded = await charge(`"amount":100,"metadata":{"a":{"b":2.00000000000000001},"c":3}`);
    expect(expectEnvelope(rounded, 400, 'validation_failed').error.details?.issues).toEqual([
      expect.objectContaining({ path: 'metadata.a.b', code: 'invalid_type' }),
    ]);
    const kept = await charge(
      `"amount":100,"metadata":{"price":19.99,"rate":0.1,"tiny":1e-7,"n":9007199254740991}`,
    );
    expect(kept.status, kept.text).toBe(201);
    expect(kept.body.metadata).toEqual({ price: 19.99, rate: 0.1, tiny: 1e-7, n: 9007199254740991 });
  });

  it('integers written with a zero fraction or an exponent read as before: 12.0, 1e2, 1.5e3', async () => {
    for (const [literal, amount] of [
      ['12.0', '12'],
      ['1e2', '100'],
      ['1.5e3', '1500'],
      ['12550', '12550'],
    ]) {
      const res = await charge(`"amount":${literal}`);
      expect(res.status, `${literal}: ${res.text}`).toBe(201);
      expect(res.body.amount).toBe(amount);
    }
    expectEnvelope(await charge(`"amount":12.5`), 400, 'validation_failed');
  });

  it('the application form on the API and web listeners, and the operator API', async () => {
    const raw = JSON.stringify(validApplication()).replace('250000', '999.99999999999999');
    for (const url of [`${api()}/v1/applications`, `${t.urls.web}/v1/applications`]) {
      const res = await request(url, { rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(expectEnvelope(res, 400, 'validation_failed').error.details?.issues).toEqual([
        expect.objectContaining({ path: 'monthlyVolumeUSD', code: 'invalid_type' }),
      ]);
    }
    const operatorRes = await request(`${operator.base}/operator/v1/session`, {
      rawBody: '{"email":"a@b.example","password":"x","n":1.00000000000000001}',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectEnvelope(operatorRes, 400, 'validation_failed').error.details?.issues).toEqual([
      expect.objectContaining({ path: 'n', code: 'invalid_type' }),
    ]);
  });
});
