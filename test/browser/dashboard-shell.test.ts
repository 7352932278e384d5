import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { UserRole } from '../../src/db/schema.js';
import { createActiveUser } from '../helpers/accounts.js';
import { accessibilityProblems, expectPage } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant } from '../helpers/merchants.js';

// The application shell of the merchant dashboard (issue 15 item 0), in a real Chromium: the navigation
// in groups on every signed-in page, the current area marked, the links a role may follow and no other,
// the environment switch that stays in the area and the sandbox banner, the skip link for keyboard users,
// a desktop layout with the navigation beside the page and a phone layout where nothing scrolls the page
// sideways. With SCREENSHOTS_DIR set, it also writes the pages as PNG for review (docs/dashboard.md).

const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

let t: TestGateway;
const { newPage, signIn, submit } = useBrowserSuite({
  setUp(started) {
    t = started;
  },
});

async function signInAs(
  organizationId: string,
  role: UserRole,
  viewport: { width: number; height: number },
): Promise<Page> {
  const user = await createActiveUser(t, { organizationId, role });
  const { page } = await newPage({ viewport, isMobile: viewport.width < 500 });
  await signIn(page, user);
  expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
  return page;
}

/** The navigation's groups and links as the user sees them. */
async function navigation(page: Page) {
  return page.locator('nav.app-nav .nav-group').evaluateAll((groups) =>
    groups.map((group) => ({
      heading: group.querySelector('.nav-heading')?.textContent ?? null,
      links: Array.from(group.querySelectorAll('a'), (a: { id: string }) => a.id),
    })),
  );
}

async function expectStrictPage(page: Page, when: string) {
  await expectPage(page, when, { scripts: 'files', fits: 'window' });
}

async function screenshot(page: Page, name: string) {
  const dir = process.env.SCREENSHOTS_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

describe('the dashboard shell in Chromium', () => {
  it('an owner on a desktop: grouped navigation, the current area, the switch back to the same area, the sandbox banner', async () => {
    const merchant = await createMerchant(t, { featureFlags: ['customers', 'wallets'] });
    const page = await signInAs(merchant.organizationId, 'owner', DESKTOP);

    expect(await navigation(page)).toEqual([
      { heading: null, links: ['home-link', 'payments-link', 'customers-link', 'exports-link'] },
      { heading: 'Balance and payouts', links: ['balance-link', 'settlements-link', 'wallets-link'] },
      { heading: 'Developers', links: ['api-keys-link', 'webhooks-link'] },
      { heading: 'Settings', links: ['team-link', 'security-nav-link', 'branding-link'] },
    ]);
    expect(await page.locator('#home-link').getAttribute('aria-current')).toBe('page');
    expect(await page.locator('#shell-organization').textContent()).toBe(
      await page.locator('#organization-name').textContent(),
    );
    expect(await page.locator('#shell-environment').getAttribute('data-environment')).toBe('sandbox');
    expect(await page.locator('#test-mode-banner').isVisible()).toBe(true);
    // The navigation is beside the page on a desktop.
    const nav = await page.locator('nav.app-nav').boundingBox();
    const main = await page.locator('main#content').boundingBox();
    expect(nav && main && nav.x + nav.width <= main.x).toBe(true);
    await expectStrictPage(page, 'home');
    await screenshot(page, 'dashboard-home-desktop-en');

    // Another area: its link is the current one, every other is not.
    await submit(page, '#wallets-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/wallets?lang=en`);
    expect(
      await page.locator('nav.app-nav [aria-current="page"]').evaluateAll((as) => as.map((a) => a.id)),
    ).toEqual(['wallets-link']);

    // The switch keeps the area; live has no banner.
    await submit(page, '#environment-switch');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/wallets?lang=en`);
    expect(await page.locator('#shell-environment').getAttribute('data-environment')).toBe('live');
    expect(await page.locator('#test-mode-banner').count()).toBe(0);
    expect(await page.locator('#environment-switch').textContent()).toBe('Switch to sandbox');

    // Turkish: the same shell in the other language.
    await page.goto(`${t.urls.web}/dashboard/wallets?lang=tr`);
    expect(await page.locator('html').getAttribute('lang')).toBe('tr');
    expect(await page.locator('nav.app-nav').getAttribute('aria-label')).toBe('Panel menüsü');
    expect(await page.locator('.nav-heading').allTextContents()).toEqual([
      'Bakiye ve hakedişler',
      'Geliştiriciler',
      'Ayarlar',
    ]);
    await submit(page, '#environment-switch');
    expect(await page.locator('#test-mode-banner').textContent()).toContain('Test modu');
    await screenshot(page, 'dashboard-wallets-desktop-tr');
  });

  it('a developer on a phone: only the links the role may follow, the navigation above the page, no sideways scroll', async () => {
    const merchant = await createMerchant(t);
    const page = await signInAs(merchant.organizationId, 'developer', PHONE);

    // No Balance or Settlements (a developer may not read them), no Customers (the flag is off).
    expect(await navigation(page)).toEqual([
      { heading: null, links: ['home-link', 'payments-link'] },
      { heading: 'Balance and payouts', links: ['wallets-link'] },
      { heading: 'Developers', links: ['api-keys-link', 'webhooks-link'] },
      { heading: 'Settings', links: ['team-link', 'security-nav-link', 'branding-link'] },
    ]);
    const nav = await page.locator('nav.app-nav').boundingBox();
    const main = await page.locator('main#content').boundingBox();
    expect(nav && main && nav.y + nav.height <= main.y).toBe(true);
    await expectStrictPage(page, 'home on a phone');
    await screenshot(page, 'dashboard-home-phone-en');

    // A link at the end of the navigation (on its last row) works.
    await submit(page, '#security-nav-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/security?lang=en`);
    expect(await page.locator('#security-nav-link').getAttribute('aria-current')).toBe('page');
    await expectStrictPage(page, 'security on a phone');

    // The Team link goes to the team on the home page.
    await submit(page, '#team-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en#team-heading`);
  });

  it('keyboard alone: sign in, the skip link, then an area through the navigation', async () => {
    const merchant = await createMerchant(t);
    const user = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'viewer' });
    const { page } = await newPage({ viewport: DESKTOP });
    await page.goto(`${t.urls.web}/login?lang=en`);
    const focused = () => page.evaluate('document.activeElement && document.activeElement.id');
    // Tab to the e-mail field, type, Tab to the password, type, Enter submits.
    for (let i = 0; i < 10 && (await focused()) !== 'email'; i += 1) await page.keyboard.press('Tab');
    expect(await focused()).toBe('email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(user.password);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);

    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.className')).toBe('skip-link');
    expect(await page.locator('.skip-link').isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('content');

    // From the top again: Tab through the header to the navigation's Webhooks link, Enter follows it.
    await page.goto(`${t.urls.web}/dashboard?lang=en`);
    for (let i = 0; i < 20 && (await focused()) !== 'webhooks-link'; i += 1) await page.keyboard.press('Tab');
    expect(await focused()).toBe('webhooks-link');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(page.url()).toBe(`${t.urls.web}/dashboard/webhooks?lang=en`);
    expect(await accessibilityProblems(page), 'webhooks').toEqual([]);
  });
});
