import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createMerchant } from '../helpers/merchants.js';
import { type StaffAccount } from '../helpers/operator.js';
import { paidCharge } from '../helpers/payouts.js';
import { t, admin, support, useConsoleSuite, refusedForm } from '../helpers/console-suite.js';

// The operator console's reconciliation and live FX rates in a real Chromium (issue 14 items 3, 7 and 8):
// an admin reconciles a live date from the form and lands on the run with its totals; a date not over is
// refused on the page; an admin enters the live rate (a bad one is refused on the page); a support member
// sees the runs and the rates and no form.

const { newPage, signInOperator } = useConsoleSuite({
  // Chromium's own console lines for the refused forms: the page shown again, answered 409 or 400.
  allowed: [refusedForm([/\/reconciliation\/runs$/, '409 (Conflict)'], [/\/fx-rates$/, '400 (Bad Request)'])],
});

async function signIn(account: StaffAccount): Promise<Page> {
  const { page } = await newPage({ viewport: { width: 1280, height: 900 } });
  await signInOperator(page, account, '/reconciliation');
  return page;
}

describe('the console’s reconciliation', () => {
  it('reconciles a date from the form, shows the run, and refuses a date not over', async () => {
    const merchant = await createMerchant(t);
    await paidCharge(t, merchant, 'live', 99_900);
    const day = t.clock.now().toISOString().slice(0, 10);
    t.clock.advance(24 * 3_600_000);

    const page = await signIn(admin);
    await page.selectOption('#run-reconciliation select[name="environment"]', 'live');
    await page.fill('#run-reconciliation input[name="reportDate"]', day);
    await page.click('#run-reconciliation button[type="submit"]');
    await page.waitForURL(/\/reconciliation\/rcn_[0-9a-z]+$/);
    expect(await page.locator('#reconciliation-summary .run-status').textContent()).toBe('matched');
    expect(await page.locator('#reconciliation-summary').textContent()).toContain(
      '1 payment, 0 refunds, net 99900',
    );
    expect(await page.locator('#reconciliation-differences tbody').textContent()).toContain('No difference');

    await page.click('text=All runs');
    await page.waitForURL(/\/reconciliation$/);
    expect(await page.locator('#reconciliation-runs tbody tr').count()).toBe(1);

    const today = t.clock.now().toISOString().slice(0, 10);
    await page.fill('#run-reconciliation input[name="reportDate"]', today);
    await page.click('#run-reconciliation button[type="submit"]');
    await expect.poll(() => page.locator('#reconciliation-error').textContent()).toContain('is not over yet');
  });

  it('enters the live rate from the FX rates page, and refuses one that is not a rate', async () => {
    const page = await signIn(admin);
    await page.click('nav a[href="/fx-rates"]');
    await page.waitForURL(/\/fx-rates$/);
    await page.fill('#enter-rate input[name="rate"]', 'abc');
    await page.fill('#enter-rate input[name="reason"]', 'ticker down');
    await page.click('#enter-rate button[type="submit"]');
    await expect.poll(() => page.locator('#fx-rate-error').textContent()).toContain('positive decimal');
    await page.fill('#enter-rate input[name="rate"]', '0.0291');
    await page.fill('#enter-rate input[name="reason"]', 'ticker <down> since 09:00');
    await page.click('#enter-rate button[type="submit"]');
    await page.waitForURL(/\/fx-rates\?notice=entered$/);
    expect(await page.locator('#fx-rates tbody tr').first().textContent()).toContain(
      'ticker <down> since 09:00',
    );
    expect(await page.locator('#fx-rates .fx-rate').first().textContent()).toBe('0.0291');

    const liveSpread = page.locator('#fx-spreads tr[data-environment="live"]');
    await liveSpread.locator('input[name="spreadBps"]').fill('120');
    await liveSpread.locator('button[type="submit"]').click();
    await page.waitForURL(/\/fx-rates\?notice=spread$/);
    expect(await page.locator('#fx-spreads tr[data-environment="live"] .fx-spread').textContent()).toBe(
      '120',
    );

    // The live rate source: the ticker by default; the operators' rate alone once chosen, with a reason.
    expect(await page.locator('#fx-rate-source .fx-source').getAttribute('data-source')).toBe('ticker');
    expect(await page.locator('#fx-rate-source .fx-source-by').textContent()).toBe('default');
    await page.selectOption('#choose-rate-source select[name="source"]', 'operator');
    await page.click('#choose-rate-source button[type="submit"]');
    // The reason is required by the form itself; the page stays.
    expect(page.url()).toMatch(/\/fx-rates\?notice=spread$/);
    await page.fill('#choose-rate-source input[name="reason"]', 'the ticker answers <0.02>');
    await page.click('#choose-rate-source button[type="submit"]');
    await page.waitForURL(/\/fx-rates\?notice=source$/);
    expect(await page.locator('#fx-rate-source .fx-source').getAttribute('data-source')).toBe('operator');
    expect(await page.locator('#fx-rate-source .fx-source').textContent()).toBe("Operators' rate");
    expect(await page.locator('#fx-rate-source .fx-source-reason').textContent()).toBe(
      'the ticker answers <0.02>',
    );
    expect(await page.locator('#choose-rate-source select[name="source"]').inputValue()).toBe('operator');
  });

  it('shows support the runs and the rates and no form', async () => {
    const page = await signIn(support);
    expect(await page.locator('#reconciliation-runs tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#run-reconciliation').count()).toBe(0);
    await page.goto(`${t.urls.operator}/fx-rates`);
    expect(await page.locator('#fx-rates .fx-rate').first().textContent()).toBe('0.0291');
    expect(await page.locator('#enter-rate').count()).toBe(0);
    expect(await page.locator('#fx-rate-source .fx-source').getAttribute('data-source')).toBe('operator');
    expect(await page.locator('#choose-rate-source').count()).toBe(0);
  });
});
