import type { Multipart } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { EVIDENCE_FILES_LIMIT } from '../disputes/schemas.js';
import { MAX_FILE_BYTES, type FileError } from '../files/index.js';
import type { SignedIn } from '../users/http.js';
import { audit } from './dispute-evidence.js';
import { answerable, disputeOf, disputePage, problemOf, refusedPage } from './dispute-page.js';
import type { DisputeProblem } from './disputes-i18n.js';
import { disputePath, type DisputePagesOptions } from './disputes-kit.js';
import { IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';

/** The form is multipart: read by `readForm`, not by a body schema (the route documents none). */
export const UploadRoute = pageSchema({ params: IdParamsSchema });

/** What the form may carry: one file (cut off one byte past the limit) and its CSRF token. */
const LIMITS = {
  fileSize: MAX_FILE_BYTES + 1,
  files: 1,
  fields: 2,
  parts: 3,
  fieldSize: 200,
  headerPairs: 20,
};

interface UploadForm {
  csrf: string;
  file?: { filename: string; bytes: Uint8Array; truncated: boolean };
}

async function readForm(parts: AsyncIterable<Multipart>): Promise<UploadForm> {
  const form: UploadForm = { csrf: '' };
  for await (const part of parts) {
    if (part.type === 'file') {
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      // A file input left empty posts a part with no name and no bytes.
      if (part.fieldname === 'file' && !(part.filename === '' && bytes.length === 0))
        form.file = { filename: part.filename, bytes, truncated: part.file.truncated };
    } else if (part.fieldname === '_csrf') {
      form.csrf = String(part.value);
    }
  }
  return form;
}

const fileProblem = (error: FileError): { key: DisputeProblem; values?: Record<string, string> } => {
  const max = { max: String(MAX_FILE_BYTES / 1024 / 1024) };
  switch (error.code) {
    case 'file_empty':
      return { key: 'file_empty' };
    case 'file_too_large':
      return { key: 'file_too_large', values: max };
    case 'file_type_not_allowed':
      return { key: 'file_type_not_allowed' };
    default:
      return { key: 'file_name' };
  }
};

/**
 * The evidence file form of the dispute page: the signed-in user (the login page otherwise), the form
 * read (its file up to the size limit), its CSRF token checked, the flag and the role, then the file
 * uploaded through the files service as `POST /v1/files` would (its type proven by its bytes) and added
 * to the dispute's staged `files`. A refused file is the dispute page with the reason, nothing staged.
 */
export async function uploadEvidenceFile(
  options: DisputePagesOptions,
  request: PageRequest<typeof UploadRoute>,
  reply: FastifyReply,
) {
  const { kit } = options;
  const { id } = request.params;
  const current = await kit.signedIn(request, reply);
  if (!current) return reply;
  if (!request.isMultipart())
    throw ApiError.validation([{ path: '', in: 'body', code: 'invalid_format', message: 'not multipart' }]);
  let form: UploadForm;
  try {
    form = await readForm(request.parts({ limits: LIMITS }));
  } catch {
    throw ApiError.validation([
      { path: '', in: 'body', code: 'invalid_format', message: 'a malformed form' },
    ]);
  }
  (request as FastifyRequest).body = { _csrf: form.csrf };
  kit.sessions.assertCsrf(request, current.session);
  if (!kit.hasFeature(current, 'disputes')) throw new ApiError('not_found', 'No such page.');
  if (!kit.may(current, 'refundCharges')) return refusedPage(options, request, reply, current, id);
  return stageUpload(options, request, reply, current, id, form);
}

async function stageUpload(
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
  form: UploadForm,
) {
  const problem = (status: number, found: { key: DisputeProblem; values?: Record<string, string> }) =>
    disputePage(options, request, reply, current, id, status, { problem: found });
  const dispute = await disputeOf(options, current, id);
  // Checked before the upload, so that a refused answer leaves no file behind.
  if (!answerable(dispute, options.clock.now()))
    return problem(
      409,
      problemOf({ code: dispute.evidenceSubmittedAt ? 'evidence_already_submitted' : 'not_answerable' }),
    );
  const staged = dispute.evidence.files ?? [];
  if (staged.length >= EVIDENCE_FILES_LIMIT)
    return problem(400, { key: 'too_many_files', values: { max: String(EVIDENCE_FILES_LIMIT) } });
  if (form.file === undefined) return problem(400, { key: 'file_missing' });
  if (form.file.truncated) return problem(400, fileProblem({ code: 'file_too_large' }));
  const owner = ownerOf(current);
  const uploaded = await options.files.upload(owner, {
    purpose: 'dispute_evidence',
    filename: form.file.filename,
    bytes: form.file.bytes,
  });
  if (!uploaded.ok) return problem(400, fileProblem(uploaded.error));
  const file = uploaded.value;
  const saved = await options.disputes.evidence(owner, id, { files: [...staged, file.id] });
  if (!saved.ok) {
    const found = problemOf(saved.error);
    return problem(found.key === 'file_rejected' ? 400 : 409, found);
  }
  await audit(options, request, current, id, 'dispute.evidence_file_added', { fileId: file.id });
  return options.kit.redirect(request, reply, disputePath(id), { notice: 'uploaded' });
}
