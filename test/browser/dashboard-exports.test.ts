import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { expectStrictPhonePage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { merchantApi } from '../helpers/payouts.js';
import { postCharge } from '../helpers/charges.js';

// Exports in the dashboard, in a real Chromium at phone width (issue 15 item 4): a viewer signs in, opens
// Exports from the navigation, picks charges and a range of days, and the browser downloads the CSV,
// whose rows are the charges the API lists for that range (another organization's are not there); a
// reversed range shows the form again with the error; the page in Turkish.

let t: TestGateway;
const { newPage, signIn, submit, expectProblems } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

async function newCharge(merchant: Merchant, overrides: Record<string, unknown> = {}) {
  t.clock.advance(1000);
  return postCharge<{ id: string; createdAt: string }>(t, merchant, overrides);
}

async function signInViewer(organizationId: string): Promise<Page> {
  const user = await createActiveUser(t, { organizationId, role: 'viewer' });
  const { page } = await newPage({ ...PHONE, acceptDownloads: true });
  await signIn(page, user);
  expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
  return page;
}

describe('exports in Chromium', () => {
  it('a viewer: Exports -> charges of a day -> the downloaded CSV has the rows the API lists', async () => {
    const merchant = await createMerchant(t);
    const day = t.clock.now().toISOString().slice(0, 10);
    const first = await newCharge(merchant, { amount: 123_45, merchantReference: '=1+2' });
    const second = await newCharge(merchant, {
      amount: 99,
      customer: { name: 'Ayşe', email: 'ayse@example.com' },
    });
    const stranger = await createMerchant(t);
    await newCharge(stranger, { merchantReference: 'not-yours' });

    const page = await signInViewer(merchant.organizationId);
    await submit(page, '#exports-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/exports?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Exports');
    await expectStrictPhonePage(page, 'the exports page');

    await page.check('#kind-charges');
    await page.fill('#export-from', day);
    await page.fill('#export-to', day);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-export')]);
    expect(download.suggestedFilename()).toBe(`charges-sandbox-${day}-to-${day}.csv`);
    const path = await download.path();
    const text = await readFile(path, 'utf8');
    const lines = text.trimEnd().split('\n');
    const header = (lines[0] ?? '').split(',');
    const rows = lines.slice(1).map((line) => {
      const cells = line.split(',');
      return Object.fromEntries(header.map((name, i) => [name, cells[i] ?? '']));
    });

    const listed = await merchantApi<{
      data: Array<{
        id: string;
        amount: string;
        merchantReference: string;
        createdAt: string;
        status: string;
      }>;
    }>(t, merchant, 'sandbox', '/v1/charges?limit=100');
    const api = [...listed.body.data].reverse();
    expect(api.map((c) => c.id)).toEqual([first.id, second.id]);
    expect(rows.map((row) => row.id)).toEqual(api.map((c) => c.id));
    for (const [i, charge] of api.entries()) {
      expect(rows[i]).toMatchObject({
        created_at: charge.createdAt,
        status: charge.status,
        amount: charge.amount,
        currency: 'TRY',
      });
    }
    expect(rows[0]).toMatchObject({ amount_decimal: '123.45', merchant_reference: "'=1+2" });
    expect(rows[1]).toMatchObject({ amount_decimal: '0.99', customer_email: 'ayse@example.com' });
    expect(text).not.toContain('not-yours');
    // The download left the form where it was.
    expect(page.url()).toBe(`${t.urls.web}/dashboard/exports?lang=en`);

    // A reversed range: the form again, with what is wrong, the values kept.
    // Chromium's line for the 400 of the refused form.
    expectProblems(/status of 400/);
    await page.check('#kind-refunds');
    await page.fill('#export-from', '2026-11-20');
    await page.fill('#export-to', '2026-11-10');
    await submit(page, '#download-export');
    expect(await page.locator('#form-error').textContent()).toContain(
      'The first day must not be after the last day.',
    );
    expect(await page.inputValue('#export-from')).toBe('2026-11-20');
    expect(await page.isChecked('#kind-refunds')).toBe(true);
    await expectStrictPhonePage(page, 'the refused range');

    await page.goto(`${t.urls.web}/dashboard/exports?lang=tr`);
    expect(await page.locator('h1').textContent()).toBe('Dışa aktarım');
    expect(await page.locator('#download-export').textContent()).toBe('CSV indir');
    await expectStrictPhonePage(page, 'the page in Turkish');
  });
});
