import type { Trx } from '../../db/database.js';
import type { PendingCredit } from '../ledger/service.js';
import type { PayoutClosures, PayoutContents } from '../payouts/ports.js';
import type { BusinessDate } from '../../shared/business-calendar.js';
import type { BatchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The release's port, options and outcome, and the interface of `createSettlementService` (service.ts),
 * which binds the release (release.ts) and the payouts module's ports (payout-contents.ts).
 */

/**
 * What a release reads of the charges and refunds modules for its items, under the release's transaction:
 * the charge of each refund, and the merchant reference of each charge. Bound in the composition root.
 */
export interface SettlementSources {
  refundChargeIds(trx: Trx, refundIds: readonly string[]): Promise<Map<string, string>>;
  chargeReferences(trx: Trx, chargeIds: readonly string[]): Promise<Map<string, string>>;
}

/** What a release needs of the ledger (src/modules/ledger). */
export interface SettlementLedger {
  pendingCredits(trx: Trx, owner: Owner, after: Date, upTo: Date): Promise<PendingCredit[]>;
  postRelease(trx: Trx, release: { id: string; amount: string } & Owner): Promise<{ created: boolean }>;
  postReserveHeld(trx: Trx, reserve: { id: string; amount: string } & Owner): Promise<{ created: boolean }>;
  postReserveReleased(
    trx: Trx,
    reserve: { id: string; amount: string } & Owner,
  ): Promise<{ created: boolean }>;
  /** The owner's pending and available locks, in the writers' order. */
  lockBalances(trx: Trx, owners: readonly Owner[]): Promise<void>;
  /** The available balance under its lock, as decimal text. */
  lockedAvailable(trx: Trx, owner: Owner): Promise<string>;
  /** A debt on pending taken from available (once per id). */
  postDebtRecovered(
    trx: Trx,
    recovery: { id: string; amount: string } & Owner,
  ): Promise<{ created: boolean }>;
  /** A debt on pending taken from a batch's rolling reserve (once per id). */
  postReserveDebtRecovered(
    trx: Trx,
    recovery: { id: string; amount: string } & Owner,
  ): Promise<{ created: boolean }>;
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
  release(owner: Owner, options: ReleaseOptions): Promise<ReleaseOutcome>;
  /** The sandbox test helper: releases now, as a batch of today's UTC date (however many today has). */
  releaseNow(owner: Owner): Promise<ReleaseOutcome>;
  /** What each payout carries (for the payouts module). */
  payoutContents: PayoutContents;
  /** The declared closures, for a payout's arrival date (for the payouts module). */
  payoutClosures: PayoutClosures;
}
