import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { expectStrictPhonePage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { merchantApi, paidCharge, sandboxMerchant } from '../helpers/payouts.js';

// Settlements in the dashboard, in a real Chromium at phone width (issue 14 item 7): sign in, open
// Settlements, open the batch, download its statement as CSV: the API's statement, byte for byte.

let t: TestGateway;
const { newPage, signIn, submit } = useBrowserSuite({
  // No worker: the batch is made by the sandbox test helper.
  gateway: { env: { ROLES: 'api,sandbox-acquirer,sandbox-chain' } },
  setUp(started) {
    t = started;
  },
});

describe('settlements in Chromium', () => {
  it('sign in -> Settlements -> the batch -> download the CSV statement', async () => {
    const merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    await paidCharge(t, merchant, 'sandbox', 250_000);
    const settled = await merchantApi<{ batch: { id: string; businessDate: string; payoutId: string } }>(
      t,
      merchant,
      'sandbox',
      '/v1/test-helpers/settle',
      {},
    );
    expect(settled.status, settled.text).toBe(200);
    const { id, businessDate, payoutId } = settled.body.batch;
    const user = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });

    const { page } = await newPage({ ...PHONE, acceptDownloads: true });

    await signIn(page, user);
    expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);

    await submit(page, '#settlements-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/settlements?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Settlements');
    const item = page.locator('#settlement-batches li');
    expect(await item.count()).toBe(1);
    expect(await item.getAttribute('data-batch-id')).toBe(id);
    expect(await item.getAttribute('data-status')).toBe('paid_out');
    // 12 500.00 TRY charged less 3.50 % + 1.00 TRY per charge.
    expect(await item.locator('.batch-net').textContent()).toBe('TRY 12,060.50');
    expect(await item.locator('.payout-status').textContent()).toBe('Pending');
    await expectStrictPhonePage(page, 'the list');

    await submit(page, `#settlement-batches li[data-batch-id="${id}"] .batch-detail`);
    expect(page.url()).toBe(`${t.urls.web}/dashboard/settlements/${id}?lang=en`);
    expect(await page.locator('#batch-status').textContent()).toBe('Paid out');
    expect(await page.locator('#payout-id').textContent()).toBe(payoutId);
    expect(await page.locator('#statement-lines li').count()).toBe(2);
    await expectStrictPhonePage(page, 'the batch');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-csv')]);
    expect(download.suggestedFilename()).toBe(`statement-${id}.csv`);
    const file = await download.path();
    const csv = await readFile(file, 'utf8');
    const api = await merchantApi(t, merchant, 'sandbox', `/v1/settlements/${id}/statement.csv`);
    expect(api.status).toBe(200);
    expect(csv).toBe(api.text);
    expect(csv.split('\r\n')[0]).toBe(
      'record,id,type,source_id,charge_id,merchant_reference,amount,fee,net,currency,occurred_at',
    );
    // Still on the batch's page: a download is no navigation.
    expect(page.url()).toBe(`${t.urls.web}/dashboard/settlements/${id}?lang=en`);

    // The Turkish page of the same batch.
    await page.goto(`${t.urls.web}/dashboard/settlements/${id}?lang=tr`);
    expect(await page.locator('h1').textContent()).toBe(`${businessDate} hakedişi`);
    expect(await page.locator('#download-csv').textContent()).toBe('CSV indir');
    expect(await page.locator('#batch-net').textContent()).toBe('12.060,50 TRY');
    await expectStrictPhonePage(page, 'the batch in Turkish');
  });
});
