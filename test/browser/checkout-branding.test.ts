import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { expectPage } from '../helpers/browser.js';
import { PHONE, useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { SCRIPTED_SVG, solidPng } from '../helpers/images.js';
import { createMerchant } from '../helpers/merchants.js';
import { postCharge } from '../helpers/charges.js';

// The merchant's branding in a real Chromium at phone width (issue 15 item 6): an owner opens Branding,
// is refused a colour too light for white text and an SVG logo (before anything is sent), sets a name,
// a colour and a PNG logo; a checkout page of its charge then shows them, in both languages, under the
// strict CSP (the colour comes from a stylesheet, never a style attribute), with no console error.

const NAME = 'Ayşe’s <b>Kitchen</b> & Co';

let t: TestGateway;
const { newPage, signIn, submit, expectProblems } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  setUp(started) {
    t = started;
  },
});

/** The strict CSP at 375 px, where the pages' own script files and JSON data blocks are allowed. */
async function expectStrictPhonePage(page: Page, when: string) {
  await expectPage(page, when, { scripts: 'files', fits: 375 });
}

const colorOf = async (page: Page, selector: string, property: 'color' | 'background-color') =>
  (await page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).getPropertyValue('${property}')`,
  )) as string;

describe('branding in Chromium', () => {
  it('an owner sets the name, colour and logo; the checkout shows them on a phone', async () => {
    const merchant = await createMerchant(t, { name: 'Kitchen Legal Name A.Ş.' });
    const owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    const { page } = await newPage(PHONE);

    await signIn(page, owner);
    await submit(page, '#branding-link');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/branding?lang=en`);
    expect(await page.locator('h1').textContent()).toBe('Branding');
    expect(await page.inputValue('#display-name')).toBe('Kitchen Legal Name A.Ş.');
    await expectStrictPhonePage(page, 'the branding page');

    // An SVG is refused in the page, before anything is sent.
    await page.setInputFiles('#logo-file', {
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from(SCRIPTED_SVG),
    });
    await expect.poll(() => page.locator('#logo-error').isVisible()).toBe(true);
    expect(await page.locator('#logo-error').textContent()).toContain('SVG logos are not accepted');
    expect(await page.inputValue('#logo-data')).toBe('');

    // A colour too light for white text: the server refuses it with the ratio.
    await page.fill('#display-name', NAME);
    await page.fill('#brand-color', '#8a8a8a');
    expectProblems(/status of 400/);
    await submit(page, '#save-branding');
    expect(await page.locator('#brand-color-error').textContent()).toMatch(
      /^#8a8a8a is too light: its contrast ratio with white is 3\.\d+:1, and the checkout needs at least 4\.5:1/,
    );
    expect(await page.getAttribute('#brand-color', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#display-name')).toBe(NAME);
    await expectStrictPhonePage(page, 'the refused form');

    // A real PNG, checked and encoded by branding.js, and a dark green.
    await page.fill('#brand-color', '#1A5E20');
    await page.setInputFiles('#logo-file', {
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: solidPng(40, 16, [26, 94, 32]),
    });
    await expect.poll(() => page.inputValue('#logo-data')).not.toBe('');
    expect(await page.locator('#logo-error').isVisible()).toBe(false);
    await submit(page, '#save-branding');
    expect(page.url()).toBe(`${t.urls.web}/dashboard/branding?lang=en&notice=saved`);
    expect(await page.locator('#notice').textContent()).toBe(
      'Branding saved. Checkout pages show it from now on.',
    );
    expect(await page.locator('#current-name').textContent()).toBe(NAME);
    expect(
      await page
        .locator('#logo-preview')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBe(40);
    await expectStrictPhonePage(page, 'the saved branding');

    // The checkout of one of its charges.
    const charge = await postCharge<{ providerPaymentId: string; paymentPageUrl: string }>(t, merchant);
    await page.goto(`${charge.paymentPageUrl}?lang=en`);
    expect(await page.locator('#merchant-name').textContent()).toBe(NAME);
    expect(await page.locator('#merchant-name b').count()).toBe(0);
    expect(await colorOf(page, '#merchant-name', 'color')).toBe('rgb(26, 94, 32)');
    expect(await colorOf(page, '#pay', 'background-color')).toBe('rgb(26, 94, 32)');
    expect(await colorOf(page, '#pay', 'color')).toBe('rgb(255, 255, 255)');
    const logo = page.locator('#merchant-logo');
    await expect
      .poll(() => logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(40);
    expect(await logo.evaluate((img) => img.getBoundingClientRect().height)).toBeLessThanOrEqual(40);
    expect(await page.title()).toBe(`Pay by card · ${NAME}`);
    await expectStrictPhonePage(page, 'the branded checkout');

    await submit(page, 'a.lang');
    expect(page.url()).toContain('lang=tr');
    expect(await page.locator('#merchant-name').textContent()).toBe(NAME);
    expect(await page.locator('.merchant-secure').textContent()).toBe('Güvenli ödeme');
    await expectStrictPhonePage(page, 'the branded checkout in Turkish');
  });
});
