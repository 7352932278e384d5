import { ApiError, type ErrorTable, type IssueCode, type ValidationIssue } from '../../../http/errors.js';

/**
 * Why a rule was refused, one stable reason per problem: the envelope's `code` says what kind of value
 * is wrong, as for every request; `reason` names the rule's own problem, for a client (or the dashboard,
 * in its language) to say which.
 */
export const RULE_ISSUE_REASONS = [
  // The shape of the rule or of one condition, as its schema says.
  'required',
  'unknown_field',
  'invalid_type',
  'too_short',
  'too_long',
  'invalid_format',
  'unknown_action',
  // A condition.
  'empty_condition',
  'ambiguous_condition',
  'too_deep',
  'too_many_conditions',
  // A comparison.
  'unknown_signal',
  'unknown_operator',
  'operator_not_allowed',
  'signal_not_available',
  'invalid_value',
  'invalid_amount',
  'invalid_count',
  'no_values',
  'too_many_values',
  'invalid_list_id',
  'unknown_list',
  'list_kind_mismatch',
] as const;
export type RuleIssueReason = (typeof RULE_ISSUE_REASONS)[number];

export interface RuleIssue {
  /** Dotted path inside the rule (`when.all.0.signal`), "" for the rule itself. */
  readonly path: string;
  readonly code: IssueCode;
  readonly reason: RuleIssueReason;
  readonly message: string;
}

export type RuleError = { readonly code: 'invalid_rule'; readonly issues: readonly RuleIssue[] };

/**
 * The issues of the envelope (`details.issues[]`), each keeping its `reason`; `prefix` is where the rule
 * sits in the request body ("" when the body is the rule).
 */
export function toValidationIssues(
  issues: readonly RuleIssue[],
  prefix = '',
): Array<ValidationIssue & { reason: RuleIssueReason }> {
  return issues.map(({ path, code, reason, message }) => ({
    path: prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`,
    in: 'body',
    code,
    reason,
    message,
  }));
}

export const RULE_ERRORS: ErrorTable<RuleError> = {
  invalid_rule: (error) => ApiError.validation(toValidationIssues(error.issues), 'The rule is invalid.'),
};
