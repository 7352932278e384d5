import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parseApiKey } from '../../src/modules/api-keys/key-format.js';
import { SECOND } from '../../src/shared/clock.js';
import { expectPage } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createActiveUser, createInvitedOwner, linkIn, mailsTo, totpCode } from '../helpers/accounts.js';

// The merchant dashboard in a real Chromium: activation with the one-time live key, login, the home
// page, two-factor enrollment, logout, login with a TOTP code, and the password reset pages.

let t: TestGateway;
let web: string;

const { newPage, submit, expectProblems } = useBrowserSuite({
  setUp(started) {
    t = started;
    web = t.urls.web;
  },
});

/** Only the dashboard's own script and JSON data blocks; no inline style or handler. */
const expectStrictPage = (page: Page) => expectPage(page, page.url(), { scripts: '/assets/dashboard.js' });

const expectFitsPhone = (page: Page, when: string) => expectPage(page, when, { fits: 375 });

describe('the dashboard in Chromium', () => {
  it('activation -> live key once -> login -> home -> enable 2FA -> logout -> login with a TOTP code', async () => {
    const owner = await createInvitedOwner(t, { organizationName: 'Bosphorus Media Ltd' });
    const { page, problems } = await newPage();

    // The link of the approval e-mail: choose a password.
    const first = await page.goto(owner.url);
    expect(first?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Activate your account');
    expect(await page.locator('.intro').textContent()).toContain(owner.email);
    await expectStrictPage(page);
    await page.fill('#password', 'browser chosen passphrase');
    await page.fill('#passwordConfirmation', 'browser chosen passphrase');
    await submit(page);

    // The live key, once.
    expect(await page.locator('h1').textContent()).toBe('Your account is active');
    const liveKey = (await page.locator('#live-key').textContent()) ?? '';
    expect(liveKey).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    // No link on this page reloads the used link (the key would be gone), except the way on.
    expect(await page.locator('a.lang').count()).toBe(0);
    expect(await page.locator('#continue-to-login').isVisible()).toBe(true);
    const stored = await t.testDb.database.db
      .selectFrom('api_keys')
      .select('secret_hash')
      .where('organization_id', '=', owner.organizationId)
      .execute();
    expect(stored).toEqual([{ secret_hash: parseApiKey(liveKey)?.secretHash }]);

    // The link again: used, and no key anywhere on the page.
    expectProblems(/status of 410/);
    const again = await page.goto(owner.url);
    expect(again?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('This link was already used');
    expect(await page.content()).not.toContain('sk_live_');

    // Sign in.
    await page.click('a[href^="/login"]');
    await page.waitForURL(`${web}/login?lang=en`);
    await page.fill('#email', owner.email);
    await page.fill('#password', 'browser chosen passphrase');
    await submit(page);
    expect(page.url()).toBe(`${web}/dashboard?lang=en`);
    expect(await page.locator('#organization-name').textContent()).toBe('Bosphorus Media Ltd');
    expect(await page.locator('#kyc-status').getAttribute('data-kyc')).toBe('REVIEWING');
    expect(await page.locator('#environment').textContent()).toBe('Sandbox');
    expect(await page.locator('#team li').count()).toBe(1);
    expect(await page.locator('#invite-form').count()).toBe(1);
    await expectStrictPage(page);

    // Environment switch.
    await submit(page, '#environment-form button');
    expect(await page.locator('#environment').textContent()).toBe('Live');
    expect(await page.locator('#api-base-url').textContent()).toBe(t.urls.liveApi);

    // Two-factor enrollment on the security page.
    await page.click('#security-link');
    await page.waitForURL(`${web}/dashboard/security?lang=en`);
    await expectStrictPage(page);
    expect(await page.locator('#two-factor').getAttribute('data-state')).toBe('off');
    await page.click('#totp-enroll-form button');
    await page.locator('#totp-setup').waitFor({ state: 'visible' });
    const secret = (await page.locator('#totp-secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expect
      .poll(() => page.locator('#totp-qr').evaluate((img: { naturalWidth: number }) => img.naturalWidth))
      .toBeGreaterThan(100);
    expect(await page.locator('#totp-qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    // A wrong code first: the page says so and stays.
    expectProblems(/status of 400/);
    await page.fill('#verify-code', totpCode(secret, t.clock.now()) === '000000' ? '111111' : '000000');
    await page.click('#totp-verify-form button');
    await expect
      .poll(() => page.locator('#totp-verify-form [data-form-error]').textContent())
      .toBe('This code is not valid or was already used.');
    await page.fill('#verify-code', totpCode(secret, t.clock.now()));
    await page.click('#totp-verify-form button');
    await page.locator('#recovery-codes-panel').waitFor({ state: 'visible' });
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    expect(await page.locator('#two-factor').getAttribute('data-state')).toBe('on');
    await Promise.all([page.waitForURL(`${web}/dashboard/security?lang=en`), page.click('#recovery-done')]);
    expect(await page.locator('#two-factor-status').textContent()).toContain('On:');

    // Sign out, then in again with the password and a fresh TOTP code.
    await submit(page, '#logout-form button');
    expect(page.url()).toBe(`${web}/login?lang=en&notice=signed_out`);
    expect(await page.locator('#login-notice').textContent()).toBe('You are signed out.');
    await page.goto(`${web}/dashboard`);
    expect(page.url()).toBe(`${web}/login?lang=en`);

    await page.fill('#email', owner.email);
    await page.fill('#password', 'browser chosen passphrase');
    await submit(page);
    expect(page.url()).toBe(`${web}/login/2fa?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Two-factor authentication');
    t.clock.advance(30 * SECOND);
    await page.fill('#code', totpCode(secret, t.clock.now()));
    await submit(page);
    expect(page.url()).toBe(`${web}/dashboard?lang=en`);
    expect(await page.locator('#organization-name').textContent()).toBe('Bosphorus Media Ltd');
    expect(problems.filter((problem) => problem.kind !== 'console')).toEqual([]);
  });

  it('forgot and reset the password through the pages, in Turkish', async () => {
    const user = await createActiveUser(t);
    const { page } = await newPage({ locale: 'tr-TR' });
    await page.goto(`${web}/login`);
    expect(await page.locator('h1').textContent()).toBe('Giriş yap');
    await page.click('a[href^="/forgot-password"]');
    await page.waitForURL(`${web}/forgot-password?lang=tr`);
    await page.fill('#email', user.email);
    await page.click('#forgot-form button');
    await page.locator('#forgot-sent').waitFor({ state: 'visible' });
    expect(await page.locator('#forgot-sent').textContent()).toBe(
      'Bu adrese ait bir hesap varsa bağlantı yolda. Bağlantı 1 saat geçerlidir.',
    );

    const { url } = linkIn((await mailsTo(t, user.email))[0]?.text ?? '', '/reset-password');
    await page.goto(`${url}?lang=tr`);
    await expectStrictPage(page);
    await page.fill('#password', 'yeni ve uzun bir parola');
    await page.fill('#passwordConfirmation', 'yeni ve uzun bir parolaa');
    await page.click('#reset-form button');
    await expect
      .poll(() => page.locator('#reset-form [data-form-error]').textContent())
      .toBe('İki şifre aynı değil.');
    await page.fill('#passwordConfirmation', 'yeni ve uzun bir parola');
    await page.click('#reset-form button');
    await page.locator('#reset-done').waitFor({ state: 'visible' });

    await page.click('#reset-done a');
    await page.waitForURL(`${web}/login?lang=tr`);
    await page.fill('#email', user.email);
    await page.fill('#password', 'yeni ve uzun bir parola');
    await submit(page);
    expect(page.url()).toBe(`${web}/dashboard?lang=tr`);
    expect(await page.locator('h1').textContent()).toBe('Panel');
  });

  it('fits a phone screen: login, activation key, home and security pages', async () => {
    const phone: BrowserContextOptions = {
      viewport: { width: 375, height: 667 },
      isMobile: true,
      hasTouch: true,
    };
    const owner = await createInvitedOwner(t, {
      organizationName: 'A Merchant With A Rather Long Registered Company Name Ltd',
      email: `a.very.long.owner.address.for.the.dashboard.${Date.now()}@merchant-with-long-domain.example`,
    });
    const { page } = await newPage(phone);
    await page.goto(owner.url);
    await expectFitsPhone(page, 'activation form');
    await page.fill('#password', 'phone chosen passphrase');
    await page.fill('#passwordConfirmation', 'phone chosen passphrase');
    await submit(page, 'button[type="submit"]', 'tap');
    await expectFitsPhone(page, 'live key');
    await page.goto(`${web}/login?lang=tr`);
    await expectFitsPhone(page, 'login');
    await page.fill('#email', owner.email);
    await page.fill('#password', 'phone chosen passphrase');
    await submit(page, 'button[type="submit"]', 'tap');
    expect(page.url()).toBe(`${web}/dashboard?lang=tr`);
    await expectFitsPhone(page, 'home');
    await page.goto(`${web}/dashboard/security?lang=tr`);
    await expectFitsPhone(page, 'security');
    await page.tap('#totp-enroll-form button');
    await page.locator('#totp-setup').waitFor({ state: 'visible' });
    await expectFitsPhone(page, 'two-factor setup');
  });
});
