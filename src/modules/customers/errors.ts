import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';

/** What the customer use cases refuse (docs/decisions/0020-domain-errors.md). */
export type CustomerError =
  { code: 'customer_not_found' } | { code: 'invalid_input'; issues: ValidationIssue[] } | CursorError;

export const CUSTOMER_ERRORS: ErrorTable<CustomerError> = {
  customer_not_found: () => new ApiError('not_found', 'No such customer.'),
  invalid_input: (error) => ApiError.validation(error.issues),
  ...INVALID_CURSOR,
};
