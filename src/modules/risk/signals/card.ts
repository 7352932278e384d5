import { createHmac } from 'node:crypto';
import type { SecretBox } from '../../../shared/secret-box.js';

/**
 * What a card number may leave behind (PCI DSS truncation): its BIN, its last four digits and a keyed
 * fingerprint. The number itself is never stored, logged or returned by anything here.
 */

/** The digits of a number as typed or printed (spaces, dashes and anything else dropped). */
export function cardDigits(pan: string): string {
  return pan.replace(/\D/g, '');
}

/** The BIN: the first 8 digits of a number of 16 digits or more, else the first 6 (PCI DSS). */
export function cardBin(pan: string): string {
  const digits = cardDigits(pan);
  return digits.slice(0, digits.length >= 16 ? 8 : 6);
}

export function cardLast4(pan: string): string {
  return cardDigits(pan).slice(-4);
}

/**
 * The card's fingerprint: HMAC-SHA-256 of its digits under the gateway's fingerprint key, `fp_` and
 * base64url. The same card gives the same value however it was typed. Keyed, because a 16-digit number
 * whose BIN and last four are kept has about a thousand candidates: a plain hash would give it away.
 */
export function cardFingerprint(pan: string, key: Buffer): string {
  return `fp_${createHmac('sha256', key).update(cardDigits(pan)).digest('base64url')}`;
}

/**
 * The fingerprint key: `RISK_FINGERPRINT_KEY` when set, else one derived from ENCRYPTION_KEYS' current
 * key with HKDF, as the gateway's other MAC keys are (required in production, so never guessable). A
 * derived key changes when the first encryption key does, and every stored fingerprint with it: a
 * deployment that rotates its encryption keys sets RISK_FINGERPRINT_KEY (docs/risk.md, "Signals").
 */
export function fingerprintKey(configured: Buffer | undefined, box: Pick<SecretBox, 'deriveKey'>): Buffer {
  return configured ?? box.deriveKey('risk-card-fingerprint');
}
