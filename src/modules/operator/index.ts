import type { SettlementBatches } from '../settlement/batch.js';
import type { Kdb } from '../../db/database.js';
import type { App } from '../../http/server.js';
import type { SessionManager } from '../../http/session.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Renderer } from '../../web/render.js';
import type { ApiKeyService } from '../api-keys/index.js';
import type { AuditLog } from '../audit/service.js';
import type { Mailer } from '../email/service.js';
import type { Ledger } from '../ledger/service.js';
import type { OrganizationAdminService, UnderwritingService } from '../organizations/service.js';
import { operatorAlertRoutes } from './alert-routes.js';
import type { OperatorAlerts } from './alerts.js';
import { operatorApiRoutes } from './api-routes.js';
import { registerOperatorAuth } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { consoleRenderer } from './console-page.js';
import { operatorConsoleRoutes } from './console-routes.js';
import { operatorJobRoutes } from './job-routes.js';
import { registerOperatorOpenApi } from './openapi.js';
import type { StaffService } from './staff.js';
import type { JobKit } from '../../worker/kit.js';
import type { WalletService } from '../wallets/service.js';
import type { WalletOperatorCommands } from './wallet-commands.js';
import { operatorWalletRoutes } from './wallet-routes.js';
import { operatorPayoutRoutes } from './payout-routes.js';
import { operatorRefundRoutes } from './refund-routes.js';
import type { RefundService } from '../refunds/service.js';
import { operatorSettlementRoutes } from './settlement-routes.js';
import { operatorReconciliationRoutes } from './reconciliation-routes.js';
import type { Reconciliation } from '../reconciliation/service.js';
import type { PayoutService } from '../payouts/service.js';
import { operatorPaymentRoutes, type MerchantViewDeps } from './merchant-view.js';

export interface OperatorModuleOptions {
  commands: OperatorCommands;
  staff: StaffService;
  underwriting: UnderwritingService;
  organizations: OrganizationAdminService;
  apiKeys: ApiKeyService;
  alerts: OperatorAlerts;
  ledger: Pick<Ledger, 'negativePendingBalances'>;
  mailer: Mailer;
  audit: AuditLog;
  db: Kdb;
  sessions: SessionManager;
  cursors: CursorCodec;
  /** The job kit's run log and parked rows (the console's jobs page). */
  jobs: JobKit;
  /** Wallet change controls (issue 13): the pending changes and the operator's wallet commands. */
  wallets?: { service: Pick<WalletService, 'listChanges'>; commands: WalletOperatorCommands };
  /** Payouts (issue 13): the queue, the treasury rail's export and recording, cancelation, minimums. */
  payouts?: PayoutService;
  /** Held refunds settled by hand (ADR 0063). */
  refunds?: Pick<RefundService, 'settleHeld'>;
  /** The daily settlement (issue 14): batches, runs of a date, closures, payout schedules. */
  settlement?: SettlementBatches;
  /** The daily reconciliation of the acquirers' settlement reports with the ledger (issue 14). */
  reconciliation?: Reconciliation;
  /**
   * What the merchant view of an organization and the payment search read (issue 15 item 7): charges,
   * their daily activity, balances, batches, payouts, webhook health and branding, each through its service.
   */
  merchants: Omit<MerchantViewDeps, 'audit' | 'db'>;
  renderer: Renderer;
  /** The operator listener's public base URL (the OpenAPI document's server). */
  baseUrl: () => string;
  /** The local CLI's bearer token for the operator API (embedded database only); undefined disables it. */
  cliToken: string | undefined;
}

/** The operator console and operator API, on the operator listener (issue 3). */
export async function operatorModule(app: App, options: OperatorModuleOptions): Promise<void> {
  const { commands } = options;
  const renderer = consoleRenderer(options.renderer, options.staff);
  // The console's pages name the staff behind each action (not the API's JSON, which keeps the ids). Any
  // console request may render a page (a refused form is shown again), so each reads the names: one
  // small query of the staff table.
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/operator/v1') && !request.url.startsWith('/assets'))
      await renderer.refresh();
  });
  await registerOperatorOpenApi(app, { baseUrl: options.baseUrl });
  registerOperatorAuth(app, { sessions: options.sessions, staff: options.staff, cliToken: options.cliToken });
  const deps = {
    commands,
    staff: options.staff,
    underwriting: options.underwriting,
    organizations: options.organizations,
    apiKeys: options.apiKeys,
    mailer: options.mailer,
    audit: options.audit,
    db: options.db,
    sessions: options.sessions,
    cursors: options.cursors,
    merchants: { ...options.merchants, audit: options.audit, db: options.db },
  };
  await app.register(operatorApiRoutes, deps);
  await app.register(operatorConsoleRoutes, { ...deps, renderer });
  await app.register(operatorPaymentRoutes, { ...deps.merchants, renderer });
  await app.register(operatorAlertRoutes, {
    alerts: options.alerts,
    ledger: options.ledger,
    commands,
    renderer,
  });
  await app.register(operatorJobRoutes, { jobs: options.jobs, renderer });
  if (options.wallets) {
    await app.register(operatorWalletRoutes, {
      wallets: options.wallets.service,
      commands: options.wallets.commands,
      renderer,
    });
  }
  if (options.payouts) await app.register(operatorPayoutRoutes, { payouts: options.payouts, renderer });
  if (options.refunds) await app.register(operatorRefundRoutes, { refunds: options.refunds });
  if (options.settlement)
    await app.register(operatorSettlementRoutes, { batches: options.settlement, renderer });
  if (options.reconciliation) {
    await app.register(operatorReconciliationRoutes, { reconciliation: options.reconciliation, renderer });
  }
}
