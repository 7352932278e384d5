import type { Currency } from '../../../shared/money.js';
import type { Country } from './ip-country.js';

/** The velocity counts and sums per card, e-mail, IP and customer: not built yet, so always undefined. */
export type VelocitySignals = undefined;

/** What the rules see of one card submission, computed once before any acquirer authorization. */
export interface Signals {
  /** Minor units of `currency`. */
  amount: bigint;
  currency: Currency;
  /** The charge's payment method (`credit_card_tr`, `credit_card_international`). */
  method: string;
  /** The first 8 digits of a number of 16 or more, else the first 6. */
  bin: string;
  last4: string;
  /** `fp_…`: the keyed fingerprint of the number (card.ts). */
  fingerprint: string;
  email: string | null;
  emailDomain: string | null;
  disposableEmail: boolean;
  /** The client address (client-ip.ts), null when there is none. */
  ip: string | null;
  ipCountry: Country;
  /** The issuing country of the card's BIN row, `unknown` without one. */
  cardCountry: Country;
  countriesDiffer: boolean;
  velocity: VelocitySignals;
}
