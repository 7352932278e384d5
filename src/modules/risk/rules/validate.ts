import { err, ok, type Result } from '../../../shared/result.js';
import { operatorsOf, SIGNALS, typeName, type SignalSpec, type ValueType } from './catalogue.js';
import type { RuleError, RuleIssue } from './errors.js';
import { LIST_ID, type ListRef } from './lists.js';
import { join, SHAPES } from './shape.js';
import {
  BASE_SIGNALS,
  OPERATORS,
  RULE_ACTIONS,
  RULE_LIMITS,
  type Comparison,
  type Condition,
  type Literal,
  type Operator,
  type Rule,
  type RuleAction,
  type SignalName,
} from './types.js';

/** What checking a rule needs besides the rule. */
export interface RuleContext {
  /** The lists the rule's author may name, by id: for a merchant's rule, the merchant's own. */
  readonly lists: ReadonlyMap<string, ListRef>;
}

interface Walk {
  readonly context: RuleContext;
  /** The rule's action when it is one: a `request_3ds` rule cannot read what only 3-D Secure tells. */
  readonly action: RuleAction | undefined;
  readonly issues: RuleIssue[];
  comparisons: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a rule as a merchant or the operator wrote it, listing every problem with its path (the
 * envelope's `details.issues[]` through `RULE_ERRORS`), or returns it with its literals normalised.
 */
export function validateRule(input: unknown, context: RuleContext): Result<Rule, RuleError> {
  const issues = SHAPES.rule.check(input, '');
  const body = isObject(input) ? input : {};
  const walk: Walk = {
    context,
    action: RULE_ACTIONS.find((action) => action === body.action),
    issues,
    comparisons: 0,
  };
  const when = isObject(body.when) ? condition(walk, body.when, 'when', 1) : undefined;
  if (issues.length > 0) return err({ code: 'invalid_rule', issues: issues.slice(0, RULE_LIMITS.issues) });
  // No issue: the schema saw a name and an action, and the walk a condition.
  return ok({ name: body.name as string, action: walk.action!, when: when! });
}

function push(walk: Walk, issue: RuleIssue): undefined {
  walk.issues.push(issue);
  return undefined;
}

const COMBINATORS = ['all', 'any', 'not'] as const;
const COMPARISON_MEMBERS = ['signal', 'op', 'value'];

function condition(walk: Walk, node: unknown, path: string, depth: number): Condition | undefined {
  if (walk.issues.length >= RULE_LIMITS.issues) return undefined;
  if (!isObject(node))
    return push(walk, {
      path,
      code: 'invalid_type',
      reason: 'invalid_type',
      message: 'must be a condition object: all, any, not or a comparison',
    });
  if (depth > RULE_LIMITS.depth)
    return push(walk, {
      path,
      code: 'too_large',
      reason: 'too_deep',
      message: `is nested too deep: a rule has at most ${RULE_LIMITS.depth} levels of conditions`,
    });
  const forms = [
    ...COMBINATORS.filter((form) => form in node),
    ...(COMPARISON_MEMBERS.some((member) => member in node) ? ['comparison' as const] : []),
  ];
  const [form, second] = forms;
  if (form === undefined)
    return push(walk, {
      path,
      code: 'required',
      reason: 'empty_condition',
      message: 'is empty: write all, any, not or a comparison (signal, op, value)',
    });
  if (second !== undefined)
    return push(walk, {
      path,
      code: 'invalid_value',
      reason: 'ambiguous_condition',
      message: `is both ${form === 'comparison' ? 'a comparison' : form} and ${second === 'comparison' ? 'a comparison' : second}: a condition is one of them`,
    });
  switch (form) {
    case 'all':
    case 'any':
      return combinator(walk, node, form, path, depth);
    case 'not': {
      if (!shaped(walk, SHAPES.not.check(node, path))) return undefined;
      const inner = condition(walk, node.not, join(path, 'not'), depth + 1);
      return inner === undefined ? undefined : { not: inner };
    }
    case 'comparison':
      return comparison(walk, node, path);
  }
}

function shaped(walk: Walk, issues: RuleIssue[]): boolean {
  walk.issues.push(...issues);
  return issues.length === 0;
}

function combinator(
  walk: Walk,
  node: Json,
  form: 'all' | 'any',
  path: string,
  depth: number,
): Condition | undefined {
  if (!shaped(walk, SHAPES[form].check(node, path))) return undefined;
  const members = (node[form] as unknown[]).map((member, index) =>
    condition(walk, member, join(join(path, form), index), depth + 1),
  );
  if (!members.every((member) => member !== undefined)) return undefined;
  return form === 'all' ? { all: members } : { any: members };
}

function comparison(walk: Walk, node: Json, path: string): Comparison | undefined {
  walk.comparisons += 1;
  if (walk.comparisons === RULE_LIMITS.comparisons + 1)
    return push(walk, {
      path: 'when',
      code: 'too_long',
      reason: 'too_many_conditions',
      message: `holds more than ${RULE_LIMITS.comparisons} comparisons`,
    });
  if (walk.comparisons > RULE_LIMITS.comparisons) return undefined;
  if (!shaped(walk, SHAPES.comparison.check(node, path))) return undefined;
  const { signal, op, value } = node as { signal: string; op: string; value: unknown };
  const spec = SIGNALS.get(signal);
  const operator = OPERATORS.find((known) => known === op);
  if (spec === undefined) push(walk, unknownSignal(signal, join(path, 'signal')));
  if (operator === undefined)
    push(walk, {
      path: join(path, 'op'),
      code: 'invalid_value',
      reason: 'unknown_operator',
      message: `must be one of: ${OPERATORS.join(', ')}`,
    });
  if (spec === undefined || operator === undefined) return undefined;
  if (!operatorsOf(spec.type).includes(operator))
    return push(walk, {
      path: join(path, 'op'),
      code: 'invalid_value',
      reason: 'operator_not_allowed',
      message: `does not apply to ${signal} (${typeName(spec.type)}); use one of: ${operatorsOf(spec.type).join(', ')}`,
    });
  const available = !(spec.after3ds === true && walk.action === 'request_3ds');
  if (!available)
    push(walk, {
      path: join(path, 'signal'),
      code: 'invalid_value',
      reason: 'signal_not_available',
      message: 'is known only after 3-D Secure, and a request_3ds rule is evaluated before it',
    });
  const literal = operand(walk, spec, operator, value, join(path, 'value'));
  if (literal === undefined || !available) return undefined;
  return { signal: signal as SignalName, op: operator, value: literal };
}

function unknownSignal(signal: string, path: string): RuleIssue {
  const velocity = 'velocity.<card|email|ip|customer>.<10m|1h|24h>.<count|sum>';
  return {
    path,
    code: 'invalid_value',
    reason: 'unknown_signal',
    message: signal.startsWith('velocity.')
      ? `is not a signal: velocity signals are ${velocity}`
      : `is not a signal; the signals are ${BASE_SIGNALS.join(', ')} and ${velocity}`,
  };
}

function operand(
  walk: Walk,
  spec: SignalSpec,
  op: Operator,
  value: unknown,
  path: string,
): Comparison['value'] | undefined {
  if (op === 'inList') return listReference(walk, spec.type, value, path);
  if (op !== 'in' && op !== 'notIn') return literal(walk, spec.type, value, path);
  if (!Array.isArray(value))
    return push(walk, {
      path,
      code: 'invalid_type',
      reason: 'invalid_value',
      message: `must be an array of values, each ${typeName(spec.type)}`,
    });
  if (value.length === 0)
    return push(walk, {
      path,
      code: 'too_short',
      reason: 'no_values',
      message: 'must hold at least one value',
    });
  if (value.length > RULE_LIMITS.values)
    return push(walk, {
      path,
      code: 'too_long',
      reason: 'too_many_values',
      message: `must hold at most ${RULE_LIMITS.values} values; put more in a list and use inList`,
    });
  const literals = value.map((member, index) => literal(walk, spec.type, member, join(path, index)));
  return literals.every((member) => member !== undefined) ? [...new Set(literals)] : undefined;
}

function listReference(walk: Walk, type: ValueType, value: unknown, path: string): string | undefined {
  if (typeof value !== 'string' || !LIST_ID.test(value))
    return push(walk, {
      path,
      code: typeof value === 'string' ? 'invalid_format' : 'invalid_type',
      reason: 'invalid_list_id',
      message: 'must be the id of a list (rl_…)',
    });
  const list = walk.context.lists.get(value);
  if (list === undefined)
    return push(walk, {
      path,
      code: 'invalid_value',
      reason: 'unknown_list',
      message: 'is not a list this rule may use',
    });
  if (type.kind !== 'text' || type.list !== list.kind)
    return push(walk, {
      path,
      code: 'invalid_value',
      reason: 'list_kind_mismatch',
      message: `is a list of kind ${list.kind}; this signal needs one of kind ${type.kind === 'text' ? type.list : 'none'}`,
    });
  return value;
}

function literal(walk: Walk, type: ValueType, value: unknown, path: string): Literal | undefined {
  switch (type.kind) {
    case 'money':
    case 'count':
      return wholeNumber(walk, type.kind, value, path);
    case 'boolean':
      return typeof value === 'boolean'
        ? value
        : push(walk, {
            path,
            code: 'invalid_type',
            reason: 'invalid_value',
            message: 'must be true or false',
          });
    case 'choice':
      if (typeof value === 'string' && type.choices.includes(value)) return value;
      return push(walk, {
        path,
        code: typeof value === 'string' ? 'invalid_value' : 'invalid_type',
        reason: 'invalid_value',
        message: `must be one of: ${type.choices.join(', ')}`,
      });
    case 'text': {
      const normalized = typeof value === 'string' ? type.normalize(value) : undefined;
      if (normalized !== undefined) return normalized;
      return push(walk, {
        path,
        code: typeof value === 'string' ? 'invalid_format' : 'invalid_type',
        reason: 'invalid_value',
        message: `must be ${type.form}`,
      });
    }
  }
}

function wholeNumber(walk: Walk, kind: 'money' | 'count', value: unknown, path: string): number | undefined {
  const reason = kind === 'money' ? 'invalid_amount' : 'invalid_count';
  if (typeof value !== 'number' || !Number.isInteger(value))
    return push(walk, {
      path,
      code: 'invalid_type',
      reason,
      message:
        kind === 'money'
          ? 'must be an integer of minor units (12550 is 125.50 TRY), a JSON number'
          : 'must be a whole number, a JSON number',
    });
  if (value < 0) return push(walk, { path, code: 'too_small', reason, message: 'must not be negative' });
  if (value > Number.MAX_SAFE_INTEGER)
    return push(walk, {
      path,
      code: 'too_large',
      reason,
      message: `must be at most ${Number.MAX_SAFE_INTEGER}`,
    });
  return value === 0 ? 0 : value;
}
