import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/shared/clock.js';
import { type SuitePage } from '../helpers/browser-suite.js';
import { chainControl } from '../helpers/chain.js';
import { type StaffAccount } from '../helpers/operator.js';
import { liveFundedMerchant, livePayout, TRON_ADDRESS } from '../helpers/payouts.js';
import { t, admin, support, useConsoleSuite, refusedForm } from '../helpers/console-suite.js';

// The operator console's payouts in a real Chromium (issue 13 item 8): the queue and its filter, the
// treasury export downloaded as CSV, a transaction hash recorded on the payout's page and confirmed by
// the chain explorer, a refused hash shown on the page, a cancelation, the minimums page, and a support
// member who sees everything and can change nothing.

interface Payout {
  id: string;
  payoutAmount: string;
}

/** Chromium's own console line for a refused console form: the page shown again, answered 400. */
const isRefusedForm = refusedForm([
  /\/payouts\/po_[0-9a-z]+\/transaction$|\/payout-minimums$/,
  '400 (Bad Request)',
]);

// No worker: the test runs the confirmation job itself.
const { newPage, signInOperator } = useConsoleSuite({ allowed: [isRefusedForm] });

async function signIn(account: StaffAccount, viewport = { width: 1280, height: 900 }): Promise<SuitePage> {
  const opened = await newPage({ viewport, acceptDownloads: true });
  await signInOperator(opened.page, account, '/payouts');
  return opened;
}

const statusOf = (page: Page) => page.locator('#payout-facts .payout-status').textContent();

describe('the console’s payouts', () => {
  it('filters the queue, exports CSV, records a hash, shows a refusal, and cancels', async () => {
    const merchant = await liveFundedMerchant(t);
    const sent = await livePayout<Payout>(t, merchant, 1_000_000);
    t.clock.advance(1000);
    const other = await livePayout<Payout>(t, merchant, 700_000);
    const { page } = await signIn(admin);

    // The queue, filtered to pending treasury payouts with the form.
    await page.selectOption('#payout-filter select[name="rail"]', 'treasury');
    await page.selectOption('#payout-filter select[name="status"]', 'pending');
    await page.click('#payout-filter button[type="submit"]');
    await page.waitForURL(/rail=treasury/);
    expect(new URL(page.url()).searchParams.get('status')).toBe('pending');
    await expect
      .poll(() => page.locator(`tr[data-payout-id="${sent.id}"] .payout-status`).textContent())
      .toBe('pending');
    expect(await page.locator(`tr[data-payout-id="${other.id}"]`).count()).toBe(1);

    // Export as CSV: a download with the header and a line per due payout.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#treasury-export button[value="csv"]'),
    ]);
    expect(download.suggestedFilename()).toMatch(/^treasury-payouts-.*\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe(
      'payoutId,organizationId,network,token,tokenContract,toAddress,amountMinor,amount,debitedAmount,' +
        'debitedCurrency,rate,arrivalDate,createdAt,exportedAt',
    );
    const line = csv.find((row) => row.startsWith(`${sent.id},`))?.split(',');
    expect(line?.slice(0, 7)).toEqual([
      sent.id,
      merchant.organizationId,
      'tron',
      'USDT',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      TRON_ADDRESS,
      sent.payoutAmount,
    ]);

    // The exported payout's page: handed over, no cancel, a hash to record.
    await page.goto(`${t.urls.operator}/payouts/${sent.id}`);
    expect(await page.locator('#cancel-payout').count()).toBe(0);
    expect(await page.locator('#not-sent').count()).toBe(1);
    const transfer = await chainControl(t.liveChain).externalTransfer({
      network: 'tron',
      to: TRON_ADDRESS,
      amount: sent.payoutAmount,
    });
    // A malformed hash is refused on the page, and nothing changes.
    await page.fill('#record-transaction input[name="txHash"]', 'not-a-hash');
    await page.click('#record-transaction button[type="submit"]');
    await expect.poll(() => page.locator('p.form-error').textContent()).toContain('64 hexadecimal digits');
    expect(await statusOf(page)).toBe('pending');
    await page.fill('#record-transaction input[name="txHash"]', transfer.txHash);
    await page.click('#record-transaction button[type="submit"]');
    await page.waitForURL(/notice=recorded/);
    expect(await statusOf(page)).toBe('in_transit');
    expect(await page.locator('#tx-hash').textContent()).toBe(transfer.txHash);

    // The chain confirms it: completed on reload.
    await chainControl(t.liveChain).mine(3);
    t.clock.advance(10 * MINUTE);
    await t.gateway.services.payoutEngine.confirmBatch();
    await page.reload();
    expect(await statusOf(page)).toBe('completed');
    expect(await page.locator('#record-transaction').count()).toBe(0);

    // A payout created after the export was never handed over: it can be canceled with a reason.
    t.clock.advance(1000);
    const late = await livePayout<Payout>(t, merchant, 300_000);
    await page.goto(`${t.urls.operator}/payouts/${late.id}`);
    await page.fill('#cancel-payout input[name="reason"]', 'merchant asked <b>by phone</b>');
    await page.click('#cancel-payout button[type="submit"]');
    await page.waitForURL(/notice=canceled/);
    expect(await statusOf(page)).toBe('canceled');
  });

  it('sets a minimum, refuses a bad one, and shows a support member everything but no form', async () => {
    const { page, context, problems } = await signIn(admin, { width: 390, height: 844 });
    await page.goto(`${t.urls.operator}/payout-minimums`);
    const row = page.locator('tr[data-minimum="live:tron"]');
    await row.locator('input[name="amount"]').fill('60000');
    await row.locator('button[type="submit"]').click();
    await page.waitForURL(/notice=saved/);
    expect(await page.locator('tr[data-minimum="live:tron"] .minimum-amount').textContent()).toBe('60000');
    await page.locator('tr[data-minimum="live:tron"] input[name="amount"]').fill('abc');
    await page.locator('tr[data-minimum="live:tron"] button[type="submit"]').click();
    await expect.poll(() => page.locator('p.form-error').textContent()).toContain('whole number');
    expect(await page.locator('tr[data-minimum="live:tron"] .minimum-amount').textContent()).toBe('60000');
    await page.goto(`${t.urls.operator}/payout-minimums`);
    await page.locator('tr[data-minimum="live:tron"] input[name="amount"]').fill('50000');
    await page.locator('tr[data-minimum="live:tron"] button[type="submit"]').click();
    await page.waitForURL(/notice=saved/);
    await context.close();
    expect(problems.filter((problem) => !isRefusedForm(problem))).toEqual([]);

    const merchant = await liveFundedMerchant(t);
    const payout = await livePayout<Payout>(t, merchant, 400_000);
    const { page: reader } = await signIn(support);
    expect(await reader.locator(`tr[data-payout-id="${payout.id}"]`).count()).toBe(1);
    expect(await reader.locator('#treasury-export').count()).toBe(0);
    await reader.goto(`${t.urls.operator}/payouts/${payout.id}`);
    expect(await statusOf(reader)).toBe('pending');
    expect(await reader.locator('form#record-transaction, form#cancel-payout, form#not-sent').count()).toBe(
      0,
    );
    await reader.goto(`${t.urls.operator}/payout-minimums`);
    expect(await reader.locator('tr[data-minimum="live:tron"] .minimum-amount').textContent()).toBe('50000');
    expect(await reader.locator('#payout-minimums form').count()).toBe(0);
  });
});
