import { randomFillSync } from 'node:crypto';

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
  // A requested wallet change; a settlement release (batch).
  'wch',
  'stl',
  // A balance transaction released by a settlement batch (a charge or a refund).
  'txn',
  // An operator-entered FX rate.
  'fxr',
  // A reconciliation run of the acquirer's settlement report with the ledger.
  'rcn',
  // Disputes (migration 0039): a dispute or inquiry, an early fraud warning, a pre-dispute alert.
  'dp',
  'efw',
  'dpa',
  // A debt taken from the available balance by a settlement run (migration 0039).
  'rcv',
  // An uploaded file (migration 0040).
  'file',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const TIME_BYTES = 6;
const RANDOM_BYTES = 12;

/**
 * Random bytes drawn from the operating system a pool at a time, as Node's own `randomUUID` does: one
 * system call per 341 ids instead of one per id (a settlement run makes a million item ids). Each id takes
 * bytes no other id took, and they are the same cryptographically secure bytes `randomBytes` gives.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;
/** The bytes of the id being encoded: `newId` is synchronous, so one buffer serves every call. */
const scratch = Buffer.alloc(TIME_BYTES + RANDOM_BYTES);

/**
 * `<prefix>_` + 29 lowercase Crockford base32 characters: 48 bits of milliseconds (so ids sort by
 * creation time) followed by 96 random bits (so they cannot be guessed).
 */
export function newId(prefix: IdPrefix, now: Date = new Date()): string {
  if (poolOffset + RANDOM_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  scratch.writeUIntBE(now.getTime(), 0, TIME_BYTES);
  pool.copy(scratch, TIME_BYTES, poolOffset, poolOffset + RANDOM_BYTES);
  // Used bytes are wiped: the pool only ever holds the randomness of ids not made yet.
  pool.fill(0, poolOffset, poolOffset + RANDOM_BYTES);
  poolOffset += RANDOM_BYTES;
  return `${prefix}_${crockfordBase32(scratch)}`;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Lowercase Crockford base32 of `bytes`, most significant bit first, the last character's spare bits
 * zero: what `base32crockford.encode(bytes).toLowerCase()` of `@scure/base` gives (its test compares
 * them), at a tenth of its cost for an id's 18 bytes.
 */
export function crockfordBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET.charAt((buffer >>> bits) & 31);
    }
  }
  if (bits > 0) out += ALPHABET.charAt((buffer << (5 - bits)) & 31);
  return out;
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{29}$/;

export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));
}
