import type { Locale } from '../../web/i18n.js';

/**
 * An amount of minor units as the customer reads it: "125,50 TRY" in Turkish, "TRY 125.50" in English.
 * String arithmetic only: amounts go up to 2^53 - 1 minor units and are never floats.
 */
export function formatAmount(minorUnits: string | bigint, currency: string, locale: Locale): string {
  const digits = String(minorUnits);
  if (!/^\d+$/.test(digits)) throw new Error('an amount is a decimal string of minor units');
  const padded = digits.replace(/^0+(?=\d)/, '').padStart(3, '0');
  const whole = padded.slice(0, -2);
  const fraction = padded.slice(-2);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, locale === 'tr' ? '.' : ',');
  return locale === 'tr' ? `${grouped},${fraction} ${currency}` : `${currency} ${grouped}.${fraction}`;
}

/** An IBAN in groups of four, as banks print it. */
export function formatIban(iban: string): string {
  return iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * The merchant's return URL with the outcome appended (`charge`, `status`), or undefined when it is not
 * an http(s) URL: nothing else is ever rendered as a link.
 */
export function returnLink(returnUrl: string | null, chargeId: string, status: string): string | undefined {
  if (returnUrl === null) return undefined;
  let url: URL;
  try {
    url = new URL(returnUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  url.searchParams.append('charge', chargeId);
  url.searchParams.append('status', status);
  return url.href;
}
