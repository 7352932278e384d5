import { createHmac, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
export const TOTP_SETTINGS = { algorithm: 'SHA1', digits: 6, period: 30, window: 1 } as const;
export const RECOVERY_CODE_COUNT = 10;

const ISSUER = 'Gateway';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(secretBase32: string, accountName: string): string {
  return new TOTP({
    issuer: ISSUER,
    label: accountName,
    secret: Secret.fromBase32(secretBase32),
    algorithm: TOTP_SETTINGS.algorithm,
    digits: TOTP_SETTINGS.digits,
    period: TOTP_SETTINGS.period,
  }).toString();
}

/**
 * The time step a 6-digit code belongs to, within one step either side of `now`, or undefined. The
 * caller still has to claim the step, so that a code is accepted once.
 */
export function matchTotpStep(secretBase32: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const timestamp = now.getTime();
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secretBase32),
    algorithm: TOTP_SETTINGS.algorithm,
    digits: TOTP_SETTINGS.digits,
    period: TOTP_SETTINGS.period,
    timestamp,
    window: TOTP_SETTINGS.window,
  });
  if (delta === null) return undefined;
  return TOTP.counter({ period: TOTP_SETTINGS.period, timestamp }) + delta;
}

/** What a person types: a TOTP code (6 digits) or a recovery code (10 letters and digits, dash optional). */
export function normalizeSecondFactor(
  input: string,
): { kind: 'totp'; code: string } | { kind: 'recovery'; code: string } | undefined {
  const compact = input.replace(/[\s-]/g, '').toLowerCase();
  if (/^\d{6}$/.test(compact)) return { kind: 'totp', code: compact };
  if (/^[0-9a-z]{10}$/.test(compact)) return { kind: 'recovery', code: compact };
  return undefined;
}

const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/** `xxxxx-xxxxx`: 50 random bits each, easy to read aloud and to type. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    const bytes = randomBytes(10);
    const body = Array.from(bytes, (byte) => RECOVERY_ALPHABET[byte & 31]).join('');
    codes.add(`${body.slice(0, 5)}-${body.slice(5)}`);
  }
  return [...codes];
}

/**
 * Recovery codes are stored as an HMAC keyed by the user id: a stolen table does not reveal them, and
 * one precomputed table cannot serve every user.
 */
export function recoveryCodeHash(userId: string, code: string): string {
  const compact = code.replace(/[\s-]/g, '').toLowerCase();
  return createHmac('sha256', `recovery:${userId}`).update(compact).digest('hex');
}
