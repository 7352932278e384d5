/**
 * What the rule evaluator reads of a card submission (docs/risk.md, "Rules"). The signals module computes
 * its own `Signals`; the composition root maps them to these inputs, so the rules never depend on how a
 * signal is computed (docs/decisions/0078-risk-rules.md).
 */

import { CARD_SCHEMES as BIN_SCHEMES, CATEGORIES, FUNDINGS, UNKNOWN } from '../../bins/types.js';
import { PAYMENT_METHODS } from '../../charges/schemas.js';

/** A charge's `paymentMethod`, the charges module's list. */
export { PAYMENT_METHODS };
export type PaymentMethodName = (typeof PAYMENT_METHODS)[number];

/** Card schemes, fundings and categories as the BIN table names them, and `unknown`. */
export const CARD_SCHEMES = [...BIN_SCHEMES, UNKNOWN] as const;
export type CardScheme = (typeof CARD_SCHEMES)[number];

export const CARD_FUNDINGS = [...FUNDINGS, UNKNOWN] as const;
export type CardFunding = (typeof CARD_FUNDINGS)[number];

/** Personal (`consumer`) or business (`commercial`) cards, as the BIN table says. */
export const CARD_CATEGORIES = [...CATEGORIES, UNKNOWN] as const;
export type CardCategory = (typeof CARD_CATEGORIES)[number];

/** The outcome of 3-D Secure for the submission; there is none before 3-D Secure was asked for. */
export const THREE_D_SECURE_RESULTS = ['authenticated', 'attempted', 'failed', 'unavailable'] as const;
export type ThreeDSecureResult = (typeof THREE_D_SECURE_RESULTS)[number];

/** What a velocity counter is keyed by: the card's fingerprint, the e-mail, the client IP, the customer. */
export const VELOCITY_COUNTERS = ['card', 'email', 'ip', 'customer'] as const;
export type VelocityCounter = (typeof VELOCITY_COUNTERS)[number];

/** The sliding windows every counter is read over. */
export const VELOCITY_WINDOWS = ['10m', '1h', '24h'] as const;
export type VelocityWindow = (typeof VELOCITY_WINDOWS)[number];

/** A country the IP database or the BIN table does not know (loopback and private addresses too). */
export const UNKNOWN_COUNTRY = 'unknown';

/** ISO 3166-1 alpha-2 in capitals (`TR`), or `unknown`. */
export type CountryCode = string;

export interface CardInputs {
  /** The first 6 to 8 digits of the number. */
  readonly bin: string;
  /** The keyed fingerprint of the number (never the number). */
  readonly fingerprint: string;
  readonly country: CountryCode;
  readonly scheme: CardScheme;
  readonly funding: CardFunding;
  readonly category: CardCategory;
}

export interface EmailInputs {
  readonly address: string;
  /** The part after the `@`. */
  readonly domain: string;
  /** Whether the domain is on the maintained list of disposable domains. */
  readonly disposable: boolean;
}

export interface IpInputs {
  readonly address: string;
  readonly country: CountryCode;
}

/** One counter over one window, as the signals compute it (docs/risk.md, "Signals"). */
export interface VelocityFigures {
  readonly count: number;
  /** Minor units. */
  readonly sum: bigint;
}

export type VelocityInputs = {
  /** `null` when the submission has nothing to key the counter by (no e-mail, no customer). */
  readonly [C in VelocityCounter]: { readonly [W in VelocityWindow]: VelocityFigures } | null;
};

/**
 * The inputs of one evaluation. A member that is `null` is absent: every comparison of an absent signal
 * is false, whatever its operator (`not` turns that around).
 */
export interface RuleInputs {
  /** Minor units of the charge's currency. */
  readonly amount: bigint;
  readonly method: PaymentMethodName;
  /** `null` for a payment without a card. */
  readonly card: CardInputs | null;
  readonly email: EmailInputs | null;
  readonly ip: IpInputs | null;
  /** Whether the card's country and the IP's differ; `null` when either is absent. */
  readonly countriesDiffer: boolean | null;
  /** `null` until 3-D Secure was done for this submission; then its result. */
  readonly threeDSecure: { readonly result: ThreeDSecureResult } | null;
  readonly velocity: VelocityInputs;
}
