import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import type { FilePurpose } from '../../db/schema.js';
import { holdsCardNumber, refuseCardNumbers } from '../../http/card-data.js';
import { ApiError, toApiError, type ValidationIssue } from '../../http/errors.js';
import { refuseForbiddenText } from '../../http/input.js';
import { readAtMost } from './bytes.js';
import { FILE_ERRORS } from './errors.js';
import { FILE_PURPOSES, MAX_FILE_BYTES } from './types.js';

/** The form of `POST /v1/files` once read: what the handler hands to the upload. */
export interface UploadForm {
  purpose: FilePurpose;
  filename: string | null;
  bytes: Uint8Array;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `readUploadForm` on `POST /v1/files`. */
    fileUpload: UploadForm | null;
  }
}

/**
 * What busboy may take of one form: one file (cut off one byte past the limit, which `readAtMost` then
 * refuses), and a few short fields; anything beyond is refused, never buffered.
 */
const LIMITS = {
  fileSize: MAX_FILE_BYTES + 1,
  files: 1,
  fields: 4,
  parts: 5,
  fieldSize: 1024,
  fieldNameSize: 100,
  headerPairs: 20,
};

const malformed = (message: string) =>
  ApiError.validation([{ path: '', in: 'body', code: 'invalid_format', message }], message);

/** A part's name as an issue's path: echoed only when it is a plain name with no card number in it. */
const pathOf = (name: string) =>
  /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(name) && !holdsCardNumber(name) ? name : '<name>';

interface ReadParts {
  file?: { bytes: Uint8Array; filename: string };
  purposes: string[];
  issues: ValidationIssue[];
}

/** Reads the parts, the file up to the limit; `too_large` as soon as it passes it. */
async function readParts(parts: AsyncIterable<Multipart>): Promise<ReadParts | 'too_large'> {
  const read: ReadParts = { purposes: [], issues: [] };
  for await (const part of parts) {
    if (part.type === 'file') {
      const bytes = await readAtMost(part.file, MAX_FILE_BYTES);
      if (bytes === 'too_large') return 'too_large';
      if (part.fieldname === 'file') read.file = { bytes, filename: part.filename };
      else read.issues.push(unknownPart(part.fieldname));
    } else if (part.fieldname === 'purpose') {
      read.purposes.push(part.valueTruncated ? '' : String(part.value));
    } else if (part.fieldname === 'file') {
      read.issues.push({
        path: 'file',
        in: 'body',
        code: 'invalid_type',
        message: 'must be a file part (with a filename in its Content-Disposition)',
      });
    } else {
      read.issues.push(unknownPart(part.fieldname));
    }
  }
  return read;
}

function unknownPart(name: string): ValidationIssue {
  return { path: pathOf(name), in: 'body', code: 'unknown_field', message: 'is not a part of this form' };
}

function formIssues(read: ReadParts): ValidationIssue[] {
  const issues = [...read.issues];
  if (read.file === undefined && !issues.some((issue) => issue.path === 'file'))
    issues.push({ path: 'file', in: 'body', code: 'required', message: 'a file part is required' });
  const [purpose, ...more] = read.purposes;
  if (purpose === undefined)
    issues.push({ path: 'purpose', in: 'body', code: 'required', message: 'is required' });
  else if (more.length > 0)
    issues.push({ path: 'purpose', in: 'body', code: 'invalid_value', message: 'must be sent once' });
  else if (!(FILE_PURPOSES as readonly string[]).includes(purpose))
    issues.push({ path: 'purpose', in: 'body', code: 'invalid_value', message: 'must be dispute_evidence' });
  return issues;
}

/** The parser's own refusals: a limit of the form passed (400), or a body that is not multipart. */
function partsError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (['FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'].includes(code))
    return malformed('The form takes one file part (`file`) and one field (`purpose`).');
  return malformed('The body is not valid multipart/form-data.');
}

/**
 * preValidation of `POST /v1/files`, ahead of the idempotency claim: reads the multipart form (the file
 * streamed and cut off past `MAX_FILE_BYTES`, the connection then closed so that the rest is never
 * read), checks its parts, runs the API's text and card-number guards on its fields, and leaves as the
 * body what the claim fingerprints: the purpose, the name and the bytes' SHA-256 and size.
 */
export async function readUploadForm(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  request.fileUpload = null;
  if (!request.isMultipart()) {
    throw new ApiError('unsupported_media_type', 'Files are uploaded as multipart/form-data.');
  }
  let read: ReadParts | 'too_large';
  try {
    read = await readParts(request.parts({ limits: LIMITS }));
  } catch (error) {
    throw partsError(error);
  }
  if (read === 'too_large') {
    reply.header('connection', 'close');
    throw toApiError(FILE_ERRORS, { code: 'file_too_large' });
  }
  const issues = formIssues(read);
  if (issues.length > 0 || read.file === undefined) throw ApiError.validation(issues);
  const { bytes, filename } = read.file;
  const purpose = read.purposes[0] as FilePurpose;
  request.body = { purpose, filename };
  await refuseForbiddenText(request);
  await refuseCardNumbers(request);
  request.body = {
    purpose,
    filename,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
  request.fileUpload = { purpose, filename, bytes };
}
