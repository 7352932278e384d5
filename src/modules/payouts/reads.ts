import { cursorPage, cursorPageBy, type CreatedPage } from '../../shared/cursor-page.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutError } from './errors.js';
import * as payouts from './repository.js';
import { payoutView, type PayoutListQuery, type PayoutTransactionList, type PayoutView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

/** The merchant API's reads of its payouts: one, a page of the list, an export's page, what one carries. */

export async function retrieve(
  deps: PayoutServiceDeps,
  owner: Owner,
  id: string,
): Promise<Result<PayoutView, PayoutError>> {
  const row = await payouts.findVisible(deps.db, owner, id);
  return row ? ok(payoutView(row)) : err({ code: 'not_found' });
}

/**
 * One page of an export: the payouts made in `window`, oldest first, after the (createdAt, id) of the
 * previous page's last one; at most `limit`. Read from `readDb` (stale-tolerant).
 */
export async function pageCreatedIn(
  deps: PayoutServiceDeps,
  owner: Owner,
  ...page: CreatedPage
): Promise<PayoutView[]> {
  return (await payouts.pageCreatedIn(deps.readDb ?? deps.db, owner, ...page)).map(payoutView);
}

export async function list(
  deps: PayoutServiceDeps,
  owner: Owner,
  query: PayoutListQuery,
): Promise<Result<{ data: PayoutView[]; nextCursor: string | null }, PayoutError>> {
  const filter = { status: query.status, createdFrom: query.createdFrom, createdTo: query.createdTo };
  const dates = {
    status: query.status,
    createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
    createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
  };
  return cursorPage(deps.cursors, {
    list: 'payouts',
    owner,
    filter: JSON.stringify(filter),
    query,
    rows: (after) => payouts.listVisible(deps.readDb ?? deps.db, owner, dates, after, query.limit + 1),
    view: (rows) => rows.map(payoutView),
  });
}

export async function transactions(
  deps: PayoutServiceDeps,
  owner: Owner,
  id: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Result<PayoutTransactionList, PayoutError>> {
  const row = await payouts.findVisible(deps.db, owner, id);
  if (!row) return err({ code: 'not_found' });
  return cursorPageBy(
    deps.cursors,
    {
      list: 'payout_transactions',
      owner,
      filter: id,
      query: page,
      rows: (after) =>
        deps.contents.list(id, { limit: page.limit + 1, ...(after ? { after: after.id } : {}) }),
      view: (items) => items,
    },
    (item) => [new Date(item.availableAt), item.id],
  );
}
