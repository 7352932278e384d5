import type { Kdb } from '../../db/database.js';
import type { ApplicationRow, NewApplicationRow } from '../../db/schema.js';

export async function insertApplication(db: Kdb, row: NewApplicationRow): Promise<ApplicationRow> {
  return db.insertInto('applications').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findApplication(db: Kdb, id: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
}
