import type { CheckoutServiceDeps } from './deps.js';
import { syncQuietly } from './acquirer-problems.js';

/** The customer's browser is back from the 3-D Secure page: reads the payment back. */
export async function returnFromChallenge(
  deps: CheckoutServiceDeps,
  paymentId: string,
): Promise<'found' | 'not_found'> {
  const charge = await deps.completion.findByPaymentId(paymentId);
  if (!charge) return 'not_found';
  if (charge.status === 'pending') await syncQuietly(deps, charge, 'return');
  return 'found';
}
