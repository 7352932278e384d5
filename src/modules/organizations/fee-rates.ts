import type { Trx } from '../../db/database.js';
import type { PaymentMethod } from '../../db/schema.js';
import { listFeeSchedule } from './repository.js';
import { DEFAULT_FEES } from './types.js';

/**
 * The rate an organization pays for a payment method, read in the caller's transaction: its own
 * `fee_schedules` row, or the schedule underwriting gives every newly approved merchant. What the ledger
 * is given (`feesFor`) instead of reading this module's table.
 */
export async function feeRateIn(
  trx: Trx,
  organizationId: string,
  method: PaymentMethod,
): Promise<{ basisPoints: number; fixedMinor: bigint }> {
  const own = (await listFeeSchedule(trx, organizationId)).find((fee) => fee.paymentMethod === method);
  return own ?? DEFAULT_FEES[method];
}
