/** Product decision 23, in minor units as decimal strings. */
export interface Balance {
  currency: 'TRY';
  /**
   * Credited, awaiting the next settlement batch: the pending account's sum when above zero, `0`
   * otherwise (that sum below zero is `debt`, never also here).
   */
  pending: string;
  /** Batched, not paid out. */
  available: string;
  /** In a payout not yet completed. */
  inTransit: string;
  /** Held back by the rolling reserve, released to `available` by a later batch. */
  reserve: string;
  /**
   * How far the pending account's sum is below zero (refunds beyond what was left to settle), `0`
   * otherwise: the merchant owes it, and settlement recovers it from the next credits before batching
   * anything (docs/decisions/0014-refund-debt.md). At most one of `pending` and `debt` is above zero.
   */
  debt: string;
}
