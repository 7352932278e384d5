import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActiveUser } from '../helpers/accounts.js';
import { expectPage } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import { merchantApi, paidCharge } from '../helpers/payouts.js';
import { postCharge } from '../helpers/charges.js';

// Every page of the merchant dashboard and of the checkout, at phone and desktop widths, in English and
// (at phone width) Turkish (issue 15 item 8): each loads, fits its width without a sideways scroll, carries no inline
// script or style, and has no serious or critical accessibility violation (axe-core, WCAG 2.1 A/AA, in
// each language visited). With SCREENSHOTS_DIR set, both languages are visited at both widths and each
// page is also written as a PNG (`<page>-<width>-<language>.png`) for review.

const WIDTHS = { phone: { width: 375, height: 740 }, desktop: { width: 1280, height: 900 } } as const;
const LANGUAGES = ['en', 'tr'] as const;

let t: TestGateway;
let merchant: Merchant;
let owner: { email: string; password: string };
let chargeId: string;
let checkoutUrl: string;
let eventId: string;

const { newPage, signIn } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,sandbox-acquirer' } },
  async setUp(started) {
    t = started;
    merchant = await createMerchant(t, { featureFlags: ['customers', 'wallets', 'payouts', 'events'] });
    owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    chargeId = (await paidCharge(t, merchant, 'sandbox', 125_050)).id;
    const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${chargeId}/refunds`, {
      amount: 5_000,
    });
    expect(refund.status, refund.text).toBe(201);
    const customer = await merchantApi<{ id: string }>(t, merchant, 'sandbox', '/v1/customers', {
      name: 'Ayşe Yılmaz',
      email: 'ayse@example.com',
    });
    expect(customer.status, customer.text).toBe(201);
    const pending = await postCharge<{ paymentPageUrl: string }>(t, merchant, {
      amount: 49_990,
      customerId: customer.body.id,
      customer: undefined,
    });
    checkoutUrl = pending.paymentPageUrl;
    const events = await merchantApi<{ data: Array<{ id: string }> }>(t, merchant, 'sandbox', '/v1/events');
    expect(events.status, events.text).toBe(200);
    eventId = events.body.data[0]?.id ?? '';
  },
});

/** The pages, by name: a path of the dashboard (signed in) or a full URL (the checkout). */
function pages(): Array<[string, string]> {
  return [
    ['home', '/dashboard'],
    ['payments', '/dashboard/payments'],
    ['payment', `/dashboard/payments/${chargeId}`],
    ['customers', '/dashboard/customers'],
    ['exports', '/dashboard/exports'],
    ['balance', '/dashboard/balance'],
    ['settlements', '/dashboard/settlements'],
    ['wallets', '/dashboard/wallets'],
    ['api-keys', '/dashboard/api-keys'],
    ['webhooks', '/dashboard/webhooks'],
    ['events', '/dashboard/events'],
    ['event', `/dashboard/events/${eventId}`],
    ['security', '/dashboard/security'],
    ['branding', '/dashboard/branding'],
    ['checkout', checkoutUrl],
  ];
}

describe('every dashboard and checkout page in Chromium', () => {
  for (const [widthName, viewport] of Object.entries(WIDTHS)) {
    // Fifteen pages, each through axe-core: about a second a page on a busy machine.
    it(
      `at ${widthName} width, in both languages: loads, fits, strict, accessible`,
      { timeout: 240_000 },
      async () => {
        const { page, problems } = await newPage({ viewport, isMobile: widthName === 'phone' });
        await signIn(page, owner);
        expect(page.url()).toBe(`${t.urls.web}/dashboard?lang=en`);
        // Turkish at phone width, where its longer words are likeliest to break a layout (and at both
        // widths when the screenshots are made).
        const languages =
          widthName === 'phone' || process.env.SCREENSHOTS_DIR ? LANGUAGES : (['en'] as const);
        for (const language of languages) {
          for (const [name, target] of pages()) {
            const url = target.startsWith('/') ? `${t.urls.web}${target}` : target;
            const when = `${name} ${widthName} ${language}`;
            const response = await page.goto(`${url}${url.includes('?') ? '&' : '?'}lang=${language}`);
            expect(response?.status(), when).toBe(200);
            expect(await page.locator('html').getAttribute('lang'), when).toBe(language);
            // No inline script or style, no sideways scroll, no accessibility violation.
            await expectPage(page, when, { scripts: 'files', fits: 'window' });
            const dir = process.env.SCREENSHOTS_DIR;
            if (dir) {
              await mkdir(dir, { recursive: true });
              await page.screenshot({
                path: path.join(dir, `${name}-${widthName}-${language}.png`),
                fullPage: true,
              });
            }
          }
        }
        expect(problems).toEqual([]);
      },
    );
  }
});
