import type { Kdb, Trx } from '../../db/database.js';
import type { Environment, FilePurpose, FileType } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';

/** The largest file accepted, in bytes (5 MiB): an upload is cut off past it, never buffered whole. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** The most a dispute's evidence may carry in files, in bytes (20 MiB): the disputes module checks it. */
export const MAX_DISPUTE_FILES_BYTES = 20 * 1024 * 1024;
/** The longest file name kept, in characters. */
export const MAX_FILENAME_LENGTH = 255;

/** The types a file may have, as its bytes prove them. */
export const FILE_TYPES: readonly FileType[] = ['application/pdf', 'image/png', 'image/jpeg'];
export const FILE_PURPOSES: readonly FilePurpose[] = ['dispute_evidence'];

/** Where a file's bytes are: its owner and its id. */
export interface FileKey {
  organizationId: string;
  environment: Environment;
  fileId: string;
}

/**
 * Where the bytes of files are kept (docs/files.md). The default keeps them in the database
 * (`file_contents`), which every instance shares; an object store can take its place. `put` runs inside
 * the transaction that inserts the file's row, after the row: a database storage commits with it; an
 * object store writes the object then, and an object whose row rolled back is never named by any file.
 */
export interface FileStorage {
  put(trx: Trx, key: FileKey, bytes: Uint8Array): Promise<void>;
  /** The bytes, or undefined when the storage holds none for the key. */
  get(db: Kdb, key: FileKey): Promise<Uint8Array | undefined>;
  delete(db: Kdb, key: FileKey): Promise<void>;
}

/** What a file says of itself (the API's `file` object). */
export interface FileView {
  id: string;
  object: 'file';
  purpose: FilePurpose;
  type: FileType;
  size: number;
  filename: string | null;
  sha256: string;
  disputeId: string | null;
  livemode: boolean;
  createdAt: string;
}

/** A file's bytes as they are served: the type they proved and the name to save them under. */
export interface FileContents {
  file: FileView;
  bytes: Uint8Array;
}

/** An upload: the bytes whole (a caller that has them) or a stream, read up to `MAX_FILE_BYTES` + 1. */
export type UploadInput = {
  purpose: FilePurpose;
  /** As the client named it; only its last path segment is kept. */
  filename?: string | null | undefined;
} & ({ bytes: Uint8Array } | { stream: AsyncIterable<Uint8Array> });

export interface FileServiceDeps {
  db: Kdb;
  /** Stale-tolerant list reads (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  cursors: CursorCodec;
  storage: FileStorage;
}
