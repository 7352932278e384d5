import type { App } from '../../http/server.js';
import { balancePage, BalanceRoute, PayoutRoute, reader, showPayout } from './balance-pages.js';
import { confirmPayout, createPayout, PayoutConfirmRoute, PayoutCreateRoute } from './balance-payout.js';
import type { DashboardBalancePagesOptions } from './balance-options.js';
import { cursorOf, guardedRoute, pageRoute, registerPages, SETTINGS_POST } from './kit.js';

/**
 * "Balance and payouts" of the merchant dashboard: the balance cards of the session's environment (the
 * ledger's `balance`, as `GET /v1/balance`), the next batch with its cut-off from the settlement calendar
 * and what it is expected to settle, the payouts (as `GET /v1/payouts`), and each payout with its status
 * history, the batch it came from, its statement and the transactions it carries. The roles of
 * `readSettlements`; another organization's or environment's payout is 404. With the `payouts` flag,
 * owners and admins (`createPayouts`) also get a payout button: an amount, a confirmation step, then the
 * payouts service `POST /v1/payouts` uses, with the confirmation's one-time key as the payout's
 * idempotency key (docs/decisions/0069-money-pages.md).
 */
export async function balancePages(app: App, options: DashboardBalancePagesOptions): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', '/dashboard/balance', BalanceRoute, reader, (options, request, reply, current) =>
      balancePage(options, request, reply, current, 200, cursorOf(request.query.cursor)),
    ),
    guardedRoute('GET', '/dashboard/payouts/new', PayoutConfirmRoute, reader, confirmPayout),
    pageRoute('POST', '/dashboard/payouts', PayoutCreateRoute, createPayout, SETTINGS_POST),
    guardedRoute('GET', '/dashboard/payouts/:id', PayoutRoute, reader, showPayout),
  ]);
}
