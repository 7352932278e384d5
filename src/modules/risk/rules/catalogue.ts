import {
  CARD_CATEGORIES,
  CARD_FUNDINGS,
  CARD_SCHEMES,
  PAYMENT_METHODS,
  THREE_D_SECURE_RESULTS,
  VELOCITY_COUNTERS,
  VELOCITY_WINDOWS,
  type RuleInputs,
} from './inputs.js';
import type { ListKind } from './lists.js';
import type { BASE_SIGNALS, Operator, SignalName, VelocityMeasure } from './types.js';
import {
  normalizeBin,
  normalizeCountry,
  normalizeDomain,
  normalizeEmail,
  normalizeFingerprint,
  normalizeIp,
} from './values.js';

/**
 * Every signal a rule can compare, with its type; the type says which operators apply, what a literal
 * looks like and which kind of list `inList` may name (docs/risk.md, "Rules").
 */

/** What a signal reads: minor units as a bigint, a count as a number, text already normalised. */
export type InputValue = bigint | number | string | boolean;

export type ValueType =
  | { readonly kind: 'money' }
  | { readonly kind: 'count' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'choice'; readonly choices: readonly string[] }
  | {
      readonly kind: 'text';
      /** What a literal is, for messages: "an ISO 3166-1 alpha-2 code in capitals (TR), or unknown". */
      readonly form: string;
      readonly normalize: (text: string) => string | undefined;
      readonly list: ListKind;
      /** BINs match by prefix: `454360` matches every card whose BIN begins with it. */
      readonly prefix?: true;
    };

export interface SignalSpec {
  readonly type: ValueType;
  readonly read: (inputs: RuleInputs) => InputValue | null;
  /** Known only once 3-D Secure was done: a `request_3ds` rule, evaluated before it, cannot read it. */
  readonly after3ds?: true;
}

const MONEY: ValueType = { kind: 'money' };
const COUNT: ValueType = { kind: 'count' };
const BOOLEAN: ValueType = { kind: 'boolean' };
const choice = (choices: readonly string[]): ValueType => ({ kind: 'choice', choices });
const COUNTRY: ValueType = {
  kind: 'text',
  form: 'an ISO 3166-1 alpha-2 code in capitals (TR), or unknown',
  normalize: normalizeCountry,
  list: 'country',
};

const inputCountry = (country: string | undefined): string | null =>
  country === undefined ? null : (normalizeCountry(country.toUpperCase()) ?? country.toLowerCase());

const BASE: { readonly [S in (typeof BASE_SIGNALS)[number]]: SignalSpec } = {
  amount: { type: MONEY, read: (inputs) => inputs.amount },
  method: { type: choice(PAYMENT_METHODS), read: (inputs) => inputs.method },
  'card.country': { type: COUNTRY, read: (inputs) => inputCountry(inputs.card?.country) },
  'card.scheme': { type: choice(CARD_SCHEMES), read: (inputs) => inputs.card?.scheme ?? null },
  'card.funding': { type: choice(CARD_FUNDINGS), read: (inputs) => inputs.card?.funding ?? null },
  'card.category': { type: choice(CARD_CATEGORIES), read: (inputs) => inputs.card?.category ?? null },
  'card.bin': {
    type: { kind: 'text', form: '6 to 8 digits', normalize: normalizeBin, list: 'bin_range', prefix: true },
    read: (inputs) => inputs.card?.bin ?? null,
  },
  'card.fingerprint': {
    type: {
      kind: 'text',
      form: 'a card fingerprint (8 to 128 printable characters)',
      normalize: normalizeFingerprint,
      list: 'card_fingerprint',
    },
    read: (inputs) => inputs.card?.fingerprint ?? null,
  },
  'ip.address': {
    type: { kind: 'text', form: 'an IPv4 or IPv6 address', normalize: normalizeIp, list: 'ip' },
    read: (inputs) => (inputs.ip === null ? null : (normalizeIp(inputs.ip.address) ?? null)),
  },
  'ip.country': { type: COUNTRY, read: (inputs) => inputCountry(inputs.ip?.country) },
  'email.address': {
    type: { kind: 'text', form: 'an e-mail address', normalize: normalizeEmail, list: 'email' },
    read: (inputs) => inputs.email?.address.toLowerCase() ?? null,
  },
  'email.domain': {
    type: { kind: 'text', form: 'a domain name', normalize: normalizeDomain, list: 'email_domain' },
    read: (inputs) => inputs.email?.domain.toLowerCase() ?? null,
  },
  'email.disposable': { type: BOOLEAN, read: (inputs) => inputs.email?.disposable ?? null },
  countriesDiffer: { type: BOOLEAN, read: (inputs) => inputs.countriesDiffer },
  'threeDSecure.result': {
    type: choice(THREE_D_SECURE_RESULTS),
    read: (inputs) => inputs.threeDSecure?.result ?? null,
    after3ds: true,
  },
};

function velocitySignals(): Array<[SignalName, SignalSpec]> {
  const signals: Array<[SignalName, SignalSpec]> = [];
  for (const counter of VELOCITY_COUNTERS)
    for (const window of VELOCITY_WINDOWS)
      for (const measure of ['count', 'sum'] as const satisfies readonly VelocityMeasure[])
        signals.push([
          `velocity.${counter}.${window}.${measure}`,
          {
            type: measure === 'count' ? COUNT : MONEY,
            read: (inputs) => inputs.velocity[counter]?.[window][measure] ?? null,
          },
        ]);
  return signals;
}

export const SIGNALS: ReadonlyMap<string, SignalSpec> = new Map<string, SignalSpec>([
  ...(Object.entries(BASE) as Array<[SignalName, SignalSpec]>),
  ...velocitySignals(),
]);

/** The operators each type of signal takes. */
export function operatorsOf(type: ValueType): readonly Operator[] {
  switch (type.kind) {
    case 'money':
    case 'count':
      return ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'];
    case 'boolean':
      return ['eq', 'neq'];
    case 'choice':
      return ['eq', 'neq', 'in', 'notIn'];
    case 'text':
      return ['eq', 'neq', 'in', 'notIn', 'inList'];
  }
}

/** How a message names a type: "card.country (an ISO 3166-1 alpha-2 code ...)". */
export function typeName(type: ValueType): string {
  switch (type.kind) {
    case 'money':
      return 'an amount in minor units';
    case 'count':
      return 'a count';
    case 'boolean':
      return 'true or false';
    case 'choice':
      return `one of ${type.choices.join(', ')}`;
    case 'text':
      return type.form;
  }
}
