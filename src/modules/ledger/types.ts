import type { Kdb, Trx } from '../../db/database.js';
import type { PaymentMethod } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { FeeRate } from './fees.js';
import type { Owner } from '../../shared/owner.js';

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
export interface PendingDebt extends Owner {
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
export interface PayoutForLedger extends Owner {
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
export interface ReleaseForLedger extends Owner {
  /** The batch's id: the entry is written once per batch. */
  id: string;
  /** Minor units, decimal string, positive. */
  amount: string;
}

export type PayoutDebit =
  { ok: true; created: boolean; availableAfter: string } | { ok: false; available: string };

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
