import type { App } from '../../http/server.js';
import { DASHBOARD_RATE_LIMITS } from '../users/http.js';
import { PaymentListRoute, showPayments } from './payment-list.js';
import { ChargeRetryRoute, ChargeRoute, retryChargeDelivery, showCharge } from './payment-pages.js';
import { confirmRefund, refund, RefundConfirmRoute, RefundRoute } from './payment-refund.js';
import type { DashboardPaymentPagesOptions } from './payment-options.js';

/**
 * The Payments pages of the merchant dashboard: the charges of the session's environment, filtered,
 * sorted and cursor paged; the charge page with its timeline, refunds, events, webhook deliveries (with
 * retry) and ledger lines; and a refund of all or part of it, with a confirmation step, for owners and
 * admins, through the refunds service the API uses. Every role reads; another organization's or
 * environment's charge is 404. Card numbers and ID numbers are never shown: the card is its brand and
 * last four digits.
 */
export async function paymentPages(app: App, options: DashboardPaymentPagesOptions): Promise<void> {
  options.kit.handleErrors(app);
  const config = { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings };

  app.get('/dashboard/payments', { schema: PaymentListRoute }, (request, reply) =>
    showPayments(options, request, reply),
  );
  app.get('/dashboard/payments/:id', { schema: ChargeRoute }, (request, reply) =>
    showCharge(options, request, reply),
  );
  app.get('/dashboard/payments/:id/refund', { schema: RefundConfirmRoute }, (request, reply) =>
    confirmRefund(options, request, reply),
  );
  app.post('/dashboard/payments/:id/refund', { schema: RefundRoute, config }, (request, reply) =>
    refund(options, request, reply),
  );
  app.post(
    '/dashboard/payments/:id/deliveries/:deliveryId/retry',
    { schema: ChargeRetryRoute, config },
    (request, reply) => retryChargeDelivery(options, request, reply),
  );
}
