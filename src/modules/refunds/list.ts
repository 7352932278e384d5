import { toPage, type CreatedWindow, type Cursor } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { RefundServiceDeps } from './deps.js';
import type { RefundListError } from './errors.js';
import * as refunds from './repository.js';
import { refundView, type RefundList, type RefundListQuery, type RefundView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

/** One page of the charge's refunds, newest first; its cursors are bound to the charge. */
export async function listRefunds(
  deps: Pick<RefundServiceDeps, 'db' | 'readDb' | 'cursors' | 'charges'>,
  owner: Owner,
  chargeId: string,
  query: RefundListQuery,
): Promise<Result<RefundList, RefundListError>> {
  const readDb = deps.readDb ?? deps.db;
  const charge = await deps.charges.findVisible(owner, chargeId);
  if (!charge) return err({ code: 'charge_not_found' });
  const pages = deps.cursors.for({
    list: 'refunds',
    organizationId: owner.organizationId,
    environment: owner.environment,
    filter: charge.id,
  });
  const after = query.cursor === undefined ? undefined : pages.decode(query.cursor);
  if (after && !after.ok) return after;
  const rows = await refunds.pageByCharge(readDb, charge.id, after?.value, query.limit + 1);
  const page = toPage(rows, query.limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: page.data.map(refundView), nextCursor: page.nextCursor });
}

/** What the owner's charge's pending refunds hold back (decimal text of minor units). */
export async function pendingTotal(
  deps: Pick<RefundServiceDeps, 'db' | 'charges'>,
  owner: Owner,
  chargeId: string,
): Promise<string> {
  const charge = await deps.charges.findVisible(owner, chargeId);
  return charge ? refunds.pendingTotal(deps.db, charge.id) : '0';
}

/**
 * One page of an export: the refunds made in `window`, oldest first, after the (createdAt, id) of the
 * previous page's last one; at most `limit`.
 */
export async function pageRefundsCreatedIn(
  deps: Pick<RefundServiceDeps, 'db' | 'readDb'>,
  owner: Owner,
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
): Promise<RefundView[]> {
  const readDb = deps.readDb ?? deps.db;
  return (await refunds.pageCreatedIn(readDb, owner, window, after, limit)).map(refundView);
}
