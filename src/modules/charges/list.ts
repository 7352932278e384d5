import type { Environment } from '../../db/schema.js';
import { toPage, type CreatedWindow, type Cursor } from '../../shared/pagination.js';
import { ok, type Result } from '../../shared/result.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import * as lists from './repository/lists.js';
import type { ChargeSearch, ChargeSort, OperatorChargeMatch } from './repository/lists.js';
import type { ChargeListQuery, ChargeView } from './schemas.js';
import { toView } from './views.js';
import type { Owner } from '../../shared/owner.js';

type ListDeps = Pick<ChargeServiceDeps, 'db' | 'readDb' | 'cursors' | 'urls'>;

/** One page of the owner's charges, newest first (of one customer with `customerId`). */
export async function listCharges(
  deps: ListDeps,
  owner: Owner,
  { limit, cursor, customerId }: ChargeListQuery,
): Promise<Result<{ data: ChargeView[]; nextCursor: string | null }, ChargeError>> {
  const readDb = deps.readDb ?? deps.db;
  const pages = deps.cursors.for({
    list: 'charges',
    organizationId: owner.organizationId,
    environment: owner.environment,
    // Unfiltered cursors stay as they were issued before the filter existed.
    ...(customerId !== undefined ? { filter: JSON.stringify({ customerId }) } : {}),
  });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after && !after.ok) return after;
  const rows = await lists.listVisible(readDb, owner, { customerId }, after?.value, limit + 1);
  const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: page.data.map((row) => toView(deps, row)), nextCursor: page.nextCursor });
}

/**
 * The dashboard's Payments list: the owner's charges matching the filters, in one of the sorts, cursor
 * paged. A cursor is bound to its filters and sort: another list's is refused.
 */
export async function searchCharges(
  deps: ListDeps,
  owner: Owner,
  { limit, cursor, filter, sort }: { limit: number; cursor?: string; filter: ChargeSearch; sort: ChargeSort },
): Promise<Result<{ data: ChargeView[]; nextCursor: string | null }, ChargeError>> {
  const readDb = deps.readDb ?? deps.db;
  const pages = deps.cursors.for({
    list: 'charges',
    organizationId: owner.organizationId,
    environment: owner.environment,
    filter: JSON.stringify({ search: filter, sort }),
  });
  const after = cursor === undefined ? undefined : pages.decode(cursor);
  if (after && !after.ok) return after;
  const rows = await lists.searchVisible(readDb, owner, filter, sort, after?.value, limit + 1);
  const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: page.data.map((row) => toView(deps, row)), nextCursor: page.nextCursor });
}

/**
 * One page of an export: the created charges made in `window`, oldest first, after the (createdAt, id)
 * of the previous page's last one; at most `limit`.
 */
export async function pageChargesCreatedIn(
  deps: ListDeps,
  owner: Owner,
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeView[]> {
  const readDb = deps.readDb ?? deps.db;
  return (await lists.pageCreatedIn(readDb, owner, window, after, limit)).map((row) => toView(deps, row));
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
