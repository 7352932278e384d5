import { HOUR } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { PendingCredit } from '../ledger/service.js';
import type { PayoutOwner } from '../payouts/ports.js';
import type { ItemRow } from './repository.js';

/**
 * What a release writes of its credits, the same on the per-owner path (`release` in service.ts) and in
 * a chunk (chunk.ts): each reads the charges of the refunds and the merchant references in its own
 * statements, then builds its batch's items and totals here.
 */

/**
 * How far before the previous batch's cutoff a release looks again: an entry written (its `created_at`)
 * before that cutoff by a transaction that committed after that release read the ledger is still caught,
 * and the unique source id keeps anything from being released twice.
 */
export const LATE_COMMIT_WINDOW_MS = HOUR;

/**
 * The sources among `credits` that an earlier batch may have released already, to be checked against
 * the items: only those entered at or before `previousCutoff`, the cutoff of the owner's last batch that
 * released credits. Every item is released by a batch whose net is positive (a refund debt releases
 * nothing and waits), from credits entered up to that batch's cutoff, so a credit entered after the last
 * such cutoff cannot have been released: on a normal day, all but the hour read again for late commits.
 * The unique `source_id` of the items still refuses any repeat.
 */
export function sourcesToCheck(
  credits: readonly PendingCredit[],
  previousCutoff: Date | undefined,
): string[] {
  if (previousCutoff === undefined) return [];
  const limit = previousCutoff.getTime();
  return credits.filter((credit) => credit.createdAt.getTime() <= limit).map((credit) => credit.sourceId);
}

/**
 * The refunds among `credits` whose entry did not record their charge (written before migration 0029):
 * their items name the charge refunded, which the caller looks up.
 */
export function refundIdsOf(credits: readonly PendingCredit[]): string[] {
  return credits
    .filter((credit) => credit.kind === 'refund' && credit.charge === undefined)
    .map((credit) => credit.sourceId);
}

/**
 * The charge an item names: as the entry recorded it, or else its own source, or for a refund the charge
 * refunded (`chargeOfRefund`).
 */
export function chargeIdOf(credit: PendingCredit, chargeOfRefund: ReadonlyMap<string, string>): string {
  if (credit.charge) return credit.charge.id;
  return credit.kind === 'refund'
    ? (chargeOfRefund.get(credit.sourceId) ?? credit.sourceId)
    : credit.sourceId;
}

/** The charges whose merchant reference the caller looks up: those of credits whose entry did not record it. */
export function unrecordedChargeIds(
  credits: readonly PendingCredit[],
  chargeOfRefund: ReadonlyMap<string, string>,
): string[] {
  const ids = new Set<string>();
  for (const credit of credits) if (!credit.charge) ids.add(chargeIdOf(credit, chargeOfRefund));
  return [...ids];
}

export interface ReleaseLines {
  items: ItemRow[];
  /** The charges' gross, the fees, and the refunds (positive), of the batch: TRY minor units. */
  gross: bigint;
  fees: bigint;
  refunds: bigint;
}

/** The items of the batch `batch.id` releasing `credits` of `owner`, and its totals. */
export function releaseLines(
  owner: PayoutOwner,
  credits: readonly PendingCredit[],
  batch: { id: string; now: Date; payoutId: string | null },
  lookups: { chargeOfRefund: ReadonlyMap<string, string>; references: ReadonlyMap<string, string> },
): ReleaseLines {
  const sum = (pick: (credit: PendingCredit) => bigint) =>
    credits.reduce((total, credit) => total + pick(credit), 0n);
  return {
    items: credits.map((credit): ItemRow => {
      const chargeId = chargeIdOf(credit, lookups.chargeOfRefund);
      return {
        id: newId('txn', batch.now),
        batch_id: batch.id,
        organization_id: owner.organizationId,
        environment: owner.environment,
        type: credit.kind === 'refund' ? 'refund' : 'charge',
        source_id: credit.sourceId,
        charge_id: chargeId,
        merchant_reference: credit.charge
          ? credit.charge.merchantReference
          : (lookups.references.get(chargeId) ?? null),
        amount: credit.gross,
        fee: credit.fee,
        net: credit.net,
        occurred_at: credit.createdAt,
        available_at: batch.now,
        payout_id: batch.payoutId,
      };
    }),
    gross: sum((credit) => (credit.kind === 'charge_succeeded' ? BigInt(credit.gross) : 0n)),
    fees: sum((credit) => BigInt(credit.fee)),
    refunds: sum((credit) => (credit.kind === 'refund' ? -BigInt(credit.gross) : 0n)),
  };
}
