import type { Currency } from '../../../shared/money.js';
import { cardBin, cardFingerprint, cardLast4 } from './card.js';
import { countriesDiffer } from './countries.js';
import { emailSignals } from './email.js';
import { canonicalIp } from './ip-address.js';
import { countryCode, type IpCountries } from './ip-country.js';
import type { Signals } from './types.js';

export interface CardSubmission {
  amount: bigint;
  currency: Currency;
  method: string;
  /** The card number as typed: used here and dropped, never part of the result. */
  pan: string;
  email: string | null;
  /** `clientIp(request)`. */
  ip: string | null;
  /** The country of the card's BIN row (the BIN table's), null without a row. */
  cardCountry: string | null;
}

export interface SignalSources {
  /** `fingerprintKey(config.risk.fingerprintKey, box)`. */
  fingerprintKey: Buffer;
  /** `openIpCountries(config.risk.ipCountryDatabase)`, opened once. */
  ipCountries: IpCountries;
}

/** Every signal of a card submission but velocity, which the counters fill. */
export function cardSubmissionSignals(submission: CardSubmission, sources: SignalSources): Signals {
  const ip = canonicalIp(submission.ip);
  const ipCountry = sources.ipCountries.countryOf(ip);
  const cardCountry = countryCode(submission.cardCountry);
  return {
    amount: submission.amount,
    currency: submission.currency,
    method: submission.method,
    bin: cardBin(submission.pan),
    last4: cardLast4(submission.pan),
    fingerprint: cardFingerprint(submission.pan, sources.fingerprintKey),
    ...emailSignals(submission.email),
    ip,
    ipCountry,
    cardCountry,
    countriesDiffer: countriesDiffer(cardCountry, ipCountry),
    velocity: undefined,
  };
}
