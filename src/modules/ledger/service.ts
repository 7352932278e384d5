import type { Trx } from '../../db/database.js';
import type { Environment, JournalEntryKind } from '../../db/schema.js';
import { advanceBalanceCheckpoints, balance, negativePendingBalances } from './balances.js';
import { chargeEntries, postChargeSucceeded, postRefund } from './charges.js';
import type { Balance } from './model.js';
import {
  lockedAvailable,
  postPayoutCreated,
  postPayoutPaid,
  postPayoutReturned,
  postPayoutsCreated,
} from './payouts.js';
import {
  findClearingMovements,
  findClearingMovementsOf,
  type ClearingMovement,
} from './repository/clearing.js';
import {
  findChargeFees,
  findOwnersWithCredits,
  findPendingCreditsOf,
  type ChargeFee,
  type PendingCredit,
} from './repository/credits.js';
import { findEntriesOf, type EntryLines } from './repository/entries.js';
import { disputeFeeOf, postDisputeEntry, type DisputeEntryForLedger } from './disputes.js';
import {
  availableOf,
  lockBalances,
  postDebtRecovered,
  postReserveDebtRecovered,
  pendingCredits,
  postRelease,
  postReleases,
  postReserveHeld,
  postReserveReleased,
} from './settlement.js';
import type {
  ChargeForLedger,
  ChargeSplit,
  LedgerDeps,
  PayoutDebit,
  PayoutForLedger,
  PendingDebt,
  RefundForLedger,
  ReleaseForLedger,
} from './types.js';
import type { Owner } from '../../shared/owner.js';

export type { Balance, ChargeFee, ClearingMovement, EntryLines, Owner, PendingCredit };

export interface LedgerService {
  /**
   * In the caller's transaction: the journal entry of a succeeded charge (acquirer_clearing debited
   * gross, merchant_pending credited net, fee_revenue credited fee), with the fee from the
   * organization's fee_schedules row for the payment method (the onboarding default without one).
   * Exactly once per charge: a second call returns the existing split and posts nothing (the unique
   * key of the entry decides, not a read before the write).
   */
  postChargeSucceeded(trx: Trx, charge: ChargeForLedger): Promise<ChargeSplit>;
  /**
   * In the caller's transaction: a refund entry (merchant_pending debited the refunded amount,
   * acquirer_clearing credited it; the fee is not returned). Exactly once per refund id. Refunds of one
   * owner are serialised until commit, so `pendingAfter` (the pending balance with this refund, as
   * decimal text) is exact: two concurrent refunds cannot both see a balance the other has spent. It may
   * be negative; the caller decides whom to tell (docs/decisions/0014-refund-debt.md).
   */
  postRefund(trx: Trx, refund: RefundForLedger): Promise<{ created: boolean; pendingAfter: string }>;
  /**
   * In the caller's transaction: a settlement release (merchant_pending debited, merchant_available
   * credited the amount). Exactly once per release id. Serialised with the owner's other pending writers.
   */
  postRelease(trx: Trx, release: ReleaseForLedger): Promise<{ created: boolean }>;
  /**
   * In the caller's transaction: the rolling reserve of a batch (`id`) moves from available to the
   * reserve. Exactly once per batch.
   */
  postReserveHeld(trx: Trx, reserve: ReleaseForLedger): Promise<{ created: boolean }>;
  /**
   * In the caller's transaction: the reserve a batch (`id`, the batch that held it) held returns to
   * available. Exactly once per holding batch.
   */
  postReserveReleased(trx: Trx, reserve: ReleaseForLedger): Promise<{ created: boolean }>;
  /**
   * In the caller's transaction: a new payout moves its amount from available to in transit, only if
   * the available balance covers it. Payouts of one owner are serialised until commit, so concurrent
   * payouts never together overdraw it. Exactly once per payout id (a repeat is `created: false`).
   */
  postPayoutCreated(trx: Trx, payout: PayoutForLedger): Promise<PayoutDebit>;
  /** In the caller's transaction: a completed payout leaves in transit for payout clearing (paid out). */
  postPayoutPaid(trx: Trx, payout: PayoutForLedger): Promise<{ created: boolean }>;
  /** In the caller's transaction: a failed or canceled payout returns its amount from in transit to available. */
  postPayoutReturned(trx: Trx, payout: PayoutForLedger): Promise<{ created: boolean }>;
  /**
   * In the caller's transaction: the owner's charge and refund entries created in (after, upTo], oldest
   * first, with gross, fee and net: what a settlement release picks from (it keeps its own record of
   * what it released).
   */
  pendingCredits(trx: Trx, owner: Owner, after: Date, upTo: Date): Promise<PendingCredit[]>;
  /** The owners with charge or refund entries created in (after, upTo]: whom a settlement run visits. */
  ownersWithCredits(after: Date, upTo: Date): Promise<Owner[]>;
  /**
   * Takes the owner's available-balance lock (the one `postPayoutCreated` takes) until the end of the
   * caller's transaction, and answers the available balance under it, as decimal text.
   */
  lockedAvailable(trx: Trx, owner: Owner): Promise<string>;
  /**
   * The set-based forms of a settlement chunk (docs/decisions/0041-settlement-chunks.md), each in the
   * caller's transaction. `lockBalances`: the pending- and available-balance locks of these owners (those
   * `postRelease` and `postPayoutCreated` take), all pending ones then all available ones, each in the
   * owners' order (the caller sorts them). `availableOf`: each owner's available balance (key
   * `organizationId:environment`); the caller holds the locks. `pendingCreditsOf`: `pendingCredits` of
   * every owner at once, each owner from its own `after`, each credit with its owner.
   */
  lockBalances(trx: Trx, owners: readonly Owner[]): Promise<void>;
  availableOf(trx: Trx, owners: readonly Owner[]): Promise<Map<string, bigint>>;
  pendingCreditsOf(
    trx: Trx,
    owners: ReadonlyArray<Owner & { after: Date }>,
    upTo: Date,
  ): Promise<Array<PendingCredit & Owner>>;
  /**
   * `postRelease` of many new releases, under `lockBalances`: throws unless every entry is new (the
   * chunk's transaction then rolls back whole).
   */
  postReleases(trx: Trx, releases: readonly ReleaseForLedger[]): Promise<void>;
  /**
   * `postPayoutCreated` of many new payouts, under `lockBalances`; the caller has checked each amount
   * against `availableOf` under those locks. Throws unless every entry is new.
   */
  postPayoutsCreated(trx: Trx, payouts: readonly PayoutForLedger[]): Promise<void>;
  /** An environment's charge and refund entries booked in [from, to), as acquirer clearing saw them. */
  clearingMovements(environment: Environment, from: Date, to: Date): Promise<ClearingMovement[]>;
  /** The clearing movements of these charges or refunds (`kind`), whenever booked. */
  clearingMovementsOf(
    kind: ClearingMovement['kind'],
    sourceIds: readonly string[],
  ): Promise<ClearingMovement[]>;
  /**
   * The fee and net of each of the owner's charges that succeeded, as their `charge_succeeded` entries
   * recorded them, by charge id (exports); a charge without an entry is absent.
   */
  chargeFees(owner: Owner, chargeIds: readonly string[]): Promise<Map<string, ChargeFee>>;
  /**
   * Balances derived from postings, per currency (a TRY row always), for one organization and environment:
   * each account's checkpoint plus its postings since (constant time in the owner's history).
   */
  balance(owner: Owner): Promise<Balance[]>;
  /**
   * Moves every account's checkpoint up to the oldest transaction still running (the `ledger-checkpoints`
   * job); returns the accounts moved. Safe to run anywhere, at any time, several at once.
   */
  advanceCheckpoints(): Promise<number>;
  /** Owners whose pending balance is below zero, deepest first (the operator's view of refund debt). */
  negativePendingBalances(limit?: number): Promise<PendingDebt[]>;
  /**
   * The owner's entries of a charge, oldest first, with their postings (debits positive): its
   * `charge_succeeded` entry and the entries of the refunds named (the refunds module knows which are the
   * charge's). The dashboard's charge page: its fee, net and ledger lines.
   */
  chargeEntries(owner: Owner, chargeId: string, refundIds: readonly string[]): Promise<EntryLines[]>;
  /**
   * In the caller's transaction: `amount` of a debt on pending taken from the available balance (once per
   * id), under the owner's pending and available locks. The caller checked the amount against
   * `lockedAvailable`.
   */
  postDebtRecovered(trx: Trx, recovery: ReleaseForLedger): Promise<{ created: boolean }>;
  /** The same from the rolling reserve (`merchant_reserve` to `merchant_pending`), once per id. */
  postReserveDebtRecovered(trx: Trx, recovery: ReleaseForLedger): Promise<{ created: boolean }>;
  /** A dispute entry, once per source (src/modules/ledger/disputes.ts). */
  postDisputeEntry(
    trx: Trx,
    item: DisputeEntryForLedger,
  ): Promise<{ created: boolean; pendingAfter: string }>;
  /** The fee a `dispute_fee` entry of this source took, or undefined. */
  disputeFeeOf(trx: Trx, sourceId: string): Promise<bigint | undefined>;
  /** The owner's entries of these (kind, source) pairs, oldest first, with their postings. */
  entriesOf(
    owner: Owner,
    sources: ReadonlyArray<{ kind: JournalEntryKind; sourceId: string }>,
  ): Promise<EntryLines[]>;
}

export function createLedgerService(deps: LedgerDeps): LedgerService {
  const { db } = deps;
  return {
    chargeEntries: (owner, chargeId, refundIds) => chargeEntries(deps, owner, chargeId, refundIds),
    postDisputeEntry: (trx, item) => postDisputeEntry(deps, trx, item),
    postDebtRecovered: (trx, recovery) => postDebtRecovered(deps, trx, recovery),
    postReserveDebtRecovered: (trx, recovery) => postReserveDebtRecovered(deps, trx, recovery),
    disputeFeeOf: (trx, sourceId) => disputeFeeOf(trx, sourceId),
    entriesOf: (owner, sources) => findEntriesOf(db, owner, sources),
    postChargeSucceeded: (trx, charge) => postChargeSucceeded(deps, trx, charge),
    postRefund: (trx, refund) => postRefund(deps, trx, refund),
    postRelease: (trx, release) => postRelease(deps, trx, release),
    postReserveHeld: (trx, reserve) => postReserveHeld(deps, trx, reserve),
    postReserveReleased: (trx, reserve) => postReserveReleased(deps, trx, reserve),
    postPayoutCreated: (trx, payout) => postPayoutCreated(deps, trx, payout),
    postPayoutPaid: (trx, payout) => postPayoutPaid(deps, trx, payout),
    postPayoutReturned: (trx, payout) => postPayoutReturned(deps, trx, payout),
    pendingCredits: (trx, owner, after, upTo) => pendingCredits(trx, owner, after, upTo),
    ownersWithCredits: (after, upTo) => findOwnersWithCredits(db, after, upTo),
    clearingMovements: (environment, from, to) => findClearingMovements(db, environment, from, to),
    clearingMovementsOf: (kind, sourceIds) => findClearingMovementsOf(db, kind, sourceIds),
    chargeFees: (owner, chargeIds) => findChargeFees(db, owner, chargeIds),
    lockedAvailable: (trx, owner) => lockedAvailable(trx, owner),
    lockBalances: (trx, owners) => lockBalances(trx, owners),
    availableOf: (trx, owners) => availableOf(trx, owners),
    pendingCreditsOf: (trx, owners, upTo) => findPendingCreditsOf(trx, owners, upTo),
    postReleases: (trx, releases) => postReleases(deps, trx, releases),
    postPayoutsCreated: (trx, payouts) => postPayoutsCreated(deps, trx, payouts),
    balance: (owner) => balance(deps, owner),
    advanceCheckpoints: () => advanceBalanceCheckpoints(deps),
    negativePendingBalances: (limit) => negativePendingBalances(deps, limit),
  };
}
