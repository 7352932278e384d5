import type { Trx } from '../../db/database.js';
import type { Network } from '../../db/schema.js';
import type { PayoutDebit } from '../ledger/types.js';
import type { Owner } from '../../shared/owner.js';

/** Who did an operator's payout command, for its audit entry. */
export interface PayoutActor {
  /** `staff:stf_…`, `cli` or `system`. */
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

export interface PayoutDestination {
  walletId: string;
  network: Network;
  address: string;
}

export type DestinationRefusal =
  /** No wallet given and no active default wallet. */
  | 'no_default_wallet'
  /** The given wallet does not exist or is another organization's or environment's. */
  | 'wallet_not_found'
  /** The given wallet is pending (change controls), archived or canceled. */
  | 'wallet_not_active';

/** The wallets module's answer to "where does this payout go?". */
export interface PayoutWallets {
  /**
   * In the caller's transaction: the given wallet when it is the owner's and active, or else the owner's
   * default wallet as it stands now: a change whose cool-down has not passed has not taken effect, so a
   * payout during the cool-down goes to the previous default.
   */
  destination(
    trx: Trx,
    owner: Owner,
    walletId: string | undefined,
  ): Promise<{ ok: true; wallet: PayoutDestination } | { ok: false; reason: DestinationRefusal }>;
  /**
   * In the caller's transaction, for many owners at once (a settlement chunk): each owner's active
   * default wallet (key `organizationId:environment`), as `destination(trx, owner, undefined)` answers
   * when it finds no change due. An owner with a wallet change whose cool-down has passed is absent (its
   * `destination` applies the change first), and so is one without an active default wallet.
   */
  defaultDestinations(trx: Trx, owners: readonly Owner[]): Promise<Map<string, PayoutDestination>>;
}

/** A charge (with its fee) or a refund a settlement item released: a payout's line, a statement's line. */
export interface ReleasedLine {
  /** The settlement item's id. */
  id: string;
  type: 'charge' | 'refund' | 'dispute' | 'recovery';
  /** `ch_…` or `re_…`; a dispute's movement (`dmv_…`) or `<dispute id>:<stage>` (its fee). */
  sourceId: string;
  chargeId: string;
  merchantReference: string | null;
  /** TRY minor units, decimal strings: gross (negative for a refund), fee, and net = amount - fee. */
  amount: string;
  fee: string;
  net: string;
}

/** One line of `GET /v1/payouts/{id}/transactions`: a charge (with its fee) or a refund the payout carries. */
export interface PayoutTransaction extends ReleasedLine {
  currency: 'TRY';
  /** When the charge succeeded or the refund was made. */
  createdAt: string;
  /** When the settlement batch made it available. */
  availableAt: string;
}

/** The settlement module's record of which balance transactions each payout carries. */
export interface PayoutContents {
  /**
   * In the payout's creating transaction: the owner's released balance transactions not yet carried by a
   * payout now belong to this one (the transactions made available since the previous payout).
   */
  attach(trx: Trx, owner: Owner, payoutId: string): Promise<number>;
  /** `attach` of many payouts (of distinct owners) in one statement. */
  attachMany(trx: Trx, payouts: ReadonlyArray<Owner & { payoutId: string }>): Promise<number>;
  /** A failed or canceled payout gives its transactions back to the next payout. */
  detach(trx: Trx, payoutId: string): Promise<void>;
  /** The payout's transactions in keyset order (availableAt, id), `limit` at most, after `after` (an item id). */
  list(payoutId: string, page: { limit: number; after?: string }): Promise<PayoutTransaction[]>;
}

/**
 * The settlement module's declared closures (ADR 0017: a business day is Monday to Friday, not a public
 * holiday, not a declared closure), for a payout's `arrivalDate`.
 */
export interface PayoutClosures {
  /** In the caller's transaction: the dates from `from` to `to` (YYYY-MM-DD, inclusive) declared closed. */
  between(trx: Trx, from: string, to: string): Promise<ReadonlySet<string>>;
}

/** A payout as the ledger posts it: TRY debited, and the part of it kept as the FX spread. */
export type LedgerPayout = { id: string; amount: string; spread?: string } & Owner;

/** What payouts need of the ledger (src/modules/ledger): the three entries of a payout's life. */
export interface PayoutLedger {
  /**
   * Takes the owner's available-balance lock (the one `postPayoutCreated` takes) for the rest of the
   * caller's transaction and answers the available balance under it.
   */
  lockedAvailable(trx: Trx, owner: Owner): Promise<string>;
  postPayoutCreated(trx: Trx, payout: LedgerPayout): Promise<PayoutDebit>;
  postPayoutPaid(trx: Trx, payout: LedgerPayout): Promise<{ created: boolean }>;
  postPayoutReturned(trx: Trx, payout: LedgerPayout): Promise<{ created: boolean }>;
  /** `postPayoutCreated` of many new payouts, under the owners' locks taken by the caller. */
  postPayoutsCreated(trx: Trx, payouts: readonly LedgerPayout[]): Promise<void>;
}
