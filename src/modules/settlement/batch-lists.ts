import type { CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { BatchDeps } from './batch-types.js';
import { parseBusinessDate, utcDateOf } from '../../shared/business-calendar.js';
import type { BatchRow } from './model.js';
import * as settlement from './repository.js';
import { batchView, type BatchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** The batches as lists and single reads: the owner's (the API, the dashboard) and every one (operators). */

type Page = { limit: number; cursor?: string | undefined };

/** The owner's batches, newest business date first; cursor paged (`GET /v1/settlements`). */
export async function listBatches(
  deps: BatchDeps,
  owner: Owner,
  page: Page,
): Promise<Result<{ data: BatchView[]; nextCursor: string | null }, CursorError>> {
  const pages = deps.cursors.for({
    list: 'settlement_batches',
    organizationId: owner.organizationId,
    environment: owner.environment,
  });
  const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
  if (after && !after.ok) return after;
  const position = after ? { businessDate: utcDateOf(after.value.createdAt), id: after.value.id } : undefined;
  const rows = await settlement.listBatches(
    deps.db,
    { organizationId: owner.organizationId, environment: owner.environment },
    position,
    page.limit + 1,
  );
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
  return ok({
    data: rows.slice(0, page.limit).map(batchView),
    nextCursor: last ? pages.encode(parseBusinessDate(last.business_date), last.id) : null,
  });
}

/** Every organization's batches, newest business date first, filtered; cursor paged. */
export async function operatorListBatches(
  deps: BatchDeps,
  filter: settlement.BatchFilter,
  page: Page,
): Promise<
  Result<
    { data: Array<BatchView & { organizationId: string }>; nextCursor: string | null },
    { code: 'invalid_cursor' }
  >
> {
  // The cursor's time is the business date's midnight (UTC): the list's order is business date, id.
  // The filter in a fixed member order: a cursor works whatever order the query string had.
  const scope = [filter.organizationId, filter.environment, filter.status, filter.businessDate];
  const pages = deps.cursors.for({ list: 'settlement_batches', filter: JSON.stringify(scope) });
  const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
  if (after && !after.ok) return err({ code: 'invalid_cursor' as const });
  const position = after ? { businessDate: utcDateOf(after.value.createdAt), id: after.value.id } : undefined;
  const rows = await settlement.listBatches(deps.db, filter, position, page.limit + 1);
  const data = rows
    .slice(0, page.limit)
    .map((row) => ({ ...batchView(row), organizationId: row.organization_id }));
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
  return ok({
    data,
    nextCursor: last ? pages.encode(parseBusinessDate(last.business_date), last.id) : null,
  });
}

/** The owner's batch `find` reads by `key` (its id, its payout's id), as the API shows it. */
async function ownBatchView(
  deps: BatchDeps,
  owner: Owner,
  key: string,
  find: (db: BatchDeps['db'], owner: Owner, key: string) => Promise<BatchRow | undefined>,
): Promise<BatchView | undefined> {
  const row = await find(deps.db, owner, key);
  return row && batchView(row);
}

export function retrieveBatch(deps: BatchDeps, owner: Owner, id: string): Promise<BatchView | undefined> {
  return ownBatchView(deps, owner, id, settlement.findOwnBatch);
}

/** The owner's batch whose automatic payout is `payoutId`; undefined for a manual payout. */
export function batchOfPayout(
  deps: BatchDeps,
  owner: Owner,
  payoutId: string,
): Promise<BatchView | undefined> {
  return ownBatchView(deps, owner, payoutId, settlement.findBatchOfPayout);
}
