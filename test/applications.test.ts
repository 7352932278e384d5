import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../src/shared/clock.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request, validApplication, type ErrorBody } from './helpers/http.js';

let t: TestGateway;
let api: string;

beforeAll(async () => {
  t = await startTestGateway();
  api = `${t.urls.sandboxApi}/v1/applications`;
});
afterAll(async () => t?.close());

async function submit(body: unknown, headers: Record<string, string> = {}) {
  return request<Record<string, unknown> & ErrorBody>(api, { body, headers });
}

type Issue = { path: string; code: string };

async function expectIssues(body: unknown, expected: Issue[]) {
  const res = await submit(body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.requestId).toMatch(/^req_[0-9a-z]{29}$/);
  expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId);
  const issues = (res.body.error.details?.issues ?? []).map(({ path, code }) => ({ path, code }));
  expect(issues).toEqual(expect.arrayContaining(expected));
  expect(issues).toHaveLength(expected.length);
  for (const issue of res.body.error.details?.issues ?? []) {
    expect(issue.in).toBe('body');
    expect(issue.message.length).toBeGreaterThan(0);
  }
  return res;
}

describe('POST /v1/applications: accepted', () => {
  it('creates an application with id, status NEW and a millisecond timestamp, and stores it', async () => {
    const res = await submit(
      validApplication({ telegram: '@ayse', currentAcquirer: 'Acme Pay', whySwitching: 'Fees' }),
    );
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'status']);
    expect(res.body.id).toMatch(/^app_[0-9a-z]{29}$/);
    expect(res.body.status).toBe('NEW');
    expect(res.body.createdAt).toBe('2026-11-23T10:00:00.000Z');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);

    const row = await t.testDb.database.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', res.body.id as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'NEW',
      company_name: 'Anatolia Trading Ltd',
      vertical: 'forex',
      monthly_volume_usd: '250000',
      contact_email: 'ayse@anatolia.example',
      telegram: '@ayse',
      current_acquirer: 'Acme Pay',
      why_switching: 'Fees',
      vertical_other: null,
      submitted_ip: '127.0.0.1',
    });
  });

  it('needs no API key, and ignores one that is sent', async () => {
    const res = await submit(validApplication(), { 'x-api-key': 'sk_test_garbage' });
    expect(res.status).toBe(201);
  });

  it('is served on the live API and on the public web listener too', async () => {
    for (const base of [t.urls.liveApi, t.urls.web]) {
      const res = await request<{ id: string }>(`${base}/v1/applications`, { body: validApplication() });
      expect(res.status).toBe(201);
      expect(res.body.id).toMatch(/^app_/);
    }
  });

  it('accepts every vertical of the enum', async () => {
    for (const vertical of [
      'forex',
      'betting',
      'iptv',
      'adult',
      'dating',
      'nutra',
      'dropshipping',
      'cryptoSaaS',
      'affiliate',
    ]) {
      expect((await submit(validApplication({ vertical }))).status).toBe(201);
    }
    expect(
      (await submit(validApplication({ vertical: 'other', verticalOther: 'Skill gaming' }))).status,
    ).toBe(201);
  });

  it('accepts the boundaries: monthlyVolumeUSD 1000 and the largest safe integer, whySwitching of 2000 characters', async () => {
    expect((await submit(validApplication({ monthlyVolumeUSD: 1000 }))).status).toBe(201);
    expect((await submit(validApplication({ monthlyVolumeUSD: Number.MAX_SAFE_INTEGER }))).status).toBe(201);
    expect((await submit(validApplication({ whySwitching: 'x'.repeat(2000) }))).status).toBe(201);
    expect((await submit(validApplication({ whySwitching: 'ş'.repeat(2000) }))).status).toBe(201);
  });

  it('trims strings before checking and storing them; empty optional strings mean absent', async () => {
    const res = await submit(
      validApplication({
        companyName: '  Bosphorus Media  ',
        contactEmail: ' media@bosphorus.example ',
        telegram: '   ',
      }),
    );
    expect(res.status).toBe(201);
    const row = await t.testDb.database.db
      .selectFrom('applications')
      .select(['company_name', 'contact_email', 'telegram'])
      .where('id', '=', res.body.id as string)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      company_name: 'Bosphorus Media',
      contact_email: 'media@bosphorus.example',
      telegram: null,
    });
  });

  it('escapes nothing and stores hostile text verbatim (pages escape on output)', async () => {
    const name = `<script>alert(1)</script>'; DROP TABLE applications; --`;
    const res = await submit(validApplication({ companyName: name }));
    expect(res.status).toBe(201);
    const row = await t.testDb.database.db
      .selectFrom('applications')
      .select('company_name')
      .where('id', '=', res.body.id as string)
      .executeTakeFirstOrThrow();
    expect(row.company_name).toBe(name);
  });
});

describe('POST /v1/applications: every rule of spec 2.1', () => {
  it.each([
    ['companyName'],
    ['jurisdiction'],
    ['vertical'],
    ['monthlyVolumeUSD'],
    ['contactName'],
    ['contactEmail'],
  ])('%s is required', async (field) => {
    const body = validApplication();
    delete body[field];
    await expectIssues(body, [{ path: field, code: 'required' }]);
  });

  it('lists every problem at once', async () => {
    await expectIssues({}, [
      { path: 'companyName', code: 'required' },
      { path: 'jurisdiction', code: 'required' },
      { path: 'vertical', code: 'required' },
      { path: 'monthlyVolumeUSD', code: 'required' },
      { path: 'contactName', code: 'required' },
      { path: 'contactEmail', code: 'required' },
    ]);
  });

  it.each([['companyName'], ['jurisdiction'], ['contactName']])(
    '%s may not be empty or blank',
    async (field) => {
      await expectIssues(validApplication({ [field]: '' }), [{ path: field, code: 'too_short' }]);
      await expectIssues(validApplication({ [field]: '   ' }), [{ path: field, code: 'too_short' }]);
    },
  );

  it('vertical must be one of the enum (case-sensitive)', async () => {
    await expectIssues(validApplication({ vertical: 'casino' }), [
      { path: 'vertical', code: 'invalid_value' },
    ]);
    await expectIssues(validApplication({ vertical: 'FOREX' }), [
      { path: 'vertical', code: 'invalid_value' },
    ]);
    await expectIssues(validApplication({ vertical: 'cryptosaas' }), [
      { path: 'vertical', code: 'invalid_value' },
    ]);
  });

  it('verticalOther is required when vertical is "other", and may not be blank', async () => {
    await expectIssues(validApplication({ vertical: 'other' }), [
      { path: 'verticalOther', code: 'required' },
    ]);
    await expectIssues(validApplication({ vertical: 'other', verticalOther: '  ' }), [
      { path: 'verticalOther', code: 'too_short' },
    ]);
  });

  it('verticalOther is refused with any other vertical', async () => {
    await expectIssues(validApplication({ vertical: 'forex', verticalOther: 'Something' }), [
      { path: 'verticalOther', code: 'invalid_value' },
    ]);
  });

  it.each([
    [999, 'too_small'],
    [0, 'too_small'],
    [-5000, 'too_small'],
    [1000.5, 'invalid_type'],
    ['5000', 'invalid_type'],
    [null, 'invalid_type'],
    [true, 'invalid_type'],
    [Number.MAX_SAFE_INTEGER + 2, 'too_large'],
  ])('monthlyVolumeUSD %j is refused with %s', async (value, code) => {
    await expectIssues(validApplication({ monthlyVolumeUSD: value }), [{ path: 'monthlyVolumeUSD', code }]);
  });

  it('monthlyVolumeUSD written as 1e400 (not a finite number) is refused', async () => {
    const raw = JSON.stringify(validApplication()).replace('250000', '1e400');
    const res = await request<ErrorBody>(api, {
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.issues?.[0]).toMatchObject({ path: 'monthlyVolumeUSD' });
  });

  it('monthlyVolumeUSD written as 999.99999999999999 (below 1000, not an integer; JSON.parse makes 1000 of it) is refused', async () => {
    const raw = JSON.stringify(validApplication()).replace('250000', '999.99999999999999');
    const res = await request<ErrorBody>(api, {
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'monthlyVolumeUSD', code: 'invalid_type' }),
    ]);
  });

  it('a card number in any field is refused on every listener, the web one included, and stores nothing', async () => {
    const before = await countApplications();
    const body = validApplication({ whySwitching: 'pay with 4242 4242 4242 4242' });
    for (const base of [t.urls.sandboxApi, t.urls.liveApi, t.urls.web]) {
      const res = await request<ErrorBody>(`${base}/v1/applications`, { body });
      expect(res.status, `${base}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details?.issues).toContainEqual(
        expect.objectContaining({ path: 'whySwitching', code: 'invalid_value' }),
      );
      expect(res.text).not.toContain('4242');
    }
    expect(await countApplications()).toBe(before);
  });

  it('whySwitching is at most 2000 characters', async () => {
    await expectIssues(validApplication({ whySwitching: 'x'.repeat(2001) }), [
      { path: 'whySwitching', code: 'too_long' },
    ]);
  });

  it.each(['not-an-email', 'a@', '@example.com', 'a b@example.com', 'ayşe@@example.com', ''])(
    'contactEmail %j is not a valid e-mail address',
    async (email) => {
      const res = await submit(validApplication({ contactEmail: email }));
      expect(res.status).toBe(400);
      expect(res.body.error.details?.issues).toEqual([
        expect.objectContaining({ path: 'contactEmail', code: 'invalid_format' }),
      ]);
    },
  );

  it('contactEmail is bounded at 254 characters', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`;
    await expectIssues(validApplication({ contactEmail: email }), [
      { path: 'contactEmail', code: 'too_long' },
    ]);
  });

  it.each([
    ['companyName', 201],
    ['jurisdiction', 101],
    ['contactName', 201],
    ['currentAcquirer', 201],
    ['telegram', 101],
  ])('%s is bounded (%i characters refused)', async (field, length) => {
    await expectIssues(validApplication({ [field]: 'x'.repeat(length) }), [
      { path: field, code: 'too_long' },
    ]);
  });

  it.each([
    ['companyName', 42],
    ['jurisdiction', ['TR']],
    ['contactName', { first: 'A' }],
    ['currentAcquirer', 1],
    ['whySwitching', false],
    ['telegram', 7],
    ['vertical', 3],
    ['contactEmail', 12],
  ])('%s must be a string', async (field, value) => {
    const res = await submit(validApplication({ [field]: value }));
    expect(res.status).toBe(400);
    expect(res.body.error.details?.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: field, code: expect.stringMatching(/invalid_type|invalid_value/) }),
      ]),
    );
  });

  it('refuses unknown fields by name', async () => {
    await expectIssues(validApplication({ website: 'https://x.example', nested: { a: 1 } }), [
      { path: 'website', code: 'unknown_field' },
      { path: 'nested', code: 'unknown_field' },
    ]);
  });

  it.each([[[]], ['string'], [42], [null]])('a body that is not an object (%j) is refused', async (body) => {
    const res = await request<ErrorBody>(api, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details?.issues?.[0]).toMatchObject({ path: '', code: 'invalid_type' });
  });

  it('stores nothing when a request is refused', async () => {
    const before = await countApplications();
    await submit(validApplication({ monthlyVolumeUSD: 5 }));
    await submit(validApplication({ vertical: 'other' }));
    expect(await countApplications()).toBe(before);
  });
});

describe('POST /v1/applications: X-Idempotency-Key', () => {
  it('returns the original response for the same key and body, and files once', async () => {
    const key = `apply-${Date.now()}`;
    const before = await countApplications();
    const first = await submit(validApplication(), { 'x-idempotency-key': key });
    const again = await submit(validApplication(), { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await countApplications()).toBe(before + 1);
  });

  it('ignores member order and whitespace in the body', async () => {
    const key = `order-${Date.now()}`;
    const body = validApplication();
    const first = await submit(body, { 'x-idempotency-key': key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await request(api, {
      rawBody: JSON.stringify(reordered, null, 4),
      headers: { 'content-type': 'application/json', 'x-idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
  });

  it('refuses the same key with a different body: 409 idempotency_key_reuse', async () => {
    const key = `reuse-${Date.now()}`;
    expect((await submit(validApplication(), { 'x-idempotency-key': key })).status).toBe(201);
    const res = await submit(validApplication({ companyName: 'Other Co' }), { 'x-idempotency-key': key });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reuse');
    expect(res.body.error.requestId).toMatch(/^req_/);
  });

  it('replays a validation refusal too (a final outcome)', async () => {
    const key = `invalid-${Date.now()}`;
    const first = await submit(validApplication({ monthlyVolumeUSD: 10 }), { 'x-idempotency-key': key });
    const again = await submit(validApplication({ monthlyVolumeUSD: 10 }), { 'x-idempotency-key': key });
    expect(first.status).toBe(400);
    expect(again.status).toBe(400);
    // The stored refusal, naming the request that received it (issue 11): error.requestId = X-Request-Id.
    const replayed = again.body as { error: { requestId: string } };
    const original = first.body as { error: { requestId: string } };
    expect(replayed.error.requestId).toBe(again.headers.get('x-request-id'));
    expect({ ...replayed, error: { ...replayed.error, requestId: original.error.requestId } }).toEqual(
      original,
    );
  });

  it('answers concurrent duplicates with one application: the rest replay it or get 409 duplicate_request', async () => {
    const key = `burst-${Date.now()}`;
    const before = await countApplications();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        submit(validApplication({ companyName: 'Burst Co' }), { 'x-idempotency-key': key }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const conflicts = results.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(20);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const conflict of conflicts) expect(conflict.body.error.code).toBe('duplicate_request');
    expect(await countApplications()).toBe(before + 1);
  });

  it('forgets a key after 24 hours', async () => {
    const key = `expiry-${Date.now()}`;
    const first = await submit(validApplication(), { 'x-idempotency-key': key });
    t.clock.advance(DAY - 1000);
    const within = await submit(validApplication({ companyName: 'Changed' }), { 'x-idempotency-key': key });
    expect(within.status).toBe(409);
    t.clock.advance(1000);
    const after = await submit(validApplication({ companyName: 'Changed' }), { 'x-idempotency-key': key });
    expect(after.status).toBe(201);
    expect(after.body.id).not.toBe(first.body.id);
  });

  it('refuses a malformed key with validation_failed on the header', async () => {
    const res = await submit(validApplication(), { 'x-idempotency-key': 'has spaces in it' });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.issues).toEqual([
      expect.objectContaining({ path: 'X-Idempotency-Key', in: 'header', code: 'invalid_format' }),
    ]);
    const long = await submit(validApplication(), { 'x-idempotency-key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
  });
});

describe('POST /v1/applications: abuse protection', () => {
  it('limits each client address: 429 too_many_requests with Retry-After, in the envelope', async () => {
    const limited = await startTestGateway({
      env: { APPLICATION_RATE_LIMIT_MAX: '3', APPLICATION_RATE_LIMIT_WINDOW_MS: '60000' },
    });
    try {
      const url = `${limited.urls.sandboxApi}/v1/applications`;
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof request<ErrorBody>>> | undefined;
      for (let i = 0; i < 5; i++) {
        last = await request<ErrorBody>(url, { body: validApplication() });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      expect(last?.body.error.code).toBe('too_many_requests');
      expect(last?.body.error.requestId).toMatch(/^req_/);
      expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(last?.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      const stored = await limited.testDb.database.db.selectFrom('applications').select('id').execute();
      expect(stored).toHaveLength(3);
    } finally {
      await limited.close();
    }
  });

  it('refuses a body over the size limit with 413 payload_too_large', async () => {
    const res = await submit(validApplication({ whySwitching: 'x'.repeat(70_000) }));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});

async function countApplications(): Promise<number> {
  const row = await t.testDb.database.db
    .selectFrom('applications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
