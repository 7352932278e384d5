import type { SettlementBatchService } from '../settlement/batch.js';
import type { Kdb } from '../../db/database.js';
import type { App } from '../../http/server.js';
import type { SessionManager } from '../../http/session.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Renderer } from '../../web/render.js';
import type { ApiKeyService } from '../api-keys/index.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import type { LedgerService } from '../ledger/service.js';
import type { OrganizationAdminService, UnderwritingService } from '../organizations/service.js';
import type { JobKit } from '../../worker/kit.js';
import type { WalletService } from '../wallets/service.js';
import type { RefundService } from '../refunds/service.js';
import type { ReconciliationService } from '../reconciliation/service.js';
import type { PayoutService } from '../payouts/service.js';
import type { OperatorAlerts } from './alerts.js';
import { operatorAlertApi } from './alerts-api.js';
import { operatorAlertConsole } from './alerts-console.js';
import { operatorApplicationApi } from './applications-api.js';
import { operatorApplicationConsole } from './applications-console.js';
import { operatorBinApi, type OperatorBins } from './bins-api.js';
import { operatorBinConsole } from './bins-console.js';
import { operatorDisputeRatioApi } from './dispute-ratios-api.js';
import { operatorDisputeRatioConsole } from './dispute-ratios-console.js';
import { operatorDisputeApi, type OperatorDisputes } from './disputes-api.js';
import { operatorDisputeConsole } from './disputes-console.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import { registerOperatorAuth } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { consoleRenderer, createConsoleKit } from './console-kit.js';
import { operatorJobApi } from './jobs-api.js';
import { operatorJobConsole } from './jobs-console.js';
import { operatorPaymentRoutes, type MerchantViewDeps } from './merchant-view.js';
import { registerOperatorOpenApi } from './openapi.js';
import { operatorDemoMerchantApi, operatorOrganizationApi } from './organizations-api.js';
import { operatorOrganizationConsole } from './organizations-console.js';
import { operatorPayoutApi } from './payouts-api.js';
import { operatorPayoutConsole } from './payouts-console.js';
import { operatorReconciliationApi } from './reconciliation-api.js';
import { operatorReconciliationConsole } from './reconciliation-console.js';
import { operatorRecordsApi } from './records-api.js';
import { operatorRecordsConsole } from './records-console.js';
import { operatorRefundApi } from './refunds-api.js';
import { operatorSettlementApi } from './settlement-api.js';
import { operatorSettlementConsole } from './settlement-console.js';
import { operatorSignInConsole } from './sign-in-console.js';
import { operatorSessionApi, operatorStaffAccountApi } from './staff-api.js';
import type { StaffService } from './staff.js';
import type { WalletOperatorCommands } from './wallet-commands.js';
import { operatorWalletApi } from './wallets-api.js';
import { operatorWalletConsole } from './wallets-console.js';

export interface OperatorModuleOptions {
  commands: OperatorCommands;
  staff: StaffService;
  underwriting: UnderwritingService;
  organizations: OrganizationAdminService;
  apiKeys: ApiKeyService;
  alerts: OperatorAlerts;
  ledger: Pick<LedgerService, 'negativePendingBalances'>;
  mailer: EmailService;
  audit: AuditLog;
  db: Kdb;
  sessions: SessionManager;
  cursors: CursorCodec;
  /** The job kit's run log and parked rows (the console's jobs page). */
  jobs: JobKit;
  /** Wallet change controls: the pending changes and the operator's wallet commands. */
  wallets?: { service: Pick<WalletService, 'listChanges'>; commands: WalletOperatorCommands };
  /** Payouts: the queue, the treasury rail's export and recording, cancelation, minimums. */
  payouts?: PayoutService;
  /** Held refunds settled by hand (ADR 0063). */
  refunds?: Pick<RefundService, 'settleHeld'>;
  /** The daily settlement: batches, runs of a date, closures, payout schedules. */
  settlement?: SettlementBatchService;
  /** The daily reconciliation of the acquirers' settlement reports with the ledger. */
  reconciliation?: ReconciliationService;
  /** The disputes queue across merchants (docs/disputes.md). */
  disputes?: OperatorDisputes;
  /** The card schemes' ratios: the watchlist, an organization's figures, the settings (docs/dispute-ratios.md). */
  disputeRatios?: DisputeRatioService;
  /** The BIN table: its rows, the lookup and the CSV load (docs/risk.md, "The BIN table"). */
  bins?: OperatorBins;
  /**
   * What the merchant view of an organization and the payment search read: charges,
   * their daily activity, balances, batches, payouts, webhook health and branding, each through its service.
   */
  merchants: Omit<MerchantViewDeps, 'audit' | 'db'>;
  renderer: Renderer;
  /** The operator listener's public base URL (the OpenAPI document's server). */
  baseUrl: () => string;
  /** The local CLI's bearer token for the operator API (embedded database only); undefined disables it. */
  cliToken: string | undefined;
}

/**
 * What the operator API and the underwriting console read (the services) and write (the commands, each
 * audited).
 */
type CoreDeps = Pick<
  OperatorModuleOptions,
  | 'commands'
  | 'staff'
  | 'underwriting'
  | 'organizations'
  | 'apiKeys'
  | 'mailer'
  | 'audit'
  | 'db'
  | 'sessions'
  | 'cursors'
>;

/** The operator API: the same operations as the console, as JSON, for scripts and the CLI. */
async function operatorApi(app: App, deps: CoreDeps): Promise<void> {
  operatorSessionApi(app, deps);
  operatorApplicationApi(app, deps);
  operatorOrganizationApi(app, deps);
  operatorRecordsApi(app, deps);
  operatorStaffAccountApi(app, deps);
  operatorDemoMerchantApi(app, deps);
}

/** The operator console: server-rendered pages whose forms post back here, then redirect (PRG). */
async function operatorConsole(
  app: App,
  deps: CoreDeps & { kit: ReturnType<typeof createConsoleKit>; merchants: MerchantViewDeps },
): Promise<void> {
  await operatorSignInConsole(app, deps);
  await operatorApplicationConsole(app, deps);
  await operatorOrganizationConsole(app, deps);
  await operatorRecordsConsole(app, deps);
}

/** The operator console and operator API, on the operator listener. */
export async function operatorModule(app: App, options: OperatorModuleOptions): Promise<void> {
  const { commands } = options;
  const renderer = consoleRenderer(options.renderer, options.staff);
  const kit = createConsoleKit(renderer);
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
  await app.register(operatorApi, deps);
  await app.register(operatorConsole, { ...deps, kit });
  await app.register(operatorPaymentRoutes, { ...deps.merchants, kit });
  const alerts = { alerts: options.alerts, ledger: options.ledger, commands };
  await app.register(operatorAlertApi, alerts);
  await app.register(operatorAlertConsole, { ...alerts, kit });
  await app.register(operatorJobApi, { jobs: options.jobs });
  await app.register(operatorJobConsole, { jobs: options.jobs, kit });
  if (options.wallets) {
    const wallets = { wallets: options.wallets.service, commands: options.wallets.commands };
    await app.register(operatorWalletApi, wallets);
    await app.register(operatorWalletConsole, { ...wallets, kit });
  }
  if (options.payouts) {
    await app.register(operatorPayoutApi, { payouts: options.payouts });
    await app.register(operatorPayoutConsole, { payouts: options.payouts, kit });
  }
  if (options.refunds) await app.register(operatorRefundApi, { refunds: options.refunds });
  if (options.settlement) {
    await app.register(operatorSettlementApi, { batches: options.settlement });
    await app.register(operatorSettlementConsole, { batches: options.settlement, kit });
  }
  if (options.reconciliation) {
    await app.register(operatorReconciliationApi, { reconciliation: options.reconciliation });
    await app.register(operatorReconciliationConsole, { reconciliation: options.reconciliation, kit });
  }
  if (options.disputes) {
    const disputes = { disputes: options.disputes, organizations: options.organizations };
    await app.register(operatorDisputeApi, disputes);
    await app.register(operatorDisputeConsole, { ...disputes, clock: options.merchants.clock, kit });
  }
  if (options.bins) {
    await app.register(operatorBinApi, { bins: options.bins });
    await app.register(operatorBinConsole, { bins: options.bins, kit });
  }
  if (options.disputeRatios) {
    await app.register(operatorDisputeRatioApi, {
      ratios: options.disputeRatios,
      organizations: options.organizations,
    });
    await app.register(operatorDisputeRatioConsole, {
      ratios: options.disputeRatios,
      organizations: options.organizations,
      kit,
    });
  }
}
