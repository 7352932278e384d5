import type { ChargeStatus } from '../../db/schema.js';
import { afterAcquirerProblem, syncQuietly, type AcquirerProblem } from './acquirer-problems.js';
import type { CheckoutServiceDeps } from './deps.js';
import { bankTransferPage, effectiveStatus, type BankTransferPage } from './page.js';

export type TransferResult =
  | { outcome: 'show_page' }
  | { outcome: 'not_found' }
  | { outcome: 'acquirer_error'; page: BankTransferPage; problem: AcquirerProblem };

/** Entries of the status throttle kept at most; older ones are dropped first. */
const STATUS_THROTTLE_ENTRIES = 10_000;

/** Sync throttle of the status endpoint: real time, per process (a bound on acquirer calls, not business time). */
function statusSyncDue(
  deps: Pick<CheckoutServiceDeps, 'statusSyncIntervalMs'>,
  lastStatusSync: Map<string, number>,
  chargeId: string,
): boolean {
  const now = performance.now();
  const last = lastStatusSync.get(chargeId);
  if (last !== undefined && now - last < deps.statusSyncIntervalMs) return false;
  lastStatusSync.delete(chargeId);
  lastStatusSync.set(chargeId, now);
  while (lastStatusSync.size > STATUS_THROTTLE_ENTRIES) {
    const oldest = lastStatusSync.keys().next().value;
    if (oldest === undefined) break;
    lastStatusSync.delete(oldest);
  }
  return true;
}

/**
 * The status endpoint an open bank-transfer page polls. `lastStatusSync`: when each charge was last read
 * back from the acquirer (the factory's throttle).
 */
export async function paymentStatus(
  deps: CheckoutServiceDeps,
  lastStatusSync: Map<string, number>,
  paymentId: string,
): Promise<{ status: ChargeStatus; providerStatus: string | null } | undefined> {
  let charge = await deps.completion.findByPaymentId(paymentId);
  if (!charge) return undefined;
  // Notifications move the charge too; the read-back covers a lost or late one.
  if (effectiveStatus(deps, charge) === 'pending' && statusSyncDue(deps, lastStatusSync, charge.id)) {
    charge = await syncQuietly(deps, charge, 'status');
  }
  return { status: effectiveStatus(deps, charge), providerStatus: charge.provider_status };
}

/** Sandbox only: the sandbox acquirer receives the transfer. */
export async function simulateTransfer(
  deps: CheckoutServiceDeps,
  paymentId: string,
): Promise<TransferResult> {
  const { completion } = deps;
  const charge = await completion.findByPaymentId(paymentId);
  if (!charge || charge.environment !== 'sandbox' || charge.payment_method !== 'bank_transfer') {
    return { outcome: 'not_found' };
  }
  if (effectiveStatus(deps, charge) !== 'pending') return { outcome: 'show_page' };
  const acquirer = deps.acquirerFor('sandbox');
  if (!acquirer) return { outcome: 'acquirer_error', page: bankTransferPage(charge), problem: 'unavailable' };
  try {
    await completion.apply(charge.id, await acquirer.simulateTransfer(paymentId));
  } catch (error) {
    const { charge: after, problem } = await afterAcquirerProblem(deps, error, charge, 'simulate_transfer');
    // Refused because it is already paid (or failed): the page shows that.
    if (effectiveStatus(deps, after) !== 'pending') return { outcome: 'show_page' };
    return { outcome: 'acquirer_error', page: bankTransferPage(after), problem };
  }
  return { outcome: 'show_page' };
}
