import type { ChargeStatus } from '../../db/schema.js';
import { paymentStatus, simulateTransfer, type TransferResult } from './bank-transfer.js';
import type { CardForm } from './card.js';
import type { CheckoutServiceDeps } from './deps.js';
import { checkoutPage, type CheckoutPage } from './page.js';
import { payByCard, type CardPaymentResult } from './pay-by-card.js';
import { returnFromChallenge } from './three-d-secure-return.js';

export interface CheckoutService {
  page(paymentId: string): Promise<CheckoutPage>;
  /**
   * Checks the card, claims the attempt and forwards the card to the acquirer; the card is never kept.
   * While another attempt of the charge is at the acquirer, nothing is sent: the page says it is in
   * progress.
   */
  payByCard(paymentId: string, form: CardForm, returnUrl: string): Promise<CardPaymentResult>;
  /** The customer's browser is back from the 3-D Secure page: reads the payment back. */
  returned(paymentId: string): Promise<'found' | 'not_found'>;
  status(paymentId: string): Promise<{ status: ChargeStatus; providerStatus: string | null } | undefined>;
  /** Sandbox only: the sandbox acquirer receives the transfer. */
  simulateTransfer(paymentId: string): Promise<TransferResult>;
}

export function createCheckoutService(deps: CheckoutServiceDeps): CheckoutService {
  const lastStatusSync = new Map<string, number>();
  return {
    page: (paymentId) => checkoutPage(deps, paymentId),
    payByCard: (paymentId, form, returnUrl) => payByCard(deps, paymentId, form, returnUrl),
    returned: (paymentId) => returnFromChallenge(deps, paymentId),
    status: (paymentId) => paymentStatus(deps, lastStatusSync, paymentId),
    simulateTransfer: (paymentId) => simulateTransfer(deps, paymentId),
  };
}
