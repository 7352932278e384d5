import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';
import { MAX_FILE_BYTES } from './types.js';

/** What the file use cases refuse (docs/decisions/0020-domain-errors.md, docs/files.md). */
export type FileError =
  | { code: 'file_not_found' }
  | { code: 'file_empty' }
  | { code: 'file_too_large' }
  | { code: 'file_type_not_allowed' }
  | { code: 'invalid_input'; issues: ValidationIssue[] }
  | CursorError;

/** What attaching files to a dispute refuses: ids the owner has no file of, files of another dispute. */
export type FileAttachError =
  { code: 'file_not_found'; ids: string[] } | { code: 'file_in_use'; ids: string[] };

export const FILE_ERRORS: ErrorTable<FileError> = {
  file_not_found: () => new ApiError('not_found', 'No such file.'),
  file_empty: () => new ApiError('file_empty', 'The file is empty.'),
  file_too_large: () =>
    new ApiError('file_too_large', `The file is larger than ${MAX_FILE_BYTES} bytes (5 MiB).`, {
      maxBytes: MAX_FILE_BYTES,
    }),
  file_type_not_allowed: () =>
    new ApiError(
      'file_type_not_allowed',
      'The file is not a PDF, PNG or JPEG: its type is read from its bytes, never from its name.',
      { allowed: ['application/pdf', 'image/png', 'image/jpeg'] },
    ),
  invalid_input: (error) => ApiError.validation(error.issues),
  ...INVALID_CURSOR,
};
