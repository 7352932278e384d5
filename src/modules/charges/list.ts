import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { cursorPage, type CreatedPage, type Page } from '../../shared/cursor-page.js';
import type { Cursor } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import type { ChargeRow } from './model.js';
import * as lists from './repository/lists.js';
import type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository/lists.js';
import type { ChargeListQuery, ChargeView } from './schemas.js';
import { toView } from './views.js';
import type { Owner } from '../../shared/owner.js';

type ListDeps = Pick<ChargeServiceDeps, 'db' | 'readDb' | 'cursors' | 'urls'>;

/** A page of the owner's charges, newest first; its cursors are bound to `filter` (null: none). */
async function chargePage(
  deps: ListDeps,
  owner: Owner,
  query: { limit: number; cursor?: string | undefined },
  filter: string | null,
  rows: (readDb: Kdb, after: Cursor | undefined, limit: number) => Promise<ChargeRow[]>,
): Promise<Result<Page<ChargeView>, ChargeError>> {
  const readDb = deps.readDb ?? deps.db;
  return cursorPage(deps.cursors, {
    list: 'charges',
    owner,
    filter,
    query,
    rows: (after) => rows(readDb, after, query.limit + 1),
    view: (page) => page.map((row) => toView(deps, row)),
  });
}

/** One page of the owner's charges, newest first (of one customer with `customerId`). */
export async function listCharges(
  deps: ListDeps,
  owner: Owner,
  { limit, cursor, customerId }: ChargeListQuery,
): Promise<Result<Page<ChargeView>, ChargeError>> {
  // Unfiltered cursors stay as they were issued before the filter existed.
  const filter = customerId === undefined ? null : JSON.stringify({ customerId });
  return chargePage(deps, owner, { limit, cursor }, filter, (readDb, after, take) =>
    lists.listVisible(readDb, owner, { customerId }, after, take),
  );
}

/**
 * The dashboard's Payments list: the owner's charges matching the filters, in one of the sorts, cursor
 * paged. A cursor is bound to its filters and sort: another list's is refused.
 */
export async function searchCharges(
  deps: ListDeps,
  owner: Owner,
  { limit, cursor, filter, sort }: { limit: number; cursor?: string; filter: ChargeSearch; sort: ChargeSort },
): Promise<Result<Page<ChargeView>, ChargeError>> {
  const bound = JSON.stringify({ search: filter, sort });
  return chargePage(deps, owner, { limit, cursor }, bound, (readDb, after, take) =>
    lists.searchVisible(readDb, owner, filter, sort, after, take),
  );
}

/**
 * One page of an export: the created charges made in `window`, oldest first, after the (createdAt, id)
 * of the previous page's last one; at most `limit`.
 */
export async function pageChargesCreatedIn(
  deps: ListDeps,
  owner: Owner,
  ...page: CreatedPage
): Promise<ChargeView[]> {
  return (await lists.pageCreatedIn(deps.readDb ?? deps.db, owner, ...page)).map((row) => toView(deps, row));
}

/**
 * The operator console's payment search: created charges of every organization and environment matching
 * one exact key, newest first, at most `limit`, each with its owner.
 */
export async function searchChargesAcrossOrganizations(
  deps: Pick<ChargeServiceDeps, 'db' | 'urls'>,
  match: OperatorChargeMatch,
  limit: number,
): Promise<Array<{ organizationId: string; environment: Environment; charge: ChargeView }>> {
  return (await lists.searchAcrossOrganizations(deps.db, match, limit)).map((row) => ({
    organizationId: row.organization_id,
    environment: row.environment,
    charge: toView(deps, row),
  }));
}
