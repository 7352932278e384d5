import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createManualClock, DAY } from '../../src/shared/clock.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { type StaffAccount } from '../helpers/operator.js';
import { merchantApi, paidCharge, TRON_ADDRESS, sandboxMerchant } from '../helpers/payouts.js';
import { t, admin, support, useConsoleSuite, refusedForm } from '../helpers/console-suite.js';

// The operator console's settlement in a real Chromium (issue 14 item 8): running a business date from
// the batches page and its report, a weekend refused on the page, a closure declared and removed, an
// organization's rolling reserve and payout schedule set, an out-of-range reserve refused with a 400
// page, the statements verified, and a support member who sees everything and can change nothing.

let merchant: Merchant;

const { newPage, signInOperator } = useConsoleSuite({
  clock: createManualClock(new Date('2027-03-01T10:00:00.000Z')), // a Monday
  async setUp() {
    // A sandbox merchant with a default wallet and a paid charge pending on Monday.
    merchant = await sandboxMerchant(t, { wallet: true });
    await paidCharge(t, merchant, 'sandbox', 1_000_000);
    // Tuesday after its 03:00 UTC cutoff; before any sign-in, which a move of the clock would expire.
    t.clock.set(new Date('2027-03-02T03:05:00.000Z'));
  },
  // Chromium's own console line for a refused console form or filter: the page shown with its status.
  allowed: [
    refusedForm(
      [/\/settlement\/runs$|\/settlement\/closures$/, '409 (Conflict)'],
      [
        /\/settlement\/organizations\/org_[0-9a-z]+\/reserve$|\/settlement\?businessDate=2027-02-30$/,
        '400 (Bad Request)',
      ],
    ),
  ],
});

async function signIn(account: StaffAccount, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const { page } = await newPage({ viewport });
  await signInOperator(page, account, '/settlement');
  return page;
}

/** Submits a form and returns the status of its answer: 303 to the page with a notice, or the refusal's. */
async function submit(page: Page, selector: string, path: RegExp): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse(
      (res) => res.request().method() === 'POST' && path.test(new URL(res.url()).pathname),
    ),
    page.click(selector),
  ]);
  await page.waitForLoadState();
  return response.status();
}

const batchRow = (page: Page) => page.locator(`tr[data-organization-id="${merchant.organizationId}"]`);
const textOf = (page: Page, selector: string) => page.locator(selector).first().textContent();

// The closures page lists the coming and past year of the wall clock (as the API's default run date),
// not the test's clock: the closure is declared a month from the real today.
const closureDate = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);

describe('the console’s settlement', () => {
  // About twenty page loads and form posts: more than the default 30 s when the machine is loaded.
  it(
    'runs a date, refuses a weekend, declares and removes a closure, and sets the reserve and schedule',
    { timeout: 90_000 },
    async () => {
      const page = await signIn(admin);
      expect(await page.locator('nav.op-nav a[href="/settlement"]').textContent()).toBe('Settlement');

      // Run Tuesday: the report as a notice, the merchant's batch paid out in the day's table.
      await page.fill('#run-date input[name="businessDate"]', '2027-03-02');
      expect(await submit(page, '#run-date button[type="submit"]', /^\/settlement\/runs$/)).toBe(303);
      await page.waitForURL(/notice=ran/);
      expect(await textOf(page, 'p.notice')).toBe(
        'Ran 2027-03-02. Owners: 1, paid out: 1, carried: 0, held: 0, unchanged: 0, failed: 0.',
      );
      expect(await page.inputValue('#settlement-filter input[name="businessDate"]')).toBe('2027-03-02');
      expect(await batchRow(page).locator('.batch-status').textContent()).toBe('paid_out');
      expect(await batchRow(page).locator('.batch-outcome').textContent()).toMatch(/^po_/);

      // The filter: no held batch.
      await page.selectOption('#settlement-filter select[name="status"]', 'held');
      await page.click('#settlement-filter button[type="submit"]');
      await page.waitForURL(/status=held/);
      expect(await batchRow(page).count()).toBe(0);

      // A date that is not one: a 400 page, not a database error.
      const invalid = await page.goto(`${t.urls.operator}/settlement?businessDate=2027-02-30`);
      expect(invalid?.status()).toBe(400);
      expect(await textOf(page, 'p.form-error')).toBe(
        'The business date is not a calendar date (YYYY-MM-DD).',
      );

      // A Saturday is refused on the page.
      await page.fill('#run-date input[name="businessDate"]', '2027-03-06');
      expect(await submit(page, '#run-date button[type="submit"]', /^\/settlement\/runs$/)).toBe(409);
      expect(await textOf(page, 'p.form-error')).toBe('2027-03-06 is not a business day (weekend).');

      // A closure, declared (its reason escaped), refused twice, then removed.
      await page.click('a[href="/settlement/closures"]');
      await page.waitForURL(/\/settlement\/closures$/);
      await page.fill('#declare-closure input[name="businessDate"]', closureDate);
      await page.fill('#declare-closure input[name="reason"]', 'Bank holiday <b>bridge</b>');
      expect(await submit(page, '#declare-closure button[type="submit"]', /^\/settlement\/closures$/)).toBe(
        303,
      );
      await page.waitForURL(/notice=declared/);
      const closure = page.locator(`tr[data-closure="${closureDate}"]`);
      expect(await closure.locator('.closure-reason').textContent()).toBe('Bank holiday <b>bridge</b>');
      await page.fill('#declare-closure input[name="businessDate"]', closureDate);
      await page.fill('#declare-closure input[name="reason"]', 'again');
      expect(await submit(page, '#declare-closure button[type="submit"]', /^\/settlement\/closures$/)).toBe(
        409,
      );
      expect(await textOf(page, 'p.form-error')).toBe('That date is closed already.');
      await closure.locator('button[type="submit"]').click();
      await page.waitForURL(/notice=removed/);
      expect(await page.locator(`tr[data-closure="${closureDate}"]`).count()).toBe(0);

      // The organization's page, from the batches table.
      await page.goto(`${t.urls.operator}/settlement?businessDate=2027-03-02`);
      await batchRow(page).locator(`a[href="/settlement/organizations/${merchant.organizationId}"]`).click();
      await page.waitForURL(/\/settlement\/organizations\/org_/);
      expect(await textOf(page, '#payout-schedule')).toBe('daily');
      expect(await textOf(page, '#rolling-reserve')).toBe('none');
      expect(await textOf(page, '#verify-statements tr[data-environment="sandbox"] .verification')).toBe(
        'valid',
      );
      expect(await textOf(page, '#verify-statements tr[data-environment="sandbox"] .num')).toBe('1');

      await page.fill('#set-reserve input[name="reserveBps"]', '1000');
      await page.fill('#set-reserve input[name="days"]', '30');
      await page.click('#set-reserve button[type="submit"]');
      await page.waitForURL(/notice=reserve/);
      expect(await textOf(page, '#rolling-reserve')).toBe('1000 bps held for 30 days');
      await page.selectOption('#set-schedule select[name="schedule"]', 'manual');
      await page.click('#set-schedule button[type="submit"]');
      await page.waitForURL(/notice=schedule/);
      expect(await textOf(page, '#payout-schedule')).toBe('manual');

      // Out of range or not a whole number: a 400 page with the error, nothing changed.
      const reservePath = /^\/settlement\/organizations\/org_[0-9a-z]+\/reserve$/;
      for (const [reserveBps, days] of [
        ['10001', '30'],
        ['1000', '366'],
        ['12.5', '30'],
        ['-1', '30'],
      ]) {
        await page.fill('#set-reserve input[name="reserveBps"]', reserveBps ?? '');
        await page.fill('#set-reserve input[name="days"]', days ?? '');
        expect(await submit(page, '#set-reserve button[type="submit"]', reservePath)).toBe(400);
        expect(await textOf(page, 'p.form-error')).toContain('whole number of basis points from 0 to 10000');
        expect(await textOf(page, '#rolling-reserve')).toBe('1000 bps held for 30 days');
      }

      // Every write was audited as the admin.
      const audited = await t.gateway.database.db
        .selectFrom('audit_log')
        .select(['action', 'target_id'])
        .where('actor', '=', `staff:${admin.id}`)
        .where('action', 'like', 'settlement.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      expect(audited.map((row) => `${row.action} ${row.target_id}`).sort()).toEqual(
        [
          'settlement.run_requested 2027-03-02',
          `settlement.closure_declared ${closureDate}`,
          `settlement.closure_removed ${closureDate}`,
          `settlement.reserve_set ${merchant.organizationId}`,
          `settlement.payout_schedule_set ${merchant.organizationId}`,
        ].sort(),
      );
    },
  );

  it('shows a support member everything but no form, refuses a forged form, and fits a phone', async () => {
    const page = await signIn(support, { width: 375, height: 667 });
    expect(await batchRow(page).locator('.batch-status').textContent()).toBe('paid_out');
    expect(await page.locator('#run-date').count()).toBe(0);
    expect(await page.locator('form[method="post"]:not([action="/logout"])').count()).toBe(0);

    await page.goto(`${t.urls.operator}/settlement/organizations/${merchant.organizationId}`);
    expect(await textOf(page, '#payout-schedule')).toBe('manual');
    expect(await textOf(page, '#rolling-reserve')).toBe('1000 bps held for 30 days');
    expect(await textOf(page, '#verify-statements tr[data-environment="sandbox"] .verification')).toBe(
      'valid',
    );
    expect(await page.locator('form[method="post"]:not([action="/logout"])').count()).toBe(0);
    // The page's content fits a phone without horizontal scrolling. The whole document does not: the
    // console's shared header (layout.eta, operator.css) keeps the staff address unbroken in its log-out
    // button and runs past 375 px on every console page.
    const [innerWidth, mainScroll, mainWidth, overflowing] = (await page.evaluate(
      `[window.innerWidth, document.querySelector('main').scrollWidth, document.querySelector('main').clientWidth,
        Array.from(document.querySelectorAll('main *'))
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth)
          .map((element) => element.tagName)]`,
    )) as [number, number, number, string[]];
    expect(innerWidth).toBe(375);
    expect(mainScroll).toBeLessThanOrEqual(mainWidth);
    expect(overflowing).toEqual([]);

    await page.goto(`${t.urls.operator}/settlement/closures`);
    expect(await page.locator('#declare-closure').count()).toBe(0);
    expect(await page.locator('form[method="post"]:not([action="/logout"])').count()).toBe(0);

    // A forged form with the support member's own session and CSRF token: 403, nothing done.
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    for (const [path, form] of [
      ['/settlement/runs', { businessDate: '2027-03-02' }],
      ['/settlement/closures', { businessDate: closureDate, reason: 'forged' }],
      [`/settlement/organizations/${merchant.organizationId}/reserve`, { reserveBps: '0', days: '0' }],
      [`/settlement/organizations/${merchant.organizationId}/schedule`, { schedule: 'daily' }],
    ] as const) {
      const res = await page.request.post(`${t.urls.operator}${path}`, {
        form: { _csrf: csrf, ...form },
        maxRedirects: 0,
      });
      expect([path, res.status()]).toEqual([path, 403]);
    }
    expect(await t.gateway.services.settlementBatches.reserve(merchant.organizationId)).toEqual({
      reserveBps: 1000,
      days: 30,
    });
  });

  it('says in words why a frozen organization’s batch is held', async () => {
    // Funded before the freeze (a frozen organization's API answers 403), then frozen by the risk team.
    const frozen = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
    const wallet = await merchantApi(t, frozen, 'sandbox', '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
    await paidCharge(t, frozen, 'sandbox', 500_000);
    const freeze = await t.gateway.services.organizations.freeze(frozen.organizationId, 'risk review', {
      actor: 'staff:risk',
    });
    expect(freeze.ok).toBe(true);
    // Wednesday after its cutoff (before the sign-in: a move of the clock would expire the session).
    t.clock.set(new Date('2027-03-03T03:05:00.000Z'));
    expect(
      await t.gateway.services.settlementBatches.runDay(new Date('2027-03-03T03:00:00.000Z')),
    ).toMatchObject({ frozen: 1, failed: 0 });

    const page = await signIn(support);
    await page.goto(`${t.urls.operator}/settlement?businessDate=2027-03-03`);
    const row = page.locator(`tr[data-organization-id="${frozen.organizationId}"]`);
    expect(await row.locator('.batch-status').textContent()).toBe('held');
    expect(await row.locator('.batch-outcome').textContent()).toBe(
      'held: the organization is frozen; the funds stay available and are paid out by the first run after it is unfrozen.',
    );
  });

  it('says in words why a batch was carried', async () => {
    // No default wallet: Thursday's batch releases the funds and carries them.
    const walletless = await createMerchant(t, { featureFlags: ['payouts', 'wallets'] });
    await paidCharge(t, walletless, 'sandbox', 300_000);
    t.clock.set(new Date('2027-03-04T03:05:00.000Z'));
    expect(
      await t.gateway.services.settlementBatches.runDay(new Date('2027-03-04T03:00:00.000Z')),
    ).toMatchObject({ failed: 0 });

    const page = await signIn(support);
    await page.goto(`${t.urls.operator}/settlement?businessDate=2027-03-04`);
    const row = page.locator(`tr[data-organization-id="${walletless.organizationId}"]`);
    expect(await row.locator('.batch-status').textContent()).toBe('carried');
    expect(await row.locator('.batch-outcome [data-reason]').getAttribute('data-reason')).toBe(
      'no_default_wallet',
    );
    expect(await row.locator('.batch-outcome').textContent()).toBe(
      'carried: the organization has no default wallet; the funds stay available.',
    );
  });
});
