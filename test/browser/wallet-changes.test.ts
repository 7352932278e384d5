import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HOUR, SECOND } from '../../src/shared/clock.js';
import { newTotpSecret } from '../../src/modules/users/totp.js';
import { createActiveUser, linkIn, mailsTo, totpCode } from '../helpers/accounts.js';
import { accessibilityProblems } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createOrganization } from '../helpers/merchants.js';

// Wallet change controls in a real Chromium at phone width (issue 13 item 2): an owner with 2FA signs in,
// switches to live, adds a wallet, opens the e-mailed link, enters a TOTP code, sees the cool-down; once
// the clock passes it, the wallet is the default.

const ADDRESS = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

let t: TestGateway;
const { newPage, signIn, submit, expectProblems } = useBrowserSuite({
  // No worker: the test runs the wallet-changes job itself.
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

/** Signs the user in with the password and a TOTP code of `secret`. */
async function signInWithTotp(page: Page, user: { email: string; password: string }, secret: string) {
  await signIn(page, user);
  expect(page.url()).toBe(`${t.urls.web}/login/2fa?lang=en`);
  await page.fill('#code', totpCode(secret, t.clock.now()));
  await submit(page, 'button[type="submit"]');
  expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
  // The next code belongs to the next time step: a code is accepted once.
  t.clock.advance(30 * SECOND);
}

describe('wallet change controls in Chromium', () => {
  it('add a live wallet -> e-mailed link -> TOTP -> cool-down -> the default', async () => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock, { featureFlags: ['wallets'] });
    const owner = await createActiveUser(t, { organizationId, role: 'owner' });
    const secret = newTotpSecret();
    await db
      .updateTable('users')
      .set({ totp_secret_enc: t.gateway.services.box.seal(secret), totp_enabled_at: t.clock.now() })
      .where('id', '=', owner.userId)
      .execute();

    const { page, problems } = await newPage(PHONE);

    await signInWithTotp(page, owner, secret);
    await submit(page, '#environment-form button[type="submit"]');
    expect(await page.locator('#environment').getAttribute('data-environment')).toBe('live');

    await submit(page, '#wallets-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/wallets?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Wallets');
    expect(await page.locator('#no-wallets').isVisible()).toBe(true);
    expect(await accessibilityProblems(page), 'wallets').toEqual([]);

    // A bad address is refused on the page.
    await page.selectOption('#wallet-network', 'tron');
    await page.fill('#wallet-address', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM');
    await submit(page, '#add-wallet');
    expect(await page.locator('#form-error').textContent()).toBe(
      'This is not a valid address for the network.',
    );

    await page.fill('#wallet-address', ADDRESS);
    await page.fill('#wallet-label', 'Cold <wallet>');
    await page.check('#wallet-make-default');
    await submit(page, '#add-wallet');
    expect(await page.locator('#notice').textContent()).toContain('every owner received a confirmation link');
    const item = page.locator('#wallets li');
    expect(await item.getAttribute('data-status')).toBe('pending');
    expect(await item.locator('.wallet-label').textContent()).toBe('Cold <wallet>');
    expect(await page.locator('#wallet-changes li').getAttribute('data-status')).toBe(
      'awaiting_confirmation',
    );

    const mail = (await mailsTo(t, owner.email)).find((m) => m.template === 'wallet_change_requested');
    const { url } = linkIn(mail?.text ?? '', '/dashboard/wallet-changes/confirm');
    await page.goto(`${url}?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Confirm a wallet change');
    expect(await page.locator('#change-address').textContent()).toBe(ADDRESS);
    expect(await accessibilityProblems(page), 'the confirmation').toEqual([]);

    // A wrong code first: the page says so.
    const right = totpCode(secret, t.clock.now());
    await page.fill('#confirm-code', right === '000000' ? '111111' : '000000');
    await submit(page, '#confirm-change');
    expect(await page.locator('#form-error').textContent()).toBe('The code is wrong or was already used.');
    expect(await accessibilityProblems(page), 'a wrong code').toEqual([]);
    await page.fill('#confirm-code', right);
    await submit(page, '#confirm-change');
    expect(await page.locator('h1').textContent()).toBe('Change confirmed');
    const confirmed = page.locator('#confirmed');
    expect(await confirmed.getAttribute('data-status')).toBe('cooling_down');
    const effectiveAt = new Date(t.clock.now().getTime() + 24 * HOUR).toISOString();
    expect(await confirmed.getAttribute('data-effective-at')).toBe(effectiveAt);
    expect(await confirmed.textContent()).toContain('Until then payouts go to the previous default wallet.');
    expect(await accessibilityProblems(page), 'confirmed').toEqual([]);

    await submit(page, '#wallets-back');
    expect(await page.locator('#wallet-changes li').getAttribute('data-status')).toBe('cooling_down');
    expect(await page.locator('#wallets li').getAttribute('data-default')).toBe('false');

    // The cool-down passes; the job applies the change.
    t.clock.advance(24 * HOUR + SECOND);
    expect(await t.gateway.services.wallets.applyDue()).toEqual({ applied: 1, expired: 0 });
    await signInWithTotp(page, owner, secret);
    await submit(page, '#environment-form button[type="submit"]');
    await submit(page, '#wallets-link');
    const wallet = page.locator('#wallets li');
    expect(await wallet.getAttribute('data-status')).toBe('active');
    expect(await wallet.getAttribute('data-default')).toBe('true');
    expect(await page.locator('#no-changes').isVisible()).toBe(true);
    expect(await page.locator('style, [style], script, [onclick]').count()).toBe(0);

    // The two refused forms answered 400 on purpose (the bad address, the wrong code); nothing else.
    const expected = problems.filter((p) => p.kind === 'console' && p.text.includes('status of 400'));
    expect(expected.map((p) => new URL(p.url ?? '').pathname)).toEqual([
      '/dashboard/wallets',
      new URL(url).pathname,
    ]);
    expectProblems((problem) => expected.includes(problem));
  });
});
