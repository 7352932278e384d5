import type { Kdb, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { chargeReferences } from '../charges/service.js';
import type { LedgerOwner, PendingCredit } from '../ledger/service.js';
import type { PayoutClosures, PayoutContents, PayoutOwner, PayoutTransaction } from '../payouts/ports.js';
import { refundChargeIds } from '../refunds/service.js';
import { addDays, utcDateOf, type BusinessDate } from './calendar.js';
import {
  LATE_COMMIT_WINDOW_MS,
  refundIdsOf,
  releaseLines,
  sourcesToCheck,
  unrecordedChargeIds,
} from './release.js';
import * as settlement from './repository.js';

/** What a release needs of the ledger (src/modules/ledger). */
export interface SettlementLedger {
  pendingCredits(trx: Trx, owner: LedgerOwner, after: Date, upTo: Date): Promise<PendingCredit[]>;
  postRelease(trx: Trx, release: { id: string; amount: string } & LedgerOwner): Promise<{ created: boolean }>;
  postReserveHeld(
    trx: Trx,
    reserve: { id: string; amount: string } & LedgerOwner,
  ): Promise<{ created: boolean }>;
  postReserveReleased(
    trx: Trx,
    reserve: { id: string; amount: string } & LedgerOwner,
  ): Promise<{ created: boolean }>;
}

/** A released batch as the API shows it. */
export interface BatchView {
  id: string;
  object: 'settlement_batch';
  businessDate: string;
  cutoff: string;
  gross: string;
  fees: string;
  refunds: string;
  net: string;
  itemCount: number;
  /**
   * The rolling reserve: what this batch held back of `net` until `releaseDate` (the first batch on or
   * after it releases it), and what it released of earlier batches' reserves. TRY minor units.
   */
  reserve: { held: string; releaseDate: string | null; released: string };
  /**
   * `released` (funds available; the payout phase runs next), `paid_out` (the automatic payout
   * `payoutId` was made), `carried` (no payout: `carryReason`; the funds stay available) or `held` (no
   * usable rate yet: `holdReason`; retried).
   */
  status: 'released' | 'held' | 'paid_out' | 'carried';
  payoutId: string | null;
  carryReason: 'no_default_wallet' | 'below_minimum' | 'manual_schedule' | 'nothing_available' | null;
  holdReason: string | null;
  /** The rate the payout was converted at (USDT per TRY), with its source and time; null without a payout. */
  rate: { value: string; source: string; at: string } | null;
  livemode: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ReleaseOutcome =
  | { released: true; created: boolean; batch: BatchView }
  /** Nothing new, or refunds exceed the new credits (a debt the next credits repay first). */
  | { released: false; reason: 'nothing_to_release' | 'net_not_positive'; net: string };

export interface ReleaseOptions {
  cutoff: Date;
  businessDate: BusinessDate;
  /** `test_helper`: the sandbox's settle-now (default `schedule`: the daily run or an operator's run). */
  origin?: 'schedule' | 'test_helper';
}

export interface SettlementService {
  /**
   * Releases, in one transaction, the owner's charge and refund entries credited to pending up to `cutoff`
   * and never released, into the available balance as the batch of `businessDate`. A scheduled batch is
   * exactly once per owner and business date: a second call returns the batch it made. A settle-now call
   * (`origin: test_helper`) makes a batch of its own each time it finds something to release. A
   * non-positive net releases nothing: those entries wait for a later batch.
   */
  release(owner: PayoutOwner, options: ReleaseOptions): Promise<ReleaseOutcome>;
  /** The sandbox test helper: releases now, as a batch of today's UTC date (however many today has). */
  releaseNow(owner: PayoutOwner): Promise<ReleaseOutcome>;
  /** What each payout carries (for the payouts module). */
  payoutContents: PayoutContents;
  /** The declared closures, for a payout's arrival date (for the payouts module). */
  payoutClosures: PayoutClosures;
}

export function createSettlementService(deps: {
  db: Kdb;
  clock: Clock;
  ledger: SettlementLedger;
}): SettlementService {
  const { db, clock } = deps;

  async function release(owner: PayoutOwner, options: ReleaseOptions): Promise<ReleaseOutcome> {
    return db.transaction().execute(async (trx): Promise<ReleaseOutcome> => {
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
      // Earlier batches' rolling reserves whose date has come go back to available with this batch.
      const due = await settlement.dueReserves(trx, owner, options.businessDate);
      const reserveReleased = due.reduce((total, row) => total + BigInt(row.reserve_held), 0n);
      if (unreleased.length === 0 && due.length === 0)
        return { released: false, reason: 'nothing_to_release', net: '0' };
      const creditsNet = unreleased.reduce((total, credit) => total + BigInt(credit.net), 0n);
      if (creditsNet <= 0n && due.length === 0)
        return { released: false, reason: 'net_not_positive', net: creditsNet.toString() };
      // Credits whose net is not positive (a refund debt) wait for a later batch; due reserves go now.
      const fresh = creditsNet > 0n ? unreleased : [];
      const net = creditsNet > 0n ? creditsNet : 0n;
      const settings = await settlement.findSettings(trx, owner.organizationId);
      const reserveBps = BigInt(settings?.reserve_bps ?? 0);
      const reserveHeld = (net * reserveBps) / 10_000n;

      const chargeOfRefund = await refundChargeIds(trx, refundIdsOf(fresh));
      const references = await chargeReferences(trx, unrecordedChargeIds(fresh, chargeOfRefund));

      const now = clock.now();
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
        await settlement.insertReserveRelease(trx, {
          batch_id: held.id,
          released_in: batch.id,
          amount: held.reserve_held,
          created_at: now,
        });
        await deps.ledger.postReserveReleased(trx, { id: held.id, amount: held.reserve_held, ...owner });
      }
      return { released: true, created: true, batch: batchView(batch) };
    });
  }

  const payoutContents: PayoutContents = {
    attach: (trx, owner, payoutId) => settlement.attachUnpaid(trx, owner, payoutId),
    attachMany: (trx, payouts) => settlement.attachUnpaidMany(trx, payouts),
    detach: (trx, payoutId) => settlement.detach(trx, payoutId),
    async list(payoutId, page) {
      const after = page.after === undefined ? undefined : await settlement.findItem(db, page.after);
      if (page.after !== undefined && (after === undefined || after.payout_id !== payoutId)) return [];
      const rows = await settlement.listByPayout(db, payoutId, {
        limit: page.limit,
        ...(after ? { after: { availableAt: after.available_at, id: after.id } } : {}),
      });
      return rows.map(transactionView);
    },
  };

  return {
    release,

    async releaseNow(owner) {
      const now = clock.now();
      return release(owner, { cutoff: now, businessDate: utcDateOf(now), origin: 'test_helper' });
    },

    payoutContents,
    payoutClosures: {
      between: async (trx, from, to) =>
        new Set((await settlement.listClosures(trx, from, to)).map((row) => row.business_date)),
    },
  };
}

export function batchView(row: settlement.BatchRow): BatchView {
  return {
    id: row.id,
    object: 'settlement_batch',
    businessDate: row.business_date,
    cutoff: row.cutoff.toISOString(),
    gross: row.gross,
    fees: row.fees,
    refunds: row.refunds,
    net: row.net,
    itemCount: row.item_count,
    reserve: {
      held: row.reserve_held,
      releaseDate: row.reserve_release_date,
      released: row.reserve_released,
    },
    status: row.status,
    payoutId: row.payout_id,
    carryReason: row.carry_reason,
    holdReason: row.hold_reason,
    rate:
      row.rate !== null && row.rate_source !== null && row.rate_at !== null
        ? { value: row.rate, source: row.rate_source, at: row.rate_at.toISOString() }
        : null,
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function transactionView(row: settlement.ItemRow): PayoutTransaction {
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
