import type { Network, PayoutRailName } from '../../../db/schema.js';

/**
 * The payout rails (product decision 26, docs/decisions/0028-payouts.md). A rail sends USDT; a chain
 * watcher tells what the chain did with a transaction. The gateway never holds a private key for live
 * money: the live rail is the treasury (operators sign and send outside), and only the sandbox chain is
 * asked to send.
 */

/** One transfer, identified by the payout id: the rail's idempotency key. */
export interface TransferRequest {
  payoutId: string;
  network: Network;
  address: string;
  /** USDT minor units (6 decimals), decimal string. */
  amount: string;
}

/** What a rail knows of the transfer for a payout id. */
export type TransferState =
  /** Never seen: it was not sent (a crash before the rail got the request). */
  | { state: 'unknown' }
  /** Broadcast, awaiting confirmations. */
  | { state: 'pending'; txHash: string; confirmations: number }
  | { state: 'confirmed'; txHash: string; confirmations: number; confirmedAt: string }
  /** Refused or reverted: nothing was paid. */
  | { state: 'failed'; txHash: string | null; code: string; message: string }
  /** Dropped from the mempool, never mined: nothing was paid. */
  | { state: 'dropped'; txHash: string };

/** A rail that sends transfers itself (the sandbox chain). */
export interface SendingRail {
  readonly name: PayoutRailName;
  /**
   * Sends the transfer, or returns the one already sent for this payout id: never a second transfer.
   * Throws `RailUnavailableError` when the rail cannot be reached or answers 5xx, `RailRejectedError`
   * when it refuses the transfer (nothing was sent).
   */
  submit(request: TransferRequest): Promise<{ txHash: string }>;
  /** What the rail knows of the payout id: how a crash between submit and record is recovered. */
  lookup(payoutId: string): Promise<TransferState>;
}

/** What the chain says of a transaction hash (the treasury rail's confirmations). */
export type ChainTransaction =
  | { state: 'not_found' }
  | {
      state: 'pending' | 'confirmed' | 'failed';
      txHash: string;
      confirmations: number;
      /** The token transfer the transaction carries, to check it against the payout. */
      to: string;
      /** USDT minor units, decimal string. */
      amount: string;
      confirmedAt?: string;
    };

/** A block explorer's view of a network. */
export interface ChainWatcher {
  transaction(network: Network, txHash: string): Promise<ChainTransaction>;
}

export class RailUnavailableError extends Error {
  override readonly name = 'RailUnavailableError';
}

export class RailRejectedError extends Error {
  override readonly name = 'RailRejectedError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
