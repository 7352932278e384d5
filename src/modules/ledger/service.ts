import type { Kdb, Trx } from '../../db/database.js';
import type { Environment, JournalEntryKind, PaymentMethod } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { computeFee, type FeeRate } from './fees.js';
import {
  advanceCheckpoints,
  findClearingMovements,
  findEntriesOf,
  findChargeFees,
  findClearingMovementsOf,
  findEntry,
  findNegativePending,
  findOwnersWithCredits,
  findPendingCredits,
  findPendingCreditsOf,
  accountBalanceOf,
  availableLockKey,
  insertEntriesWithPostings,
  lockKeys,
  pendingLockKey,
  insertEntryOnce,
  insertPostings,
  lockAvailableBalance,
  lockPendingBalance,
  sumAvailable,
  sumMerchantBalances,
  sumPending,
  type ChargeFee,
  type ClearingMovement,
  type EntryLines,
  type NewEntry,
  type PendingCredit,
  type Posting,
  type StoredEntry,
} from './repository.js';
import type { Balance, LedgerOwner } from './model.js';

export type { Balance, ChargeFee, ClearingMovement, EntryLines, LedgerOwner, PendingCredit };

export interface ChargeForLedger {
  id: string;
  organizationId: string;
  environment: 'sandbox' | 'live';
  /** Minor units, decimal string. */
  amount: string;
  paymentMethod: PaymentMethod;
  /** Recorded on the entry, for the settlement item that will release it. */
  merchantReference: string | null;
}

export interface RefundForLedger {
  id: string;
  chargeId: string;
  organizationId: string;
  environment: 'sandbox' | 'live';
  /** Minor units, decimal string. */
  amount: string;
  /** The refunded charge's, recorded on the entry with `chargeId` for the settlement item. */
  merchantReference: string | null;
}

/** An owner whose pending balance is below zero. */
export interface PendingDebt extends LedgerOwner {
  currency: 'TRY';
  /** Negative, decimal string. */
  pending: string;
  /** `-pending`. */
  debt: string;
}

export interface ChargeSplit {
  gross: string;
  fee: string;
  net: string;
  /** False when the charge had been recorded before: nothing was posted this time. */
  created: boolean;
}

/** A payout as the ledger records it: TRY minor units debited from the available balance. */
export interface PayoutForLedger extends LedgerOwner {
  /**
   * TRY minor units of `amount` kept as FX revenue (the spread): the whole amount is in transit until the
   * payout is paid, when the spread goes to `fx_revenue` and the rest to payout clearing. Absent: none.
   */
  spread?: string;
  id: string;
  /** Minor units, decimal string. */
  amount: string;
}

/** A release of pending funds into the available balance (a settlement batch). */
export interface ReleaseForLedger extends LedgerOwner {
  /** The batch's id: the entry is written once per batch. */
  id: string;
  /** Minor units, decimal string, positive. */
  amount: string;
}

export type PayoutDebit =
  { ok: true; created: boolean; availableAfter: string } | { ok: false; available: string };

export interface Ledger {
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
  pendingCredits(trx: Trx, owner: LedgerOwner, after: Date, upTo: Date): Promise<PendingCredit[]>;
  /** The owners with charge or refund entries created in (after, upTo]: whom a settlement run visits. */
  ownersWithCredits(after: Date, upTo: Date): Promise<LedgerOwner[]>;
  /**
   * Takes the owner's available-balance lock (the one `postPayoutCreated` takes) until the end of the
   * caller's transaction, and answers the available balance under it, as decimal text.
   */
  lockedAvailable(trx: Trx, owner: LedgerOwner): Promise<string>;
  /**
   * The set-based forms of a settlement chunk (docs/decisions/0041-settlement-chunks.md), each in the
   * caller's transaction. `lockBalances`: the pending- and available-balance locks of these owners (those
   * `postRelease` and `postPayoutCreated` take), all pending ones then all available ones, each in the
   * owners' order (the caller sorts them). `availableOf`: each owner's available balance (key
   * `organizationId:environment`); the caller holds the locks. `pendingCreditsOf`: `pendingCredits` of
   * every owner at once, each owner from its own `after`, each credit with its owner.
   */
  lockBalances(trx: Trx, owners: readonly LedgerOwner[]): Promise<void>;
  availableOf(trx: Trx, owners: readonly LedgerOwner[]): Promise<Map<string, bigint>>;
  pendingCreditsOf(
    trx: Trx,
    owners: ReadonlyArray<LedgerOwner & { after: Date }>,
    upTo: Date,
  ): Promise<Array<PendingCredit & LedgerOwner>>;
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
   * recorded them, by charge id (exports, issue 15 item 4); a charge without an entry is absent.
   */
  chargeFees(owner: LedgerOwner, chargeIds: readonly string[]): Promise<Map<string, ChargeFee>>;
  /**
   * Balances derived from postings, per currency (a TRY row always), for one organization and environment:
   * each account's checkpoint plus its postings since (constant time in the owner's history).
   */
  balance(owner: LedgerOwner): Promise<Balance[]>;
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
  chargeEntries(owner: LedgerOwner, chargeId: string, refundIds: readonly string[]): Promise<EntryLines[]>;
}

/**
 * The fee rate of an organization's payment method, read in the caller's transaction. The fee schedule
 * belongs to the organizations module (its `fee_schedules` table, with the onboarding default for an
 * organization without a row); the ledger is given this function instead of reading that table.
 */
export type FeesFor = (trx: Trx, organizationId: string, method: PaymentMethod) => Promise<FeeRate>;

export interface LedgerDeps {
  db: Kdb;
  clock: Clock;
  feesFor: FeesFor;
}

const CURRENCY = 'TRY';
const MAX_BIGINT = 9_223_372_036_854_775_807n;

export function createLedger(deps: LedgerDeps): Ledger {
  const { db, clock } = deps;

  /**
   * Writes the entry and its postings unless the entry exists. The postings are built only once the
   * entry is ours, so a repeated call costs one conflicting insert and one read.
   */
  async function postOnce(
    trx: Trx,
    entry: NewEntry,
    postings: () => Promise<Posting[]>,
  ): Promise<{ created: true; postings: Posting[] } | { created: false; existing: StoredEntry }> {
    if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
    const now = clock.now();
    const entryId = await insertEntryOnce(trx, entry, now);
    if (entryId === undefined) {
      const existing = await findEntry(trx, entry.kind, entry.sourceId);
      if (!existing)
        throw new Error(`journal entry ${entry.kind} ${entry.sourceId} conflicted but is not visible`);
      assertSameOwner(existing, entry);
      return { created: false, existing };
    }
    const lines = (await postings()).filter((posting) => posting.amount !== 0n);
    await insertPostings(trx, entryId, entry, lines, now);
    return { created: true, postings: lines };
  }

  return {
    chargeEntries: (owner, chargeId, refundIds) =>
      findEntriesOf(db, owner, [
        { kind: 'charge_succeeded', sourceId: chargeId },
        ...refundIds.map((id) => ({ kind: 'refund' as const, sourceId: id })),
      ]),

    async postChargeSucceeded(trx, charge) {
      const gross = parseAmount(charge.amount, `charge ${charge.id}`);
      const entry = {
        ...newEntry(charge, 'charge_succeeded', charge.id),
        charge: { id: charge.id, merchantReference: charge.merchantReference },
      };
      const outcome = await postOnce(trx, entry, async () => {
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
        throw new Error(
          `charge ${charge.id} was recorded with amount ${split.gross}, now reported as ${gross}`,
        );
      return {
        gross: split.gross.toString(),
        fee: split.fee.toString(),
        net: split.net.toString(),
        created: outcome.created,
      };
    },

    async postRefund(trx, refund) {
      const amount = parseAmount(refund.amount, `refund ${refund.id}`);
      if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
      await lockPendingBalance(trx, refund, CURRENCY);
      const entry = {
        ...newEntry(refund, 'refund', refund.id),
        charge: { id: refund.chargeId, merchantReference: refund.merchantReference },
      };
      const outcome = await postOnce(trx, entry, async () => [
        { account: 'merchant_pending', amount },
        { account: 'acquirer_clearing', amount: -amount },
      ]);
      if (!outcome.created && sumOf(outcome.existing.postings, 'merchant_pending') !== amount)
        throw new Error(`refund ${refund.id} was recorded with another amount than ${amount}`);
      return { created: outcome.created, pendingAfter: await sumPending(trx, refund, CURRENCY) };
    },

    async postRelease(trx, release) {
      const amount = parseAmount(release.amount, `release ${release.id}`);
      if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
      await lockPendingBalance(trx, release, CURRENCY);
      const outcome = await postOnce(trx, newEntry(release, 'settlement_batch', release.id), async () => [
        { account: 'merchant_pending', amount },
        { account: 'merchant_available', amount: -amount },
      ]);
      if (!outcome.created)
        assertAmount(outcome.existing, 'merchant_pending', amount, `release ${release.id}`);
      return { created: outcome.created };
    },

    async postReserveHeld(trx, reserve) {
      const amount = parseAmount(reserve.amount, `reserve of ${reserve.id}`);
      const outcome = await postOnce(trx, newEntry(reserve, 'reserve_held', reserve.id), async () => [
        { account: 'merchant_available', amount },
        { account: 'merchant_reserve', amount: -amount },
      ]);
      if (!outcome.created)
        assertAmount(outcome.existing, 'merchant_available', amount, `reserve of ${reserve.id}`);
      return { created: outcome.created };
    },

    async postReserveReleased(trx, reserve) {
      const amount = parseAmount(reserve.amount, `reserve release of ${reserve.id}`);
      const outcome = await postOnce(trx, newEntry(reserve, 'reserve_released', reserve.id), async () => [
        { account: 'merchant_reserve', amount },
        { account: 'merchant_available', amount: -amount },
      ]);
      if (!outcome.created)
        assertAmount(outcome.existing, 'merchant_reserve', amount, `reserve release of ${reserve.id}`);
      return { created: outcome.created };
    },

    async postPayoutCreated(trx, payout) {
      const amount = parseAmount(payout.amount, `payout ${payout.id}`);
      if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
      await lockAvailableBalance(trx, payout, CURRENCY);
      const existing = await findEntry(trx, 'payout_created', payout.id);
      if (existing) {
        assertSameOwner(existing, newEntry(payout, 'payout_created', payout.id));
        assertAmount(existing, 'merchant_available', amount, `payout ${payout.id}`);
        return { ok: true, created: false, availableAfter: await sumAvailable(trx, payout, CURRENCY) };
      }
      const available = BigInt(await sumAvailable(trx, payout, CURRENCY));
      if (available < amount) return { ok: false, available: available.toString() };
      await postOnce(trx, newEntry(payout, 'payout_created', payout.id), async () => [
        { account: 'merchant_available', amount },
        { account: 'merchant_in_transit', amount: -amount },
      ]);
      return { ok: true, created: true, availableAfter: (available - amount).toString() };
    },

    async postPayoutPaid(trx, payout) {
      const amount = parseAmount(payout.amount, `payout ${payout.id}`);
      // The FX spread is revenue once the payout is paid: the rest of it is what left for the wallet.
      const { sent, spread } = splitOf(payout, amount);
      const outcome = await postOnce(trx, newEntry(payout, 'payout_paid', payout.id), async () => [
        { account: 'merchant_in_transit', amount },
        { account: 'payout_clearing', amount: -sent },
        ...(spread > 0n ? [{ account: 'fx_revenue' as const, amount: -spread }] : []),
      ]);
      if (!outcome.created)
        assertAmount(outcome.existing, 'merchant_in_transit', amount, `payout ${payout.id}`);
      return { created: outcome.created };
    },

    async postPayoutReturned(trx, payout) {
      const amount = parseAmount(payout.amount, `payout ${payout.id}`);
      if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
      if (await findEntry(trx, 'payout_paid', payout.id))
        throw new Error(`payout ${payout.id} was paid out; it cannot be returned`);
      const outcome = await postOnce(trx, newEntry(payout, 'payout_returned', payout.id), async () => [
        { account: 'merchant_in_transit', amount },
        { account: 'merchant_available', amount: -amount },
      ]);
      if (!outcome.created)
        assertAmount(outcome.existing, 'merchant_in_transit', amount, `payout ${payout.id}`);
      return { created: outcome.created };
    },

    pendingCredits(trx, owner, after, upTo) {
      return findPendingCredits(
        trx,
        { organizationId: owner.organizationId, environment: owner.environment },
        after,
        upTo,
      );
    },

    ownersWithCredits: (after, upTo) => findOwnersWithCredits(db, after, upTo),
    clearingMovements: (environment, from, to) => findClearingMovements(db, environment, from, to),
    clearingMovementsOf: (kind, sourceIds) => findClearingMovementsOf(db, kind, sourceIds),

    chargeFees: (owner, chargeIds) => findChargeFees(db, owner, chargeIds),

    async lockedAvailable(trx, owner) {
      if (!trx.isTransaction)
        throw new Error('the available balance is locked inside the caller transaction');
      await lockAvailableBalance(trx, owner, CURRENCY);
      return sumAvailable(trx, owner, CURRENCY);
    },

    async lockBalances(trx, owners) {
      if (!trx.isTransaction) throw new Error('balance locks are taken inside the caller transaction');
      await lockKeys(trx, [
        ...owners.map((owner) => pendingLockKey(owner, CURRENCY)),
        ...owners.map((owner) => availableLockKey(owner, CURRENCY)),
      ]);
    },

    async availableOf(trx, owners) {
      const balances = await accountBalanceOf(trx, owners, 'merchant_available', CURRENCY);
      return new Map([...balances].map(([key, balance]) => [key, -balance]));
    },

    pendingCreditsOf: (trx, owners, upTo) => findPendingCreditsOf(trx, owners, upTo),

    async postReleases(trx, releases) {
      const entries = releases.map((release) => {
        const amount = parseAmount(release.amount, `release ${release.id}`);
        return {
          owner: { organizationId: release.organizationId, environment: release.environment },
          sourceId: release.id,
          postings: [
            { account: 'merchant_pending' as const, amount },
            { account: 'merchant_available' as const, amount: -amount },
          ],
        };
      });
      const written = await insertEntriesWithPostings(
        trx,
        'settlement_batch',
        entries,
        CURRENCY,
        clock.now(),
      );
      if (written.size !== entries.length)
        throw new Error(`${entries.length - written.size} release entries existed already`);
    },

    async postPayoutsCreated(trx, payouts) {
      const entries = payouts.map((payout) => {
        const amount = parseAmount(payout.amount, `payout ${payout.id}`);
        return {
          owner: { organizationId: payout.organizationId, environment: payout.environment },
          sourceId: payout.id,
          postings: [
            { account: 'merchant_available' as const, amount },
            { account: 'merchant_in_transit' as const, amount: -amount },
          ],
        };
      });
      const written = await insertEntriesWithPostings(trx, 'payout_created', entries, CURRENCY, clock.now());
      if (written.size !== entries.length)
        throw new Error(`${entries.length - written.size} payout entries existed already`);
    },

    async balance(owner) {
      const row = await sumMerchantBalances(db, owner, CURRENCY);
      // The pending account's sum below zero is a debt, not a negative amount waiting to settle: shown
      // once, as `debt`, never also in `pending` (docs/decisions/0069-money-pages.md).
      const pending = BigInt(row.pending);
      return [{ ...row, pending: (pending > 0n ? pending : 0n).toString(), debt: debtOf(row.pending) }];
    },

    async advanceCheckpoints() {
      return db.transaction().execute((trx) => advanceCheckpoints(trx, clock.now()));
    },

    async negativePendingBalances(limit = 100) {
      return (await findNegativePending(db, limit)).map((row) => ({ ...row, debt: debtOf(row.pending) }));
    },
  };
}

/** What a pending balance below zero means: the merchant owes its opposite. */
function debtOf(pending: string): string {
  return BigInt(pending) < 0n ? (-BigInt(pending)).toString() : '0';
}

function newEntry(owner: LedgerOwner, kind: JournalEntryKind, sourceId: string): NewEntry {
  return {
    owner: { organizationId: owner.organizationId, environment: owner.environment },
    kind,
    sourceId,
    currency: CURRENCY,
  };
}

/** Amounts arrive as the decimal strings of bigint columns; anything else is a caller's bug. */
/** A paid payout's amount as it splits: what was sent (at the market rate), and the FX spread kept. */
function splitOf(payout: PayoutForLedger, amount: bigint): { sent: bigint; spread: bigint } {
  const spread = payout.spread === undefined || payout.spread === '0' ? 0n : BigInt(payout.spread);
  if (spread < 0n || spread >= amount)
    throw new RangeError(`payout ${payout.id}: a spread of ${spread} does not fit its amount ${amount}`);
  return { sent: amount - spread, spread };
}

function parseAmount(value: string, what: string): bigint {
  if (!/^[1-9][0-9]*$/.test(value)) throw new TypeError(`${what}: amount must be a positive decimal string`);
  const amount = BigInt(value);
  if (amount > MAX_BIGINT) throw new RangeError(`${what}: amount ${value} exceeds a PostgreSQL bigint`);
  return amount;
}

function sumOf(postings: Posting[], account: Posting['account']): bigint {
  return postings.reduce(
    (total, posting) => (posting.account === account ? total + posting.amount : total),
    0n,
  );
}

/** A repeated entry must carry the amount it was first recorded with on `account` (a debit there). */
function assertAmount(
  existing: StoredEntry,
  account: Posting['account'],
  amount: bigint,
  what: string,
): void {
  if (sumOf(existing.postings, account) !== amount)
    throw new Error(`${what} was recorded with another amount than ${amount}`);
}

function assertSameOwner(existing: StoredEntry, entry: NewEntry): void {
  const { organizationId, environment } = existing.owner;
  if (organizationId !== entry.owner.organizationId || environment !== entry.owner.environment)
    throw new Error(
      `journal entry ${entry.kind} ${entry.sourceId} belongs to another organization or environment`,
    );
}
