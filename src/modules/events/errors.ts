import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable } from '../../http/errors.js';

/** What reading the events feed refuses (docs/decisions/0020-domain-errors.md). */
export type EventError = { code: 'not_found' } | CursorError;

export const EVENT_ERRORS: ErrorTable<EventError> = {
  not_found: () => new ApiError('not_found', 'No such event.'),
  ...INVALID_CURSOR,
};
