import type { Clock } from '../src/shared/clock.js';
import { invalidRequest, notFound } from './errors.js';
import { randomId } from './ids.js';
import { parseAmount, readBody } from './validation.js';

/** The operations of the API that fault rules and the call log name. */
export const API_OPERATIONS = [
  'create_payment',
  'get_payment',
  'find_payments',
  'authorize',
  'challenge',
  'simulate_transfer',
  'cancel',
  'refund',
  'settlement_report',
  'get_dispute',
  'list_disputes',
  'submit_evidence',
  'accept_dispute',
] as const;

export type ApiOperation = (typeof API_OPERATIONS)[number];

/** Every operation a rule can name: the API's and the outgoing notifications. */
export type Operation = ApiOperation | 'notification';

export const FAULT_ACTIONS = ['latency', 'delay_response', 'error', 'timeout', 'drop'] as const;
export type FaultAction = (typeof FAULT_ACTIONS)[number];

/** What a rule can match: the payment the call is about. */
export interface FaultMatch {
  reference?: string;
  amount?: string;
}

/** The payment a call or notification concerns, as far as it is known. */
export interface FaultTarget {
  reference: string | null;
  amount: string | null;
}

export interface FaultRule {
  id: string;
  operation: Operation | '*';
  action: FaultAction;
  latencyMs: number | null;
  status: number | null;
  code: string | null;
  message: string | null;
  /** Matching calls left; null for until removed. */
  times: number | null;
  match: FaultMatch | null;
  createdAt: string;
}

const MAX_LATENCY_MS = 600_000;
const DEFAULT_FAULT_MESSAGE = 'Fault injected by the sandbox acquirer.';
const RULE_FIELDS = [
  'operation',
  'action',
  'latencyMs',
  'status',
  'code',
  'message',
  'times',
  'match',
] as const;
const NOTIFICATION_ACTIONS: readonly FaultAction[] = ['latency', 'drop'];
const API_ACTIONS: readonly FaultAction[] = ['latency', 'delay_response', 'error', 'timeout'];

/** The body of `POST /_control/faults`, as a rule (without id and time). */
export function parseFaultRule(body: unknown): Omit<FaultRule, 'id' | 'createdAt'> {
  const fields = readBody(body, RULE_FIELDS);
  const operation = parseOperation(fields.operation);
  const action = parseAction(fields.action);
  if (action === 'drop' && operation !== 'notification' && operation !== '*') {
    throw invalidRequest('action "drop" applies to notifications only: use operation "notification" or "*".');
  }
  if (operation === 'notification' && !NOTIFICATION_ACTIONS.includes(action)) {
    throw invalidRequest('Notifications take the actions "drop" and "latency" only.');
  }
  const timed = action === 'latency' || action === 'delay_response';
  const latencyMs = timed
    ? integer(fields.latencyMs, 'latencyMs', 0, MAX_LATENCY_MS)
    : absent(fields, 'latencyMs');
  const isError = action === 'error';
  const status = isError ? integer(fields.status, 'status', 400, 599) : absent(fields, 'status');
  const code = isError ? text(fields.code, 'code', 100, true) : absent(fields, 'code');
  const message = isError
    ? (text(fields.message, 'message', 500, false) ?? DEFAULT_FAULT_MESSAGE)
    : absent(fields, 'message');
  const times =
    fields.times === undefined || fields.times === null ? null : integer(fields.times, 'times', 1, 1_000_000);
  return { operation, action, latencyMs, status, code, message, times, match: parseMatch(fields.match) };
}

function parseOperation(value: unknown): Operation | '*' {
  const all: readonly string[] = [...API_OPERATIONS, 'notification', '*'];
  if (typeof value !== 'string' || !all.includes(value)) {
    throw invalidRequest(`operation must be one of ${all.join(', ')}.`);
  }
  return value as Operation | '*';
}

function parseAction(value: unknown): FaultAction {
  if (typeof value !== 'string' || !(FAULT_ACTIONS as readonly string[]).includes(value)) {
    throw invalidRequest(`action must be one of ${FAULT_ACTIONS.join(', ')}.`);
  }
  return value as FaultAction;
}

function integer(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidRequest(`${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

function text(value: unknown, name: string, max: number, required: true): string;
function text(value: unknown, name: string, max: number, required: false): string | null;
function text(value: unknown, name: string, max: number, required: boolean): string | null {
  if (value === undefined || value === null) {
    if (required) throw invalidRequest(`${name} is required for action "error".`);
    return null;
  }
  if (typeof value !== 'string' || value.length < 1 || value.length > max) {
    throw invalidRequest(`${name} must be a string of 1 to ${max} characters.`);
  }
  return value;
}

function absent(fields: Record<string, unknown>, name: string): null {
  if (fields[name] !== undefined && fields[name] !== null) {
    throw invalidRequest(`${name} does not apply to this action.`);
  }
  return null;
}

function parseMatch(value: unknown): FaultMatch | null {
  if (value === undefined || value === null) return null;
  const fields = readBody(value, ['reference', 'amount']);
  const match: FaultMatch = {};
  if (fields.reference !== undefined) {
    if (typeof fields.reference !== 'string' || fields.reference.length === 0) {
      throw invalidRequest('match.reference must be a non-empty string.');
    }
    match.reference = fields.reference;
  }
  if (fields.amount !== undefined) match.amount = parseAmount(fields.amount, 'match.amount');
  if (match.reference === undefined && match.amount === undefined) {
    throw invalidRequest('match must have reference or amount (or both).');
  }
  return match;
}

/** The fault rules of one acquirer instance, first added first applied. */
export class FaultTable {
  private rules: FaultRule[] = [];

  constructor(private readonly clock: Clock) {}

  add(input: Omit<FaultRule, 'id' | 'createdAt'>): FaultRule {
    const rule: FaultRule = { id: randomId('flt'), ...input, createdAt: this.clock.now().toISOString() };
    this.rules.push(rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  clear(): number {
    const count = this.rules.length;
    this.rules = [];
    return count;
  }

  remove(id: string): void {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    if (this.rules.length === before) throw notFound('No fault rule has this id.');
  }

  /** The first rule for this call, counting it against the rule's `times`. */
  take(operation: Operation, target: FaultTarget): FaultRule | null {
    const rule = this.rules.find((candidate) => applies(candidate, operation, target));
    if (!rule) return null;
    if (rule.times !== null) {
      rule.times -= 1;
      if (rule.times === 0) this.rules = this.rules.filter((candidate) => candidate !== rule);
    }
    return { ...rule };
  }
}

function applies(rule: FaultRule, operation: Operation, target: FaultTarget): boolean {
  if (rule.operation !== '*' && rule.operation !== operation) return false;
  const actions = operation === 'notification' ? NOTIFICATION_ACTIONS : API_ACTIONS;
  if (!actions.includes(rule.action)) return false;
  if (rule.match?.reference !== undefined && rule.match.reference !== target.reference) return false;
  if (rule.match?.amount !== undefined && rule.match.amount !== target.amount) return false;
  return true;
}

/** One API call as `GET /_control/calls` lists it. */
export interface CallRecord {
  operation: ApiOperation;
  paymentId: string | null;
  idempotencyKey: string | null;
  reference: string | null;
  /** The HTTP status answered; null for a `timeout` fault (never answered). */
  status: number | null;
  at: string;
}

const MAX_CALLS = 10_000;

/** The calls received, oldest first, bounded so that a long-running sandbox does not grow forever. */
export class CallLog {
  private calls: CallRecord[] = [];

  record(call: CallRecord): void {
    this.calls.push(call);
    if (this.calls.length > MAX_CALLS) this.calls.splice(0, this.calls.length - MAX_CALLS);
  }

  list(filter: CallsQuery): CallRecord[] {
    return this.calls.filter(
      (call) =>
        (filter.operation === null || call.operation === filter.operation) &&
        (filter.paymentId === null || call.paymentId === filter.paymentId),
    );
  }

  clear(): number {
    const count = this.calls.length;
    this.calls = [];
    return count;
  }
}

/** What `GET /_control/calls` lists: null for any. */
export interface CallsQuery {
  operation: ApiOperation | null;
  /** One payment's calls: how a test counts the authorizations a payment received. */
  paymentId: string | null;
}

/** The `operation` and `paymentId` query parameters of `GET /_control/calls`. */
export function parseCallsQuery(query: unknown): CallsQuery {
  const fields = (query ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== 'operation' && name !== 'paymentId') {
      throw invalidRequest('The only query parameters are operation and paymentId.');
    }
  }
  const paymentId = fields.paymentId;
  if (paymentId !== undefined && (typeof paymentId !== 'string' || paymentId === '')) {
    throw invalidRequest('Give one non-empty paymentId query parameter.');
  }
  const filter: CallsQuery = { operation: null, paymentId: paymentId ?? null };
  if (fields.operation === undefined) return filter;
  if (
    typeof fields.operation !== 'string' ||
    !(API_OPERATIONS as readonly string[]).includes(fields.operation)
  ) {
    throw invalidRequest(`operation must be one of ${API_OPERATIONS.join(', ')}.`);
  }
  return { ...filter, operation: fields.operation as ApiOperation };
}
