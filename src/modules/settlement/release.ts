import type { Kdb, Trx } from '../../db/database.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import { HOUR, type Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { PendingCredit } from '../ledger/service.js';
import { addDays, utcDateOf } from '../../shared/business-calendar.js';
import type { ItemRow } from './model.js';
import type { ReleaseOptions, ReleaseOutcome, SettlementLedger, SettlementSources } from './release-types.js';
import * as settlement from './repository.js';
import { batchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The release of an owner's credits into its available balance as a batch (`release` below, the
 * per-owner path), and what a release writes of its credits, the same on that path and in a chunk
 * (chunk.ts): each reads the charges of the refunds and the merchant references in its own statements,
 * then builds its batch's items and totals here.
 */

/** What the per-owner release needs (the deps of `createSettlementService`). */
export interface ReleaseDeps {
  db: Kdb;
  clock: Clock;
  ledger: SettlementLedger;
  sources: SettlementSources;
  /** Told of a dispute debt nothing recovers (`dispute_debt_unrecoverable`). */
  alerts?: AlertRaiser;
}

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

/** A settlement item's type: a charge, a refund, or a dispute's entry (withdrawn, reinstated, its fee). */
const itemTypeOf = (credit: PendingCredit): ItemRow['type'] => {
  if (credit.kind === 'charge_succeeded') return 'charge';
  if (credit.kind === 'refund') return 'refund';
  return credit.kind === 'debt_recovered' ? 'recovery' : 'dispute';
};

/** The entries of a dispute's money, and the recoveries of what they cost. */
const DISPUTE_KINDS: ReadonlySet<PendingCredit['kind']> = new Set([
  'dispute_funds_withdrawn',
  'dispute_funds_reinstated',
  'dispute_fee',
  'dispute_fee_returned',
  'debt_recovered',
]);

/**
 * The part of a debt the waiting credits leave (their net below zero) that disputes made, taken before
 * anything is paid out (docs/disputes.md, "The money"): from the available balance, then from the reserves
 * the owner's batches still hold, the earliest release date first. Each is a `debt_recovered` entry, itself
 * a credit of the batch that later releases it; a reserve's part is recorded against its holding batch
 * (migration 0045), which releases on its date only what is left. A refund debt is not recovered (ADR
 * 0014: taking it from available is the operator's decision). What neither covers of a dispute debt raises
 * `dispute_debt_unrecoverable` once a business date.
 */
async function recoverDebt(
  deps: ReleaseDeps,
  trx: Trx,
  owner: Owner,
  credits: readonly PendingCredit[],
  creditsDebt: bigint,
  options: ReleaseOptions,
): Promise<void> {
  const disputesNet = credits
    .filter((credit) => DISPUTE_KINDS.has(credit.kind))
    .reduce((total, credit) => total + BigInt(credit.net), 0n);
  const debt = disputesNet < 0n ? min(-disputesNet, creditsDebt) : 0n;
  if (debt === 0n) return;
  await deps.ledger.lockBalances(trx, [owner]);
  const now = deps.clock.now();
  const available = BigInt(await deps.ledger.lockedAvailable(trx, owner));
  const fromAvailable = available > 0n ? min(debt, available) : 0n;
  if (fromAvailable > 0n)
    await deps.ledger.postDebtRecovered(trx, {
      ...owner,
      // Its own id each time: what a later run recovers is computed on the credits, this one included.
      id: newId('rcv', now),
      amount: fromAvailable.toString(),
    });
  const fromReserves = await recoverFromReserves(deps, trx, owner, debt - fromAvailable, options);
  const left = debt - fromAvailable - fromReserves;
  if (left > 0n && deps.alerts) {
    await deps.alerts.raise(trx, {
      kind: 'dispute_debt_unrecoverable',
      organizationId: owner.organizationId,
      environment: owner.environment,
      subjectId: `${owner.organizationId}:${owner.environment}:${options.businessDate}`,
      message:
        `${owner.organizationId} (${owner.environment}) owes ${left} TRY minor units of dispute debits ` +
        'that neither its new credits, its available balance nor its reserve cover.',
      details: {
        debt: debt.toString(),
        recovered: (fromAvailable + fromReserves).toString(),
        recoveredFromAvailable: fromAvailable.toString(),
        recoveredFromReserve: fromReserves.toString(),
        left: left.toString(),
      },
    });
  }
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Takes up to `owed` from the owner's held reserves, the earliest release date first; answers what it took. */
async function recoverFromReserves(
  deps: ReleaseDeps,
  trx: Trx,
  owner: Owner,
  owed: bigint,
  options: ReleaseOptions,
): Promise<bigint> {
  if (owed <= 0n) return 0n;
  const now = deps.clock.now();
  const parts: { id: string; batchId: string; amount: bigint }[] = [];
  let left = owed;
  for (const held of await settlement.heldReserves(trx, owner)) {
    if (left === 0n) break;
    const amount = min(left, held.remaining);
    parts.push({ id: newId('rcv', now), batchId: held.id, amount });
    left -= amount;
  }
  await settlement.insertReserveRecoveries(
    trx,
    parts.map((part) => ({
      id: part.id,
      organization_id: owner.organizationId,
      environment: owner.environment,
      batch_id: part.batchId,
      amount: part.amount,
      business_date: options.businessDate,
      created_at: now,
    })),
  );
  for (const part of parts)
    await deps.ledger.postReserveDebtRecovered(trx, {
      ...owner,
      id: part.id,
      amount: part.amount.toString(),
    });
  return owed - left;
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
  owner: Owner,
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
        type: itemTypeOf(credit),
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

/** One owner's release as the batch of `options.businessDate` (`SettlementService.release`). */
export async function release(
  deps: ReleaseDeps,
  owner: Owner,
  options: ReleaseOptions,
): Promise<ReleaseOutcome> {
  return deps.db.transaction().execute(async (trx): Promise<ReleaseOutcome> => {
    await settlement.lockOwner(trx, owner);
    // A scheduled run is once per owner and date; a settle-now call is a run of its own, one batch each.
    if ((options.origin ?? 'schedule') === 'schedule') {
      const existing = await settlement.findBatch(trx, owner, options.businessDate);
      if (existing) return { released: true, created: false, batch: batchView(existing) };
    }
    // From the last batch that released credits: a batch that released only reserves left any waiting
    // credits (a refund debt) where they were.
    const previous = await settlement.latestCreditCutoff(trx, owner);
    const after = previous ? new Date(previous.getTime() - LATE_COMMIT_WINDOW_MS) : new Date(0);
    const credits = await deps.ledger.pendingCredits(trx, owner, after, options.cutoff);
    const released = await settlement.releasedSources(trx, sourcesToCheck(credits, previous));
    const unreleased = credits.filter((credit) => !released.has(credit.sourceId));
    const creditsNet = unreleased.reduce((total, credit) => total + BigInt(credit.net), 0n);
    if (creditsNet < 0n) await recoverDebt(deps, trx, owner, unreleased, -creditsNet, options);
    // Earlier batches' rolling reserves whose date has come go back to available with this batch: what
    // the recoveries (this one's included) left of each.
    const due = await settlement.dueReserves(trx, owner, options.businessDate);
    const reserveReleased = due.reduce((total, held) => total + held.remaining, 0n);
    if (unreleased.length === 0 && due.length === 0)
      return { released: false, reason: 'nothing_to_release', net: '0' };
    if (creditsNet <= 0n && due.length === 0)
      return { released: false, reason: 'net_not_positive', net: creditsNet.toString() };
    // Credits whose net is not positive (a refund debt) wait for a later batch; due reserves go now.
    const fresh = creditsNet > 0n ? unreleased : [];
    const net = creditsNet > 0n ? creditsNet : 0n;
    const settings = await settlement.findSettings(trx, owner.organizationId);
    const reserveBps = BigInt(settings?.reserve_bps ?? 0);
    const reserveHeld = (net * reserveBps) / 10_000n;

    const chargeOfRefund = await deps.sources.refundChargeIds(trx, refundIdsOf(fresh));
    const references = await deps.sources.chargeReferences(trx, unrecordedChargeIds(fresh, chargeOfRefund));

    const now = deps.clock.now();
    const id = newId('stl', now);
    const lines = releaseLines(owner, fresh, { id, now, payoutId: null }, { chargeOfRefund, references });
    const batch = await settlement.insertBatch(trx, {
      id,
      organization_id: owner.organizationId,
      environment: owner.environment,
      business_date: options.businessDate,
      origin: options.origin ?? 'schedule',
      cutoff: options.cutoff,
      status: 'released',
      gross: lines.gross,
      fees: lines.fees,
      refunds: lines.refunds,
      net,
      item_count: fresh.length,
      reserve_held: reserveHeld,
      reserve_release_date:
        reserveHeld > 0n ? addDays(options.businessDate, settings?.reserve_days ?? 0) : null,
      reserve_released: reserveReleased,
      created_at: now,
      updated_at: now,
    });
    await settlement.insertItems(trx, lines.items);
    if (net > 0n) await deps.ledger.postRelease(trx, { id: batch.id, amount: net.toString(), ...owner });
    if (reserveHeld > 0n)
      await deps.ledger.postReserveHeld(trx, { id: batch.id, amount: reserveHeld.toString(), ...owner });
    for (const held of due) {
      const amount = held.remaining.toString();
      await settlement.insertReserveRelease(trx, {
        batch_id: held.id,
        released_in: batch.id,
        amount,
        created_at: now,
      });
      await deps.ledger.postReserveReleased(trx, { id: held.id, amount, ...owner });
    }
    return { released: true, created: true, batch: batchView(batch) };
  });
}

/** The sandbox test helper: releases now, as a batch of today's UTC date (however many today has). */
export async function releaseNow(deps: ReleaseDeps, owner: Owner): Promise<ReleaseOutcome> {
  const now = deps.clock.now();
  return release(deps, owner, { cutoff: now, businessDate: utcDateOf(now), origin: 'test_helper' });
}
