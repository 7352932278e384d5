import { createHash } from 'node:crypto';
import { ownerColumns } from '../../db/scopes.js';
import { newId } from '../../shared/ids.js';
import type { Owner } from '../../shared/owner.js';
import { err, ok, type Result } from '../../shared/result.js';
import { keptFilename, provenTypeOf, readAtMost } from './bytes.js';
import type { FileError } from './errors.js';
import { insertFile } from './repository.js';
import {
  FILE_PURPOSES,
  MAX_FILE_BYTES,
  type FileServiceDeps,
  type FileView,
  type UploadInput,
} from './types.js';
import { fileView } from './view.js';

/**
 * Stores an upload: at most `MAX_FILE_BYTES` (a stream is cut off past it), not empty, and a PDF, PNG or
 * JPEG by its bytes. The file's row and its bytes are written in one transaction.
 */
export async function uploadFile(
  deps: FileServiceDeps,
  owner: Owner,
  input: UploadInput,
): Promise<Result<FileView, FileError>> {
  const filename = keptFilename(input.filename);
  if (!filename.ok) return filename;
  if (!FILE_PURPOSES.includes(input.purpose)) {
    return err({
      code: 'invalid_input',
      issues: [{ path: 'purpose', in: 'body', code: 'invalid_value', message: 'must be dispute_evidence' }],
    });
  }
  const bytes = 'bytes' in input ? input.bytes : await readAtMost(input.stream, MAX_FILE_BYTES);
  if (bytes === 'too_large' || bytes.length > MAX_FILE_BYTES) return err({ code: 'file_too_large' });
  if (bytes.length === 0) return err({ code: 'file_empty' });
  const type = await provenTypeOf(bytes);
  if (type === undefined) return err({ code: 'file_type_not_allowed' });

  const now = deps.clock.now();
  const id = newId('file', now);
  const row = await deps.db.transaction().execute(async (trx) => {
    const inserted = await insertFile(trx, {
      id,
      ...ownerColumns(owner),
      purpose: input.purpose,
      type,
      size: bytes.length,
      filename: filename.value,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      dispute_id: null,
      created_by_key_id: owner.keyId ?? null,
      created_at: now,
    });
    await deps.storage.put(trx, { ...owner, fileId: id }, bytes);
    return inserted;
  });
  return ok(fileView(row));
}
