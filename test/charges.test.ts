/**
 * POST /v1/charges, GET /v1/charges/{id} and GET /v1/charges through the running gateway and the sandbox
 * acquirer over a socket (spec sections 2.2 to 2.4, 4, 7 and 8; product decisions 1, 15 to 17 and 21).
 */
import { describe, expect, it } from 'vitest';
import { MINUTE } from '../src/shared/clock.js';
import { acquirerControl } from './helpers/acquirer.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';

interface ChargeBody {
  id: string;
  amount: string;
  currency: string;
  paymentMethod: string;
  merchantReference: string;
  status: string;
  paymentPageUrl: string;
  providerPaymentId: string;
  providerStatus: string;
  customer: { name: string | null; email: string | null; phone: string | null; reference: string | null };
  metadata: Record<string, unknown> | null;
  returnUrl: string | null;
  livemode: boolean;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}
type Body = ChargeBody & ErrorBody;
interface ListBody {
  data: ChargeBody[];
  nextCursor: string | null;
}

const VIEW_FIELDS = [
  'amount',
  'amountRefunded',
  'card',
  'createdAt',
  'currency',
  'customer',
  'expiresAt',
  'failure',
  'id',
  'livemode',
  'merchantReference',
  'metadata',
  'paymentMethod',
  'paymentPageUrl',
  'providerPaymentId',
  'providerStatus',
  'returnUrl',
  'status',
  'updatedAt',
];
const MS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CARD = '4242424242424242';

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t);
});

const db = () => t.gateway.database.db;

function api<T = Body>(path: string, init: ApiInit = {}): Promise<HttpResult<T>> {
  return apiRequest<T>(t.urls, path, {
    ...init,
    key: init.key ?? merchant.keys[init.environment ?? 'sandbox'].secret,
  });
}

const createCharge = (body: unknown, init: Parameters<typeof api>[1] = {}) =>
  api('/v1/charges', { method: 'POST', body, ...init });

function expectValidation(res: HttpResult<Body>, path: string, code?: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  const issue = res.body.error.details?.issues?.find((candidate) => candidate.path === path);
  expect(issue, `an issue at ${path} in ${res.text}`).toBeDefined();
  if (code) expect(issue?.code).toBe(code);
}

describe('POST /v1/charges', () => {
  it('creates a pending charge and its acquirer payment, and answers the ChargeView', async () => {
    const body = validCharge({
      amount: 12550,
      customer: {
        name: 'Ayşe Yılmaz',
        email: 'ayse@example.com',
        phone: '+90 532 123 45 67',
        reference: 'cust-77',
        idNumber: '10000000146',
      },
      metadata: { orderId: 1042, tags: ['vip'], nested: { a: true } },
      returnUrl: 'https://shop.example/return',
    });
    const res = await createCharge(body);
    expect(res.status, res.text).toBe(201);
    const charge = res.body;
    expect(Object.keys(charge).sort()).toEqual(VIEW_FIELDS);
    expect(charge.id).toMatch(/^ch_[0-9a-z]{29}$/);
    expect(charge.amount).toBe('12550');
    expect(charge.currency).toBe('TRY');
    expect(charge.paymentMethod).toBe('credit_card_tr');
    expect(charge.merchantReference).toBe(body.merchantReference);
    expect(charge.status).toBe('pending');
    expect(charge.providerPaymentId).toMatch(/^pay_/);
    expect(charge.paymentPageUrl).toBe(`${t.urls.web}/c/${charge.providerPaymentId}`);
    expect(charge.providerStatus).toBe('awaiting_payment');
    expect(charge.customer).toEqual({
      name: 'Ayşe Yılmaz',
      email: 'ayse@example.com',
      phone: '+90 532 123 45 67',
      reference: 'cust-77',
    });
    expect(charge.metadata).toEqual({ orderId: 1042, tags: ['vip'], nested: { a: true } });
    expect(charge.returnUrl).toBe('https://shop.example/return');
    expect(charge.livemode).toBe(false);
    for (const stamp of [charge.createdAt, charge.updatedAt, charge.expiresAt])
      expect(stamp).toMatch(MS_TIMESTAMP);
    expect(charge.createdAt).toBe(t.clock.now().toISOString());
    expect(Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)).toBe(24 * 60 * MINUTE);
    expect(res.text).not.toContain('10000000146');

    // The acquirer has exactly this payment, keyed by the charge id.
    const payments = await acquirerControl(t.sandboxAcquirer).paymentsFor(charge.id);
    expect(payments.map((payment) => [payment.id, payment.amount, payment.method])).toEqual([
      [charge.providerPaymentId, '12550', 'card'],
    ]);
  });

  it('stores the customer ID number encrypted, and never returns or logs it', async () => {
    const idNumber = '29871234560';
    const res = await createCharge(validCharge({ customer: { name: 'Mehmet', idNumber } }));
    expect(res.status).toBe(201);
    const row = await db()
      .selectFrom('charges')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.customer_id_number_enc).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(idNumber);
    expect(t.gateway.services.box.open(row.customer_id_number_enc ?? '')).toBe(idNumber);
    const fetched = await api(`/v1/charges/${res.body.id}`);
    expect(fetched.text).not.toContain(idNumber);
    expect(t.logs.join('\n')).not.toContain(idNumber);
  });

  it('takes every payment method; bank transfers are bank transfers at the acquirer', async () => {
    for (const paymentMethod of ['bank_transfer', 'credit_card_tr', 'credit_card_international']) {
      const res = await createCharge(validCharge({ paymentMethod }));
      expect(res.status, res.text).toBe(201);
      expect(res.body.paymentMethod).toBe(paymentMethod);
      const payment = await acquirerControl(t.sandboxAcquirer).payment(res.body.providerPaymentId);
      expect(payment.method).toBe(paymentMethod === 'bank_transfer' ? 'bank_transfer' : 'card');
    }
  });

  it('accepts the limits exactly: 1 and 2^53-1, a 120-character reference, 8192 bytes of metadata', async () => {
    const metadata = { blob: 'x'.repeat(8192 - '{"blob":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBe(8192);
    for (const body of [
      validCharge({ amount: 1 }),
      validCharge({ amount: Number.MAX_SAFE_INTEGER }),
      validCharge({ merchantReference: 'r'.repeat(120) }),
      validCharge({ metadata }),
    ]) {
      const res = await createCharge(body);
      expect(res.status, res.text).toBe(201);
      expect(res.body.amount).toBe(String(body.amount));
    }
  });

  it('refuses amounts that are not positive safe integers', async () => {
    const cases: Array<[string, string]> = [
      ['125.5', 'invalid_type'],
      ['"12550"', 'invalid_type'],
      ['0', 'too_small'],
      ['-1', 'too_small'],
      ['9007199254740992', 'too_large'],
      ['1e300', 'too_large'],
      ['null', 'invalid_type'],
      ['true', 'invalid_type'],
    ];
    for (const [index, [amount, code]] of cases.entries()) {
      const raw = `{"amount":${amount},"currency":"TRY","paymentMethod":"bank_transfer","merchantReference":"amount-${index}"}`;
      expectValidation(
        await createCharge(undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } }),
        'amount',
        code,
      );
    }
    expectValidation(await createCharge(validCharge({ amount: undefined })), 'amount', 'required');
  });

  it('refuses another currency, an unknown method, a long or blank reference and unknown members', async () => {
    expectValidation(await createCharge(validCharge({ currency: 'USD' })), 'currency', 'invalid_value');
    expectValidation(await createCharge(validCharge({ currency: 'try' })), 'currency', 'invalid_value');
    expectValidation(
      await createCharge(validCharge({ paymentMethod: 'crypto' })),
      'paymentMethod',
      'invalid_value',
    );
    expectValidation(
      await createCharge(validCharge({ merchantReference: 'r'.repeat(121) })),
      'merchantReference',
      'too_long',
    );
    expectValidation(
      await createCharge(validCharge({ merchantReference: '' })),
      'merchantReference',
      'too_short',
    );
    expectValidation(await createCharge(validCharge({ merchantReference: ' padded ' })), 'merchantReference');
    expectValidation(await createCharge(validCharge({ merchantReference: 'a\u0000b' })), 'merchantReference');
    expectValidation(await createCharge(validCharge({ description: 'x' })), 'description', 'unknown_field');
    expectValidation(await createCharge({}), 'merchantReference', 'required');
  });

  it('checks the customer members and refuses unknown ones', async () => {
    expectValidation(
      await createCharge(validCharge({ customer: { email: 'not-an-email' } })),
      'customer.email',
      'invalid_format',
    );
    expectValidation(await createCharge(validCharge({ customer: { phone: 'call me' } })), 'customer.phone');
    expectValidation(
      await createCharge(validCharge({ customer: { address: 'x' } })),
      'customer.address',
      'unknown_field',
    );
    expectValidation(await createCharge(validCharge({ customer: 'Ayşe' })), 'customer', 'invalid_type');
    expectValidation(
      await createCharge(validCharge({ customer: { name: 'n'.repeat(201) } })),
      'customer.name',
      'too_long',
    );
  });

  it('refuses metadata that is not an object or is over 8 KB serialized', async () => {
    expectValidation(await createCharge(validCharge({ metadata: ['a'] })), 'metadata', 'invalid_type');
    expectValidation(await createCharge(validCharge({ metadata: 'note' })), 'metadata', 'invalid_type');
    const over = { blob: 'x'.repeat(8193 - '{"blob":""}'.length) };
    expectValidation(await createCharge(validCharge({ metadata: over })), 'metadata', 'too_large');
    // Multi-byte characters count in bytes: 3000 × 'ğ' is 6000 bytes, 4200 is over.
    expectValidation(
      await createCharge(validCharge({ metadata: { note: 'ğ'.repeat(4200) } })),
      'metadata',
      'too_large',
    );
  });

  it('takes an https return URL (http only in the sandbox)', async () => {
    expectValidation(await createCharge(validCharge({ returnUrl: 'javascript:alert(1)' })), 'returnUrl');
    expectValidation(await createCharge(validCharge({ returnUrl: 'not a url' })), 'returnUrl');
    expect((await createCharge(validCharge({ returnUrl: 'http://localhost:8080/back' }))).status).toBe(201);
    const live = await createCharge(validCharge({ returnUrl: 'http://shop.example/back' }), {
      environment: 'live',
    });
    expectValidation(live, 'returnUrl', 'invalid_value');
  });

  it('refuses anything shaped like a card number, in any member, without storing or logging it', async () => {
    const spaced = '4242 4242 4242 4242';
    const dashed = '5555-5555-5555-4444';
    const cases: Array<[Record<string, unknown>, string]> = [
      [validCharge({ merchantReference: CARD }), 'merchantReference'],
      [validCharge({ metadata: { note: `card ${spaced} thanks` } }), 'metadata.note'],
      [validCharge({ metadata: { deep: [{ pan: dashed }] } }), 'metadata.deep.0.pan'],
      [validCharge({ metadata: { pan: 4242424242424242 } }), 'metadata.pan'],
      [validCharge({ customer: { name: spaced } }), 'customer.name'],
      [validCharge({ card: CARD }), 'card'],
    ];
    const before = await db()
      .selectFrom('charges')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    for (const [body, path] of cases) {
      const res = await createCharge(body);
      expectValidation(res, path, 'invalid_value');
      expect(res.text).not.toMatch(/4242|5555/);
    }
    const after = await db()
      .selectFrom('charges')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    const logs = t.logs.join('\n');
    for (const value of [CARD, spaced, dashed, '5555555555554444']) expect(logs).not.toContain(value);
    // Numbers that are not Luhn-valid, or too short, are ordinary data.
    const ok = await createCharge(
      validCharge({ metadata: { phone: '+90 532 123 45 67', order: '4242424242424241' } }),
    );
    expect(ok.status, ok.text).toBe(201);
  });

  it('refuses a duplicate merchantReference with 409, per organization and environment', async () => {
    const body = validCharge();
    const first = await createCharge(body);
    expect(first.status).toBe(201);
    const second = await createCharge({ ...body, amount: 999 });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('duplicate_merchant_reference');
    expect((second.body.error.details as { chargeId?: string }).chargeId).toBe(first.body.id);
    // The same reference is free in the other environment and in another organization.
    expect((await createCharge(body, { environment: 'live' })).status).toBe(201);
    const other = await createMerchant(t);
    expect((await createCharge(body, { key: other.keys.sandbox.secret })).status).toBe(201);
  });

  it('lets exactly one of 20 concurrent requests with one merchantReference through', async () => {
    // Not Date.now(): 13 digits are Luhn-valid one time in ten, and the API refuses what looks like a card.
    const reference = `race-${Math.random().toString(36).slice(2)}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        createCharge(validCharge({ merchantReference: reference, amount: 100 + index })),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    for (const res of results.filter((r) => r.status === 409)) {
      expect(res.body.error.code).toBe('duplicate_merchant_reference');
    }
    const rows = await db()
      .selectFrom('charges')
      .select(['id', 'creation_state'])
      .where('merchant_reference', '=', reference)
      .where('creation_state', 'in', ['creating', 'created'])
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 415 for a body that is not JSON and 400 invalid_json for broken JSON', async () => {
    const form = await createCharge(undefined, {
      rawBody: 'amount=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    const broken = await createCharge(undefined, {
      rawBody: '{"amount":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.details?.issues?.[0]?.code).toBe('invalid_json');
  });

  it('answers live charges from the live acquirer, with livemode true', async () => {
    const res = await createCharge(validCharge(), { environment: 'live' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.livemode).toBe(true);
    expect(await acquirerControl(t.liveAcquirer).paymentsFor(res.body.id)).toHaveLength(1);
    expect(await acquirerControl(t.sandboxAcquirer).paymentsFor(res.body.id)).toHaveLength(0);
  });
});

describe('GET /v1/charges/{id}', () => {
  it('returns the ChargeView with the customer block and providerStatus', async () => {
    const created = await createCharge(validCharge({ customer: { name: 'Ali', email: 'ali@example.com' } }));
    const res = await api(`/v1/charges/${created.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expect(res.body.customer).toEqual({
      name: 'Ali',
      email: 'ali@example.com',
      phone: null,
      reference: null,
    });
    expect(res.body.providerStatus).toBe('awaiting_payment');
  });

  it('is 404 not_found for another organization, the other environment, or an unknown id', async () => {
    const created = await createCharge(validCharge());
    const other = await createMerchant(t);
    for (const res of [
      await api(`/v1/charges/${created.body.id}`, { key: other.keys.sandbox.secret }),
      await api(`/v1/charges/${created.body.id}`, { environment: 'live' }),
      await api('/v1/charges/ch_00000000000000000000000000000'),
      await api('/v1/charges/not-an-id'),
      await api(`/v1/charges/${encodeURIComponent("' OR 1=1 --")}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.requestId).toMatch(/^req_/);
    }
  });

  it('needs the read scope', async () => {
    const created = await createCharge(validCharge());
    const writer = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['write'] });
    const res = await api(`/v1/charges/${created.body.id}`, { key: writer.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

describe('GET /v1/charges', () => {
  it('pages newest first with an opaque cursor, without duplicates or gaps while charges arrive', async () => {
    const owner = await createMerchant(t);
    const key = owner.keys.sandbox.secret;
    const created: string[] = [];
    for (let index = 0; index < 45; index++) {
      t.clock.advance(1000);
      const res = await createCharge(validCharge(), { key });
      created.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: HttpResult<ListBody & ErrorBody> = await api<ListBody & ErrorBody>(
        `/v1/charges?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data.map((charge) => charge.id));
      cursor = res.body.nextCursor;
      pages++;
      // New charges arrive between pages: they belong before the first page, never inside this walk.
      t.clock.advance(1000);
      await createCharge(validCharge(), { key });
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 and returns nextCursor null on the last page', async () => {
    const owner = await createMerchant(t);
    for (let index = 0; index < 21; index++)
      await createCharge(validCharge(), { key: owner.keys.sandbox.secret });
    const first = await api<ListBody>('/v1/charges', { key: owner.keys.sandbox.secret });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const last = await api<ListBody>(`/v1/charges?limit=100`, { key: owner.keys.sandbox.secret });
    expect(last.body.data).toHaveLength(21);
    expect(last.body.nextCursor).toBeNull();
    const empty = await api<ListBody>('/v1/charges', { key: (await createMerchant(t)).keys.sandbox.secret });
    expect(empty.body).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a limit outside 1 to 100, unknown parameters and a tampered cursor with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      'limit=',
      'sort=asc',
    ]) {
      const res = await api(`/v1/charges?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const page = await api<ListBody>('/v1/charges?limit=1');
    const cursor = page.body.nextCursor ?? '';
    // The last two characters changed (to `xx`, or to `yy` where they were `x`: always another cursor).
    const other = (c: string | undefined) => (c === 'x' ? 'y' : 'x');
    const tampered = [
      `${cursor.slice(0, -2)}${other(cursor.at(-2))}${other(cursor.at(-1))}`,
      'not-a-cursor',
      Buffer.from('2026-11-23T10:00:00.000Z|ch_x|extra').toString('base64url'),
      Buffer.from("2026-11-23T10:00:00.000Z|ch_' OR 1=1").toString('base64url'),
    ];
    for (const value of tampered) {
      const res = await api(`/v1/charges?cursor=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('lists only the caller organization and environment', async () => {
    const owner = await createMerchant(t);
    const sandbox = await createCharge(validCharge(), { key: owner.keys.sandbox.secret });
    const live = await createCharge(validCharge(), { key: owner.keys.live.secret, environment: 'live' });
    const sandboxList = await api<ListBody>('/v1/charges', { key: owner.keys.sandbox.secret });
    expect(sandboxList.body.data.map((charge) => charge.id)).toEqual([sandbox.body.id]);
    const liveList = await api<ListBody>('/v1/charges', { key: owner.keys.live.secret, environment: 'live' });
    expect(liveList.body.data.map((charge) => charge.id)).toEqual([live.body.id]);
  });
});
