import type { Kdb, Trx } from '../../db/database.js';
import type { Page } from '../../shared/cursor-page.js';
import type { Owner } from '../../shared/owner.js';
import type { Result } from '../../shared/result.js';
import { attachToDispute } from './attach.js';
import type { FileAttachError, FileError } from './errors.js';
import { describeFiles, fileContents, getFile, listOwnFiles } from './read.js';
import type { FileListQuery } from './schemas.js';
import type { FileContents, FileServiceDeps, FileView, UploadInput } from './types.js';
import { uploadFile } from './upload.js';

/** Uploaded files (docs/files.md): what the API, the disputes module and the dashboard call. */
export interface FileService {
  /** Checks and stores an upload: its row and its bytes in one transaction. */
  upload(owner: Owner, input: UploadInput): Promise<Result<FileView, FileError>>;
  get(owner: Owner, id: string): Promise<Result<FileView, FileError>>;
  /** The file with its bytes, for its owner only. */
  contents(owner: Owner, id: string): Promise<Result<FileContents, FileError>>;
  list(owner: Owner, query: FileListQuery): Promise<Result<Page<FileView>, FileError>>;
  /**
   * The owner's files of `ids` (in that order; unknown ids left out), read on `db` or in the caller's
   * transaction: what a dispute's evidence checks (type, size against `MAX_DISPUTE_FILES_BYTES`, dispute).
   */
  describe(db: Kdb | Trx, owner: Owner, ids: readonly string[]): Promise<FileView[]>;
  /** Names the dispute on the owner's files, in the caller's transaction (see attach.ts). */
  attachToDispute(
    trx: Trx,
    owner: Owner,
    ids: readonly string[],
    disputeId: string,
  ): Promise<Result<{ attached: string[] }, FileAttachError>>;
}

export function createFileService(deps: FileServiceDeps): FileService {
  return {
    upload: (owner, input) => uploadFile(deps, owner, input),
    get: (owner, id) => getFile(deps, owner, id),
    contents: (owner, id) => fileContents(deps, owner, id),
    list: (owner, query) => listOwnFiles(deps, owner, query),
    describe: (db, owner, ids) => describeFiles(db, owner, ids),
    attachToDispute,
  };
}
