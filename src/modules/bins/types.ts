/**
 * The BIN table's vocabulary (docs/risk.md, "The BIN table"): what a row says of the cards whose number
 * begins with its prefix, and what a lookup answers.
 */

/**
 * The card schemes a row may name: the gateway's own (`visa`, `mastercard`, `amex`, `troy`, as charges
 * and disputes name them) and the others `credit-card-type` recognises, under the gateway's short names.
 */
export const CARD_SCHEMES = [
  'visa',
  'mastercard',
  'amex',
  'troy',
  'discover',
  'diners',
  'jcb',
  'unionpay',
  'maestro',
  'mir',
  'elo',
  'hiper',
  'hipercard',
  'naranja',
  'verve',
] as const;
export type CardScheme = (typeof CARD_SCHEMES)[number];

export const FUNDINGS = ['credit', 'debit', 'prepaid'] as const;
export type Funding = (typeof FUNDINGS)[number];

/** Personal (`consumer`) or business (`commercial`) cards. */
export const CATEGORIES = ['consumer', 'commercial'] as const;
export type Category = (typeof CATEGORIES)[number];

export const UNKNOWN = 'unknown';
export type Unknown = typeof UNKNOWN;

/** The shortest and longest prefix a row may have. */
export const PREFIX_MIN_DIGITS = 6;
export const PREFIX_MAX_DIGITS = 8;
export const PREFIX_PATTERN = '^[0-9]{6,8}$';

/** The longest issuer name and card programme a row keeps. */
export const ISSUER_MAX_LENGTH = 120;
export const PROGRAMME_MAX_LENGTH = 60;

/** One row of the table, as the operator API and the console show it. */
export interface BinRowView {
  prefix: string;
  scheme: CardScheme;
  /** ISO 3166-1 alpha-2, in capitals. */
  country: string;
  issuer: string | null;
  funding: Funding;
  category: Category;
  /** The issuer's card programme (`Bonus`, `World`, `Maximum`, …), free text, or null. */
  programme: string | null;
  updatedAt: string;
  /** Who loaded it: `staff:stf_…`, `cli`, or `migration` for the sandbox's seed rows. */
  updatedBy: string;
}

/**
 * What the gateway knows of a card from its first digits. `source` says where it comes from: `table`,
 * the row of `prefix`; `scheme_rules`, no row, the scheme named by the rules (`credit-card-type` and
 * the Troy ranges), everything else unknown; `none`, nothing known.
 */
export interface BinInfo {
  /** The digits looked up: the first 6 to 8 digits of the number. */
  bin: string;
  source: 'table' | 'scheme_rules' | 'none';
  /** The matching row's prefix (the longest that the digits begin with); null without a row. */
  prefix: string | null;
  scheme: CardScheme | Unknown;
  country: string;
  issuer: string | null;
  funding: Funding | Unknown;
  category: Category | Unknown;
  programme: string | null;
}

/** A filter of the table's list: rows whose prefix begins with `prefix`, of a country, of a scheme. */
export interface BinListFilter {
  prefix?: string | undefined;
  country?: string | undefined;
  scheme?: CardScheme | undefined;
}

/** What one CSV load did: its rows, of which new, changed and already as loaded. */
export interface BinImportView {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** The SHA-256 of the file as it was loaded (hex), as the audit entry records it. */
  sha256: string;
}

/** Who loads a file: the operator's actor with its request (the audit entry's). */
export interface BinActor {
  /** `staff:stf_…` or `cli`. */
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}
