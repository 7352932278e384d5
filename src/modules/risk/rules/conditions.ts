import { SIGNALS, type InputValue, type SignalSpec } from './catalogue.js';
import type { RuleInputs } from './inputs.js';
import type { PreparedList } from './lists.js';
import type { ConditionCheck } from './schemas.js';
import { join } from './shape.js';
import type { Comparison, Condition, Literal, SignalName } from './types.js';

/** What one evaluation reads from: the inputs, each signal read once, and the lists' contents. */
export interface MatchScope {
  read(signal: SignalName): InputValue | null;
  readonly lists: ReadonlyMap<string, PreparedList>;
}

export function matchScope(inputs: RuleInputs, lists: ReadonlyMap<string, PreparedList>): MatchScope {
  const read = new Map<SignalName, InputValue | null>();
  return {
    lists,
    read(signal) {
      if (read.has(signal)) return read.get(signal) ?? null;
      const value = spec(signal).read(inputs);
      read.set(signal, value);
      return value;
    },
  };
}

/** What matching one rule found: each comparison evaluated and the lists the payment was on. */
export interface Trace {
  readonly checks: ConditionCheck[];
  readonly lists: string[];
}

/**
 * Whether the condition holds. `all` stops at the first comparison that fails and `any` at the first
 * that holds, so the trace lists exactly what was read to decide.
 */
export function holds(condition: Condition, path: string, scope: MatchScope, trace: Trace): boolean {
  if ('all' in condition) {
    const base = join(path, 'all');
    return condition.all.every((member, index) => holds(member, join(base, index), scope, trace));
  }
  if ('any' in condition) {
    const base = join(path, 'any');
    return condition.any.some((member, index) => holds(member, join(base, index), scope, trace));
  }
  if ('not' in condition) return !holds(condition.not, join(path, 'not'), scope, trace);
  const actual = scope.read(condition.signal);
  // An absent signal satisfies no comparison, whatever its operator.
  const held = actual !== null && compare(condition, actual, scope, trace);
  trace.checks.push({
    path,
    signal: condition.signal,
    op: condition.op,
    value: condition.value as ConditionCheck['value'],
    actual: typeof actual === 'bigint' ? actual.toString() : actual,
    held,
  });
  return held;
}

function spec(signal: SignalName): SignalSpec {
  const found = SIGNALS.get(signal);
  if (found === undefined) throw new RangeError(`${signal} is not a signal: the rule was not validated`);
  return found;
}

function compare(comparison: Comparison, actual: InputValue, scope: MatchScope, trace: Trace): boolean {
  const { signal, op, value } = comparison;
  switch (op) {
    case 'eq':
      return same(signal, actual, value as Literal);
    case 'neq':
      return !same(signal, actual, value as Literal);
    case 'in':
      return (value as readonly Literal[]).some((member) => same(signal, actual, member));
    case 'notIn':
      return !(value as readonly Literal[]).some((member) => same(signal, actual, member));
    case 'gt':
      return order(actual, value as number) > 0;
    case 'gte':
      return order(actual, value as number) >= 0;
    case 'lt':
      return order(actual, value as number) < 0;
    case 'lte':
      return order(actual, value as number) <= 0;
    case 'inList': {
      const list = scope.lists.get(value as string);
      // A list the caller did not give (deleted since the rule was written) holds nothing.
      const found = list !== undefined && list.has(String(actual));
      if (found) trace.lists.push(list.id);
      return found;
    }
  }
}

function same(signal: SignalName, actual: InputValue, literal: Literal): boolean {
  if (typeof actual === 'bigint') return typeof literal === 'number' && actual === BigInt(literal);
  const type = spec(signal).type;
  if (type.kind === 'text' && type.prefix === true)
    return typeof actual === 'string' && typeof literal === 'string' && actual.startsWith(literal);
  return actual === literal;
}

/** The sign of `actual - literal` for money (bigint) and counts (number). */
function order(actual: InputValue, literal: number): number {
  if (typeof actual === 'bigint') {
    const other = BigInt(literal);
    return actual === other ? 0 : actual > other ? 1 : -1;
  }
  if (typeof actual !== 'number') return Number.NaN;
  return Math.sign(actual - literal);
}
