import { toPage, type CreatedWindow, type Cursor } from '../../shared/pagination.js';
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
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
): Promise<PayoutView[]> {
  return (await payouts.pageCreatedIn(deps.readDb ?? deps.db, owner, window, after, limit)).map(payoutView);
}

export async function list(
  deps: PayoutServiceDeps,
  owner: Owner,
  query: PayoutListQuery,
): Promise<Result<{ data: PayoutView[]; nextCursor: string | null }, PayoutError>> {
  const filter = { status: query.status, createdFrom: query.createdFrom, createdTo: query.createdTo };
  const pages = deps.cursors.for({
    list: 'payouts',
    organizationId: owner.organizationId,
    environment: owner.environment,
    filter: JSON.stringify(filter),
  });
  const after = query.cursor === undefined ? undefined : pages.decode(query.cursor);
  if (after && !after.ok) return after;
  const rows = await payouts.listVisible(
    deps.readDb ?? deps.db,
    owner,
    {
      status: query.status,
      createdFrom: query.createdFrom === undefined ? undefined : new Date(query.createdFrom),
      createdTo: query.createdTo === undefined ? undefined : new Date(query.createdTo),
    },
    after?.value,
    query.limit + 1,
  );
  const page = toPage(rows, query.limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: page.data.map(payoutView), nextCursor: page.nextCursor });
}

export async function transactions(
  deps: PayoutServiceDeps,
  owner: Owner,
  id: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<Result<PayoutTransactionList, PayoutError>> {
  const row = await payouts.findVisible(deps.db, owner, id);
  if (!row) return err({ code: 'not_found' });
  const pages = deps.cursors.for({
    list: 'payout_transactions',
    organizationId: owner.organizationId,
    environment: owner.environment,
    filter: id,
  });
  const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
  if (after && !after.ok) return after;
  const items = await deps.contents.list(id, {
    limit: page.limit + 1,
    ...(after ? { after: after.value.id } : {}),
  });
  const result = toPage(items, page.limit, (item) => pages.encode(new Date(item.availableAt), item.id));
  return ok(result);
}
