import type { Kdb } from '../../db/database.js';
import * as bins from './repository.js';
import { schemeByRules } from './schemes.js';
import { PREFIX_MAX_DIGITS, PREFIX_MIN_DIGITS, UNKNOWN, type BinInfo } from './types.js';

/**
 * What the table says of a card from its first digits (6 to 8; more are ignored): the row of the longest
 * prefix they begin with (8, then 7, then 6 digits, in one statement), else the scheme by the rules
 * (`schemes.ts`) and nothing else known.
 */
export async function lookupBin(db: Kdb, given: string): Promise<BinInfo> {
  const digits = /^[0-9]+/.exec(given)?.[0].slice(0, PREFIX_MAX_DIGITS) ?? '';
  const prefixes: string[] = [];
  for (let length = digits.length; length >= PREFIX_MIN_DIGITS; length--)
    prefixes.push(digits.slice(0, length));
  const row = prefixes.length === 0 ? undefined : await bins.findLongest(db, prefixes);
  if (row)
    return {
      bin: digits,
      source: 'table',
      prefix: row.prefix,
      scheme: row.scheme,
      country: row.country,
      issuer: row.issuer,
      funding: row.funding,
      category: row.category,
      programme: row.programme,
    };
  const scheme = digits === '' ? undefined : schemeByRules(digits);
  return {
    bin: digits,
    source: scheme === undefined ? 'none' : 'scheme_rules',
    prefix: null,
    scheme: scheme ?? UNKNOWN,
    country: UNKNOWN,
    issuer: null,
    funding: UNKNOWN,
    category: UNKNOWN,
    programme: null,
  };
}
