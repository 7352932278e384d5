import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable } from '../../http/errors.js';
import { notFound } from '../payouts/errors.js';
import type { SettlementCommandError } from './batch-types.js';

/** The operator's settlement commands' refusals as the operator API answers them (ADR 0020). */
export const SETTLEMENT_ERRORS: ErrorTable<SettlementCommandError | CursorError> = {
  not_a_business_day: (error) =>
    new ApiError('invalid_state_transition', `${error.businessDate} is not a business day (${error.why}).`, {
      reason: 'not_a_business_day',
      businessDate: error.businessDate,
      why: error.why,
    }),
  not_due: (error) =>
    new ApiError(
      'invalid_state_transition',
      `The batch of ${error.businessDate} is not due before its cutoff ${error.cutoff}.`,
      { reason: 'not_due', businessDate: error.businessDate, cutoff: error.cutoff },
    ),
  invalid_date: (error) =>
    ApiError.validation([
      { path: 'businessDate', in: 'body', code: 'invalid_format', message: error.message },
    ]),
  closure_not_found: notFound('No closure on that date.'),
  organization_not_found: notFound('No such organization.'),
  closure_exists: () =>
    new ApiError('invalid_state_transition', 'That date is closed already.', { reason: 'closure_exists' }),
  reason_required: () =>
    ApiError.validation([
      { path: 'reason', in: 'body', code: 'required', message: 'a reason of 1 to 500 characters' },
    ]),
  ...INVALID_CURSOR,
};
