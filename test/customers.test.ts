/**
 * Issue 15 item 5: `/v1/customers` (spec section 1, flag `customers`): create, retrieve, list with an
 * e-mail search and cursors, update, delete (the details erased, the row kept for its charges), the ID
 * number sealed and never returned, and `POST /v1/charges` with `customerId` (not with an inline block
 * too), `GET /v1/charges?customerId=`; the authentication matrix and ownership (404).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectEachRefused, expectKeyRequired, expectLiveApart } from './helpers/api-checks.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { t, useTestGateway } from './helpers/suite.js';
import { validCharge } from './helpers/http.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';

interface CustomerBody {
  id: string;
  object: 'customer';
  name: string | null;
  email: string | null;
  phone: string | null;
  reference: string | null;
  hasIdNumber: boolean;
  metadata: Record<string, unknown>;
  livemode: boolean;
  createdAt: string;
  updatedAt: string;
}
interface ChargeBody {
  id: string;
  customer: { name: string | null; email: string | null; phone: string | null; reference: string | null };
}
interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: { issues?: Array<{ path: string; code: string }> } & Record<string, unknown>;
  };
}

const ID_NUMBER = '10000000146';

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t, { featureFlags: ['customers'] });
});

const api = <T = CustomerBody>(path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, { key: merchant.keys.sandbox.secret, ...init });

const db = () => t.gateway.database.db;

async function newCustomer(body: Record<string, unknown>, key = merchant.keys.sandbox.secret) {
  const res = await api('/v1/customers', { body, key });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('create, retrieve, update, delete', () => {
  it('creates a customer, seals the ID number and never returns it', async () => {
    const res = await api('/v1/customers', {
      body: {
        name: 'Ayşe Yılmaz',
        email: 'ayse@example.com',
        phone: '+90 532 000 00 00',
        reference: 'crm-42',
        idNumber: ID_NUMBER,
        metadata: { tier: 'gold' },
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      object: 'customer',
      name: 'Ayşe Yılmaz',
      email: 'ayse@example.com',
      phone: '+90 532 000 00 00',
      reference: 'crm-42',
      hasIdNumber: true,
      metadata: { tier: 'gold' },
      livemode: false,
    });
    expect(res.body.id).toMatch(/^cus_/);
    expect(res.text).not.toContain(ID_NUMBER);

    const stored = await db()
      .selectFrom('customers')
      .select('id_number_enc')
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(stored.id_number_enc).not.toBeNull();
    expect(stored.id_number_enc).not.toContain(ID_NUMBER);
    expect(t.gateway.services.box.open(stored.id_number_enc ?? '')).toBe(ID_NUMBER);

    const read = await api(`/v1/customers/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.text).not.toContain(ID_NUMBER);
  });

  it('updates only what is sent, clears with null, and replaces metadata whole', async () => {
    const created = await newCustomer({ name: 'Can', email: 'can@example.com', metadata: { a: 1 } });
    t.clock.advance(1000);
    const updated = await api(`/v1/customers/${created.id}`, {
      body: { email: null, phone: '05320000000', idNumber: ID_NUMBER, metadata: { b: 2 } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.id,
      name: 'Can',
      email: null,
      phone: '05320000000',
      hasIdNumber: true,
      metadata: { b: 2 },
      createdAt: created.createdAt,
    });
    expect(updated.body.updatedAt > created.updatedAt).toBe(true);
    const cleared = await api(`/v1/customers/${created.id}`, { body: { idNumber: null } });
    expect(cleared.body.hasIdNumber).toBe(false);
  });

  it('deletes: erases the details, hides the customer, and a second delete is 404', async () => {
    const created = await newCustomer({ name: 'Deniz', email: 'deniz@example.com', idNumber: ID_NUMBER });
    const removed = await api(`/v1/customers/${created.id}`, { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ id: created.id, object: 'customer', deleted: true });
    const row = await db()
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: null, email: null, id_number_enc: null, metadata: {} });
    expect(row.deleted_at).not.toBeNull();
    for (const [path, method, body] of [
      [`/v1/customers/${created.id}`, 'GET', undefined],
      [`/v1/customers/${created.id}`, 'POST', { name: 'Back' }],
      [`/v1/customers/${created.id}`, 'DELETE', undefined],
    ] as const) {
      const res = await api(path, { method, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('refuses bad input with validation_failed and writes nothing', async () => {
    const before = await db()
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', merchant.organizationId)
      .executeTakeFirstOrThrow();
    for (const body of [
      { email: 'not an e-mail' },
      { phone: 'call me' },
      { name: ' padded ' },
      { name: '' },
      { unknown: true },
      { metadata: { big: 'x'.repeat(9000) } },
      { idNumber: 'a'.repeat(65) },
    ]) {
      const res = await api('/v1/customers', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const update = await api('/v1/customers/cus_nothere', { body: { name: 'x' } });
    expect(update.status).toBe(404);
    const after = await db()
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', merchant.organizationId)
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('honours X-Idempotency-Key on creation', async () => {
    const headers = { 'x-idempotency-key': 'customer-create-1' };
    const first = await api('/v1/customers', { body: { name: 'Once' }, headers });
    const second = await api('/v1/customers', { body: { name: 'Once' }, headers });
    expect(first.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    const reuse = await api('/v1/customers', { body: { name: 'Twice' }, headers });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe('idempotency_key_reuse');
  });
});

describe('GET /v1/customers', () => {
  it('pages newest first and finds by e-mail, case-insensitively, with cursors bound to the filter', async () => {
    const m = await createMerchant(t, { featureFlags: ['customers'] });
    const key = m.keys.sandbox.secret;
    const made: CustomerBody[] = [];
    for (let i = 0; i < 5; i += 1) {
      t.clock.advance(10);
      made.push(
        await newCustomer({ name: `C${i}`, email: i % 2 === 0 ? 'Same@Example.com' : `c${i}@x.tr` }, key),
      );
    }
    const first = await api<{ data: CustomerBody[]; nextCursor: string | null }>('/v1/customers?limit=2', {
      key,
    });
    expect(first.status).toBe(200);
    expect(first.body.data.map((c) => c.name)).toEqual(['C4', 'C3']);
    const second = await api<{ data: CustomerBody[]; nextCursor: string | null }>(
      `/v1/customers?limit=2&cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`,
      { key },
    );
    expect(second.body.data.map((c) => c.name)).toEqual(['C2', 'C1']);

    const found = await api<{ data: CustomerBody[]; nextCursor: string | null }>(
      '/v1/customers?email=same%40example.COM&limit=2',
      { key },
    );
    expect(found.body.data.map((c) => c.name)).toEqual(['C4', 'C2']);
    const rest = await api<{ data: CustomerBody[]; nextCursor: string | null }>(
      `/v1/customers?email=same%40example.COM&limit=2&cursor=${encodeURIComponent(found.body.nextCursor ?? '')}`,
      { key },
    );
    expect(rest.body.data.map((c) => c.name)).toEqual(['C0']);
    expect(rest.body.nextCursor).toBeNull();
    // A cursor of the filtered list is refused by the unfiltered one.
    const mixed = await api(`/v1/customers?cursor=${encodeURIComponent(found.body.nextCursor ?? '')}`, {
      key,
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe('validation_failed');

    // A deleted customer is not listed.
    await api(`/v1/customers/${made[4]?.id}`, { key, method: 'DELETE' });
    const after = await api<{ data: CustomerBody[] }>('/v1/customers?email=same%40example.com', { key });
    expect(after.body.data.map((c) => c.name)).toEqual(['C2', 'C0']);
  });
});

describe('charges for a customer', () => {
  it('copies the customer onto the charge, keeps its id, and lists its charges', async () => {
    const customer = await newCustomer({
      name: 'Elif',
      email: 'elif@example.com',
      phone: '+905321112233',
      reference: 'crm-7',
      idNumber: ID_NUMBER,
    });
    const charge = await api<ChargeBody>('/v1/charges', {
      body: validCharge({ customerId: customer.id }),
    });
    expect(charge.status, charge.text).toBe(201);
    expect(charge.body.customer).toEqual({
      name: 'Elif',
      email: 'elif@example.com',
      phone: '+905321112233',
      reference: 'crm-7',
    });
    expect(charge.text).not.toContain(ID_NUMBER);
    const row = await db()
      .selectFrom('charges')
      .select(['customer_id', 'customer_id_number_enc'])
      .where('id', '=', charge.body.id)
      .executeTakeFirstOrThrow();
    expect(row.customer_id).toBe(customer.id);
    expect(t.gateway.services.box.open(row.customer_id_number_enc ?? '')).toBe(ID_NUMBER);

    const other = await api<ChargeBody>('/v1/charges', { body: validCharge() });
    expect(other.status).toBe(201);
    const listed = await api<{ data: ChargeBody[] }>(`/v1/charges?customerId=${customer.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c) => c.id)).toEqual([charge.body.id]);

    // A later change or deletion of the customer leaves the charge's copy as it was.
    await api(`/v1/customers/${customer.id}`, { body: { name: 'Elif K.' } });
    await api(`/v1/customers/${customer.id}`, { method: 'DELETE' });
    const again = await api<ChargeBody>(`/v1/charges/${charge.body.id}`);
    expect(again.body).toMatchObject({ id: charge.body.id, customer: { name: 'Elif' } });
    const stillListed = await api<{ data: ChargeBody[] }>(`/v1/charges?customerId=${customer.id}`);
    expect(stillListed.body.data.map((c) => c.id)).toEqual([charge.body.id]);
  });

  it('refuses customerId with an inline customer, an unknown or deleted one, and another organization’s', async () => {
    const customer = await newCustomer({ name: 'Both' });
    const both = await api('/v1/charges', {
      body: validCharge({ customerId: customer.id, customer: { name: 'Inline' } }),
    });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_failed');
    expect(both.body.error.details?.issues?.[0]?.path).toBe('customerId');

    const unknown = await api('/v1/charges', { body: validCharge({ customerId: 'cus_nothere' }) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details?.issues?.[0]).toMatchObject({
      path: 'customerId',
      code: 'invalid_value',
    });

    const stranger = await createMerchant(t, { featureFlags: ['customers'] });
    const theirs = await api('/v1/charges', {
      key: stranger.keys.sandbox.secret,
      body: validCharge({ customerId: customer.id }),
    });
    expect(theirs.status).toBe(400);

    await api(`/v1/customers/${customer.id}`, { method: 'DELETE' });
    const deleted = await api('/v1/charges', { body: validCharge({ customerId: customer.id }) });
    expect(deleted.status).toBe(400);

    const count = await db()
      .selectFrom('charges')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('customer_id', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('answers 403 forbidden for customerId without the customers flag', async () => {
    const off = await createMerchant(t, {});
    const res = await api('/v1/charges', {
      key: off.keys.sandbox.secret,
      body: validCharge({ customerId: 'cus_anything' }),
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    // Without customerId the charge goes through as before.
    const plain = await api('/v1/charges', { key: off.keys.sandbox.secret, body: validCharge() });
    expect(plain.status, plain.text).toBe(201);
  });
});

describe('authentication and ownership', () => {
  let customerId: string;
  beforeAll(async () => {
    customerId = (await newCustomer({ name: 'Owned', email: 'owned@example.com' })).id;
  });

  it('answers 403 forbidden without the customers flag', async () => {
    const off = await createMerchant(t, { featureFlags: ['apiKeys'] });
    const requests = [
      ['/v1/customers', 'POST', { name: 'x' }],
      ['/v1/customers', 'GET', undefined],
      [`/v1/customers/${customerId}`, 'GET', undefined],
      [`/v1/customers/${customerId}`, 'POST', { name: 'x' }],
      [`/v1/customers/${customerId}`, 'DELETE', undefined],
    ] as const;
    await expectEachRefused(api, off.keys.sandbox.secret, requests, 403, 'forbidden');
  });

  it('refuses a missing key, a bad key and a read-only key for writes', async () => {
    await expectKeyRequired(t.urls, api, '/v1/customers');
    const readOnly = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    expect((await api(`/v1/customers/${customerId}`, { key: readOnly.secret })).status).toBe(200);
    const writes = [
      ['/v1/customers', 'POST', { name: 'x' }],
      [`/v1/customers/${customerId}`, 'POST', { name: 'x' }],
      [`/v1/customers/${customerId}`, 'DELETE', undefined],
    ] as const;
    await expectEachRefused(api, readOnly.secret, writes, 403, 'insufficient_scope');
  });

  it('keeps environments and organizations apart (404)', async () => {
    await expectLiveApart(api, merchant, '/v1/customers', `/v1/customers/${customerId}`);
    const stranger = await createMerchant(t, { featureFlags: ['customers'] });
    const key = stranger.keys.sandbox.secret;
    expect((await api(`/v1/customers/${customerId}`, { key })).status).toBe(404);
    expect((await api(`/v1/customers/${customerId}`, { key, body: { name: 'Mine' } })).status).toBe(404);
    expect((await api(`/v1/customers/${customerId}`, { key, method: 'DELETE' })).status).toBe(404);
    expect((await api<{ data: CustomerBody[] }>('/v1/customers', { key })).body.data).toEqual([]);
    const still = await api(`/v1/customers/${customerId}`);
    expect(still.body).toMatchObject({ name: 'Owned', email: 'owned@example.com' });
  });
});
