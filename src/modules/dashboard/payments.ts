import type { App } from '../../http/server.js';
import { guardedRoute, pageRoute, registerPages, SETTINGS_POST } from './kit.js';
import { PaymentListRoute, showPayments } from './payment-list.js';
import { ChargeRetryRoute, ChargeRoute, reader, retryChargeDelivery, showCharge } from './payment-pages.js';
import { confirmRefund, refund, RefundConfirmRoute, RefundRoute } from './payment-refund.js';
import type { DashboardPaymentPagesOptions } from './payment-options.js';

const CHARGE = '/dashboard/payments/:id';

/**
 * The Payments pages of the merchant dashboard: the charges of the session's environment, filtered,
 * sorted and cursor paged; the charge page with its timeline, refunds, events, webhook deliveries (with
 * retry) and ledger lines; and a refund of all or part of it, with a confirmation step, for owners and
 * admins, through the refunds service the API uses. Every role reads; another organization's or
 * environment's charge is 404. Card numbers and ID numbers are never shown: the card is its brand and
 * last four digits.
 */
export async function paymentPages(app: App, options: DashboardPaymentPagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/payments', PaymentListRoute, reader, showPayments),
    guardedRoute('GET', CHARGE, ChargeRoute, reader, showCharge),
    guardedRoute('GET', `${CHARGE}/refund`, RefundConfirmRoute, reader, confirmRefund),
    pageRoute('POST', `${CHARGE}/refund`, RefundRoute, refund, SETTINGS_POST),
    pageRoute(
      'POST',
      `${CHARGE}/deliveries/:deliveryId/retry`,
      ChargeRetryRoute,
      retryChargeDelivery,
      SETTINGS_POST,
    ),
  ]);
}
