/**
 * Issue 16 item 3 (ADR 0040, docs/operations.md "Replica and failover"): a primary with a synchronous
 * standby, two clusters of this machine's PostgreSQL 15 that the test makes and removes (never the shared
 * server, so the file runs the same on both passes). The gateway's DATABASE_URL names both hosts with
 * `target_session_attrs=read-write`; DATABASE_READ_URL names the standby first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { parseHostList } from '../src/db/hosts.js';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { apiRequest } from './helpers/client.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { TRON_ADDRESS } from './helpers/payouts.js';
import { queryCluster, startReplicatedPair, until, type ReplicatedPair } from './helpers/replication.js';

let pair: ReplicatedPair;
let t: TestGateway;
let merchant: Merchant;
const READ_APPLICATION = 'gateway-read';

beforeAll(async () => {
  // The gateway starts (and migrates) on the primary while the standby is being copied from it.
  pair = await startReplicatedPair(async ({ primary, standby }) => {
    const database = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
      readDatabaseUrl: `postgres://postgres@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/postgres?application_name=${READ_APPLICATION}`,
      poolSize: 8,
    });
    t = await startTestGateway({
      database,
      // Each card payment comes from an address of its own (X-Forwarded-For): the checkout's per-address
      // limit is not what this test is about.
      env: { ROLES: 'api,sandbox-acquirer,sandbox-chain', TRUSTED_PROXIES: '127.0.0.1' },
    });
    merchant = await createMerchant(t, { featureFlags: ['payouts', 'wallets'], payoutSchedule: 'manual' });
  });
});
afterAll(async () => {
  await t?.close();
  await pair?.close();
});

const api = <T>(path: string, body?: unknown) =>
  apiRequest<T>(t.urls, path, {
    key: merchant.keys.sandbox.secret,
    ...(body === undefined ? {} : { body }),
  });

let forwardedFor = 0;
/** Pays with an approved card through the hosted checkout and the sandbox acquirer: the 303 of the form. */
async function payByCard(providerPaymentId: string): Promise<number> {
  forwardedFor += 1;
  const response = await fetch(`${t.urls.web}/c/${providerPaymentId}/card?lang=en`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': `10.7.${(forwardedFor >> 8) & 255}.${forwardedFor & 255}`,
    },
    body: new URLSearchParams({
      holderName: 'Failover Test',
      cardNumber: TEST_CARDS.visa.number,
      expiry: '12/30',
      cvc: '123',
    }).toString(),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a DATABASE_URL naming several hosts', () => {
  it('splits into one URL per host, in order, keeping the credentials, database and other parameters', () => {
    expect(
      parseHostList(
        'postgres://gw:s3cret@db1:5432,db2:5433/pay?target_session_attrs=read-write&sslmode=require',
      ),
    ).toEqual({
      hosts: ['db1:5432', 'db2:5433'],
      urls: [
        'postgres://gw:s3cret@db1:5432/pay?sslmode=require',
        'postgres://gw:s3cret@db2:5433/pay?sslmode=require',
      ],
      targetSessionAttrs: 'read-write',
    });
    const single = 'postgres://gw@db1/pay?sslmode=disable';
    expect(parseHostList(single)).toEqual({ hosts: ['db1'], urls: [single], targetSessionAttrs: 'any' });
  });

  it('is refused at start-up when malformed, and DATABASE_READ_URL needs DATABASE_URL', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(
      problems({ DATABASE_URL: 'postgres://db1,db2/pay?target_session_attrs=prefer-standby' }),
    ).toContain(
      'DATABASE_URL target_session_attrs must be one of any, read-write, read-only, primary, standby',
    );
    expect(problems({ DATABASE_URL: 'postgres://db1,,db2/pay' })).toContain(
      'DATABASE_URL names an empty host',
    );
    expect(problems({ DATABASE_READ_URL: 'postgres://db2/pay' })).toContain(
      'DATABASE_READ_URL needs DATABASE_URL',
    );
    expect(
      problems({ DATABASE_URL: 'postgres://db1,db2/pay', DATABASE_READ_URL: 'postgres://db2,db1/pay' }),
    ).toBe('');
  });
});

describe('DATABASE_READ_URL', () => {
  it('serves lists from the standby, which already has every acknowledged write (remote_apply)', async () => {
    const created = await api<{ id: string }>('/v1/charges', validCharge());
    expect(created.status, created.text).toBe(201);
    const list = await api<{ data: Array<{ id: string }> }>('/v1/charges?limit=5');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((charge) => charge.id)).toContain(created.body.id);
    // The read pool's connections are on the standby, and the last statement one of them ran is the list.
    const readers = await queryCluster<{ query: string }>(
      pair.standby.url,
      "select query from pg_stat_activity where application_name = $1 and backend_type = 'client backend'",
      [READ_APPLICATION],
    );
    expect(readers.some((reader) => /from "charges"/.test(reader.query))).toBe(true);
    const onPrimary = await queryCluster<{ count: string }>(
      pair.primary.url,
      'select count(*) from pg_stat_activity where application_name = $1',
      [READ_APPLICATION],
    );
    expect(onPrimary[0]?.count).toBe('0');
  });
});

interface Acknowledged {
  charges: string[];
  paid: string[];
  refunds: Array<{ id: string; chargeId: string; status: string }>;
  payouts: string[];
}

describe('failover', () => {
  it('loses no acknowledged charge, refund, event or payout, and recovers without a restart', async () => {
    // Funds for payouts: a wallet, a paid charge, released to available.
    const wallet = await api('/v1/wallets', { network: 'tron', address: TRON_ADDRESS });
    expect(wallet.status, wallet.text).toBe(201);
    const funding = await api<{ id: string; providerPaymentId: string }>(
      '/v1/charges',
      validCharge({ amount: 1_000_000 }),
    );
    expect(funding.status, funding.text).toBe(201);
    expect(await payByCard(funding.body.providerPaymentId)).toBe(303);
    const settled = await api<{ released: boolean }>('/v1/test-helpers/settle', {});
    expect(settled.body.released, settled.text).toBe(true);

    const acknowledged: Acknowledged = { charges: [], paid: [], refunds: [], payouts: [] };
    const failures: Array<{ what: string; status: number; code: string | undefined }> = [];
    let stopping = false;
    /** A write: its body when the gateway acknowledged it (the expected 2xx), undefined after a failure. */
    const write = async <T>(what: string, expected: number, send: () => Promise<HttpResult<T>>) => {
      const res = await send();
      if (res.status === expected) return res.body;
      failures.push({ what, status: res.status, code: (res.body as ErrorBody).error?.code });
      await new Promise((resolve) => setTimeout(resolve, 20));
      return undefined;
    };
    const worker = async (n: number) => {
      for (let round = 0; !stopping; round++) {
        const charge = await write('charge', 201, () =>
          api<{ id: string; providerPaymentId: string }>('/v1/charges', validCharge({ amount: 20_000 })),
        );
        if (!charge) continue;
        acknowledged.charges.push(charge.id);
        const paid = await payByCard(charge.providerPaymentId);
        if (paid !== 303) {
          failures.push({ what: 'checkout', status: paid, code: undefined });
          continue;
        }
        // The checkout's answer is a page; the charge's status says whether the payment was recorded.
        const view = await write('read', 200, () => api<{ status: string }>(`/v1/charges/${charge.id}`));
        if (view?.status !== 'succeeded') continue;
        acknowledged.paid.push(charge.id);
        const refund = await write('refund', 201, () =>
          api<{ id: string; status: string }>(`/v1/charges/${charge.id}/refunds`, { amount: 5_000 }),
        );
        if (refund) acknowledged.refunds.push({ id: refund.id, chargeId: charge.id, status: refund.status });
        if ((round + n) % 3 === 0) {
          const payout = await write('payout', 201, () =>
            api<{ id: string }>('/v1/payouts', { amount: 10_000 }),
          );
          if (payout) acknowledged.payouts.push(payout.id);
        }
      }
    };
    const load = [0, 1, 2, 3].map(worker);
    try {
      await until(
        'writes before the failover',
        async () => acknowledged.refunds.length >= 4 && acknowledged.payouts.length >= 1,
        30_000,
      );

      await pair.crashPrimary();
      // During the outage a write fails at once with the envelope, never hangs.
      const started = Date.now();
      const refused = await api<ErrorBody>('/v1/charges', validCharge());
      expect(Date.now() - started).toBeLessThan(5000);
      expect(refused.status, refused.text).toBe(503);
      expect(refused.body.error).toMatchObject({
        code: 'service_unavailable',
        requestId: expect.any(String),
      });

      await pair.promoteStandby();
      // The same gateway, not restarted, finds the new primary on its next connection.
      const promotedAt = acknowledged.paid.length;
      await until(
        'writes after the promotion',
        async () => acknowledged.paid.length >= promotedAt + 3,
        20_000,
      );
    } finally {
      stopping = true;
      await Promise.all(load);
    }
    const again = await api<{ id: string }>('/v1/charges', validCharge());
    expect(again.status, again.text).toBe(201);

    // Every failure was the 503 envelope (the checkout's form answers its own 503 page).
    for (const failure of failures) {
      expect(failure.status, JSON.stringify(failure)).toBe(503);
      if (failure.what !== 'checkout') expect(failure.code).toBe('service_unavailable');
    }

    // On the new primary: everything acknowledged, with its events and ledger entries.
    const now = pair.standby.url;
    const rows = async (text: string, params: unknown[]) =>
      queryCluster<Record<string, string>>(now, text, params);
    const ids = (list: Array<Record<string, string>>) => list.map((row) => row.id).sort();

    expect(ids(await rows('select id from charges where id = any($1)', [acknowledged.charges]))).toEqual(
      [...acknowledged.charges].sort(),
    );
    expect(
      ids(
        await rows("select id from charges where id = any($1) and status = 'succeeded'", [acknowledged.paid]),
      ),
    ).toEqual([...acknowledged.paid].sort());
    const entries = async (kind: string, sources: string[]) =>
      (
        await rows('select source_id as id from journal_entries where kind = $1 and source_id = any($2)', [
          kind,
          sources,
        ])
      )
        .map((row) => row.id)
        .sort();
    const events = async (type: string, resources: string[]) =>
      (
        await rows('select resource_id as id from events where type = $1 and resource_id = any($2)', [
          type,
          resources,
        ])
      )
        .map((row) => row.id)
        .sort();
    expect(await entries('charge_succeeded', acknowledged.paid)).toEqual([...acknowledged.paid].sort());
    expect(await events('charge.succeeded', acknowledged.paid)).toEqual([...acknowledged.paid].sort());

    const refundIds = acknowledged.refunds.map((refund) => refund.id);
    expect(ids(await rows('select id from refunds where id = any($1)', [refundIds]))).toEqual(
      [...refundIds].sort(),
    );
    const succeededRefunds = acknowledged.refunds.filter((refund) => refund.status === 'succeeded');
    expect(succeededRefunds.length).toBeGreaterThan(0);
    expect(
      await entries(
        'refund',
        succeededRefunds.map((refund) => refund.id),
      ),
    ).toEqual(succeededRefunds.map((refund) => refund.id).sort());
    expect(
      await events(
        'charge.refunded',
        succeededRefunds.map((refund) => refund.chargeId),
      ),
    ).toEqual(succeededRefunds.map((refund) => refund.chargeId).sort());

    expect(ids(await rows('select id from payouts where id = any($1)', [acknowledged.payouts]))).toEqual(
      [...acknowledged.payouts].sort(),
    );
    expect(await entries('payout_created', acknowledged.payouts)).toEqual([...acknowledged.payouts].sort());
    expect(await events('payout.created', acknowledged.payouts)).toEqual([...acknowledged.payouts].sort());

    // Nothing half-written, acknowledged or not: every succeeded charge and refund has its ledger entry,
    // and every entry balances.
    const orphans = await rows(
      `select id from charges c where status = 'succeeded'
         and not exists (select 1 from journal_entries j where j.kind = 'charge_succeeded' and j.source_id = c.id)
       union all
       select id from refunds r where status = 'succeeded'
         and not exists (select 1 from journal_entries j where j.kind = 'refund' and j.source_id = r.id)
       union all
       select entry_id::text from ledger_postings group by entry_id having sum(amount) <> 0`,
      [],
    );
    expect(orphans).toEqual([]);
  });
});
