import { holds, matchScope, type Trace } from './conditions.js';
import { explain } from './explain.js';
import type { RuleInputs } from './inputs.js';
import type { PreparedList } from './lists.js';
import type { DecidedBy, MatchEffect, RiskDecision, RuleMatch } from './schemas.js';
import type { ActiveRule, RuleAction, RuleSource } from './types.js';

/** The card-testing defence's say on this submission, when it has one (docs/risk.md). */
export interface CardTestingFlag {
  readonly action: 'request_3ds' | 'block';
  /** For people: why the defence stepped in. */
  readonly reason: string;
}

export interface EvaluationInput {
  /** The operator's rules, in their order. */
  readonly platformRules: readonly ActiveRule[];
  /** The merchant's rules, in their order. */
  readonly merchantRules: readonly ActiveRule[];
  /** Every list a rule names, by id, made by `prepareList`. */
  readonly lists: ReadonlyMap<string, PreparedList>;
  readonly signals: RuleInputs;
  readonly cardTesting: CardTestingFlag | null;
  /** The merchant's maximum amount per charge in minor units; `null` for none. */
  readonly maxAmount: bigint | null;
}

/** A rule whose condition held, before the decision gives it its effect. */
interface Held {
  readonly source: RuleSource;
  readonly rule: ActiveRule;
  readonly trace: Trace;
  /** A platform rule, or a rule that found the payment on a platform list: only a platform allow lifts it. */
  readonly platformStrength: boolean;
}

interface Outcome {
  readonly action: RuleAction;
  readonly decidedBy: DecidedBy;
  readonly decider?: Held;
}

/**
 * The decision on one card submission (docs/decisions/0078-risk-rules.md): every rule is evaluated, for
 * the record; then, in order, the merchant's maximum amount, the card-testing defence's block (lifted
 * only by a platform allow), `request_3ds` while 3-D Secure was not done, a platform allow, a block of
 * platform strength, a merchant allow, any other block, a review; else the payment is allowed. Pure and
 * deterministic: the same input gives the same decision.
 */
export function evaluate(input: EvaluationInput): RiskDecision {
  const scope = matchScope(input.signals, input.lists);
  const matched: Held[] = [];
  const collect = (source: RuleSource, rules: readonly ActiveRule[]) => {
    for (const rule of rules) {
      const trace: Trace = { checks: [], lists: [] };
      if (!holds(rule.when, 'when', scope, trace)) continue;
      const platformStrength =
        source === 'platform' || trace.lists.some((id) => input.lists.get(id)?.owner === 'platform');
      matched.push({ source, rule, trace, platformStrength });
    }
  };
  collect('platform', input.platformRules);
  collect('merchant', input.merchantRules);
  const outcome = decide(input, matched);
  const decision: Omit<RiskDecision, 'explanation'> = {
    action: outcome.action,
    decidedBy: outcome.decidedBy,
    matched: matched.map((held) => view(held, effectOf(held, outcome, input))),
  };
  return { ...decision, explanation: explain(decision) };
}

function decide(input: EvaluationInput, matched: readonly Held[]): Outcome {
  const first = (action: RuleAction, test: (held: Held) => boolean = () => true) =>
    matched.find((held) => held.rule.action === action && test(held));
  const byRule = (action: RuleAction, held: Held): Outcome => ({
    action,
    decider: held,
    decidedBy: { kind: 'rule', source: held.source, ruleId: held.rule.id, name: held.rule.name },
  });
  const { amount } = input.signals;
  if (input.maxAmount !== null && amount > input.maxAmount)
    return {
      action: 'block',
      decidedBy: { kind: 'max_amount', amount: amount.toString(), maxAmount: input.maxAmount.toString() },
    };
  const platformAllow = first('allow', (held) => held.source === 'platform');
  const cardTesting = input.cardTesting;
  if (cardTesting?.action === 'block' && platformAllow === undefined)
    return { action: 'block', decidedBy: { kind: 'card_testing', reason: cardTesting.reason } };
  if (input.signals.threeDSecure === null) {
    const platform3ds = first('request_3ds', (held) => held.source === 'platform');
    if (platform3ds !== undefined) return byRule('request_3ds', platform3ds);
    if (cardTesting?.action === 'request_3ds')
      return { action: 'request_3ds', decidedBy: { kind: 'card_testing', reason: cardTesting.reason } };
    const merchant3ds = first('request_3ds');
    if (merchant3ds !== undefined) return byRule('request_3ds', merchant3ds);
  }
  if (platformAllow !== undefined) return byRule('allow', platformAllow);
  const strongBlock = first('block', (held) => held.platformStrength);
  if (strongBlock !== undefined) return byRule('block', strongBlock);
  const order: RuleAction[] = ['allow', 'block', 'review'];
  for (const action of order) {
    const held = first(action);
    if (held !== undefined) return byRule(action, held);
  }
  return { action: 'allow', decidedBy: { kind: 'no_rule' } };
}

function effectOf(held: Held, outcome: Outcome, input: EvaluationInput): MatchEffect {
  if (held === outcome.decider) return 'decided';
  if (held.rule.action === 'request_3ds' && input.signals.threeDSecure !== null) return 'satisfied';
  if (held.rule.action === outcome.action) return 'concurred';
  if (held.rule.action === 'allow' && outcome.action === 'block') return 'cannot_override';
  return 'outranked';
}

function view(held: Held, effect: MatchEffect): RuleMatch {
  const inputs: RuleMatch['inputs'] = {};
  for (const check of held.trace.checks) inputs[check.signal] = check.actual;
  return {
    source: held.source,
    ruleId: held.rule.id,
    name: held.rule.name,
    action: held.rule.action,
    effect,
    inputs,
    checks: held.trace.checks,
    lists: [...new Set(held.trace.lists)],
  };
}
