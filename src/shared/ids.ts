import { randomBytes } from 'node:crypto';
import { base32crockford } from '@scure/base';

export const ID_PREFIXES = [
  'app',
  'ch',
  'pay',
  'req',
  'org',
  'key',
  'evt',
  'we',
  'whd',
  're',
  'po',
  'wal',
  'cus',
  'usr',
  // Beyond product.md's list: operator staff accounts and outgoing e-mails.
  'stf',
  'eml',
  // Issue 13: a requested wallet change; a settlement release (batch).
  'wch',
  'stl',
  // A balance transaction released by a settlement batch (a charge or a refund).
  'txn',
  // An operator-entered FX rate (issue 14).
  'fxr',
  // A reconciliation run of the acquirer's settlement report with the ledger (issue 14).
  'rcn',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const TIME_BYTES = 6;
const RANDOM_BYTES = 12;

/**
 * `<prefix>_` + 29 lowercase Crockford base32 characters: 48 bits of milliseconds (so ids sort by
 * creation time) followed by 96 random bits (so they cannot be guessed).
 */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  const bytes = Buffer.alloc(TIME_BYTES + RANDOM_BYTES);
  bytes.writeUIntBE(now.getTime(), 0, TIME_BYTES);
  randomBytes(RANDOM_BYTES).copy(bytes, TIME_BYTES);
  return `${prefix}_${base32crockford.encode(bytes).toLowerCase()}`;
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{29}$/;

export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));
}
