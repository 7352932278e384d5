import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseApiKey } from '../../src/modules/api-keys/key-format.js';
import { SECOND } from '../../src/shared/clock.js';
import {
  accessibilityProblems,
  openTestBrowser,
  watchedPage,
  type PageProblem,
  type TestBrowser,
} from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createActiveUser, createInvitedOwner, linkIn, mailsTo, totpCode } from '../helpers/accounts.js';

// The merchant dashboard in a real Chromium: activation with the one-time live key, login, the home
// page, two-factor enrollment, logout, login with a TOTP code, and the password reset pages.

let t: TestGateway;
let browser: TestBrowser;
let web: string;

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: PageProblem[];
  /** Console lines Chromium writes for answers a test provoked on purpose (a used link: 410...). */
  expected: RegExp[];
}
const opened: Opened[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestGateway(), openTestBrowser()]);
  web = t.urls.web;
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

afterEach(async () => {
  const all = opened.splice(0);
  const unexpected = all.flatMap((session) =>
    session.problems.filter((problem) => !session.expected.some((pattern) => pattern.test(problem.text))),
  );
  await Promise.all(all.map((session) => session.context.close()));
  expect(unexpected).toEqual([]);
});

async function open(options: BrowserContextOptions = {}): Promise<Opened> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(10_000);
  const { page, problems } = await watchedPage(context);
  const session = { context, page, problems, expected: [] };
  opened.push(session);
  return session;
}

async function submit(page: Page, selector = 'button[type="submit"]') {
  await Promise.all([page.waitForLoadState('load'), page.waitForNavigation(), page.click(selector)]);
}

async function expectStrictPage(page: Page) {
  expect(await page.locator('style, [style], [onclick], [onerror], [onload], [onsubmit]').count()).toBe(0);
  for (const script of await page.locator('script').all()) {
    const src = await script.getAttribute('src');
    if (src === null) expect(await script.getAttribute('type')).toBe('application/json');
    else expect(src).toBe('/assets/dashboard.js');
  }
  expect(await accessibilityProblems(page), page.url()).toEqual([]);
}

async function expectFitsPhone(page: Page, when: string) {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as [number, number];
  expect(innerWidth, when).toBe(375);
  expect(scrollWidth, when).toBeLessThanOrEqual(375);
  expect(await accessibilityProblems(page), when).toEqual([]);
}

describe('the dashboard in Chromium', () => {
  it('activation -> live key once -> login -> home -> enable 2FA -> logout -> login with a TOTP code', async () => {
    const owner = await createInvitedOwner(t, { organizationName: 'Bosphorus Media Ltd' });
    const { page, problems, expected } = await open();

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
    expected.push(/status of 410/);
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
    expected.push(/status of 400/);
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
    const { page } = await open({ locale: 'tr-TR' });
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
    const { page } = await open(phone);
    await page.goto(owner.url);
    await expectFitsPhone(page, 'activation form');
    await page.fill('#password', 'phone chosen passphrase');
    await page.fill('#passwordConfirmation', 'phone chosen passphrase');
    await Promise.all([page.waitForNavigation(), page.tap('button[type="submit"]')]);
    await expectFitsPhone(page, 'live key');
    await page.goto(`${web}/login?lang=tr`);
    await expectFitsPhone(page, 'login');
    await page.fill('#email', owner.email);
    await page.fill('#password', 'phone chosen passphrase');
    await Promise.all([page.waitForNavigation(), page.tap('button[type="submit"]')]);
    expect(page.url()).toBe(`${web}/dashboard?lang=tr`);
    await expectFitsPhone(page, 'home');
    await page.goto(`${web}/dashboard/security?lang=tr`);
    await expectFitsPhone(page, 'security');
    await page.tap('#totp-enroll-form button');
    await page.locator('#totp-setup').waitFor({ state: 'visible' });
    await expectFitsPhone(page, 'two-factor setup');
  });
});
