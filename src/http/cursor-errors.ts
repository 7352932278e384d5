import type { CursorError } from '../shared/pagination.js';
import { ApiError, type ErrorTable } from './errors.js';

export type { CursorError };

/** A refused list cursor at the edge; spread into the error table of every module whose lists page. */
export const INVALID_CURSOR: ErrorTable<CursorError> = {
  invalid_cursor: () =>
    ApiError.validation([
      {
        path: 'cursor',
        in: 'query',
        code: 'invalid_value',
        message: 'is not a cursor this API issued for this list',
      },
    ]),
};

/** For the callers that are themselves the edge (operator routes): the cursor, or the 400. */
export function cursorOrThrow<T>(decoded: { ok: true; value: T } | { ok: false; error: CursorError }): T {
  if (!decoded.ok) throw INVALID_CURSOR.invalid_cursor(decoded.error);
  return decoded.value;
}
