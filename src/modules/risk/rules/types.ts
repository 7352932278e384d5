import type { VelocityCounter, VelocityWindow } from './inputs.js';

/** The actions of a rule, in the order they are evaluated (docs/decisions/0078-risk-rules.md). */
export const RULE_ACTIONS = ['request_3ds', 'allow', 'block', 'review'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const OPERATORS = ['eq', 'neq', 'in', 'notIn', 'gt', 'gte', 'lt', 'lte', 'inList'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The bounds of one rule: a rule is read by people and evaluated on every card submission. */
export const RULE_LIMITS = {
  nameLength: 100,
  /** Levels of conditions: `when` is the first; a comparison inside `when.all` is on the second. */
  depth: 5,
  /** Comparisons in the whole rule. */
  comparisons: 20,
  /** Values of one `in` or `notIn`; more belong in a list. */
  values: 50,
  /** Issues reported for one rule; the rest wait for the next try. */
  issues: 50,
} as const;

export const BASE_SIGNALS = [
  'amount',
  'method',
  'card.country',
  'card.scheme',
  'card.funding',
  'card.category',
  'card.bin',
  'card.fingerprint',
  'ip.address',
  'ip.country',
  'email.address',
  'email.domain',
  'email.disposable',
  'countriesDiffer',
  'threeDSecure.result',
] as const;
export type VelocityMeasure = 'count' | 'sum';
export type VelocitySignal = `velocity.${VelocityCounter}.${VelocityWindow}.${VelocityMeasure}`;
export type SignalName = (typeof BASE_SIGNALS)[number] | VelocitySignal;

/** A literal of a comparison as JSON writes it: money and counts are integers. */
export type Literal = string | number | boolean;

export interface Comparison {
  readonly signal: SignalName;
  readonly op: Operator;
  /** One literal; an array of them for `in` and `notIn`; a list id for `inList`. */
  readonly value: Literal | readonly Literal[];
}

export interface AllOf {
  readonly all: readonly Condition[];
}
export interface AnyOf {
  readonly any: readonly Condition[];
}
export interface NoneOf {
  readonly not: Condition;
}
export type Condition = AllOf | AnyOf | NoneOf | Comparison;

/** A rule as `validateRule` returns it: checked, its literals normalised, plain JSON to store. */
export interface Rule {
  readonly name: string;
  readonly action: RuleAction;
  readonly when: Condition;
}

export type RuleSource = 'platform' | 'merchant';

/** A stored rule as the evaluator takes it: its id beside the checked form. */
export interface ActiveRule extends Rule {
  readonly id: string;
}
