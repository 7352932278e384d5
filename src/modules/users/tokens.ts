import { randomBytes } from 'node:crypto';
import { DAY, HOUR } from '../../shared/clock.js';
import { sha256Hex } from '../../shared/crypto.js';
import type { AccountTokenKind } from './repository.js';

/** How long each kind of e-mailed link stays valid (product decisions 5 and 33). */
export const ACCOUNT_TOKEN_TTL_MS: Record<AccountTokenKind, number> = {
  activation: 3 * DAY,
  invitation: 3 * DAY,
  password_reset: HOUR,
};

/** Where each kind of link lands on the web listener. */
export const ACCOUNT_TOKEN_PATH: Record<AccountTokenKind, string> = {
  activation: '/activate',
  invitation: '/invitation',
  password_reset: '/reset-password',
};

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** 256 random bits, base64url; only the SHA-256 is ever stored. */
export function newAccountToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: sha256Hex(token) };
}

/** The stored hash of a presented token, or undefined when it cannot be one of ours. */
export function accountTokenHash(token: string): string | undefined {
  return TOKEN_SHAPE.test(token) ? sha256Hex(token) : undefined;
}
