/**
 * Issue 13 item 1: `/v1/wallets` (flag `wallets`): address checks with real TRON and Ethereum vectors,
 * list, retrieve, make default, archive, idempotency, concurrent creation and the authentication matrix.
 * Sandbox wallets take effect at once; live ones go through change controls (test/wallet-changes.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectEachRefused, expectKeyRequired, expectLiveApart } from './helpers/api-checks.js';
import { apiRequest, type ApiInit } from './helpers/client.js';
import { t, useTestGateway } from './helpers/suite.js';
import { createMerchant, issueKey, type Merchant } from './helpers/merchants.js';

interface WalletBody {
  id: string;
  network: string;
  address: string;
  label: string | null;
  status: string;
  isDefault: boolean;
  livemode: boolean;
  pendingChange: { id: string; kind: string; status: string; effectiveAt: string | null } | null;
  createdAt: string;
  updatedAt: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

const TRON = [
  'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
  'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
];
const ETH_CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

let merchant: Merchant;

useTestGateway({}, async () => {
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'wallets'] });
});

const api = <T = WalletBody>(path: string, init: ApiInit = {}) =>
  apiRequest<T & ErrorBody>(t.urls, path, {
    key: merchant.keys.sandbox.secret,
    ...init,
  });

const db = () => t.gateway.database.db;

describe('POST /v1/wallets: address checks', () => {
  it('accepts real TRON addresses and returns the view', async () => {
    const res = await api('/v1/wallets', { body: { network: 'tron', address: TRON[0], label: 'Treasury' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      network: 'tron',
      address: TRON[0],
      label: 'Treasury',
      status: 'active',
      livemode: false,
      pendingChange: null,
    });
    expect(res.body.id).toMatch(/^wal_/);
    // The first wallet of an environment becomes its default.
    expect(res.body.isDefault).toBe(true);
  });

  it('accepts an Ethereum address in lower case and returns it EIP-55 checksummed', async () => {
    const res = await api('/v1/wallets', {
      body: { network: 'ethereum', address: ETH_CHECKSUMMED.toLowerCase() },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.address).toBe(ETH_CHECKSUMMED);
    expect(res.body.isDefault).toBe(false);
  });

  const refusals: Array<[string, string, string]> = [
    ['tron', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM', 'bad_checksum'],
    ['tron', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe', 'wrong_length'],
    ['tron', 'ANPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', 'wrong_prefix'],
    ['tron', ETH_CHECKSUMMED, 'wrong_prefix'],
    ['tron', 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', 'zero_address'],
    ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'token_contract'],
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'bad_checksum'],
    ['ethereum', '0x5aAeb6053f3E94C9b9A09f33669435E7Ef1BeAed', 'bad_checksum'],
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA', 'wrong_length'],
    ['ethereum', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00', 'wrong_prefix'],
    ['ethereum', TRON[0] ?? '', 'wrong_prefix'],
    ['ethereum', '0x0000000000000000000000000000000000000000', 'zero_address'],
    ['ethereum', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 'token_contract'],
    ['ethereum', '0xzzzeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'invalid_characters'],
  ];
  it.each(refusals)('refuses %s %s: %s', async (network, address, reason) => {
    const res = await api('/v1/wallets', { body: { network, address } });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_wallet_address');
    expect(res.body.error.details).toEqual({ reason, network });
  });

  it('refuses an unknown network and a duplicate address', async () => {
    const unknown = await api('/v1/wallets', { body: { network: 'bitcoin', address: TRON[1] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation_failed');
    const again = await api('/v1/wallets', { body: { network: 'tron', address: TRON[0] } });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('validation_failed');
  });
});

describe('list, retrieve, make default, archive', () => {
  it('pages newest first and filters by status', async () => {
    const other = await createMerchant(t, { featureFlags: ['wallets'] });
    const key = other.keys.sandbox.secret;
    const ids: string[] = [];
    for (const address of TRON) {
      t.clock.advance(1000);
      const res = await api('/v1/wallets', { key, body: { network: 'tron', address } });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
    const first = await api<{ data: WalletBody[]; nextCursor: string | null }>('/v1/wallets?limit=2', {
      key,
    });
    expect(first.status).toBe(200);
    expect(first.body.data.map((w) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).not.toBeNull();
    const second = await api<{ data: WalletBody[]; nextCursor: string | null }>(
      `/v1/wallets?limit=2&cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`,
      { key },
    );
    expect(second.body.data.map((w) => w.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    // A cursor of another merchant is refused.
    const foreign = await api(`/v1/wallets?cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`);
    expect(foreign.status).toBe(400);

    const archived = await api(`/v1/wallets/${ids[1]}/archive`, { key, method: 'POST' });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.status).toBe('archived');
    const onlyArchived = await api<{ data: WalletBody[] }>('/v1/wallets?status=archived', { key });
    expect(onlyArchived.body.data.map((w) => w.id)).toEqual([ids[1]]);
  });

  it('makes a sandbox wallet the default at once and records wallet.default_changed', async () => {
    const m = await createMerchant(t, { featureFlags: ['wallets'] });
    const key = m.keys.sandbox.secret;
    const a = await api('/v1/wallets', { key, body: { network: 'tron', address: TRON[0] } });
    t.clock.advance(1000);
    const b = await api('/v1/wallets', { key, body: { network: 'ethereum', address: ETH_CHECKSUMMED } });
    expect(a.body.isDefault).toBe(true);
    t.clock.advance(1000);
    const made = await api(`/v1/wallets/${b.body.id}/make-default`, { key, method: 'POST' });
    expect(made.status, made.text).toBe(200);
    expect(made.body.isDefault).toBe(true);
    expect((await api(`/v1/wallets/${a.body.id}`, { key })).body.isDefault).toBe(false);

    // The default cannot be archived; another wallet can, once.
    const refused = await api(`/v1/wallets/${b.body.id}/archive`, { key, method: 'POST' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    expect((await api(`/v1/wallets/${a.body.id}/archive`, { key, method: 'POST' })).body.status).toBe(
      'archived',
    );
    // An archived wallet cannot become the default.
    const archivedDefault = await api(`/v1/wallets/${a.body.id}/make-default`, { key, method: 'POST' });
    expect(archivedDefault.status).toBe(409);

    const events = await db()
      .selectFrom('events')
      .select(['type', 'resource_id', 'payload'])
      .where('organization_id', '=', m.organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    // Created and made default in one transaction (one instant): the order within it is not defined.
    const sorted = (pairs: string[][]) => pairs.map((pair) => pair.join(' ')).sort();
    expect(sorted(events.map((e) => [e.type, e.resource_id]))).toEqual(
      sorted([
        ['wallet.created', a.body.id],
        ['wallet.default_changed', a.body.id],
        ['wallet.created', b.body.id],
        ['wallet.default_changed', b.body.id],
      ]),
    );
    expect(events[3]?.type === 'wallet.default_changed' && events[3].resource_id).toBe(b.body.id);
    const last = events[3]?.payload as unknown as {
      data: { previousWalletId: string; isDefault: boolean };
      livemode: boolean;
    };
    const payload = typeof last === 'string' ? (JSON.parse(last) as typeof last) : last;
    expect(payload.data.previousWalletId).toBe(a.body.id);
    expect(payload.livemode).toBe(false);

    // destination(): the default, or a given active wallet; archived and unknown ones are refused.
    const owner = { organizationId: m.organizationId, environment: 'sandbox' as const };
    const wallets = t.gateway.services.wallets;
    await db()
      .transaction()
      .execute(async (trx) => {
        expect(await wallets.destination(trx, owner, undefined)).toEqual({
          ok: true,
          wallet: { walletId: b.body.id, network: 'ethereum', address: ETH_CHECKSUMMED },
        });
        expect(await wallets.destination(trx, owner, a.body.id)).toEqual({
          ok: false,
          reason: 'wallet_not_active',
        });
        expect(await wallets.destination(trx, owner, 'wal_nope')).toEqual({
          ok: false,
          reason: 'wallet_not_found',
        });
        expect(await wallets.destination(trx, { ...owner, environment: 'live' }, undefined)).toEqual({
          ok: false,
          reason: 'no_default_wallet',
        });
      });
  });

  it('honours X-Idempotency-Key on creation', async () => {
    const m = await createMerchant(t, { featureFlags: ['wallets'] });
    const key = m.keys.sandbox.secret;
    const headers = { 'x-idempotency-key': 'wallet-create-1' };
    const body = { network: 'tron', address: TRON[2] };
    const first = await api('/v1/wallets', { key, body, headers });
    const second = await api('/v1/wallets', { key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    const reuse = await api('/v1/wallets', { key, body: { network: 'tron', address: TRON[1] }, headers });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.code).toBe('idempotency_key_reuse');
    const count = await db()
      .selectFrom('wallets')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', m.organizationId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });
});

describe('concurrent creation (a race only PostgreSQL can run; PGlite runs one transaction at a time)', () => {
  const post = (m: Merchant, address: string) =>
    api('/v1/wallets', { key: m.keys.sandbox.secret, body: { network: 'tron', address } });

  it('the same address sent at once: one is added, the others get the duplicate-address answer', async () => {
    for (let round = 0; round < 5; round++) {
      const m = await createMerchant(t, { featureFlags: ['wallets'] });
      const results = await Promise.all([0, 1, 2].map(() => post(m, TRON[0] as string)));
      const statuses = results.map((res) => res.status).sort();
      expect(statuses, results.map((res) => res.text).join('\n')).toEqual([201, 400, 400]);
      for (const refused of results.filter((res) => res.status === 400)) {
        expect(refused.body.error.code).toBe('validation_failed');
      }
    }
  });

  it('two first wallets at once: both are added, exactly one is the default', async () => {
    for (let round = 0; round < 5; round++) {
      const m = await createMerchant(t, { featureFlags: ['wallets'] });
      const results = await Promise.all([TRON[1], TRON[2]].map((address) => post(m, address as string)));
      expect(
        results.map((res) => res.status),
        results.map((res) => res.text).join('\n'),
      ).toEqual([201, 201]);
      const list = await api<{ data: WalletBody[] }>('/v1/wallets', { key: m.keys.sandbox.secret });
      expect(list.body.data).toHaveLength(2);
      expect(list.body.data.filter((wallet) => wallet.isDefault)).toHaveLength(1);
    }
  });
});

describe('authentication and ownership', () => {
  let walletId: string;
  beforeAll(async () => {
    const listed = await api<{ data: WalletBody[] }>('/v1/wallets');
    walletId = listed.body.data[0]?.id ?? '';
    expect(walletId).toMatch(/^wal_/);
  });

  it('answers 403 forbidden without the wallets flag', async () => {
    const off = await createMerchant(t, { featureFlags: ['apiKeys'] });
    const requests = [
      ['/v1/wallets', 'POST', { network: 'tron', address: TRON[0] }],
      ['/v1/wallets', 'GET', undefined],
      [`/v1/wallets/${walletId}`, 'GET', undefined],
      [`/v1/wallets/${walletId}/make-default`, 'POST', undefined],
      [`/v1/wallets/${walletId}/archive`, 'POST', undefined],
    ] as const;
    await expectEachRefused(api, off.keys.sandbox.secret, requests, 403, 'forbidden');
  });

  it('refuses a missing key, a bad key and a read-only key for writes', async () => {
    await expectKeyRequired(t.urls, api, '/v1/wallets');
    const readOnly = await issueKey(db(), t.clock, merchant.organizationId, { scopes: ['read'] });
    expect((await api('/v1/wallets', { key: readOnly.secret })).status).toBe(200);
    const write = await api('/v1/wallets', {
      key: readOnly.secret,
      body: { network: 'tron', address: TRON[1] },
    });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('insufficient_scope');
    const archive = await api(`/v1/wallets/${walletId}/archive`, { key: readOnly.secret, method: 'POST' });
    expect(archive.body.error.code).toBe('insufficient_scope');
  });

  it('keeps environments and organizations apart (404)', async () => {
    // A sandbox key on the live listener is refused; the live key does not see sandbox wallets.
    await expectLiveApart(api, merchant, '/v1/wallets', `/v1/wallets/${walletId}`);
    const stranger = await createMerchant(t, { featureFlags: ['wallets'] });
    const key = stranger.keys.sandbox.secret;
    expect((await api(`/v1/wallets/${walletId}`, { key })).status).toBe(404);
    expect((await api(`/v1/wallets/${walletId}/make-default`, { key, method: 'POST' })).status).toBe(404);
    expect((await api(`/v1/wallets/${walletId}/archive`, { key, method: 'POST' })).status).toBe(404);
    expect((await api<{ data: WalletBody[] }>('/v1/wallets', { key })).body.data).toEqual([]);
  });
});
