import type { Trx } from '../../db/database.js';
import { computeFee } from './fees.js';
import { checkedPost, CURRENCY, newEntry, parseAmount, postOnce, sumOf } from './journal.js';
import { findEntriesOf, type EntryLines } from './repository/entries.js';
import { lockPendingBalance } from './repository/locks.js';
import { sumPending } from './repository/balances.js';
import type { ChargeForLedger, ChargeSplit, LedgerDeps, RefundForLedger } from './types.js';
import type { Owner } from '../../shared/owner.js';

/** The entries of a charge: its `charge_succeeded` entry and those of the refunds named. */
export function chargeEntries(
  deps: LedgerDeps,
  owner: Owner,
  chargeId: string,
  refundIds: readonly string[],
): Promise<EntryLines[]> {
  return findEntriesOf(deps.db, owner, [
    { kind: 'charge_succeeded', sourceId: chargeId },
    ...refundIds.map((id) => ({ kind: 'refund' as const, sourceId: id })),
  ]);
}

export async function postChargeSucceeded(
  deps: LedgerDeps,
  trx: Trx,
  charge: ChargeForLedger,
): Promise<ChargeSplit> {
  const gross = parseAmount(charge.amount, `charge ${charge.id}`);
  const entry = {
    ...newEntry(charge, 'charge_succeeded', charge.id),
    charge: { id: charge.id, merchantReference: charge.merchantReference },
  };
  const outcome = await postOnce(deps, trx, entry, async () => {
    const rate = await deps.feesFor(trx, charge.organizationId, charge.paymentMethod);
    const { fee, net } = computeFee(gross, rate.basisPoints, rate.fixedMinor);
    return [
      { account: 'acquirer_clearing', amount: gross },
      { account: 'merchant_pending', amount: -net },
      { account: 'fee_revenue', amount: -fee },
    ];
  });
  const postings = outcome.created ? outcome.postings : outcome.existing.postings;
  const split = {
    gross: sumOf(postings, 'acquirer_clearing'),
    fee: -sumOf(postings, 'fee_revenue'),
    net: -sumOf(postings, 'merchant_pending'),
  };
  if (split.gross !== gross)
    throw new Error(`charge ${charge.id} was recorded with amount ${split.gross}, now reported as ${gross}`);
  return {
    gross: split.gross.toString(),
    fee: split.fee.toString(),
    net: split.net.toString(),
    created: outcome.created,
  };
}

export async function postRefund(
  deps: LedgerDeps,
  trx: Trx,
  refund: RefundForLedger,
): Promise<{ created: boolean; pendingAfter: string }> {
  const amount = checkedPost(trx, refund, `refund ${refund.id}`);
  await lockPendingBalance(trx, refund, CURRENCY);
  const entry = {
    ...newEntry(refund, 'refund', refund.id),
    charge: { id: refund.chargeId, merchantReference: refund.merchantReference },
  };
  const outcome = await postOnce(deps, trx, entry, async () => [
    { account: 'merchant_pending', amount },
    { account: 'acquirer_clearing', amount: -amount },
  ]);
  if (!outcome.created && sumOf(outcome.existing.postings, 'merchant_pending') !== amount)
    throw new Error(`refund ${refund.id} was recorded with another amount than ${amount}`);
  return { created: outcome.created, pendingAfter: await sumPending(trx, refund, CURRENCY) };
}
