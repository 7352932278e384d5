import { cursorPage, type CreatedPage } from '../../shared/cursor-page.js';
import { err, type Result } from '../../shared/result.js';
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
  return cursorPage(deps.cursors, {
    list: 'refunds',
    owner,
    filter: charge.id,
    query,
    rows: (after) => refunds.pageByCharge(readDb, charge.id, after, query.limit + 1),
    view: (rows) => rows.map(refundView),
  });
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
  ...page: CreatedPage
): Promise<RefundView[]> {
  return (await refunds.pageCreatedIn(deps.readDb ?? deps.db, owner, ...page)).map(refundView);
}
