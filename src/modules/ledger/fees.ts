import type { PaymentMethod } from '../../db/schema.js';
import { applyBasisPoints, minor, type Minor } from '../../shared/money.js';
import { DEFAULT_FEES } from '../organizations/types.js';

export interface FeeRate {
  /** 0 to 10000: hundredths of a percent of the amount. */
  basisPoints: number;
  /** Added to the proportional part, in minor units. */
  fixedMinor: bigint;
}

/**
 * The rate of a payment method for an organization without its own `fee_schedules` row: the schedule
 * underwriting gives every newly approved merchant (organizations/types.ts), so that a merchant created
 * another way (a script, a test) pays what an approved one would.
 */
export function defaultFeeRate(method: PaymentMethod): FeeRate {
  return DEFAULT_FEES[method];
}

/**
 * Product decision 21: fee = round-half-up(amount × basisPoints / 10000) + fixedMinor, capped at the
 * amount; net = amount − fee. Money arithmetic of `src/shared/money.ts` (bigint minor units, the
 * rounding named), so any amount PostgreSQL's bigint holds (and beyond) is exact.
 */
export function computeFee(
  amount: bigint,
  basisPoints: number,
  fixedMinor: bigint,
): { fee: bigint; net: bigint } {
  if (amount < 0n) throw new RangeError(`amount must not be negative, got ${amount}`);
  if (fixedMinor < 0n) throw new RangeError(`fixedMinor must not be negative, got ${fixedMinor}`);

  const gross: Minor<'TRY'> = minor('TRY', amount);
  const proportional = applyBasisPoints(gross, basisPoints, 'half-up');
  const uncapped = proportional + fixedMinor;
  const fee = uncapped > amount ? amount : uncapped;
  return { fee, net: amount - fee };
}
