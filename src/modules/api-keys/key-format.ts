import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../shared/crypto.js';
import type { Environment } from '../../db/schema.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32; // ~190 random bits
const CHECKSUM_LENGTH = 6;
const DISPLAY_BODY_LENGTH = 8;

export const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_test_', live: 'sk_live_' };
const KEY_PATTERN = /^sk_(test|live)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export interface GeneratedKey {
  /** The whole key: shown once, never stored. */
  secret: string;
  /** `sk_test_` + the first 8 characters of the body: shown in lists, unique, never re-issued. */
  displayPrefix: string;
  secretHash: string;
}

/**
 * `sk_test_` or `sk_live_` + 32 random base62 characters + a 6-character checksum of everything before
 * it. The checksum lets a mistyped key be refused without a database lookup and lets secret scanners
 * recognise a leaked key.
 */
export function generateApiKey(environment: Environment): GeneratedKey {
  const prefix = KEY_PREFIX[environment];
  const body = randomBase62(BODY_LENGTH);
  const secret = `${prefix}${body}${checksum(prefix + body)}`;
  return {
    secret,
    displayPrefix: `${prefix}${body.slice(0, DISPLAY_BODY_LENGTH)}`,
    secretHash: hashApiKey(secret),
  };
}

export type ParsedKey = { environment: Environment; secretHash: string };

/** The environment and hash of a well-formed key with a valid checksum; undefined otherwise. */
export function parseApiKey(candidate: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(candidate);
  if (!match) return undefined;
  const [, kind, body, sum] = match;
  const prefix = `sk_${kind}_`;
  if (checksum(prefix + body) !== sum) return undefined;
  return { environment: kind === 'live' ? 'live' : 'sandbox', secretHash: hashApiKey(candidate) };
}

export function hashApiKey(secret: string): string {
  return sha256Hex(secret);
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksum(text: string): string {
  let value = BigInt(`0x${sha256Hex(text).slice(0, 12)}`);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}
