import { toPage, type CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import * as runs from './repository.js';
import type { ReconciliationDeps, RunDetail, RunView } from './types.js';
import { differenceView, runView } from './views.js';

/** The recorded runs, newest first, a page at a time. */
export async function listRuns(
  deps: ReconciliationDeps,
  filter: runs.RunFilter,
  page: { limit: number; cursor?: string | undefined },
): Promise<Result<{ data: RunView[]; nextCursor: string | null }, CursorError>> {
  const pages = deps.cursors.for({
    list: 'reconciliation_runs',
    filter: JSON.stringify([filter.environment, filter.reportDate]),
  });
  const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
  if (after && !after.ok) return err(after.error);
  const rows = await runs.listRuns(deps.db, filter, after?.value, page.limit + 1);
  const listed = toPage(rows, page.limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: listed.data.map(runView), nextCursor: listed.nextCursor });
}

/** One run with its differences. */
export async function retrieveRun(deps: ReconciliationDeps, id: string): Promise<RunDetail | undefined> {
  const row = await runs.findRun(deps.db, id);
  if (!row) return undefined;
  return { ...runView(row), differences: (await runs.differencesOf(deps.db, id)).map(differenceView) };
}
