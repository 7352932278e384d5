import type { Insertable, Selectable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type {
  Environment,
  ReconciliationDifferencesTable,
  ReconciliationRunsTable,
} from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { findAll } from '../../db/rows.js';

/** The only reader and writer of `reconciliation_runs` and `reconciliation_differences` (append-only). */

export type RunRow = Selectable<ReconciliationRunsTable>;
export type DifferenceRow = Selectable<ReconciliationDifferencesTable>;

export interface RunFilter {
  environment?: Environment | undefined;
  reportDate?: string | undefined;
  origin?: 'schedule' | 'operator' | undefined;
}

/** A run and its differences, in the caller's transaction. */
export async function insertRun(
  trx: Trx,
  run: Insertable<ReconciliationRunsTable>,
  differences: Array<Insertable<ReconciliationDifferencesTable>>,
): Promise<RunRow> {
  const row = await trx
    .insertInto('reconciliation_runs')
    .values(run)
    .returningAll()
    .executeTakeFirstOrThrow();
  // Bounded statements: a day with many differences is written in chunks.
  for (let start = 0; start < differences.length; start += 500) {
    await trx
      .insertInto('reconciliation_differences')
      .values(differences.slice(start, start + 500))
      .execute();
  }
  return row;
}

/** Runs, newest first, after the cursor. */
export async function listRuns(db: Kdb, filter: RunFilter, after: Cursor | undefined, limit: number) {
  let query = db.selectFrom('reconciliation_runs').selectAll();
  if (filter.environment) query = query.where('environment', '=', filter.environment);
  if (filter.reportDate) query = query.where('report_date', '=', filter.reportDate);
  if (filter.origin) query = query.where('origin', '=', filter.origin);
  return query.$call(keysetPage(after, limit)).execute();
}

export async function findRun(db: Kdb, id: string): Promise<RunRow | undefined> {
  return db.selectFrom('reconciliation_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function differencesOf(db: Kdb, runId: string): Promise<DifferenceRow[]> {
  return findAll(db, 'reconciliation_differences', { run_id: runId }, ['position']);
}
