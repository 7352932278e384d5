import type { ConditionCheck, RiskDecision } from './schemas.js';
import type { RuleAction } from './types.js';

/**
 * A decision in one English paragraph, for the operator, the API and the logs; pages build their own
 * sentences, in their language, from the decision's members.
 */

const DONE: Record<RuleAction, string> = {
  request_3ds: '3-D Secure requested',
  allow: 'Allowed',
  block: 'Blocked',
  review: 'Sent to review',
};

export function explain(decision: Omit<RiskDecision, 'explanation'>): string {
  const sentences = [headline(decision)];
  for (const match of decision.matched) {
    if (match.effect !== 'cannot_override') continue;
    sentences.push(
      `The ${match.source} allow rule "${match.name}" (${match.ruleId}) matched but cannot lift this block: ` +
        (decision.decidedBy.kind === 'max_amount'
          ? 'nothing lifts the maximum amount.'
          : "a merchant's allow does not override a platform block, a platform list or the card-testing defence."),
    );
  }
  if (decision.action === 'request_3ds' && decision.matched.some((match) => match.effect === 'outranked'))
    sentences.push('The other rules that matched are evaluated again with the 3-D Secure result.');
  return sentences.join(' ');
}

function headline(decision: Omit<RiskDecision, 'explanation'>): string {
  const by = decision.decidedBy;
  switch (by.kind) {
    case 'max_amount':
      return `Blocked: the amount ${by.amount} is above the merchant's maximum of ${by.maxAmount} per charge.`;
    case 'card_testing':
      return `${DONE[decision.action]} by the card-testing defence: ${by.reason}.`;
    case 'no_rule':
      return decision.matched.length === 0
        ? 'Allowed: no rule matched.'
        : 'Allowed: no allow, block or review rule matched.';
    case 'rule': {
      const rule = decision.matched.find((match) => match.effect === 'decided');
      const checks = rule?.checks.map(describeCheck).join('; ') ?? '';
      return `${DONE[decision.action]} by ${by.source} rule "${by.name}" (${by.ruleId}): ${checks}.`;
    }
  }
}

function describeCheck(check: ConditionCheck): string {
  const value = Array.isArray(check.value) ? `[${check.value.join(', ')}]` : String(check.value);
  const actual = check.actual === null ? 'absent' : String(check.actual);
  return `${check.signal} ${actual} ${check.op} ${value} ${check.held ? 'holds' : 'fails'}`;
}
