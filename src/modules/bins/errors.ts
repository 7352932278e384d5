import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';
import { BIN_CSV_MAX_BYTES } from './csv.js';

/** What the BIN table's use cases refuse (docs/decisions/0020-domain-errors.md). */
export type BinError =
  | { code: 'bin_not_found' }
  /** A BIN file with problems: the first ones, each naming its line and column, and how many in all. */
  | { code: 'invalid_csv'; issues: ValidationIssue[]; problems: number }
  | { code: 'csv_too_large' }
  | CursorError;

export const BIN_ERRORS: ErrorTable<BinError> = {
  bin_not_found: () => new ApiError('not_found', 'No row of the BIN table has this prefix.'),
  invalid_csv: ({ issues, problems }) =>
    ApiError.validation(
      issues,
      `The BIN file was not loaded: ${problems === 1 ? '1 problem' : `${problems} problems`}` +
        `${problems > issues.length ? ` (the first ${issues.length} listed)` : ''}; nothing was changed.`,
    ),
  csv_too_large: () =>
    new ApiError(
      'payload_too_large',
      `A BIN file is at most ${BIN_CSV_MAX_BYTES} bytes; load a bigger one in parts.`,
    ),
  ...INVALID_CURSOR,
};
