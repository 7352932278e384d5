/**
 * Issue 38 item 3: the rule form and its evaluation (`src/modules/risk/rules/`), a pure module: every
 * kind of bad rule with its path, code and reason; the evaluation order and its precedence (merchant
 * allow against platform blocks, lists and the card-testing defence, 3-D Secure then its result, review,
 * the maximum amount); what a decision explains. No database, no socket.
 */
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { CARD_SCHEMES as BIN_SCHEMES, FUNDINGS, CATEGORIES } from '../src/modules/bins/types.js';
import { PAYMENT_METHODS as CHARGE_PAYMENT_METHODS } from '../src/modules/charges/schemas.js';
import { RULE_ERRORS, type RuleIssue } from '../src/modules/risk/rules/errors.js';
import { evaluate, type CardTestingFlag, type EvaluationInput } from '../src/modules/risk/rules/evaluate.js';
import {
  CARD_CATEGORIES,
  CARD_FUNDINGS,
  CARD_SCHEMES,
  PAYMENT_METHODS,
  type RuleInputs,
} from '../src/modules/risk/rules/inputs.js';
import {
  normalizeListEntry,
  prepareList,
  type ListKind,
  type ListOwner,
  type ListRef,
  type PreparedList,
} from '../src/modules/risk/rules/lists.js';
import { RiskDecisionSchema } from '../src/modules/risk/rules/schemas.js';
import type { ActiveRule, Rule } from '../src/modules/risk/rules/types.js';
import { validateRule } from '../src/modules/risk/rules/validate.js';

const ACTIONS = ['request_3ds', 'allow', 'block', 'review'];
const listId = (n: number) => `rl_${String(n).padStart(29, '0')}`;
const EMAILS = listId(1);
const PLATFORM_FINGERPRINTS = listId(2);
const IPS = listId(3);
const BINS = listId(4);
const PLATFORM_COUNTRIES = listId(5);

const CATALOGUE = new Map<string, ListRef>([
  [EMAILS, { kind: 'email', owner: 'merchant' }],
  [PLATFORM_FINGERPRINTS, { kind: 'card_fingerprint', owner: 'platform' }],
  [IPS, { kind: 'ip', owner: 'merchant' }],
  [BINS, { kind: 'bin_range', owner: 'merchant' }],
  [PLATFORM_COUNTRIES, { kind: 'country', owner: 'platform' }],
]);

function list(id: string, kind: ListKind, owner: ListOwner, entries: string[]): [string, PreparedList] {
  return [id, prepareList({ id, kind, owner, entries })];
}

const LISTS = new Map<string, PreparedList>([
  list(EMAILS, 'email', 'merchant', ['Fraud@Example.com']),
  list(PLATFORM_FINGERPRINTS, 'card_fingerprint', 'platform', ['fp_stolen_card_0001']),
  list(IPS, 'ip', 'merchant', ['203.0.113.7']),
  list(BINS, 'bin_range', 'merchant', ['400001', '55554400-55554499']),
  list(PLATFORM_COUNTRIES, 'country', 'platform', ['KP', 'IR']),
]);

const figures = (count: number, sum: bigint) => ({
  '10m': { count, sum },
  '1h': { count, sum },
  '24h': { count, sum },
});

/** A Turkish credit card paying 250.00 TRY from a Turkish address. */
function inputs(overrides: Partial<RuleInputs> = {}): RuleInputs {
  return {
    amount: 25_000n,
    method: 'credit_card_tr',
    card: {
      bin: '45436012',
      fingerprint: 'fp_good_card_000001',
      country: 'TR',
      scheme: 'visa',
      funding: 'credit',
      category: 'consumer',
    },
    email: { address: 'Ayse@Example.com', domain: 'example.com', disposable: false },
    ip: { address: '198.51.100.20', country: 'TR' },
    countriesDiffer: false,
    threeDSecure: null,
    velocity: {
      card: figures(1, 25_000n),
      email: figures(1, 25_000n),
      ip: figures(1, 25_000n),
      customer: null,
    },
    ...overrides,
  };
}

function issuesOf(rule: unknown, lists: ReadonlyMap<string, ListRef> = CATALOGUE): RuleIssue[] {
  const result = validateRule(rule, { lists });
  if (result.ok) throw new Error('the rule was accepted');
  return [...result.error.issues];
}

/** The path, code and reason of each issue. */
const short = (issues: RuleIssue[]) => issues.map(({ path, code, reason }) => ({ path, code, reason }));

function valid(rule: unknown): Rule {
  const result = validateRule(rule, { lists: CATALOGUE });
  if (!result.ok) throw new Error(JSON.stringify(result.error.issues));
  return result.value;
}

const active = (id: string, rule: unknown): ActiveRule => ({ id, ...valid(rule) });
const rule = (id: string, action: string, when: unknown) => active(id, { name: `rule ${id}`, action, when });
const cmp = (signal: string, op: string, value: unknown) => ({ signal, op, value });

function decide(input: Partial<EvaluationInput>) {
  return evaluate({
    platformRules: [],
    merchantRules: [],
    lists: LISTS,
    signals: inputs(),
    cardTesting: null,
    maxAmount: null,
    ...input,
  });
}

describe('the rule form', () => {
  it('accepts a rule and returns it normalised: e-mails in lower case, repeated values once', () => {
    expect(
      valid({
        name: 'Known fraudsters abroad',
        action: 'block',
        when: {
          all: [
            cmp('email.address', 'in', ['Fraud@Example.com', 'fraud@example.com']),
            { not: cmp('card.country', 'in', ['TR', 'CY']) },
            { any: [cmp('amount', 'gte', 100_000), cmp('velocity.card.1h.count', 'gt', 3)] },
            cmp('ip.address', 'inList', IPS),
          ],
        },
      }),
    ).toEqual({
      name: 'Known fraudsters abroad',
      action: 'block',
      when: {
        all: [
          cmp('email.address', 'in', ['fraud@example.com']),
          { not: cmp('card.country', 'in', ['TR', 'CY']) },
          { any: [cmp('amount', 'gte', 100_000), cmp('velocity.card.1h.count', 'gt', 3)] },
          cmp('ip.address', 'inList', IPS),
        ],
      },
    });
  });

  it('refuses the rule’s own members: missing, unknown, too long, an unknown action', () => {
    expect(short(issuesOf({ action: 'deny', extra: 1 }))).toEqual([
      { path: 'name', code: 'required', reason: 'required' },
      { path: 'when', code: 'required', reason: 'required' },
      { path: 'extra', code: 'unknown_field', reason: 'unknown_field' },
      { path: 'action', code: 'invalid_value', reason: 'unknown_action' },
    ]);
    expect(short(issuesOf({ name: 'x'.repeat(101), action: 'allow', when: [] }))).toEqual([
      { path: 'name', code: 'too_long', reason: 'too_long' },
      { path: 'when', code: 'invalid_type', reason: 'invalid_type' },
    ]);
    expect(issuesOf({ name: 'ok', action: 'deny', when: cmp('amount', 'gt', 1) })[0]?.message).toBe(
      'must be one of: request_3ds, allow, block, review',
    );
  });

  it('refuses an empty condition, a condition of two forms and one that is not an object', () => {
    const at = (when: unknown) => short(issuesOf({ name: 'r', action: 'block', when }));
    expect(at({})).toEqual([{ path: 'when', code: 'required', reason: 'empty_condition' }]);
    expect(at({ all: [] })).toEqual([{ path: 'when.all', code: 'too_short', reason: 'empty_condition' }]);
    expect(at({ any: [{ not: {} }] })).toEqual([
      { path: 'when.any.0.not', code: 'required', reason: 'empty_condition' },
    ]);
    expect(at({ all: [cmp('amount', 'gt', 1)], signal: 'amount' })).toEqual([
      { path: 'when', code: 'invalid_value', reason: 'ambiguous_condition' },
    ]);
    expect(at({ all: [cmp('amount', 'gt', 1), 'amount > 1', null] })).toEqual([
      { path: 'when.all.1', code: 'invalid_type', reason: 'invalid_type' },
      { path: 'when.all.2', code: 'invalid_type', reason: 'invalid_type' },
    ]);
    expect(at({ not: cmp('amount', 'gt', 1), because: 'x' })).toEqual([
      { path: 'when.because', code: 'unknown_field', reason: 'unknown_field' },
    ]);
    expect(at({ signal: 'amount', op: 'gt' })).toEqual([
      { path: 'when.value', code: 'required', reason: 'required' },
    ]);
  });

  it('refuses an unknown signal, an unknown operator and an operator of another type', () => {
    const at = (when: unknown) => issuesOf({ name: 'r', action: 'block', when });
    expect(short(at(cmp('card.cuntry', 'eq', 'TR')))).toEqual([
      { path: 'when.signal', code: 'invalid_value', reason: 'unknown_signal' },
    ]);
    const velocity = at({ any: [cmp('velocity.card.2h.count', 'gt', 3), cmp('amount', 'between', [1, 2])] });
    expect(short(velocity)).toEqual([
      { path: 'when.any.0.signal', code: 'invalid_value', reason: 'unknown_signal' },
      { path: 'when.any.1.op', code: 'invalid_value', reason: 'unknown_operator' },
    ]);
    expect(velocity[0]?.message).toBe(
      'is not a signal: velocity signals are velocity.<card|email|ip|customer>.<10m|1h|24h>.<count|sum>',
    );
    const wrong = at({
      all: [
        cmp('card.country', 'gt', 'TR'),
        cmp('amount', 'in', [1]),
        cmp('email.disposable', 'inList', EMAILS),
      ],
    });
    expect(short(wrong)).toEqual([
      { path: 'when.all.0.op', code: 'invalid_value', reason: 'operator_not_allowed' },
      { path: 'when.all.1.op', code: 'invalid_value', reason: 'operator_not_allowed' },
      { path: 'when.all.2.op', code: 'invalid_value', reason: 'operator_not_allowed' },
    ]);
    expect(wrong[0]?.message).toBe(
      'does not apply to card.country (an ISO 3166-1 alpha-2 code in capitals (TR), or unknown); use one of: ' +
        'eq, neq, in, notIn, inList',
    );
  });

  it('refuses an amount or a count that is not a non-negative integer', () => {
    const at = (when: unknown) => short(issuesOf({ name: 'r', action: 'review', when }));
    expect(
      at({
        any: [
          cmp('amount', 'gt', 100.5),
          cmp('amount', 'gt', '100000'),
          cmp('velocity.email.24h.sum', 'gte', -1),
          cmp('amount', 'lt', 2 ** 60),
          cmp('velocity.ip.10m.count', 'gt', 1.5),
        ],
      }),
    ).toEqual([
      { path: 'when.any.0.value', code: 'invalid_type', reason: 'invalid_amount' },
      { path: 'when.any.1.value', code: 'invalid_type', reason: 'invalid_amount' },
      { path: 'when.any.2.value', code: 'too_small', reason: 'invalid_amount' },
      { path: 'when.any.3.value', code: 'too_large', reason: 'invalid_amount' },
      { path: 'when.any.4.value', code: 'invalid_type', reason: 'invalid_count' },
    ]);
  });

  it('refuses a value the signal cannot take, and empty or long value lists', () => {
    const at = (when: unknown) => short(issuesOf({ name: 'r', action: 'block', when }));
    expect(
      at({
        all: [
          cmp('card.country', 'in', ['TR', 'tr', 'TUR']),
          cmp('method', 'eq', 'cash'),
          cmp('card.bin', 'eq', '4543'),
          cmp('email.disposable', 'eq', 'yes'),
          cmp('ip.address', 'eq', '300.1.1.1'),
          cmp('card.scheme', 'notIn', []),
          cmp(
            'email.domain',
            'in',
            Array.from({ length: 51 }, (_, index) => `d${index}.com`),
          ),
          cmp('card.funding', 'in', 'credit'),
        ],
      }),
    ).toEqual([
      { path: 'when.all.0.value.1', code: 'invalid_format', reason: 'invalid_value' },
      { path: 'when.all.0.value.2', code: 'invalid_format', reason: 'invalid_value' },
      { path: 'when.all.1.value', code: 'invalid_value', reason: 'invalid_value' },
      { path: 'when.all.2.value', code: 'invalid_format', reason: 'invalid_value' },
      { path: 'when.all.3.value', code: 'invalid_type', reason: 'invalid_value' },
      { path: 'when.all.4.value', code: 'invalid_format', reason: 'invalid_value' },
      { path: 'when.all.5.value', code: 'too_short', reason: 'no_values' },
      { path: 'when.all.6.value', code: 'too_long', reason: 'too_many_values' },
      { path: 'when.all.7.value', code: 'invalid_type', reason: 'invalid_value' },
    ]);
  });

  it('refuses a bad list reference: not an id, no such list, a list of another kind', () => {
    const at = (when: unknown) => issuesOf({ name: 'r', action: 'block', when });
    const issues = at({
      any: [
        cmp('email.address', 'inList', 'rl_nope'),
        cmp('email.address', 'inList', 7),
        cmp('email.address', 'inList', listId(99)),
        cmp('ip.address', 'inList', EMAILS),
      ],
    });
    expect(short(issues)).toEqual([
      { path: 'when.any.0.value', code: 'invalid_format', reason: 'invalid_list_id' },
      { path: 'when.any.1.value', code: 'invalid_type', reason: 'invalid_list_id' },
      { path: 'when.any.2.value', code: 'invalid_value', reason: 'unknown_list' },
      { path: 'when.any.3.value', code: 'invalid_value', reason: 'list_kind_mismatch' },
    ]);
    expect(issues[3]?.message).toBe('is a list of kind email; this signal needs one of kind ip');
    expect(
      valid({ name: 'r', action: 'block', when: cmp('card.fingerprint', 'inList', PLATFORM_FINGERPRINTS) }),
    ).toBeTruthy();
    // A list the author may not use (another merchant's, say) is not in the lists the check is given.
    expect(
      short(
        issuesOf(
          { name: 'r', action: 'block', when: cmp('card.country', 'inList', PLATFORM_COUNTRIES) },
          new Map(),
        ),
      ),
    ).toEqual([{ path: 'when.value', code: 'invalid_value', reason: 'unknown_list' }]);
  });

  it('refuses a rule nested too deep or holding too many comparisons', () => {
    const at = (when: unknown) => short(issuesOf({ name: 'r', action: 'block', when }));
    expect(at({ not: { not: { not: { not: { not: cmp('amount', 'gt', 1) } } } } })).toEqual([
      { path: 'when.not.not.not.not.not', code: 'too_large', reason: 'too_deep' },
    ]);
    expect(
      valid({ name: 'r', action: 'block', when: { not: { not: { not: { not: cmp('amount', 'gt', 1) } } } } }),
    ).toBeTruthy();
    const comparisons = (n: number) => Array.from({ length: n }, (_, index) => cmp('amount', 'gt', index));
    expect(at({ all: comparisons(21) })).toEqual([
      { path: 'when.all', code: 'too_long', reason: 'too_many_conditions' },
    ]);
    expect(at({ all: [{ any: comparisons(11) }, { any: comparisons(10) }] })).toEqual([
      { path: 'when', code: 'too_long', reason: 'too_many_conditions' },
    ]);
    expect(
      valid({
        name: 'r',
        action: 'block',
        when: { all: [{ any: comparisons(10) }, { any: comparisons(10) }] },
      }),
    ).toBeTruthy();
  });

  it('refuses the 3-D Secure result in a request_3ds rule, which runs before 3-D Secure', () => {
    expect(
      short(issuesOf({ name: 'r', action: 'request_3ds', when: cmp('threeDSecure.result', 'eq', 'failed') })),
    ).toEqual([{ path: 'when.signal', code: 'invalid_value', reason: 'signal_not_available' }]);
    expect(
      valid({ name: 'r', action: 'allow', when: cmp('threeDSecure.result', 'eq', 'authenticated') }),
    ).toBeTruthy();
  });

  it('answers 400 validation_failed with every issue, each keeping its reason', () => {
    const result = validateRule(
      {
        name: '',
        action: 'allow',
        when: { all: [cmp('card.cuntry', 'eq', 'TR'), cmp('amount', 'gt', 1.5)] },
      },
      { lists: CATALOGUE },
    );
    if (result.ok) throw new Error('accepted');
    const error = RULE_ERRORS[result.error.code](result.error);
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.details).toEqual({
      issues: [
        { path: 'name', in: 'body', code: 'too_short', reason: 'too_short', message: 'must not be empty' },
        {
          path: 'when.all.0.signal',
          in: 'body',
          code: 'invalid_value',
          reason: 'unknown_signal',
          message: expect.stringMatching(/^is not a signal; the signals are amount, method, /),
        },
        {
          path: 'when.all.1.value',
          in: 'body',
          code: 'invalid_type',
          reason: 'invalid_amount',
          message: 'must be an integer of minor units (12550 is 125.50 TRY), a JSON number',
        },
      ],
    });
  });

  it('speaks the payment methods of charges and the schemes, fundings and categories of the BIN table', () => {
    expect([...PAYMENT_METHODS]).toEqual([...CHARGE_PAYMENT_METHODS]);
    expect(CARD_SCHEMES).toEqual([...BIN_SCHEMES, 'unknown']);
    expect(CARD_FUNDINGS).toEqual([...FUNDINGS, 'unknown']);
    expect(CARD_CATEGORIES).toEqual([...CATEGORIES, 'unknown']);
  });
});

describe('lists', () => {
  it('normalises each kind of entry and refuses what is not one', () => {
    expect(normalizeListEntry('email', ' Fraud@Example.COM ')).toBe('fraud@example.com');
    expect(normalizeListEntry('email_domain', 'Mailinator.com')).toBe('mailinator.com');
    expect(normalizeListEntry('country', 'tr')).toBe('TR');
    expect(normalizeListEntry('country', 'unknown')).toBeUndefined();
    expect(normalizeListEntry('ip', '2001:DB8:0::1')).toBe('2001:db8::1');
    expect(normalizeListEntry('ip', '::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeListEntry('ip', '010.0.0.1')).toBeUndefined();
    expect(normalizeListEntry('ip', '10.0.0.0/8')).toBeUndefined();
    expect(normalizeListEntry('bin_range', '45436000-45436099')).toBe('45436000-45436099');
    expect(normalizeListEntry('bin_range', '4543600-45436099')).toBeUndefined();
    expect(normalizeListEntry('bin_range', '45436099-45436000')).toBeUndefined();
    expect(normalizeListEntry('card_fingerprint', 'short')).toBeUndefined();
  });

  it('matches BINs by prefix and by range, and refuses to prepare an entry of another kind', () => {
    const bins = LISTS.get(BINS)!;
    expect(['40000199', '55554412', '555544'].map((bin) => bins.has(bin))).toEqual([true, true, false]);
    expect(['40000299', '55554500'].map((bin) => bins.has(bin))).toEqual([false, false]);
    expect(() => prepareList({ id: EMAILS, kind: 'email', owner: 'merchant', entries: ['nope'] })).toThrow(
      RangeError,
    );
  });
});

describe('evaluation order and precedence', () => {
  const platformBlockTR = rule('rr_pb', 'block', cmp('card.country', 'eq', 'TR'));
  const merchantAllowAll = rule('rr_ma', 'allow', cmp('amount', 'gt', 0));

  it('allows when no rule matches', () => {
    const decision = decide({ merchantRules: [rule('rr_1', 'block', cmp('card.country', 'eq', 'US'))] });
    expect(decision).toMatchObject({ action: 'allow', decidedBy: { kind: 'no_rule' }, matched: [] });
    expect(decision.explanation).toBe('Allowed: no rule matched.');
  });

  it('a merchant allow does not override a platform block; a platform allow does', () => {
    const blocked = decide({ platformRules: [platformBlockTR], merchantRules: [merchantAllowAll] });
    expect(blocked.action).toBe('block');
    expect(blocked.decidedBy).toEqual({
      kind: 'rule',
      source: 'platform',
      ruleId: 'rr_pb',
      name: 'rule rr_pb',
    });
    expect(blocked.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_pb', 'decided'],
      ['rr_ma', 'cannot_override'],
    ]);
    const platformAllow = rule('rr_pa', 'allow', cmp('email.domain', 'eq', 'example.com'));
    const allowed = decide({
      platformRules: [platformBlockTR, platformAllow],
      merchantRules: [merchantAllowAll],
    });
    expect(allowed).toMatchObject({ action: 'allow', decidedBy: { kind: 'rule', ruleId: 'rr_pa' } });
    expect(allowed.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_pb', 'outranked'],
      ['rr_pa', 'decided'],
      ['rr_ma', 'concurred'],
    ]);
  });

  it('a merchant allow overrides a merchant block, but not one that found the payment on a platform list', () => {
    const merchantBlock = rule('rr_mb', 'block', cmp('amount', 'gte', 10_000));
    expect(decide({ merchantRules: [merchantBlock, merchantAllowAll] })).toMatchObject({
      action: 'allow',
      decidedBy: { ruleId: 'rr_ma' },
    });
    const stolen = inputs({
      card: {
        bin: '45436012',
        fingerprint: 'fp_stolen_card_0001',
        country: 'TR',
        scheme: 'visa',
        funding: 'credit',
        category: 'consumer',
      },
    });
    const listBlock = rule('rr_lb', 'block', cmp('card.fingerprint', 'inList', PLATFORM_FINGERPRINTS));
    const decision = decide({ merchantRules: [merchantAllowAll, listBlock], signals: stolen });
    expect(decision).toMatchObject({ action: 'block', decidedBy: { source: 'merchant', ruleId: 'rr_lb' } });
    expect(decision.matched.find((match) => match.ruleId === 'rr_lb')).toMatchObject({
      effect: 'decided',
      lists: [PLATFORM_FINGERPRINTS],
      inputs: { 'card.fingerprint': 'fp_stolen_card_0001' },
    });
    // The same rule over a merchant list: the merchant's allow wins.
    const ownList = rule('rr_own', 'block', cmp('email.address', 'inList', EMAILS));
    const flagged = inputs({
      email: { address: 'FRAUD@example.com', domain: 'example.com', disposable: false },
    });
    expect(decide({ merchantRules: [ownList, merchantAllowAll], signals: flagged }).action).toBe('allow');
    expect(decide({ merchantRules: [ownList], signals: flagged }).action).toBe('block');
  });

  it('the card-testing defence blocks through a merchant allow, not through a platform allow', () => {
    const cardTesting: CardTestingFlag = { action: 'block', reason: 'many cards from 203.0.113.7' };
    const blocked = decide({ merchantRules: [merchantAllowAll], cardTesting });
    expect(blocked).toMatchObject({
      action: 'block',
      decidedBy: { kind: 'card_testing', reason: cardTesting.reason },
    });
    expect(blocked.matched[0]?.effect).toBe('cannot_override');
    expect(blocked.explanation).toBe(
      'Blocked by the card-testing defence: many cards from 203.0.113.7. The merchant allow rule "rule rr_ma" ' +
        "(rr_ma) matched but cannot lift this block: a merchant's allow does not override a platform block, a " +
        'platform list or the card-testing defence.',
    );
    const platformAllow = rule('rr_pa', 'allow', cmp('ip.address', 'eq', '198.51.100.20'));
    expect(decide({ platformRules: [platformAllow], cardTesting }).action).toBe('allow');
  });

  it('asks for 3-D Secure first; after it, the other rules see its result', () => {
    const ask = rule('rr_3ds', 'request_3ds', cmp('countriesDiffer', 'eq', true));
    const allowAuthenticated = rule('rr_auth', 'allow', cmp('threeDSecure.result', 'eq', 'authenticated'));
    const blockAbroad = rule('rr_abroad', 'block', cmp('ip.country', 'neq', 'TR'));
    const merchantRules = [ask, allowAuthenticated, blockAbroad];
    const abroad = { ip: { address: '192.0.2.1', country: 'DE' }, countriesDiffer: true };
    const before = decide({ merchantRules, signals: inputs(abroad) });
    expect(before).toMatchObject({ action: 'request_3ds', decidedBy: { kind: 'rule', ruleId: 'rr_3ds' } });
    expect(before.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_3ds', 'decided'],
      ['rr_abroad', 'outranked'],
    ]);
    expect(before.explanation).toContain('evaluated again with the 3-D Secure result');
    // Even a platform block waits: request_3ds comes first in the order.
    expect(
      decide({ platformRules: [blockAbroad], merchantRules: [ask], signals: inputs(abroad) }).action,
    ).toBe('request_3ds');
    const authenticated = decide({
      merchantRules,
      signals: inputs({ ...abroad, threeDSecure: { result: 'authenticated' } }),
    });
    expect(authenticated).toMatchObject({ action: 'allow', decidedBy: { ruleId: 'rr_auth' } });
    expect(authenticated.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_3ds', 'satisfied'],
      ['rr_auth', 'decided'],
      ['rr_abroad', 'outranked'],
    ]);
    const failed = decide({
      merchantRules,
      signals: inputs({ ...abroad, threeDSecure: { result: 'failed' } }),
    });
    expect(failed).toMatchObject({ action: 'block', decidedBy: { ruleId: 'rr_abroad' } });
  });

  it('the card-testing defence can ask for 3-D Secure on every card', () => {
    const cardTesting: CardTestingFlag = { action: 'request_3ds', reason: 'a burst of small declines' };
    expect(decide({ cardTesting, merchantRules: [merchantAllowAll] })).toMatchObject({
      action: 'request_3ds',
      decidedBy: { kind: 'card_testing' },
    });
    expect(
      decide({ cardTesting, signals: inputs({ threeDSecure: { result: 'authenticated' } }) }).action,
    ).toBe('allow');
  });

  it('reviews when a review rule matches and nothing earlier in the order decided', () => {
    const review = rule('rr_rv', 'review', cmp('velocity.card.24h.count', 'gte', 1));
    expect(decide({ platformRules: [review] })).toMatchObject({
      action: 'review',
      decidedBy: { ruleId: 'rr_rv' },
    });
    // A merchant's allow lifts a platform review (only blocks are protected).
    expect(decide({ platformRules: [review], merchantRules: [merchantAllowAll] }).action).toBe('allow');
    const block = rule('rr_b', 'block', cmp('card.scheme', 'eq', 'visa'));
    const blocked = decide({ merchantRules: [review, block] });
    expect(blocked.action).toBe('block');
    expect(blocked.matched.map(({ effect }) => effect)).toEqual(['outranked', 'decided']);
  });

  it('blocks above the merchant’s maximum amount, which no allow lifts', () => {
    const platformAllow = rule('rr_pa', 'allow', cmp('amount', 'gt', 0));
    const over = decide({ platformRules: [platformAllow], maxAmount: 24_999n });
    expect(over).toMatchObject({
      action: 'block',
      decidedBy: { kind: 'max_amount', amount: '25000', maxAmount: '24999' },
    });
    expect(over.matched[0]?.effect).toBe('cannot_override');
    expect(over.explanation).toContain(
      "Blocked: the amount 25000 is above the merchant's maximum of 24999 per charge.",
    );
    expect(over.explanation).toContain('nothing lifts the maximum amount');
    expect(decide({ maxAmount: 25_000n }).action).toBe('allow');
  });

  it('takes the first matching rule of a phase, platform rules before the merchant’s', () => {
    const first = rule('rr_first', 'block', cmp('method', 'eq', 'credit_card_tr'));
    const second = rule('rr_second', 'block', cmp('card.bin', 'in', ['454360', '999999']));
    const decision = decide({ merchantRules: [first], platformRules: [second] });
    expect(decision.decidedBy).toMatchObject({ ruleId: 'rr_second', source: 'platform' });
    expect(decision.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_second', 'decided'],
      ['rr_first', 'concurred'],
    ]);
  });
});

describe('signals as rules read them', () => {
  it('an absent signal satisfies no comparison, whatever the operator; not turns it around', () => {
    const bankTransfer = inputs({ method: 'bank_transfer', card: null, email: null, countriesDiffer: null });
    const rules = [
      rule('rr_neq', 'block', cmp('card.country', 'neq', 'TR')),
      rule('rr_notin', 'block', cmp('card.scheme', 'notIn', ['visa'])),
      rule('rr_disp', 'block', cmp('email.disposable', 'neq', true)),
      rule('rr_vel', 'block', cmp('velocity.customer.1h.count', 'gte', 0)),
    ];
    expect(decide({ merchantRules: rules, signals: bankTransfer }).action).toBe('allow');
    const not = decide({
      merchantRules: [rule('rr_not', 'review', { not: cmp('card.country', 'eq', 'TR') })],
      signals: bankTransfer,
    });
    expect(not.action).toBe('review');
    expect(not.matched[0]?.checks).toEqual([
      { path: 'when.not', signal: 'card.country', op: 'eq', value: 'TR', actual: null, held: false },
    ]);
  });

  it('reads BINs by prefix, lists of BIN ranges, e-mails in any case, velocity counters and sums', () => {
    const signals = inputs({
      card: {
        bin: '55554412',
        fingerprint: 'fp_good_card_000001',
        country: 'tr',
        scheme: 'mastercard',
        funding: 'debit',
        category: 'commercial',
      },
      email: { address: 'Fraud@EXAMPLE.com', domain: 'EXAMPLE.com', disposable: true },
      velocity: { card: figures(4, 90_000n), email: null, ip: figures(9, 1n), customer: null },
    });
    const when = {
      all: [
        cmp('card.bin', 'eq', '555544'),
        cmp('card.bin', 'inList', BINS),
        cmp('card.country', 'eq', 'TR'),
        cmp('card.category', 'eq', 'commercial'),
        cmp('email.address', 'inList', EMAILS),
        cmp('email.domain', 'eq', 'example.com'),
        cmp('email.disposable', 'eq', true),
        cmp('velocity.card.1h.count', 'gt', 3),
        cmp('velocity.card.24h.sum', 'gte', 90_000),
        cmp('velocity.ip.10m.sum', 'lt', 2),
      ],
    };
    const decision = decide({ merchantRules: [rule('rr_all', 'review', when)], signals });
    expect(decision.action).toBe('review');
    expect(decision.matched[0]?.inputs).toEqual({
      'card.bin': '55554412',
      'card.country': 'TR',
      'card.category': 'commercial',
      'email.address': 'fraud@example.com',
      'email.domain': 'example.com',
      'email.disposable': true,
      'velocity.card.1h.count': 4,
      'velocity.card.24h.sum': '90000',
      'velocity.ip.10m.sum': '1',
    });
    expect(decision.matched[0]?.lists).toEqual([BINS, EMAILS]);
  });

  it('records what each rule read, stopping where its answer was known', () => {
    const when = {
      any: [cmp('amount', 'lt', 100), cmp('card.country', 'in', ['TR', 'CY']), cmp('ip.country', 'eq', 'TR')],
    };
    const decision = decide({ merchantRules: [rule('rr_any', 'block', when)] });
    expect(decision.matched[0]?.checks).toEqual([
      { path: 'when.any.0', signal: 'amount', op: 'lt', value: 100, actual: '25000', held: false },
      { path: 'when.any.1', signal: 'card.country', op: 'in', value: ['TR', 'CY'], actual: 'TR', held: true },
    ]);
    expect(decision.explanation).toBe(
      'Blocked by merchant rule "rule rr_any" (rr_any): amount 25000 lt 100 fails; card.country TR in [TR, CY] holds.',
    );
  });
});

describe('decisions', () => {
  const rules = {
    platformRules: [rule('rr_p1', 'block', cmp('card.country', 'inList', PLATFORM_COUNTRIES))],
    merchantRules: [
      rule('rr_m1', 'allow', {
        all: [cmp('email.domain', 'eq', 'example.com'), cmp('amount', 'lte', 50_000)],
      }),
      rule('rr_m2', 'review', cmp('velocity.email.1h.count', 'gte', 1)),
    ],
  };

  it('are plain JSON of their schema, and the same for the same input', () => {
    const input = { ...rules, signals: inputs() };
    const decision = decide(input);
    expect(Compile(RiskDecisionSchema).Check(decision)).toBe(true);
    expect(JSON.parse(JSON.stringify(decision))).toEqual(decision);
    expect(decide(input)).toEqual(decision);
    expect(decision.matched.map(({ ruleId, effect }) => [ruleId, effect])).toEqual([
      ['rr_m1', 'decided'],
      ['rr_m2', 'outranked'],
    ]);
  });

  it('evaluate 100 rules quickly (printed, not asserted)', () => {
    const many: ActiveRule[] = Array.from({ length: 100 }, (_, index) =>
      rule(`rr_${index}`, ACTIONS[index % ACTIONS.length] ?? 'review', {
        all: [
          cmp('amount', 'gt', 1_000_000 + index),
          {
            any: [
              cmp('card.country', 'in', ['NG', 'GH', 'KP']),
              cmp('velocity.card.1h.count', 'gt', 10 + index),
            ],
          },
          cmp('email.address', 'inList', EMAILS),
        ],
      }),
    );
    const input = { platformRules: many.slice(0, 50), merchantRules: many.slice(50), signals: inputs() };
    for (let warm = 0; warm < 200; warm += 1) decide(input);
    const runs = 2_000;
    const started = process.hrtime.bigint();
    for (let run = 0; run < runs; run += 1) decide(input);
    const microseconds = Number(process.hrtime.bigint() - started) / 1_000 / runs;
    process.stdout.write(
      `${JSON.stringify({ riskRules: { rules: 100, microsecondsPerEvaluation: microseconds } })}\n`,
    );
    expect(decide(input).action).toBe('allow');
  });
});
