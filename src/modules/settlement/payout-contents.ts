import type { Kdb, Trx } from '../../db/database.js';
import type { PayoutTransaction } from '../payouts/ports.js';
import type { ItemRow } from './model.js';
import * as settlement from './repository.js';

/** What the payouts module reads of settlement: the items a payout carries, and the declared closures. */

/** The items payout `payoutId` carries, in `available_at`, id order after `page.after` (an item id). */
export async function listPayoutContents(
  db: Kdb,
  payoutId: string,
  page: { limit: number; after?: string },
): Promise<PayoutTransaction[]> {
  const after = page.after === undefined ? undefined : await settlement.findItem(db, page.after);
  if (page.after !== undefined && (after === undefined || after.payout_id !== payoutId)) return [];
  const rows = await settlement.listByPayout(db, payoutId, {
    limit: page.limit,
    ...(after ? { after: { availableAt: after.available_at, id: after.id } } : {}),
  });
  return rows.map(transactionView);
}

/** The declared closures between `from` and `to`, for a payout's arrival date. */
export async function closedBetween(trx: Trx, from: string, to: string): Promise<Set<string>> {
  return new Set((await settlement.listClosures(trx, from, to)).map((row) => row.business_date));
}

function transactionView(row: ItemRow): PayoutTransaction {
  return {
    id: row.id,
    type: row.type,
    sourceId: row.source_id,
    chargeId: row.charge_id,
    merchantReference: row.merchant_reference,
    amount: row.amount,
    fee: row.fee,
    net: row.net,
    currency: 'TRY',
    createdAt: row.occurred_at.toISOString(),
    availableAt: row.available_at.toISOString(),
  };
}
