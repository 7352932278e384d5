import { ApiError, toApiError, type ErrorTable, type IssueCode } from '../../http/errors.js';
import { PASSWORD_RULES, passwordProblem } from '../../shared/passwords.js';
import { err } from '../../shared/result.js';

/** The input field a new password came in (the envelope names it). */
export type PasswordField = 'password' | 'newPassword';

/** What the account operations refuse. */
export type UserError =
  | { code: 'invalid_credentials' }
  | { code: 'inactive' }
  | { code: 'throttled'; retryAfterSeconds: number }
  | { code: 'token_invalid' }
  | { code: 'token_used' }
  | { code: 'weak_password'; problem: string; field: PasswordField }
  | { code: 'wrong_password' }
  | { code: 'invalid_code' }
  | { code: 'totp_already_enabled' }
  | { code: 'totp_not_pending' }
  | { code: 'totp_not_enabled' }
  | { code: 'not_permitted' }
  | { code: 'role_not_allowed' }
  | { code: 'email_taken' };

/** The refusals that carry nothing but their code. */
export type UserErrorCode = Exclude<UserError['code'], 'throttled' | 'weak_password'>;

export const fail = (code: UserErrorCode) => err<UserError>({ code });
export const throttled = (retryAfterSeconds: number) =>
  err<UserError>({ code: 'throttled', retryAfterSeconds });
/** The refusal of a password too weak for this address, or undefined when it will do. */
export const weakPassword = (password: string, email: string, field: PasswordField = 'password') => {
  const problem = passwordProblem(password, email);
  return problem === undefined ? undefined : err<UserError>({ code: 'weak_password', problem, field });
};

const issue = (path: string, code: IssueCode, message: string) =>
  ApiError.validation([{ path, in: 'body', code, message }], `${path}: ${message}`);

/** Each domain failure of the account endpoints, as the envelope the client switches on. */
export const USER_ERRORS: ErrorTable<UserError> = {
  invalid_credentials: () => new ApiError('unauthorized', 'The e-mail address or the password is incorrect.'),
  inactive: () => new ApiError('unauthorized', 'Sign in to continue.'),
  throttled: () => new ApiError('too_many_requests', 'Too many failed attempts; wait and try again.'),
  token_invalid: () => issue('token', 'invalid_value', 'the link is invalid, expired or already used'),
  token_used: () => issue('token', 'invalid_value', 'the link is invalid, expired or already used'),
  weak_password: ({ problem, field }) => issue(field, passwordIssueCode(problem), problem),
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

export function toUserApiError(error: UserError): ApiError {
  return toApiError(USER_ERRORS, error);
}

function passwordIssueCode(problem: string | undefined): IssueCode {
  if (problem?.includes(`at least ${PASSWORD_RULES.minLength}`)) return 'too_short';
  if (problem?.includes(`at most ${PASSWORD_RULES.maxLength}`)) return 'too_long';
  return 'invalid_value';
}
