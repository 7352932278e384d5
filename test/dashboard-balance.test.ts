/**
 * Balance and payouts in the merchant dashboard (issue 15 item 2): the balance cards show the numbers of
 * `GET /v1/balance`, the payouts table those of `GET /v1/payouts`, for the same organization and
 * environment; the next batch's cut-off follows the settlement calendar (weekends, Turkish public
 * holidays, declared closures) with the manual test clock, and says when no payout can follow (no default
 * wallet) and what a rolling reserve holds back; a payout's page shows its history, the batch it came from
 * with its statement, and the transactions it carries (`GET /v1/payouts/{id}/transactions`). Signed out
 * is the login, a developer is refused, another organization's or environment's payout is 404.
 */
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { chainControl } from './helpers/chain.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import {
  liveFundedMerchant,
  livePayout,
  merchantApi,
  paidCharge,
  TRON_ADDRESS,
  sandboxMerchant,
} from './helpers/payouts.js';
import { expectLoginFirst } from './helpers/http-checks.js';

interface Balance {
  currency: string;
  pending: string;
  available: string;
  inTransit: string;
  reserve: string;
  debt: string;
}
interface Payout {
  id: string;
  status: string;
  amount: string;
  payoutAmount: string;
  network: string;
  walletId: string;
  automatic: boolean;
}
interface Transaction {
  id: string;
  type: string;
  sourceId: string;
  amount: string;
  fee: string;
  net: string;
}
interface Batch {
  id: string;
  businessDate: string;
  status: string;
  payoutId: string | null;
}

useTestGateway(accountGateway('api,sandbox-acquirer,sandbox-chain'));

async function settle(merchant: Merchant): Promise<Batch> {
  const res = await merchantApi<{ batch: Batch | null }>(
    t,
    merchant,
    'sandbox',
    '/v1/test-helpers/settle',
    {},
  );
  expect(res.status, res.text).toBe(200);
  if (!res.body.batch) throw new Error(`nothing settled: ${res.text}`);
  return res.body.batch;
}

async function signedIn(organizationId: string, role: UserRole = 'owner', environment?: 'live') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  if (environment)
    await client.submit('/dashboard?lang=en', { environment }, '/dashboard/environment?lang=en');
  return client;
}

/** The `data-minor` of the element with this id. */
function minorOf(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}" data-minor="([^"]*)"`).exec(html)?.[1];
}

function cardsOf(html: string) {
  return {
    pending: minorOf(html, 'balance-pending'),
    available: minorOf(html, 'balance-available'),
    inTransit: minorOf(html, 'balance-in-transit'),
    reserve: minorOf(html, 'balance-reserve'),
  };
}

function payoutRowsOf(html: string) {
  return [
    ...html.matchAll(
      /<tr data-payout-id="([^"]+)" data-status="([^"]+)" data-amount="([^"]+)" data-payout-amount="([^"]+)">/g,
    ),
  ].map((match) => ({ id: match[1], status: match[2], amount: match[3], payoutAmount: match[4] }));
}

function transactionRowsOf(html: string) {
  return [
    ...html.matchAll(
      /<tr data-transaction-id="([^"]+)" data-type="([^"]+)" data-source-id="([^"]+)" data-amount="([^"]+)" data-fee="([^"]+)" data-net="([^"]+)">/g,
    ),
  ].map((match) => ({
    id: match[1],
    type: match[2],
    sourceId: match[3],
    amount: match[4],
    fee: match[5],
    net: match[6],
  }));
}

describe('the balance and payout pages', () => {
  it('need a session', async () => {
    await expectLoginFirst(t.urls.web, ['/dashboard/balance', '/dashboard/payouts/po_x']);
  });

  it('show the numbers of GET /v1/balance and GET /v1/payouts, and a payout with its batch, transactions and statement', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    await paidCharge(t, merchant, 'sandbox', 500_000);
    const batch = await settle(merchant);
    expect(batch.status).toBe('paid_out');
    // Something pending for the next batch.
    await paidCharge(t, merchant, 'sandbox', 200_000);

    const api = await merchantApi<{ balances: Balance[] }>(t, merchant, 'sandbox', '/v1/balance');
    expect(api.status).toBe(200);
    const balance = api.body.balances[0];
    if (!balance) throw new Error('no balance');
    expect(balance.pending).not.toBe('0');
    expect(balance.inTransit).not.toBe('0');

    const client = await signedIn(merchant.organizationId);
    const page = await client.get('/dashboard/balance?lang=en');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script|style=/);
    expect(page.text).toContain('data-environment="sandbox"');
    expect(cardsOf(page.text)).toEqual({
      pending: balance.pending,
      available: balance.available,
      inTransit: balance.inTransit,
      reserve: balance.reserve,
    });
    // The Balance link is current, first in its group.
    expect(page.text).toMatch(
      /id="balance-link"[^>]*aria-current="page"|aria-current="page"[^>]*id="balance-link"/,
    );
    // The next batch settles what is pending, and is paid to the default wallet.
    expect(minorOf(page.text, 'next-batch-net')).toBe(balance.pending);
    expect(minorOf(page.text, 'next-batch-to-available')).toBe(balance.pending);
    expect(page.text).toContain('data-payout="automatic"');
    expect(page.text).toContain(TRON_ADDRESS);
    expect(page.text).toContain('id="next-batch-sandbox"');

    const payouts = await merchantApi<{ data: Payout[] }>(t, merchant, 'sandbox', '/v1/payouts');
    expect(payouts.status).toBe(200);
    expect(payoutRowsOf(page.text)).toEqual(
      payouts.body.data.map(({ id, status, amount, payoutAmount }) => ({ id, status, amount, payoutAmount })),
    );
    const payout = payouts.body.data[0];
    if (!payout) throw new Error('no payout');
    expect(payout.id).toBe(batch.payoutId);
    expect(page.text).toContain(`href="/dashboard/payouts/${payout.id}?lang=en"`);

    // The payout's page: its fields and history, its batch, its transactions as the API lists them.
    const detail = await client.get(`/dashboard/payouts/${payout.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toMatch(/<script|style=/);
    expect(detail.text).toMatch(
      /id="balance-link"[^>]*aria-current="page"|aria-current="page"[^>]*id="balance-link"/,
    );
    expect(textOf(detail.text, 'payout-status')).toBe('Pending');
    expect(textOf(detail.text, 'payout-usdt')).toBe(`USDT ${(Number(payout.payoutAmount) / 1e6).toFixed(6)}`);
    expect(detail.text).toContain('data-event="created"');
    expect(detail.text).toContain(`id="batch-link" data-batch-id="${batch.id}"`);
    expect(detail.text).toContain(`href="/dashboard/settlements/${batch.id}?lang=en"`);
    const carried = await merchantApi<{ data: Transaction[] }>(
      t,
      merchant,
      'sandbox',
      `/v1/payouts/${payout.id}/transactions`,
    );
    expect(carried.body.data).toHaveLength(2);
    expect(transactionRowsOf(detail.text)).toEqual(
      carried.body.data.map(({ id, type, sourceId, amount, fee, net }) => ({
        id,
        type,
        sourceId,
        amount,
        fee,
        net,
      })),
    );
    // The statement to download is the batch's, as the API serves it.
    const csvPath = `/dashboard/settlements/${batch.id}/statement.csv?lang=en`;
    expect(detail.text).toContain(`href="${csvPath}"`);
    const csv = await client.get(csvPath);
    expect(csv.status).toBe(200);
    const apiCsv = await merchantApi(t, merchant, 'sandbox', `/v1/settlements/${batch.id}/statement.csv`);
    expect(csv.text).toBe(apiCsv.text);

    // In Turkish.
    const turkish = await client.get('/dashboard/balance?lang=tr');
    expect(turkish.text).toContain('<h1>Bakiye ve hakedişler</h1>');
    expect(turkish.text).toContain('Bekleyen');
    expect(cardsOf(turkish.text)).toEqual(cardsOf(page.text));
    const turkishDetail = await client.get(`/dashboard/payouts/${payout.id}?lang=tr`);
    expect(textOf(turkishDetail.text, 'payout-status')).toBe('Beklemede');
    expect(turkishDetail.text).toContain('Ekstreyi indir (CSV)');
  });

  it('refuse another organization’s and the other environment’s payout, and a developer', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 300_000);
    const batch = await settle(merchant);
    const payoutId = batch.payoutId ?? '';
    expect(payoutId).toMatch(/^po_/);

    const other = await sandboxMerchant(t, { wallet: false });
    const stranger = await signedIn(other.organizationId);
    const foreign = await stranger.get(`/dashboard/payouts/${payoutId}?lang=en`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain(payoutId);
    expect(payoutRowsOf((await stranger.get('/dashboard/balance?lang=en')).text)).toEqual([]);

    const live = await signedIn(merchant.organizationId, 'owner', 'live');
    const liveList = await live.get('/dashboard/balance?lang=en');
    expect(liveList.text).toContain('data-environment="live"');
    expect(payoutRowsOf(liveList.text)).toEqual([]);
    expect((await live.get(`/dashboard/payouts/${payoutId}?lang=en`)).status).toBe(404);
    expect((await live.get('/dashboard/payouts/po_nonexistent?lang=en')).status).toBe(404);

    for (const role of ['admin', 'viewer'] as const) {
      const reader = await signedIn(merchant.organizationId, role);
      expect((await reader.get('/dashboard/balance?lang=en')).status, role).toBe(200);
      expect((await reader.get(`/dashboard/payouts/${payoutId}?lang=en`)).status, role).toBe(200);
    }
    const developer = await signedIn(merchant.organizationId, 'developer');
    for (const path of ['/dashboard/balance?lang=en', `/dashboard/payouts/${payoutId}?lang=en`]) {
      const refused = await developer.get(path);
      expect(refused.status, path).toBe(403);
      expect(refused.text).toContain('id="not-permitted"');
      expect(refused.text).not.toContain(payoutId);
      expect(refused.text).not.toContain('id="balance-link"');
    }
    const turkishRefusal = await developer.get('/dashboard/balance?lang=tr');
    expect(turkishRefusal.text).toContain('Rolünüz bakiyeyi');
  });

  it('show a manual payout without a batch, with what it carries', async () => {
    const merchant = await liveFundedMerchant(t);
    const payout = await livePayout<Payout>(t, merchant, 1_000_000);
    const client = await signedIn(merchant.organizationId, 'owner', 'live');
    const page = await client.get('/dashboard/balance?lang=en');
    const api = await merchantApi<{ balances: Balance[] }>(t, merchant, 'live', '/v1/balance');
    const balance = api.body.balances[0];
    expect(cardsOf(page.text)).toEqual({
      pending: balance?.pending,
      available: balance?.available,
      inTransit: balance?.inTransit,
      reserve: balance?.reserve,
    });
    expect(payoutRowsOf(page.text).map((row) => row.id)).toEqual([payout.id]);
    expect(page.text).toContain('<span class="hint">Manual</span>');

    const detail = await client.get(`/dashboard/payouts/${payout.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('id="no-batch"');
    expect(detail.text).not.toContain('id="download-csv"');
    const carried = await merchantApi<{ data: Transaction[] }>(
      t,
      merchant,
      'live',
      `/v1/payouts/${payout.id}/transactions`,
    );
    expect(transactionRowsOf(detail.text).map((row) => row.id)).toEqual(
      carried.body.data.map((row) => row.id),
    );

    // A second manual payout: what was released was carried by the first.
    const second = await livePayout<Payout>(t, merchant, 1_000_000);
    const secondPage = await client.get(`/dashboard/payouts/${second.id}?lang=en`);
    expect(secondPage.text).toContain('id="no-transactions"');
    expect(secondPage.text).toContain('This manual payout carries no transactions');
  });

  it('show a refund debt once: a debt card beside a pending of zero, and the position they add up to', async () => {
    const merchant = await sandboxMerchant(t, { wallet: false });
    const charge = await paidCharge(t, merchant, 'sandbox', 12_550);
    // Released to available (no wallet: nothing is paid out), then refunded in full.
    expect(
      await t.gateway.services.settlement.releaseNow({
        organizationId: merchant.organizationId,
        environment: 'sandbox',
      }),
    ).toMatchObject({ released: true });
    const refund = await merchantApi<{ status: string }>(
      t,
      merchant,
      'sandbox',
      `/v1/charges/${charge.id}/refunds`,
      {},
    );
    expect(refund.body.status, refund.text).toBe('succeeded');
    const api = await merchantApi<{ balances: Balance[] }>(t, merchant, 'sandbox', '/v1/balance');
    // 125.50 less 3.50 % + 1.00 TRY (5.39) was credited; all 125.50 went back: owed once, as debt.
    expect(api.body.balances[0]).toMatchObject({ pending: '0', available: '12011', debt: '12550' });

    const client = await signedIn(merchant.organizationId, 'viewer');
    const page = await client.get('/dashboard/balance?lang=en');
    expect(page.status).toBe(200);
    expect(cardsOf(page.text)).toMatchObject({ pending: '0', available: '12011' });
    expect(minorOf(page.text, 'balance-debt')).toBe('12550');
    expect(textOf(page.text, 'balance-debt')).toBe('TRY 125.50');
    expect(page.text).toContain('class="debt-card owed"');
    expect(textOf(page.text, 'balance-debt-notice')).toBe(
      'Refunds exceeded what was left to settle: you owe TRY 125.50. It is recovered from your next payments before anything is batched.',
    );
    // Each figure counts each kuruş once: together they are the 5.39 fee the refund kept.
    expect(minorOf(page.text, 'balance-position')).toBe('-539');
    expect(textOf(page.text, 'balance-position')).toBe('Your position: -TRY 5.39');
    expect(page.text).not.toContain('-TRY 125.50');
    expect(minorOf(page.text, 'next-batch-net')).toBe('0');
    const turkish = await client.get('/dashboard/balance?lang=tr');
    expect(textOf(turkish.text, 'balance-debt')).toBe('125,50 TRY');
    expect(turkish.text).toContain('<dt>Borç</dt>');

    // Without a debt the card says 0, unmarked.
    const clean = await sandboxMerchant(t, { wallet: false });
    const cleanPage = await (
      await signedIn(clean.organizationId, 'viewer')
    ).get('/dashboard/balance?lang=en');
    expect(minorOf(cleanPage.text, 'balance-debt')).toBe('0');
    expect(cleanPage.text).toContain('class="debt-card"');
    expect(cleanPage.text).not.toContain('id="balance-debt-notice"');
  });

  it('make a manual payout from the page with the rules, errors and idempotency of POST /v1/payouts', async () => {
    const merchant = await liveFundedMerchant(t);
    await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
    const owner = await signedIn(merchant.organizationId, 'owner', 'live');
    const payoutsOf = async () =>
      (await merchantApi<{ data: Payout[] }>(t, merchant, 'live', '/v1/payouts')).body.data;
    const availableOf = async () =>
      (await merchantApi<{ balances: Balance[] }>(t, merchant, 'live', '/v1/balance')).body.balances[0]
        ?.available;
    const available = (await availableOf()) ?? '';
    expect(BigInt(available)).toBeGreaterThan(100_000n);

    const page = await owner.get('/dashboard/balance?lang=en');
    expect(page.text).toContain('<form method="get" action="/dashboard/payouts/new" id="payout-form">');
    expect(page.text).toContain(TRON_ADDRESS);

    // The confirmation names the amount and the wallet; nothing is paid yet.
    const confirm = await owner.get('/dashboard/payouts/new?lang=en&amount=1000');
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text, 'payout-confirm-body')).toBe(
      `Pay out TRY 1,000.00 of your available TRY ${(Number(available) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })} to your TRON (TRC-20) wallet?`,
    );
    expect(textOf(confirm.text, 'payout-confirm-address')).toBe(TRON_ADDRESS);
    expect(confirm.text).toContain('<input type="hidden" name="amount" value="100000">');
    expect(await payoutsOf()).toEqual([]);
    const key = /name="key" value="([^"]+)"/.exec(confirm.text)?.[1] ?? '';
    expect(key).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // CSRF is required.
    expect((await owner.postForm('/dashboard/payouts?lang=en', { amount: '100000', key })).status).toBe(403);
    const form = { _csrf: csrfIn(confirm.text), amount: '100000', key };
    const made = await owner.postForm('/dashboard/payouts?lang=en', form);
    expect(made.status, made.text).toBe(303);
    const [payout, ...others] = await payoutsOf();
    expect(others).toEqual([]);
    expect(payout).toMatchObject({ amount: '100000', status: 'pending', automatic: false });
    expect(made.location).toBe(`/dashboard/payouts/${payout?.id}?lang=en&notice=created`);
    const shown = await owner.get(made.location ?? '');
    expect(textOf(shown.text, 'notice')).toBe(
      'The payout was made. It is sent to your wallet; its status follows here.',
    );
    expect(textOf(shown.text, 'payout-kind')).toBe('Manual');
    // The same confirmation submitted again is the same payout, as a retry with the API's key is.
    const again = await owner.postForm('/dashboard/payouts?lang=en', form);
    expect(again.location).toBe(made.location);
    expect(await payoutsOf()).toHaveLength(1);
    expect(await availableOf()).toBe((BigInt(available) - 100_000n).toString());
    // Another user posting that form's key is refused, never answered the first user's payout.
    const admin = await signedIn(merchant.organizationId, 'admin', 'live');
    const stolen = await admin.postForm('/dashboard/payouts?lang=en', {
      _csrf: await admin.sessionCsrf(),
      amount: '100000',
      key,
    });
    expect(stolen.status).toBe(400);
    expect(await payoutsOf()).toHaveLength(1);
    // The same key with another amount: a forged form, nothing paid.
    expect((await owner.postForm('/dashboard/payouts?lang=en', { ...form, amount: '100001' })).status).toBe(
      400,
    );
    expect(await payoutsOf()).toHaveLength(1);
    const audit = await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('organization_id', '=', merchant.organizationId)
      .where('action', '=', 'payout.created')
      .execute();
    expect(audit.map((row) => row.target_id)).toContain(payout?.id);

    // The API's refusals, each as a sentence with the API's status: more than available, below the
    // network minimum (500.00 TRY on TRON live), no usable rate.
    const left = (await availableOf()) ?? '0';
    const tooMuch = await owner.get(
      `/dashboard/payouts/new?lang=en&amount=${(BigInt(left) + 1n) / 100n + 1n}`,
    );
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toContain('data-problem="insufficient"');
    const post = async (amount: string) =>
      owner.postForm('/dashboard/payouts?lang=en', {
        _csrf: form._csrf,
        amount,
        key: `k${amount}-0123456789abcdef`,
      });
    const over = await post((BigInt(left) + 1n).toString());
    expect(over.status).toBe(400);
    expect(textOf(over.text, 'payout-error')).toMatch(/^That is more than is available \(TRY [0-9,.]+\)\.$/);
    const small = await post('100');
    expect(small.status).toBe(400);
    expect(textOf(small.text, 'payout-error')).toBe('The smallest payout on TRON (TRC-20) is TRY 500.00.');
    for (const amount of ['abc', '0', '-5', '1.234']) {
      const bad = await owner.get(`/dashboard/payouts/new?lang=en&amount=${encodeURIComponent(amount)}`);
      expect(bad.status, amount).toBe(400);
      expect(textOf(bad.text, 'payout-error'), amount).toBe(
        'Write the amount in TRY, like 125.50, more than zero.',
      );
    }
    await chainControl(t.liveChain).setRate(
      '0.0290',
      new Date(t.clock.now().getTime() - 3_600_000).toISOString(),
    );
    try {
      const stale = await post('100000');
      expect(stale.status).toBe(503);
      expect(stale.text).toContain('data-problem="rate"');
    } finally {
      await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
    }
    expect(await payoutsOf()).toHaveLength(1);
    const turkish = await owner.postForm('/dashboard/payouts?lang=tr', {
      _csrf: form._csrf,
      amount: '100',
      key: 'turkish-key-0123456789',
    });
    expect(textOf(turkish.text, 'payout-error')).toBe('TRON (TRC-20) ağında en küçük ödeme 500,00 TRY.');

    // A viewer sees no button and is refused; so is an organization without the payouts flag.
    const viewer = await signedIn(merchant.organizationId, 'viewer', 'live');
    const viewerPage = await viewer.get('/dashboard/balance?lang=en');
    expect(viewerPage.text).not.toContain('id="payout-form"');
    expect(viewerPage.text).toContain('id="payout-not-permitted"');
    expect((await viewer.get('/dashboard/payouts/new?lang=en&amount=1000')).status).toBe(403);
    const viewerPost = await viewer.postForm('/dashboard/payouts?lang=en', {
      _csrf: await viewer.sessionCsrf(),
      amount: '100000',
      key: 'viewer-key-0123456789',
    });
    expect(viewerPost.status).toBe(403);
    const plain = await createMerchant(t);
    const plainOwner = await signedIn(plain.organizationId, 'owner');
    const plainPage = await plainOwner.get('/dashboard/balance?lang=en');
    expect(plainPage.text).not.toContain('id="payout-create"');
    const unflagged = await plainOwner.postForm('/dashboard/payouts?lang=en', {
      _csrf: await plainOwner.sessionCsrf(),
      amount: '100000',
      key: 'plain-key-0123456789',
    });
    expect(unflagged.status).toBe(503);
    expect(textOf(unflagged.text, 'payout-error')).toBe(
      'Payouts are not enabled for your organization; they are enabled on request.',
    );
    expect(unflagged.text).not.toContain('id="payout-form"');
    expect(await payoutsOf()).toHaveLength(1);
  });

  it('make one payout of a confirmation posted twice at once, to the wallet it named; none before KYC', async () => {
    const merchant = await liveFundedMerchant(t);
    await chainControl(t.liveChain).setRate('0.0290', t.clock.now().toISOString());
    const owner = await signedIn(merchant.organizationId, 'owner', 'live');
    // Everything available: the second of two simultaneous posts finds the balance taken by the first.
    const confirm = await owner.get('/dashboard/payouts/new?lang=en');
    expect(confirm.status, confirm.text).toBe(200);
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]+)"`).exec(confirm.text)?.[1] ?? '';
    const form = {
      _csrf: csrfIn(confirm.text),
      amount: field('amount'),
      key: field('key'),
      walletId: field('walletId'),
    };
    expect(form.walletId).toMatch(/^wal_/);
    const [first, second] = await Promise.all([
      owner.postForm('/dashboard/payouts?lang=en', form),
      owner.postForm('/dashboard/payouts?lang=en', form),
    ]);
    expect([first.status, second.status], second.text).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    const made = (await merchantApi<{ data: Payout[] }>(t, merchant, 'live', '/v1/payouts')).body.data;
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: form.amount, walletId: form.walletId });
    // The form posted once more, later (a back button and a resubmit): the same payout, and still one
    // audit entry, written by the transaction that made it.
    const replay = await owner.postForm('/dashboard/payouts?lang=en', form);
    expect(replay.status).toBe(303);
    expect(replay.location).toBe(first.location);
    const audited = await t.gateway.database.db
      .selectFrom('audit_log')
      .select(['actor', 'organization_id'])
      .where('action', '=', 'payout.created')
      .where('target_id', '=', made[0]!.id)
      .execute();
    expect(audited).toEqual([
      { actor: expect.stringMatching(/^user:usr_/), organization_id: merchant.organizationId },
    ]);

    // Live payouts wait for KYC, as live API requests do.
    await t.gateway.database.db
      .updateTable('organizations')
      .set({ kyc_status: 'REVIEWING' })
      .where('id', '=', merchant.organizationId)
      .execute();
    const refused = await owner.postForm('/dashboard/payouts?lang=en', {
      ...form,
      key: 'kyc-key-0123456789abcdef',
    });
    expect(refused.status).toBe(403);
    expect(textOf(refused.text, 'payout-error')).toBe(
      'Live payouts wait for your KYC review to be approved, as live API requests do.',
    );
    expect((await owner.get('/dashboard/payouts/new?lang=en&amount=1000')).status).toBe(403);
  });

  it('page the payouts with the API’s cursor, newest first', async () => {
    const merchant = await liveFundedMerchant(t);
    for (let i = 0; i < 21; i++) await livePayout<Payout>(t, merchant, 200_000);
    const api = await merchantApi<{ data: Payout[] }>(t, merchant, 'live', '/v1/payouts?limit=100');
    expect(api.body.data).toHaveLength(21);
    const client = await signedIn(merchant.organizationId, 'viewer', 'live');
    const first = await client.get('/dashboard/balance?lang=en');
    const firstRows = payoutRowsOf(first.text);
    expect(firstRows).toHaveLength(20);
    expect(first.text).not.toContain('id="newest-payouts"');
    const older = /id="older-payouts" href="([^"]+)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    if (!older) throw new Error('no link to older payouts');
    const second = await client.get(older);
    expect(second.status).toBe(200);
    expect(second.text).toContain('id="newest-payouts"');
    expect(second.text).not.toContain('id="older-payouts"');
    expect([...firstRows, ...payoutRowsOf(second.text)].map((row) => row.id)).toEqual(
      api.body.data.map((payout) => payout.id),
    );
    // A cursor that is not one is the 404 page, not a server error.
    expect((await client.get('/dashboard/balance?lang=en&cursor=nonsense')).status).toBe(404);
  });

  it('say when the next batch runs: past a weekend, a Turkish holiday and a closure, with the reserve held back', async () => {
    const merchant = await sandboxMerchant(t, { wallet: false });
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    const services = t.gateway.services.settlementBatches;
    const by = { actor: 'staff:test' };
    expect((await services.setReserve(merchant.organizationId, { reserveBps: 1000, days: 7 }, by)).ok).toBe(
      true,
    );
    const nextOf = async (iso: string) => {
      t.clock.set(new Date(iso));
      const client = await signedIn(merchant.organizationId, 'viewer');
      const page = await client.get('/dashboard/balance?lang=en');
      expect(page.status).toBe(200);
      return page.text;
    };
    const started = t.clock.now();
    try {
      // A Friday after the cut-off: Monday's batch, the weekend skipped.
      const friday = await nextOf('2027-01-08T10:00:00.000Z');
      expect(friday).toContain('data-business-date="2027-01-11" data-cutoff="2027-01-11T03:00:00.000Z"');
      expect(textOf(friday, 'next-batch-skipped')).toBe(
        'No batch runs on 2027-01-09 (weekend), 2027-01-10 (weekend).',
      );
      // Before Monday's cut-off: that day's batch.
      const monday = await nextOf('2027-01-11T02:59:00.000Z');
      expect(monday).toContain('data-business-date="2027-01-11"');
      expect(monday).not.toContain('id="next-batch-skipped"');
      // After Monday's cut-off, the eve of Ramazan Bayramı 2027 (9 to 11 March): Friday 12 March.
      const eve = await nextOf('2027-03-08T04:00:00.000Z');
      expect(eve).toContain('data-business-date="2027-03-12" data-cutoff="2027-03-12T03:00:00.000Z"');
      expect(textOf(eve, 'next-batch-skipped')).toContain('2027-03-09 (public holiday: Ramazan Bayramı)');
      // A closure declared for that Friday: the Monday after.
      expect((await services.declareClosure('2027-03-12', 'Bank maintenance', by)).ok).toBe(true);
      try {
        const closed = await nextOf('2027-03-08T04:00:00.000Z');
        expect(closed).toContain('data-business-date="2027-03-15"');
        expect(textOf(closed, 'next-batch-skipped')).toContain('2027-03-12 (closed: Bank maintenance)');
        const turkish = (await (await signedIn(merchant.organizationId)).get('/dashboard/balance?lang=tr'))
          .text;
        expect(textOf(turkish, 'next-batch-skipped')).toContain('2027-03-12 (kapalı: Bank maintenance)');
        expect(textOf(turkish, 'next-batch-skipped')).toContain('resmî tatil: Ramazan Bayramı');
      } finally {
        await services.removeClosure('2027-03-12', by);
      }
      // 10 000 TRY less the 3.50 % + 1.00 TRY fee is pending; the 10 % reserve holds back a tenth.
      expect(minorOf(eve, 'next-batch-net')).toBe('964900');
      expect(minorOf(eve, 'next-batch-reserve-held')).toBe('96490');
      expect(minorOf(eve, 'next-batch-to-available')).toBe('868410');
      expect(eve).toContain('Held back by the rolling reserve (10% for 7 days)');
      // No default wallet: no automatic payout can follow.
      expect(eve).toContain('data-payout="no_default_wallet"');
      // On the manual payout schedule the funds stay available whatever the wallets.
      expect((await services.setSchedule(merchant.organizationId, 'manual', by)).ok).toBe(true);
      const manual = await nextOf('2027-03-08T04:00:00.000Z');
      expect(manual).toContain('data-payout="manual_schedule"');
      expect(textOf(manual, 'next-batch-payout')).toContain('manual schedule');
    } finally {
      t.clock.set(started);
    }
  });
});
