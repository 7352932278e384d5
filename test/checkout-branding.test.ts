/**
 * The checkout shows the merchant (issue 15 item 6): every page of a charge names the charge's
 * organization in its header (escaped), with its logo and colour when it set them; the logo is served
 * from the checkout origin by its content hash with the type its bytes proved and `nosniff`, the colour
 * as a stylesheet (no inline style); another organization's branding never appears.
 */
import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/db/schema.js';
import { BRAND_STYLESHEET_VERSION } from '../src/modules/checkout/brand.js';
import { t, useTestGateway } from './helpers/suite.js';
import { postCharge } from './helpers/charges.js';
import { jpegLike, solidPng } from './helpers/images.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

interface ChargeBody {
  id: string;
  providerPaymentId: string;
  paymentPageUrl: string;
  expiresAt: string;
}

const HOSTILE_NAME = '<script>alert("shop")</script> Shop & Co';
const ESCAPED_NAME = '&lt;script&gt;alert(&quot;shop&quot;)&lt;/script&gt; Shop &amp; Co';

let branded: Merchant;
let plain: Merchant;
let logo: Buffer;
let logoPath: string;

useTestGateway({}, async () => {
  [branded, plain] = [
    await createMerchant(t, { name: 'Branded Legal Name A.Ş.' }),
    await createMerchant(t, { name: 'Plain Legal Name Ltd' }),
  ];
  logo = solidPng(30, 12, [26, 94, 32]);
  const set = await t.gateway.services.branding.update(
    branded.organizationId,
    { displayName: HOSTILE_NAME, brandColor: '#1a5e20', logo: { action: 'set', bytes: logo } },
    { actor: 'user:test' },
  );
  if (!set.ok) throw new Error(JSON.stringify(set.error));
  logoPath = set.value.logo?.path ?? '';
});

async function createCharge(
  merchant: Merchant,
  overrides: Record<string, unknown> = {},
  environment: Environment = 'sandbox',
): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant, overrides, environment);
}

async function page(path: string) {
  const response = await fetch(`${t.urls.web}${path}`, { redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const header = (html: string) => /<header class="site-header">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? '';
const stylesheetPath = `/checkout/brand/1a5e20-${BRAND_STYLESHEET_VERSION}.css`;

function expectBranded(html: string, where: string) {
  const top = header(html);
  expect(top, where).toContain(`<span class="merchant-name" id="merchant-name">${ESCAPED_NAME}</span>`);
  expect(top, where).toContain(`<img class="merchant-logo" id="merchant-logo" src="${logoPath}" alt="">`);
  expect(html, where).toContain(`<link rel="stylesheet" href="${stylesheetPath}">`);
  expect(html, where).not.toContain('<script>alert');
  expect(html, where).not.toMatch(/style=|<style/);
  expect(html, where).not.toContain('Plain Legal Name');
}

describe('the merchant on the checkout pages', () => {
  it('names the merchant, escaped, with its logo and colour, on every page of its charges', async () => {
    const card = await createCharge(branded);
    const cardPage = await page(`/c/${card.providerPaymentId}?lang=en`);
    expect(cardPage.status).toBe(200);
    expect(cardPage.headers.get('content-security-policy')).toContain("img-src 'self'");
    expectBranded(cardPage.text, 'card page');
    expect(cardPage.text).toContain(`<title>Pay by card · ${ESCAPED_NAME}</title>`);

    const turkish = await page(`/c/${card.providerPaymentId}?lang=tr`);
    expectBranded(turkish.text, 'card page in Turkish');
    expect(header(turkish.text)).toContain('Güvenli ödeme');

    const transfer = await createCharge(branded, { paymentMethod: 'bank_transfer' });
    expectBranded((await page(`/c/${transfer.providerPaymentId}?lang=en`)).text, 'bank transfer page');

    // Paid: the card post answers 303 to the paid page, which names the merchant too.
    const paid = await fetch(`${t.urls.web}/c/${card.providerPaymentId}/card?lang=en`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        holderName: 'Ayşe Yılmaz',
        cardNumber: '4242424242424242',
        expiry: '12/30',
        cvc: '123',
      }).toString(),
    });
    expect(paid.status).toBe(303);
    const paidPage = await page(`/c/${card.providerPaymentId}?lang=en`);
    expect(paidPage.text).toContain('outcome-succeeded');
    expectBranded(paidPage.text, 'paid page');

    // Live charges name the same merchant.
    const live = await createCharge(branded, {}, 'live');
    expectBranded((await page(`/c/${live.providerPaymentId}?lang=en`)).text, 'live card page');

    // Expired: the message of a link past its time.
    const expiring = await createCharge(branded);
    t.clock.advance(new Date(expiring.expiresAt).getTime() - t.clock.now().getTime() + 1000);
    const expired = await page(`/c/${expiring.providerPaymentId}?lang=en`);
    expect(expired.text).toContain('outcome-expired');
    expectBranded(expired.text, 'expired page');
  });

  it('shows another merchant its own name only, and the company name until one is set', async () => {
    const charge = await createCharge(plain);
    const html = (await page(`/c/${charge.providerPaymentId}?lang=en`)).text;
    expect(header(html)).toContain(
      '<span class="merchant-name" id="merchant-name">Plain Legal Name Ltd</span>',
    );
    expect(html).not.toContain('merchant-logo');
    expect(html).not.toContain('/checkout/brand/');
    expect(html).not.toContain('Shop &amp; Co');
    expect(html).not.toContain(logoPath);

    const renamed = await t.gateway.services.branding.update(
      plain.organizationId,
      { displayName: 'Plain Store', brandColor: '', logo: { action: 'keep' } },
      { actor: 'user:test' },
    );
    expect(renamed.ok).toBe(true);
    const after = (await page(`/c/${charge.providerPaymentId}?lang=en`)).text;
    expect(header(after)).toContain('id="merchant-name">Plain Store</span>');
  });

  it('names no merchant on a page that belongs to no charge', async () => {
    const unknown = await page('/c/pay_doesnotexist?lang=en');
    expect(unknown.status).toBe(404);
    expect(header(unknown.text)).toContain('<span class="brand">Gateway');
    expect(unknown.text).not.toContain('merchant-name');
  });
});

describe('the logo and the colour files', () => {
  it('serves the logo by its hash: the bytes, their proved type, nosniff, cached for good', async () => {
    expect(logoPath).toMatch(/^\/checkout\/logos\/[0-9a-f]{64}\.png$/);
    const response = await fetch(`${t.urls.web}${logoPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = response.headers.get('etag');
    expect(etag).toBe(`"${logoPath.slice('/checkout/logos/'.length, -'.png'.length)}"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(logo)).toBe(true);

    const again = await fetch(`${t.urls.web}${logoPath}`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);

    const hash = logoPath.slice('/checkout/logos/'.length, -'.png'.length);
    for (const path of [
      `/checkout/logos/${hash}.jpg`,
      `/checkout/logos/${hash}.svg`,
      `/checkout/logos/${hash.toUpperCase()}.png`,
      `/checkout/logos/${'0'.repeat(64)}.png`,
      `/checkout/logos/${hash}`,
      '/checkout/logos/..%2F..%2Fassets%2Fstyles.css',
      '/checkout/elsewhere',
    ]) {
      const missing = await fetch(`${t.urls.web}${path}`);
      expect(missing.status, path).toBe(404);
      expect(missing.headers.get('content-type'), path).toContain('application/json');
    }
  });

  it('serves a JPEG as image/jpeg whatever it was called', async () => {
    const merchant = await createMerchant(t);
    const set = await t.gateway.services.branding.update(
      merchant.organizationId,
      { displayName: 'Jpeg Shop', brandColor: '', logo: { action: 'set', bytes: jpegLike(80) } },
      { actor: 'user:test' },
    );
    if (!set.ok) throw new Error(JSON.stringify(set.error));
    expect(set.value.logo?.path).toMatch(/\.jpg$/);
    const response = await fetch(`${t.urls.web}${set.value.logo?.path}`);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the colour as a stylesheet, only for colours that pass the contrast rule', async () => {
    const response = await fetch(`${t.urls.web}${stylesheetPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await response.text();
    expect(css).toContain('.checkout .merchant-name { color: #1a5e20; }');
    expect(css).toContain('background: #1a5e20; color: #fff;');

    for (const path of [
      `/checkout/brand/777777-${BRAND_STYLESHEET_VERSION}.css`, // too light
      `/checkout/brand/1a5e20-00000000.css`, // a version this build never issued
      `/checkout/brand/1A5E20-${BRAND_STYLESHEET_VERSION}.css`,
      `/checkout/brand/zzzzzz-${BRAND_STYLESHEET_VERSION}.css`,
    ]) {
      expect((await fetch(`${t.urls.web}${path}`)).status, path).toBe(404);
    }
  });
});
