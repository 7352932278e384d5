import { fileTypeFromBuffer } from 'file-type';
import type { FileType } from '../../db/schema.js';
import { hasForbiddenCharacters } from '../../http/input.js';
import type { ValidationIssue } from '../../http/errors.js';
import { err, ok, type Result } from '../../shared/result.js';
import { FILE_TYPES, MAX_FILENAME_LENGTH } from './types.js';

/**
 * The bytes of a stream, read chunk by chunk up to `max`; `too_large` as soon as one byte more arrives,
 * leaving the rest unread (the stream is ended early, so a huge upload is never held whole).
 */
export async function readAtMost(
  stream: AsyncIterable<Uint8Array>,
  max: number,
): Promise<Uint8Array | 'too_large'> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > max) return 'too_large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The type the bytes prove by their signature (file-type), when it is one a file may have. */
export async function provenTypeOf(bytes: Uint8Array): Promise<FileType | undefined> {
  const found = await fileTypeFromBuffer(bytes);
  return FILE_TYPES.find((type) => type === found?.mime);
}

// eslint-disable-next-line no-control-regex -- control characters are what a name must not hold
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The name a file is kept under: the last path segment of what the client sent, trimmed (none: null).
 * One longer than 255 characters, or with control characters, is refused at `path`.
 */
export function keptFilename(
  raw: string | null | undefined,
  path = 'file',
): Result<string | null, { code: 'invalid_input'; issues: ValidationIssue[] }> {
  const name = (raw ?? '').split(/[/\\]/).pop()?.trim() ?? '';
  if (name === '') return ok(null);
  const refuse = (code: ValidationIssue['code'], message: string) =>
    err({ code: 'invalid_input' as const, issues: [{ path, in: 'body' as const, code, message }] });
  if (CONTROL.test(name) || hasForbiddenCharacters(name))
    return refuse('invalid_value', 'the file name must not contain control characters');
  if ([...name].length > MAX_FILENAME_LENGTH)
    return refuse('too_long', `the file name must be at most ${MAX_FILENAME_LENGTH} characters`);
  return ok(name);
}
