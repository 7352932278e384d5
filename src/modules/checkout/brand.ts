import { createHash } from 'node:crypto';
import { isUsableBrandColor, type Branding } from '../organizations/branding.js';

/**
 * The merchant's colour on the checkout, without an inline style (the CSP has none): a stylesheet per
 * colour at `/checkout/brand/<rrggbb>-<version>.css`. It depends on nothing but the colour, so the
 * colour names it; the version is a hash of these rules, so a changed rule is a new URL and the files
 * can be cached for good. The colour is used only where it meets white (docs/checkout.md): the buttons
 * (white text on it) and the merchant's name and a stripe in the white header.
 */
function rules(color: string): string {
  return [
    `.checkout .site-header { border-top: 4px solid ${color}; }`,
    `.checkout .merchant-name { color: ${color}; }`,
    `.checkout button, .checkout .button-link, .checkout .aside .button-link { background: ${color}; color: #fff; }`,
    `.checkout button.secondary { background: #fff; color: ${color}; border-color: ${color}; }`,
    '',
  ].join('\n');
}

export const BRAND_STYLESHEET_VERSION = createHash('sha256')
  .update(rules('#000000'))
  .digest('hex')
  .slice(0, 8);

const STYLESHEET_FILE = /^([0-9a-f]{6})-([0-9a-f]{8})\.css$/;

export function brandStylesheetPath(color: string): string {
  return `/checkout/brand/${color.slice(1)}-${BRAND_STYLESHEET_VERSION}.css`;
}

/** The stylesheet named by `file`, or undefined for a name this version never issues. */
export function brandStylesheet(file: string): string | undefined {
  const match = STYLESHEET_FILE.exec(file);
  if (!match || match[2] !== BRAND_STYLESHEET_VERSION) return undefined;
  const color = `#${match[1]}`;
  return isUsableBrandColor(color) ? rules(color) : undefined;
}

/** What a checkout page shows of the merchant. */
export interface MerchantHeader {
  displayName: string;
  logoPath: string | null;
  stylesheetPath: string | null;
}

export function merchantHeader(branding: Branding): MerchantHeader {
  return {
    displayName: branding.displayName,
    logoPath: branding.logo?.path ?? null,
    stylesheetPath:
      branding.brandColor !== null && isUsableBrandColor(branding.brandColor)
        ? brandStylesheetPath(branding.brandColor)
        : null,
  };
}
