import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { CustomersTable } from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { ownedBy } from '../../db/scopes.js';
import type { Owner } from '../../shared/owner.js';

export type CustomerRow = Selectable<CustomersTable>;

export async function insert(db: Kdb, values: Insertable<CustomersTable>): Promise<CustomerRow> {
  return db.insertInto('customers').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The owner's customers, unless deleted. */
function visibleCustomers(db: Kdb, owner: Owner) {
  return db.selectFrom('customers').selectAll().$call(ownedBy(owner)).where('deleted_at', 'is', null);
}

/** The owner's customer, unless deleted. */
export async function findVisible(db: Kdb, owner: Owner, id: string): Promise<CustomerRow | undefined> {
  return visibleCustomers(db, owner).where('id', '=', id).executeTakeFirst();
}

/** Updates the owner's customer unless deleted; undefined when there is none. */
export async function updateVisible(
  db: Kdb,
  owner: Owner,
  id: string,
  values: Updateable<CustomersTable>,
): Promise<CustomerRow | undefined> {
  return db
    .updateTable('customers')
    .set(values)
    .where('id', '=', id)
    .$call(ownedBy(owner))
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Newest first, optionally one e-mail address (case-insensitive). */
export async function listVisible(
  db: Kdb,
  owner: Owner,
  filter: { email?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<CustomerRow[]> {
  let query = visibleCustomers(db, owner);
  if (filter.email !== undefined) {
    query = query
      .where('email', 'is not', null)
      .where(sql<string>`lower(email)`, '=', filter.email.toLowerCase());
  }
  return query.$call(keysetPage(after, limit)).execute();
}

/** Deletes the owner's customer: erases what identifies the person, keeps the row; undefined when none. */
export async function erase(db: Kdb, owner: Owner, id: string, now: Date): Promise<CustomerRow | undefined> {
  return updateVisible(db, owner, id, {
    name: null,
    email: null,
    phone: null,
    reference: null,
    id_number_enc: null,
    metadata: '{}',
    updated_at: now,
    deleted_at: now,
  });
}
