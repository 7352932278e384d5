import { canonicalIp } from '../signals/ip-address.js';
import { UNKNOWN_COUNTRY } from './inputs.js';

/**
 * The forms of the literals a rule or a list holds, one normaliser per form: each returns the value in
 * the form comparisons use (e-mails, domains and IPv6 addresses in lower case), or `undefined` when the
 * text is not of that form. Rules, list entries and the inputs read go through the same ones, so a
 * value written one way matches the same value read another way.
 */

const COUNTRY = /^[A-Z]{2}$/;
const BIN = /^[0-9]{6,8}$/;
/** A keyed hash as the signals print it: printable ASCII without spaces. */
const FINGERPRINT = /^[\x21-\x7e]{8,128}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `TR` (ISO 3166-1 alpha-2, in capitals) or `unknown`. */
export function normalizeCountry(text: string): string | undefined {
  return COUNTRY.test(text) || text === UNKNOWN_COUNTRY ? text : undefined;
}

/** A country a list holds: a code only (`unknown` is no country to list). */
export function normalizeListedCountry(text: string): string | undefined {
  return COUNTRY.test(text) ? text : undefined;
}

/** The first 6 to 8 digits of a card number. */
export function normalizeBin(text: string): string | undefined {
  return BIN.test(text) ? text : undefined;
}

export function normalizeFingerprint(text: string): string | undefined {
  return FINGERPRINT.test(text) ? text : undefined;
}

export function normalizeEmail(text: string): string | undefined {
  const email = text.toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) return undefined;
  return normalizeDomain(email.slice(email.lastIndexOf('@') + 1)) === undefined ? undefined : email;
}

export function normalizeDomain(text: string): string | undefined {
  const domain = text.toLowerCase();
  if (domain.length > 253) return undefined;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label)) ? domain : undefined;
}

/**
 * An IPv4 or IPv6 address (no range) in the canonical text the signals read the client's in, so that
 * `2001:DB8:0::1` matches `2001:db8::1` and `::ffff:192.0.2.1` matches `192.0.2.1`.
 */
export function normalizeIp(text: string): string | undefined {
  return canonicalIp(text) ?? undefined;
}

export interface BinRange {
  readonly from: string;
  readonly to: string;
}

/**
 * A BIN list entry: a prefix of 6 to 8 digits (`454360`), or a range of two prefixes of the same length
 * (`45436000-45436099`), the first not above the second.
 */
export function normalizeBinRange(text: string): BinRange | undefined {
  const [from, to, ...rest] = text.split('-');
  if (from === undefined || normalizeBin(from) === undefined || rest.length > 0) return undefined;
  if (to === undefined) return { from, to: from };
  return normalizeBin(to) !== undefined && to.length === from.length && from <= to ? { from, to } : undefined;
}

/** Whether a card's BIN falls in a range: its first digits, as many as the range's, lie within it. */
export function binInRange(bin: string, range: BinRange): boolean {
  if (bin.length < range.from.length) return false;
  const head = bin.slice(0, range.from.length);
  return head >= range.from && head <= range.to;
}
