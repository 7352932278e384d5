import creditCardType from 'credit-card-type';
import type { CardScheme } from './types.js';

/**
 * The scheme of a card that no row of the BIN table describes, from its first digits. BKM publishes
 * 9792 as Troy's issuer identification number for domestic cards, so that prefix is Troy by a rule of
 * our own, whatever the library says; Troy cards issued in the Discover Global Network's 65 range are
 * named by `credit-card-type` (10.3.0: the Troy 65 ranges of Braintree's `pan`, checked against dLocal's
 * Troy BIN list), which puts Troy before Discover. Where the library places the digits in several
 * schemes, the one whose pattern they match most digits of wins (a pattern longer than the digits is
 * only a possibility and does not count); a tie, or no scheme at all, names none.
 */
const TROY_IIN = '9792';

/** `credit-card-type`'s names for the schemes whose name the gateway writes differently. */
const LIBRARY_NAMES: Readonly<Record<string, CardScheme>> = {
  visa: 'visa',
  mastercard: 'mastercard',
  'american-express': 'amex',
  troy: 'troy',
  discover: 'discover',
  'diners-club': 'diners',
  jcb: 'jcb',
  unionpay: 'unionpay',
  maestro: 'maestro',
  mir: 'mir',
  elo: 'elo',
  hiper: 'hiper',
  hipercard: 'hipercard',
  naranja: 'naranja',
  verve: 'verve',
};

export function schemeByRules(digits: string): CardScheme | undefined {
  if (digits.startsWith(TROY_IIN)) return 'troy';
  const matches = creditCardType(digits);
  if (matches.length === 1) return LIBRARY_NAMES[matches[0]?.type ?? ''];
  const whole = matches.filter((match) => match.matchStrength !== undefined);
  const strongest = Math.max(...whole.map((match) => match.matchStrength ?? 0));
  const best = whole.filter((match) => match.matchStrength === strongest);
  return best.length === 1 ? LIBRARY_NAMES[best[0]?.type ?? ''] : undefined;
}
