import { ApiError, type IssueCode } from '../../http/errors.js';
import { PASSWORD_RULES } from '../../shared/passwords.js';
import type { UserError } from './service.js';

const issue = (path: string, code: IssueCode, message: string) =>
  ApiError.validation([{ path, in: 'body', code, message }], `${path}: ${message}`);

/** Each domain failure of the account endpoints, as the envelope the client switches on. */
export const USER_ERRORS: Record<UserError, (failure: { problem?: string; field: string }) => ApiError> = {
  invalid_credentials: () => new ApiError('unauthorized', 'The e-mail address or the password is incorrect.'),
  inactive: () => new ApiError('unauthorized', 'Sign in to continue.'),
  throttled: () => new ApiError('too_many_requests', 'Too many failed attempts; wait and try again.'),
  token_invalid: () => issue('token', 'invalid_value', 'the link is invalid, expired or already used'),
  token_used: () => issue('token', 'invalid_value', 'the link is invalid, expired or already used'),
  weak_password: ({ problem, field }) => issue(field, passwordIssueCode(problem), problem ?? 'is too weak'),
  wrong_password: () => issue('currentPassword', 'invalid_value', 'is not your current password'),
  invalid_code: () => issue('code', 'invalid_value', 'is not a valid, unused code'),
  totp_already_enabled: () =>
    new ApiError('duplicate_request', 'Two-factor authentication is already enabled; disable it first.'),
  totp_not_pending: () =>
    new ApiError(
      'duplicate_request',
      'No two-factor enrollment is in progress; start one with /v1/auth/2fa/enroll.',
    ),
  totp_not_enabled: () => new ApiError('duplicate_request', 'Two-factor authentication is not enabled.'),
  not_permitted: () => new ApiError('forbidden', 'Your role does not allow this.'),
  role_not_allowed: () => issue('role', 'invalid_value', 'cannot be given by invitation'),
  email_taken: () => issue('email', 'invalid_value', 'already has an account'),
};

export function toUserApiError(
  failure: { error: UserError; problem?: string },
  field = 'password',
): ApiError {
  return USER_ERRORS[failure.error]({
    field,
    ...(failure.problem !== undefined ? { problem: failure.problem } : {}),
  });
}

function passwordIssueCode(problem: string | undefined): IssueCode {
  if (problem?.includes(`at least ${PASSWORD_RULES.minLength}`)) return 'too_short';
  if (problem?.includes(`at most ${PASSWORD_RULES.maxLength}`)) return 'too_long';
  return 'invalid_value';
}
