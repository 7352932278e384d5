import type { Insertable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import type { FileRow, FilesTable } from '../../db/schema.js';
import { filteredBy, ownedBy, type OwnerKey } from '../../db/scopes.js';

export type { FileRow };

export async function insertFile(trx: Trx, values: Insertable<FilesTable>): Promise<FileRow> {
  return trx.insertInto('files').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The owner's file, or undefined (another owner's is not found). */
export async function findFile(db: Kdb, owner: OwnerKey, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().$call(ownedBy(owner)).where('id', '=', id).executeTakeFirst();
}

/** The owner's files of these ids, in no particular order (an id the owner has no file of is left out). */
export async function findFiles(db: Kdb, owner: OwnerKey, ids: readonly string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('files').selectAll().$call(ownedBy(owner)).where('id', 'in', ids).execute();
}

/** Newest first, optionally those of one dispute. */
export async function listFiles(
  db: Kdb,
  owner: OwnerKey,
  filter: { dispute_id?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .$call(ownedBy(owner))
    .$call(filteredBy(filter))
    .$call(keysetPage(after, limit))
    .execute();
}

/** The owner's files of these ids, locked until the end of the transaction, in id order. */
export async function lockFiles(trx: Trx, owner: OwnerKey, ids: readonly string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return trx
    .selectFrom('files')
    .selectAll()
    .$call(ownedBy(owner))
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Names `disputeId` on the owner's files of `ids`. */
export async function nameDispute(
  trx: Trx,
  owner: OwnerKey,
  ids: readonly string[],
  disputeId: string,
): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('files')
    .set({ dispute_id: disputeId })
    .$call(ownedBy(owner))
    .where('id', 'in', ids)
    .execute();
}
