import type { Trx } from '../../db/database.js';
import type { JournalEntryKind, LedgerAccount } from '../../db/schema.js';
import { assertAmount, checkedPost, CURRENCY, newEntry, postOnce, sumOf } from './journal.js';
import { findEntry } from './repository/entries.js';
import { lockPendingBalance } from './repository/locks.js';
import { sumPending } from './repository/balances.js';
import type { LedgerDeps } from './types.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The ledger's side of a dispute (docs/decisions/0076-disputes.md): each kind of dispute entry is one move
 * between two accounts, written once per source (an acquirer movement, or a dispute's stage for the fee),
 * on the entry the charge it is about, as refunds do, so that settlement items name it.
 *
 * - `dispute_funds_withdrawn`: the acquirer took the disputed amount back: `merchant_pending` debited,
 *   `acquirer_clearing` credited (a refund's move).
 * - `dispute_fee`: the fee of a stage: `merchant_pending` debited, `fee_revenue` credited.
 * - `dispute_funds_reinstated`: a won dispute's amount comes back: `acquirer_clearing` debited,
 *   `merchant_pending` credited.
 * - `dispute_fee_returned`: the fee comes back when the fee schedule says so: `fee_revenue` debited,
 *   `merchant_pending` credited.
 */
export type DisputeEntryKind = Extract<
  JournalEntryKind,
  'dispute_funds_withdrawn' | 'dispute_funds_reinstated' | 'dispute_fee' | 'dispute_fee_returned'
>;

const MOVES: Record<DisputeEntryKind, { debit: LedgerAccount; credit: LedgerAccount }> = {
  dispute_funds_withdrawn: { debit: 'merchant_pending', credit: 'acquirer_clearing' },
  dispute_fee: { debit: 'merchant_pending', credit: 'fee_revenue' },
  dispute_funds_reinstated: { debit: 'acquirer_clearing', credit: 'merchant_pending' },
  dispute_fee_returned: { debit: 'fee_revenue', credit: 'merchant_pending' },
};

export interface DisputeEntryForLedger extends Owner {
  kind: DisputeEntryKind;
  /** The acquirer's movement id, or `<dispute id>:<stage>` for a fee: the entry is written once per source. */
  sourceId: string;
  /** Minor units, decimal string, positive. */
  amount: string;
  chargeId: string;
  merchantReference: string | null;
}

/**
 * In the caller's transaction: one dispute entry, exactly once per source (a repeat must carry the same
 * amount). Serialised with the owner's other pending writers (refunds, batches), so `pendingAfter` is
 * exact: below zero, the merchant owes it (docs/decisions/0014-refund-debt.md).
 */
export async function postDisputeEntry(
  deps: Pick<LedgerDeps, 'clock'>,
  trx: Trx,
  item: DisputeEntryForLedger,
): Promise<{ created: boolean; pendingAfter: string }> {
  const what = `${item.kind} ${item.sourceId}`;
  const amount = checkedPost(trx, item, what);
  await lockPendingBalance(trx, item, CURRENCY);
  const move = MOVES[item.kind];
  const entry = {
    ...newEntry(item, item.kind, item.sourceId),
    charge: { id: item.chargeId, merchantReference: item.merchantReference },
  };
  const outcome = await postOnce(deps, trx, entry, async () => [
    { account: move.debit, amount },
    { account: move.credit, amount: -amount },
  ]);
  if (!outcome.created) assertAmount(outcome.existing, move.debit, amount, what);
  return { created: outcome.created, pendingAfter: await sumPending(trx, item, CURRENCY) };
}

/** The fee a `dispute_fee` entry of this source took (its debit of `merchant_pending`), or undefined. */
export async function disputeFeeOf(trx: Trx, sourceId: string): Promise<bigint | undefined> {
  const existing = await findEntry(trx, 'dispute_fee', sourceId);
  return existing === undefined ? undefined : sumOf(existing.postings, 'merchant_pending');
}
