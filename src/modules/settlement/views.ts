import type { BatchRow } from './model.js';

/** What a batch released, as its view and its statement give it: the date, its cutoff, TRY minor units. */
export interface BatchTotals {
  businessDate: string;
  cutoff: string;
  gross: string;
  fees: string;
  refunds: string;
  net: string;
  itemCount: number;
}

/** A released batch as the API shows it. */
export interface BatchView extends BatchTotals {
  id: string;
  object: 'settlement_batch';
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

/** A batch as the API, the dashboard and the `balance.settled` event show it. */
export function batchView(row: BatchRow): BatchView {
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
