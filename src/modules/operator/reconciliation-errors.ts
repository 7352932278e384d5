import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, toApiError, type ErrorTable } from '../../http/errors.js';
import type { Result } from '../../shared/result.js';
import type { ReconciliationError } from '../reconciliation/types.js';

/** The reconciliation's refusals as the operator API answers them. */
export const RECONCILIATION_ERRORS: ErrorTable<ReconciliationError | CursorError> = {
  invalid_date: (error) =>
    ApiError.validation([{ path: 'reportDate', in: 'body', code: 'invalid_format', message: error.message }]),
  not_over: (error) =>
    new ApiError(
      'invalid_state_transition',
      `${error.reportDate} is not over yet (UTC): its settlement report is not final.`,
      { reason: 'not_over', reportDate: error.reportDate },
    ),
  acquirer_not_configured: (error) =>
    new ApiError('invalid_state_transition', `No acquirer is configured for ${error.environment}.`, {
      reason: 'acquirer_not_configured',
    }),
  acquirer_unavailable: () =>
    new ApiError(
      'provider_unavailable',
      'The acquirer’s settlement report could not be read; try again later.',
    ),
  ...INVALID_CURSOR,
};

export function reconciliationValue<T>(result: Result<T, ReconciliationError | CursorError>): T {
  if (result.ok) return result.value;
  throw toApiError(RECONCILIATION_ERRORS, result.error);
}
