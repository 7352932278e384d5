import type { Kdb } from '../../db/database.js';
import { cursorPage, type Page } from '../../shared/cursor-page.js';
import type { Owner } from '../../shared/owner.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { FileError } from './errors.js';
import { findFile, findFiles, listFiles } from './repository.js';
import type { FileListQuery } from './schemas.js';
import type { FileContents, FileServiceDeps, FileView } from './types.js';
import { fileView } from './view.js';

const keyOf = (owner: Owner, fileId: string) => ({
  organizationId: owner.organizationId,
  environment: owner.environment,
  fileId,
});

export async function getFile(
  deps: FileServiceDeps,
  owner: Owner,
  id: string,
): Promise<Result<FileView, FileError>> {
  const row = await findFile(deps.db, owner, id);
  return row ? ok(fileView(row)) : err({ code: 'file_not_found' });
}

/** The owner's file with its bytes; a file whose storage holds no bytes is not found either. */
export async function fileContents(
  deps: FileServiceDeps,
  owner: Owner,
  id: string,
): Promise<Result<FileContents, FileError>> {
  const row = await findFile(deps.db, owner, id);
  if (!row) return err({ code: 'file_not_found' });
  const bytes = await deps.storage.get(deps.db, keyOf(owner, row.id));
  return bytes ? ok({ file: fileView(row), bytes }) : err({ code: 'file_not_found' });
}

export async function listOwnFiles(
  deps: FileServiceDeps,
  owner: Owner,
  query: FileListQuery,
): Promise<Result<Page<FileView>, FileError>> {
  const filter = { dispute_id: query.disputeId };
  const db = deps.readDb ?? deps.db;
  return cursorPage(deps.cursors, {
    list: 'files',
    owner,
    filter: JSON.stringify(filter),
    query,
    rows: (after) => listFiles(db, owner, filter, after, query.limit + 1),
    view: (rows) => rows.map(fileView),
  });
}

/** The owner's files of `ids`, in the order of `ids` (an id it has no file of is left out). */
export async function describeFiles(db: Kdb, owner: Owner, ids: readonly string[]): Promise<FileView[]> {
  const rows = new Map((await findFiles(db, owner, [...new Set(ids)])).map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [fileView(row)] : [];
  });
}
