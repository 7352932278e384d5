import { ApiError, toApiError, type ErrorTable } from '../../http/errors.js';
import { LoginThrottledError } from '../../http/login-throttle.js';
import type { Result } from '../../shared/result.js';
import { ORGANIZATION_ERRORS, type OrganizationError } from '../organizations/errors.js';

/** What the staff accounts refuse. */
export type StaffError =
  | { code: 'weak_password'; problem: string }
  | { code: 'staff_email_taken' }
  | { code: 'invalid_credentials' }
  | { code: 'login_throttled'; retryAfterSeconds: number }
  | { code: 'staff_not_found'; email: string };

/** What the operator alerts refuse. */
export type AlertError = { code: 'alert_not_found'; id: string } | { code: 'invalid_alert_cursor' };

/** An operator command's input that its schema could not express (a reason of spaces, a range). */
export type CommandInputError = { code: 'invalid_input'; field: string; message: string };

/** Every refusal of an operator command. */
export type OperatorError = OrganizationError | StaffError | AlertError | CommandInputError;

/** Each refusal as the envelope of the operator API (the console shows its message on a page). */
export const OPERATOR_ERRORS: ErrorTable<OperatorError> = {
  ...ORGANIZATION_ERRORS,
  weak_password: ({ problem }) => ApiError.invalidBody('password', problem),
  staff_email_taken: () => ApiError.invalidBody('email', 'is already a staff account'),
  invalid_credentials: () => new ApiError('invalid_credentials', 'The e-mail address or password is wrong.'),
  login_throttled: ({ retryAfterSeconds }) => new LoginThrottledError(retryAfterSeconds),
  staff_not_found: ({ email }) => new ApiError('not_found', `No staff account ${email}.`),
  alert_not_found: ({ id }) => new ApiError('not_found', `No alert ${id}.`),
  invalid_alert_cursor: () =>
    ApiError.validation([
      { path: 'cursor', in: 'query', code: 'invalid_value', message: 'is not a cursor this API issued' },
    ]),
  invalid_input: ({ field, message }) => ApiError.invalidBody(field, message),
};

/** At the edge: the value, or the refusal thrown as its envelope for the error handler. */
export function valueOf<T>(result: Result<T, OperatorError>): T {
  if (!result.ok) throw toApiError(OPERATOR_ERRORS, result.error);
  return result.value;
}
