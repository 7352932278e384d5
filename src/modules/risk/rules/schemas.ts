import { Type, type Static } from 'typebox';
import { PLAIN_TEXT } from '../../../http/input.js';
import { StrictObject } from '../../../http/schemas.js';
import { OPERATORS, RULE_ACTIONS, RULE_LIMITS } from './types.js';

/**
 * The rule form (docs/risk.md, "Rules"; docs/decisions/0078-risk-rules.md). These schemas check the
 * shape of a rule and of each condition; `validateRule` walks the conditions with them and then checks
 * what a schema cannot say (signals, operators for their type, literals, lists, depth and size).
 */

const CONDITION_DESCRIPTION =
  'One of: `{ "all": [conditions] }` (every one holds), `{ "any": [conditions] }` (at least one), ' +
  '`{ "not": condition }`, or a comparison `{ "signal": "card.country", "op": "in", "value": ["NG", "GH"] }`. ' +
  `At most ${RULE_LIMITS.depth} levels and ${RULE_LIMITS.comparisons} comparisons in a rule.`;

export const ConditionSchema = Type.Object({}, { description: CONDITION_DESCRIPTION });

export const RuleSchema = StrictObject({
  name: Type.String({
    minLength: 1,
    maxLength: RULE_LIMITS.nameLength,
    pattern: PLAIN_TEXT,
    description: 'For people: the decision names the rules that matched by it.',
  }),
  action: Type.Enum([...RULE_ACTIONS], {
    description:
      'What the rule asks when its condition holds. Evaluated in this order: `request_3ds`, `allow`, ' +
      '`block`, `review`.',
  }),
  when: ConditionSchema,
});
export type RuleBody = Static<typeof RuleSchema>;

const Literal = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ComparisonShapeSchema = StrictObject({
  signal: Type.String({ minLength: 1, maxLength: 64 }),
  op: Type.String({ minLength: 1, maxLength: 16 }),
  value: Type.Unknown(),
});

const members = Type.Array(Type.Unknown(), { minItems: 1, maxItems: RULE_LIMITS.comparisons });
export const AllShapeSchema = StrictObject({ all: members });
export const AnyShapeSchema = StrictObject({ any: members });
export const NotShapeSchema = StrictObject({ not: Type.Unknown() });

const ConditionCheckSchema = Type.Object({
  path: Type.String({ description: 'Where the comparison is in the rule (`when.all.0`).' }),
  signal: Type.String(),
  op: Type.Enum([...OPERATORS]),
  value: Type.Union([Literal, Type.Array(Literal)], { description: 'As the rule writes it.' }),
  actual: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
    description: 'What the signal read: minor units as a decimal string; null when the payment has none.',
  }),
  held: Type.Boolean(),
});

export const MATCH_EFFECTS = ['decided', 'concurred', 'outranked', 'cannot_override', 'satisfied'] as const;

const RuleMatchSchema = Type.Object({
  source: Type.Enum(['platform', 'merchant']),
  ruleId: Type.String(),
  name: Type.String(),
  action: Type.Enum([...RULE_ACTIONS]),
  effect: Type.Enum([...MATCH_EFFECTS], {
    description:
      '`decided`: its action is the decision; `concurred`: the same action, decided by an earlier rule; ' +
      '`outranked`: an action earlier in the order decided; `cannot_override`: an allow that may not lift ' +
      'this block (a merchant allow against a platform block, any allow against the maximum amount); ' +
      '`satisfied`: a `request_3ds` rule once 3-D Secure was done.',
  }),
  inputs: Type.Record(
    Type.String(),
    Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
    {
      description: 'Every signal the rule read, with its value.',
    },
  ),
  checks: Type.Array(ConditionCheckSchema, { description: 'Each comparison evaluated, in order.' }),
  lists: Type.Array(Type.String(), { description: 'The lists (`rl_…`) the payment was found on.' }),
});

const DecidedBySchema = Type.Union([
  Type.Object({
    kind: Type.Literal('rule'),
    source: Type.Enum(['platform', 'merchant']),
    ruleId: Type.String(),
    name: Type.String(),
  }),
  Type.Object({ kind: Type.Literal('max_amount'), amount: Type.String(), maxAmount: Type.String() }),
  Type.Object({ kind: Type.Literal('card_testing'), reason: Type.String() }),
  Type.Object({ kind: Type.Literal('no_rule') }),
]);

export const RiskDecisionSchema = Type.Object({
  action: Type.Enum([...RULE_ACTIONS]),
  decidedBy: DecidedBySchema,
  matched: Type.Array(RuleMatchSchema, { description: 'Every rule whose condition held.' }),
  explanation: Type.String({ description: 'The decision in one English paragraph.' }),
});
export type RiskDecision = Static<typeof RiskDecisionSchema>;
export type RuleMatch = Static<typeof RuleMatchSchema>;
export type ConditionCheck = Static<typeof ConditionCheckSchema>;
export type DecidedBy = Static<typeof DecidedBySchema>;
export type MatchEffect = (typeof MATCH_EFFECTS)[number];
