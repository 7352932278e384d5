/**
 * Settlements in the merchant dashboard (issue 14 item 7): the batches of the session's environment,
 * newest first and cursor paged, each batch with its statement's lines, and the statement downloaded as
 * CSV and JSON, the same as the API serves it. A session is needed, a developer is refused, and another
 * organization's or environment's batch is 404. Batches are made by the sandbox test helper
 * `POST /v1/test-helpers/settle` over charges paid through the sandbox acquirer.
 */
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, textOf, WebClient } from './helpers/accounts.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { type Merchant } from './helpers/merchants.js';
import { chainControl } from './helpers/chain.js';
import { merchantApi, paidCharge, sandboxMerchant } from './helpers/payouts.js';
import { payByCard, postCharge } from './helpers/charges.js';
import { expectLoginFirst, listedIn } from './helpers/http-checks.js';

interface Batch {
  id: string;
  businessDate: string;
  status: string;
  net: string;
  payoutId: string | null;
  carryReason: string | null;
}
interface SettleBody {
  released: boolean;
  batch: Batch | null;
}
interface Payout {
  id: string;
  status: string;
  payoutAmount: string;
}

// No worker: batches are made by the test helper, payouts stay pending.
useTestGateway(accountGateway('api,sandbox-acquirer,sandbox-chain'));

/** A sandbox charge paid by card, with the merchant's reference; the default fee is 3.50 % + 1.00 TRY. */
async function chargeWithReference(merchant: Merchant, amount: number, merchantReference: string) {
  const res = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, {
    amount,
    merchantReference,
  });
  await payByCard(t.gateway.services, res, 'Dash Test');
  return res.id;
}

async function settle(merchant: Merchant): Promise<Batch> {
  const res = await merchantApi<SettleBody>(t, merchant, 'sandbox', '/v1/test-helpers/settle', {});
  expect(res.status, res.text).toBe(200);
  if (!res.body.batch) throw new Error(`nothing settled: ${res.text}`);
  return res.body.batch;
}

async function signedIn(organizationId: string, role: UserRole = 'owner') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  const login = await client.login(user.email, user.password);
  expect(login.status).toBe(303);
  return client;
}

const batchesIn = (html: string) => listedIn(html, 'batch');

/** The text of the first element of this class in `html` (simple markup only). */
function classText(html: string, className: string): string | undefined {
  const match = new RegExp(`class="${className}"[^>]*>([\\s\\S]*?)</dd>`).exec(html);
  return match?.[1]
    ?.replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('the settlement pages', () => {
  it('need a session', async () => {
    await expectLoginFirst(t.urls.web, [
      '/dashboard/settlements',
      '/dashboard/settlements/stl_x',
      '/dashboard/settlements/stl_x/statement.csv',
      '/dashboard/settlements/stl_x/statement.json',
    ]);
  });

  it('list the batch with its amounts and payout, show its lines, and download the API’s statement', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    const first = await chargeWithReference(merchant, 1_000_000, 'order-1 <img src=x onerror=alert(1)>');
    await chargeWithReference(merchant, 500_000, 'order-2');
    const refund = await merchantApi<{ id: string; status: string }>(
      t,
      merchant,
      'sandbox',
      `/v1/charges/${first}/refunds`,
      { amount: 100_000 },
    );
    expect(refund.status, refund.text).toBe(201);
    const batch = await settle(merchant);
    // 10 000 + 5 000 TRY charged, fees 351 + 176, 1 000 refunded.
    expect(batch).toMatchObject({ status: 'paid_out', net: '1347300' });
    const payout = await merchantApi<Payout>(t, merchant, 'sandbox', `/v1/payouts/${batch.payoutId}`);
    expect(payout.status, payout.text).toBe(200);

    const client = await signedIn(merchant.organizationId);
    const home = await client.get('/dashboard?lang=en');
    expect(home.text).toContain('href="/dashboard/settlements?lang=en"');

    const list = await client.get('/dashboard/settlements?lang=en');
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('no-store');
    expect(list.text).not.toMatch(/<script|style=/);
    const [listed, ...more] = batchesIn(list.text);
    expect(more).toEqual([]);
    expect(listed).toMatchObject({ id: batch.id, status: 'paid_out' });
    const row = listed?.html ?? '';
    expect(row).toContain(`>${batch.businessDate}</a>`);
    expect(classText(row, 'batch-status')).toBe('Paid out');
    expect(classText(row, 'batch-net')).toBe('TRY 13,473.00');
    expect(classText(row, 'batch-gross')).toBe('TRY 15,000.00');
    expect(classText(row, 'batch-fees')).toBe('TRY 527.00');
    expect(classText(row, 'batch-refunds')).toBe('TRY 1,000.00');
    // 13 473.00 TRY at the sandbox's 0.0285 USDT per TRY.
    expect(payout.body).toMatchObject({ status: 'pending', payoutAmount: '383980500' });
    expect(classText(row, 'batch-payout')).toBe(`${batch.payoutId} · Pending · USDT 383.980500`);
    expect(row).not.toContain('batch-reason');

    // In Turkish, the amounts as the checkout writes them.
    const turkish = batchesIn((await client.get('/dashboard/settlements?lang=tr')).text)[0]?.html ?? '';
    expect(classText(turkish, 'batch-status')).toBe('Ödendi');
    expect(classText(turkish, 'batch-net')).toBe('13.473,00 TRY');
    expect(classText(turkish, 'batch-payout')).toBe(`${batch.payoutId} · Beklemede · 383,980500 USDT`);

    const detail = await client.get(`/dashboard/settlements/${batch.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toMatch(/<script|style=|<img/);
    expect(detail.text).toContain('order-1 &lt;img src=x onerror=alert(1)&gt;');
    expect(textOf(detail.text, 'batch-net')).toBe('TRY 13,473.00');
    expect(textOf(detail.text, 'batch-item-count')).toBe('3');
    expect(textOf(detail.text, 'batch-reserve-held')).toBe('TRY 0.00');
    expect(textOf(detail.text, 'batch-rate')).toMatch(/^1 TRY = 0\.0285 USDT \(sandbox\) · /);
    expect(textOf(detail.text, 'payout-id')).toBe(batch.payoutId);
    expect(textOf(detail.text, 'payout-status')).toBe('Pending');
    expect(textOf(detail.text, 'payout-debited')).toBe('TRY 13,473.00');
    expect(textOf(detail.text, 'payout-sent')).toBe('USDT 383.980500');
    const lines = [
      ...detail.text.matchAll(/<li data-line-id="[^"]+" data-type="([^"]+)" data-source-id="([^"]+)">/g),
    ];
    expect(lines.map((line) => line[1]).sort()).toEqual(['charge', 'charge', 'refund']);
    expect(lines.map((line) => line[2])).toContain(refund.body.id);
    expect(detail.text).toContain('-TRY 1,000.00');

    // The downloads are the API's statement, byte for byte.
    const apiJson = await merchantApi<{ hash: string }>(
      t,
      merchant,
      'sandbox',
      `/v1/settlements/${batch.id}/statement`,
    );
    const apiCsv = await merchantApi(t, merchant, 'sandbox', `/v1/settlements/${batch.id}/statement.csv`);
    expect(apiJson.status).toBe(200);
    expect(apiCsv.status).toBe(200);
    expect(textOf(detail.text, 'statement-hash')).toBe(apiJson.body.hash);
    expect(detail.text).toContain(`href="/dashboard/settlements/${batch.id}/statement.csv?lang=en"`);
    expect(detail.text).toContain(`href="/dashboard/settlements/${batch.id}/statement.json?lang=en"`);

    const csv = await client.get(`/dashboard/settlements/${batch.id}/statement.csv?lang=en`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="statement-${batch.id}.csv"`);
    expect(csv.headers.get('cache-control')).toBe('no-store');
    expect(csv.text).toBe(apiCsv.text);
    expect(csv.text.split('\r\n').filter((line) => line.startsWith('line,'))).toHaveLength(3);

    const json = await client.get(`/dashboard/settlements/${batch.id}/statement.json?lang=en`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.headers.get('content-disposition')).toBe(`attachment; filename="statement-${batch.id}.json"`);
    expect(json.headers.get('cache-control')).toBe('no-store');
    expect(json.text).toBe(apiJson.text);
    expect(json.json).toEqual(apiJson.body);
  });

  it('shows why a batch carried, and pages newest first with an older link', async () => {
    const merchant = await sandboxMerchant(t, { wallet: false });
    const made: Batch[] = [];
    for (let i = 0; i < 21; i += 1) {
      // The batches are of one day: a second apart, their ids (which sort by time) order them.
      t.clock.advance(1000);
      await paidCharge(t, merchant, 'sandbox', 10_000);
      made.push(await settle(merchant));
    }
    expect(
      made.every((batch) => batch.status === 'carried' && batch.carryReason === 'no_default_wallet'),
    ).toBe(true);
    const newestFirst = made.map((batch) => batch.id).reverse();

    const client = await signedIn(merchant.organizationId, 'viewer');
    const page = await client.get('/dashboard/settlements?lang=en');
    expect(page.status).toBe(200);
    const first = batchesIn(page.text);
    expect(first.map((batch) => batch.id)).toEqual(newestFirst.slice(0, 20));
    expect(classText(first[0]?.html ?? '', 'batch-status')).toBe('Carried');
    expect(classText(first[0]?.html ?? '', 'batch-reason')).toBe(
      'there is no default wallet; the funds stay available.',
    );
    expect(first[0]?.html).not.toContain('batch-payout');
    const older = /<a id="older-batches" href="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
    expect(older).toMatch(/^\/dashboard\/settlements\?lang=en&cursor=/);
    expect(page.text).not.toContain('id="newest-batches"');

    const second = await client.get(older ?? '');
    expect(second.status).toBe(200);
    expect(batchesIn(second.text).map((batch) => batch.id)).toEqual(newestFirst.slice(20));
    expect(second.text).not.toContain('id="older-batches"');
    expect(second.text).toContain('id="newest-batches"');

    // A carried batch's statement has no payout; the page says why.
    const detail = await client.get(`/dashboard/settlements/${newestFirst[0]}?lang=tr`);
    expect(detail.status).toBe(200);
    expect(textOf(detail.text, 'batch-status')).toBe('Devredildi');
    expect(textOf(detail.text, 'batch-reason')).toBe(
      'varsayılan cüzdan yok; tutar kullanılabilir bakiyede kalır.',
    );
    expect(detail.text).not.toContain('id="payout"');
    expect(detail.text).toContain('id="download-csv"');

    // A cursor the list did not issue is no page.
    expect((await client.get('/dashboard/settlements?lang=en&cursor=nonsense')).status).toBe(404);
  });

  it('say why a frozen organization’s batch is held, in both languages', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 100_000);
    const organizations = t.gateway.services.organizations;
    expect(
      (await organizations.freeze(merchant.organizationId, 'risk review', { actor: 'staff:risk' })).ok,
    ).toBe(true);
    // The next business day's batch (Tuesday, 03:00 UTC) holds it (ADR 0053); the clock stays there.
    const clockBefore = t.clock.now();
    t.clock.set(new Date('2026-11-24T03:00:30.000Z'));
    try {
      await t.gateway.services.settlementBatches.runDay(new Date('2026-11-24T03:00:00.000Z'));
    } finally {
      t.clock.set(clockBefore);
    }
    const client = await signedIn(merchant.organizationId, 'viewer');
    const page = await client.get('/dashboard/settlements?lang=en');
    expect(page.status).toBe(200);
    const [batch] = batchesIn(page.text);
    expect(batch?.status).toBe('held');
    expect(classText(batch?.html ?? '', 'batch-reason')).toBe(
      'your organization is paused; the funds stay available and are paid out on the first business day after it is resumed.',
    );
    const detail = await client.get(`/dashboard/settlements/${batch?.id ?? ''}?lang=tr`);
    expect(detail.status).toBe(200);
    expect(textOf(detail.text, 'batch-reason')).toBe(
      'kuruluşunuz durduruldu; tutar kullanılabilir bakiyede kalır ve kuruluş yeniden açıldıktan sonraki ilk iş gününde ödenir.',
    );
  });

  it('refuse another organization’s and the other environment’s batch, and a developer', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 10_000);
    const batch = await settle(merchant);
    const paths = [
      `/dashboard/settlements/${batch.id}?lang=en`,
      `/dashboard/settlements/${batch.id}/statement.csv?lang=en`,
      `/dashboard/settlements/${batch.id}/statement.json?lang=en`,
    ];

    // Another organization: its own (empty) list, and 404 for this batch.
    const stranger = await sandboxMerchant(t, { wallet: true });
    const other = await signedIn(stranger.organizationId);
    const otherList = await other.get('/dashboard/settlements?lang=en');
    expect(otherList.status).toBe(200);
    expect(batchesIn(otherList.text)).toEqual([]);
    expect(textOf(otherList.text, 'no-batches')).toBe('No settlement batches yet.');
    for (const path of paths) {
      const page = await other.get(path);
      expect(page.status, path).toBe(404);
      expect(page.text, path).not.toContain(batch.id);
      expect(page.headers.get('content-type'), path).toContain('text/html');
    }
    expect((await other.get('/dashboard/settlements/stl_nope?lang=en')).status).toBe(404);

    // The same organization in the live environment: a sandbox batch is not there.
    const owner = await signedIn(merchant.organizationId);
    expect(batchesIn((await owner.get('/dashboard/settlements?lang=en')).text).map((b) => b.id)).toEqual([
      batch.id,
    ]);
    await owner.submit('/dashboard?lang=en', { environment: 'live' }, '/dashboard/environment?lang=en');
    const live = await owner.get('/dashboard/settlements?lang=en');
    expect(live.text).toContain('data-environment="live"');
    expect(batchesIn(live.text)).toEqual([]);
    for (const path of paths) expect((await owner.get(path)).status, path).toBe(404);

    // A developer of the organization sees none of it.
    const developer = await signedIn(merchant.organizationId, 'developer');
    for (const path of ['/dashboard/settlements?lang=en', ...paths]) {
      const page = await developer.get(path);
      expect(page.status, path).toBe(403);
      expect(page.text, path).not.toContain(batch.id);
      expect(textOf(page.text, 'not-permitted'), path).toBe(
        'Your role cannot see settlements. Ask an owner or an admin.',
      );
    }
    // A viewer and an admin read it.
    for (const role of ['viewer', 'admin'] as const) {
      const reader = await signedIn(merchant.organizationId, role);
      expect((await reader.get(paths[0] ?? '')).status, role).toBe(200);
      expect((await reader.get(paths[1] ?? '')).status, role).toBe(200);
    }
  });

  // Last in the file: it leaves the sandbox chain's rate dated at this test's clock instead of following it.
  it('say in words why a batch waits for an exchange rate, in both languages', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 100_000);
    const chain = chainControl(t.sandboxChain);
    await chain.setRate(null);
    let batch: Batch;
    try {
      batch = await settle(merchant);
    } finally {
      await chain.setRate('0.0285');
    }
    expect(batch.status).toBe('held');
    const client = await signedIn(merchant.organizationId, 'viewer');
    const page = await client.get('/dashboard/settlements?lang=en');
    const [listed] = batchesIn(page.text);
    expect(listed?.id).toBe(batch.id);
    expect(listed?.html).toContain('data-reason="rate_unavailable:missing"');
    expect(classText(listed?.html ?? '', 'batch-reason')).toBe(
      'there is no usable exchange rate yet (no rate is available); retried automatically.',
    );
    const detail = await client.get(`/dashboard/settlements/${batch.id}?lang=tr`);
    expect(textOf(detail.text, 'batch-reason')).toBe(
      'henüz kullanılabilir bir kur yok (kur bilgisi yok); otomatik olarak yeniden denenir.',
    );
  });
});
