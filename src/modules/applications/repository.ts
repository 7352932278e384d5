import { sql, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { ApplicationRow, ApplicationsTable, NewApplicationRow } from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { rowTransition, type RowTransition } from '../../shared/row-transition.js';
import { TRANSITIONS, type ApplicationStatus } from './model.js';

/** Any fixed number: the first half of the advisory lock key of "applications from one address". */
const APPLICATION_LIMIT_LOCK = 7_343_112_011;

export async function insertApplication(db: Kdb, row: NewApplicationRow): Promise<ApplicationRow> {
  return db.insertInto('applications').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findApplication(db: Kdb, id: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Serialises submissions from one address until the transaction ends, so that concurrent ones
 * (from any listener or process) cannot all pass the count before any of them is inserted.
 */
export async function lockSubmitterAddress(trx: Trx, ip: string | null): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${APPLICATION_LIMIT_LOCK % 2_147_483_647}::int4, hashtext(${ip ?? ''}))`.execute(
    trx,
  );
}

/** The accepted applications from `ip` created after `since`: their count and the oldest one's time. */
export async function applicationsFromAddress(
  db: Kdb,
  ip: string | null,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('applications')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where((eb) =>
      ip === null ? eb('submitted_ip', 'is', null) : eb('submitted_ip', '=', sql<string>`${ip}::inet`),
    )
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest === null ? null : new Date(row.oldest as Date) };
}

/**
 * Moves an application's `status` from one of `from` to `to` with `patch` (the review decision), in the
 * caller's transaction with its audit entry; undefined when it was in none of `from`.
 */
export const transition: RowTransition<
  Trx,
  ApplicationStatus,
  Omit<Updateable<ApplicationsTable>, 'id' | 'status'>,
  ApplicationRow
> = rowTransition('applications', 'status', TRANSITIONS, (id) => `application ${id}`);

/** One page of applications, newest first (`limit + 1` rows, so the caller knows whether more follow). */
export async function pageOfApplications(
  db: Kdb,
  filter: { status?: ApplicationStatus | undefined; after?: Cursor | undefined; limit: number },
): Promise<ApplicationRow[]> {
  let query = db.selectFrom('applications').selectAll();
  if (filter.status) query = query.where('status', '=', filter.status);
  return query.$call(keysetPage(filter.after, filter.limit + 1)).execute();
}

/** The application under its row lock, in the caller's transaction. */
export async function lockApplication(trx: Trx, id: string): Promise<ApplicationRow | undefined> {
  return trx.selectFrom('applications').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Deletes an application that is still `NEW` (a demo application whose approval failed). */
export async function deleteNewApplication(db: Kdb, id: string): Promise<void> {
  await db.deleteFrom('applications').where('id', '=', id).where('status', '=', 'NEW').execute();
}
