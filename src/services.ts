import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_SETTLEMENT_CRON, settlementCutoffOn, type Config } from './config.js';
import type { Database, Kdb } from './db/database.js';
import { createIdempotencyStore, type IdempotencyStore } from './http/idempotency-store.js';
import { createRequestFingerprints } from './shared/idempotent-write.js';
import { createSessionManager, type SessionManager } from './http/session.js';
import { dailyChargeActivity } from './modules/charges/activity.js';
import type { ActivityReader } from './modules/dashboard/overview.js';
import { dailyRefundActivity } from './modules/refunds/activity.js';
import {
  createApplicationReview,
  createApplicationService,
  type ApplicationService,
} from './modules/applications/service.js';
import { createAuditLog, type AuditLog } from './modules/audit/service.js';
import { createEmailService, type EmailService } from './modules/email/service.js';
import { createUserService, type UserService } from './modules/users/service.js';
import { createApiKeyService, type ApiKeyService } from './modules/api-keys/service.js';
import { createCheckoutService, type CheckoutService } from './modules/checkout/service.js';
import {
  createOrganizationAdminService,
  createUnderwritingService,
  frozenOrganizations,
  type OrganizationAdminService,
  type UnderwritingService,
} from './modules/organizations/service.js';
import { createStaffService, type StaffService } from './modules/operator/staff.js';
import { createOperatorCommands, type OperatorCommands } from './modules/operator/commands.js';
import type { Acquirers } from './modules/acquirer/types.js';
import { createAcquirers, resolveSandboxCredentials } from './modules/acquirer/index.js';
import type { Urls } from './shared/urls.js';
import { createSettlementBatchService, type SettlementBatchService } from './modules/settlement/batch.js';
import type { SettlementService } from './modules/settlement/release-types.js';
import { createSettlementService } from './modules/settlement/service.js';
import { createPayoutService, type PayoutService } from './modules/payouts/service.js';
import { createReconciliationService, type ReconciliationService } from './modules/reconciliation/service.js';
import { createChargeAcquirerLookup } from './modules/charges/acquirer-lookup.js';
import { createRefundAcquirerLookup } from './modules/refunds/acquirer-lookup.js';
import {
  createConfiguredRateSource,
  createChosenRateSource,
  createOperatorRateSource,
  createTickerRateSource,
  withFallback,
} from './modules/payouts/rates.js';
import { createPayoutEngine, type PayoutEngine } from './modules/payouts/engine.js';
import { createExplorerWatcher, createSandboxChainRail } from './modules/payouts/rails/sandbox-chain.js';

export type { Acquirers, Urls };
import { createDisputeService, type DisputeService } from './modules/disputes/service.js';
import { createDisputeRatioService, type DisputeRatioService } from './modules/disputes/ratios/service.js';
import {
  createDisputeRefundRuleService,
  type DisputeRefundRuleService,
} from './modules/disputes/refund-rules/service.js';
import {
  chargeReferences,
  createChargeDisputes,
  createChargeRefunds,
  createChargeService,
  type ChargeService,
} from './modules/charges/service.js';
import { createLedgerService, type LedgerService } from './modules/ledger/service.js';
import { feeRateIn } from './modules/organizations/fee-rates.js';
import { createBrandingService, type BrandingService } from './modules/organizations/branding.js';
import { createEventRecorder, type EventRecorder } from './modules/events/service.js';
import { createChargeCompletionService, type ChargeCompletionService } from './modules/charges/completion.js';
import { createNotificationInbox, type NotificationInbox } from './modules/charges/notifications.js';
import { createRefundService, refundChargeIds, type RefundService } from './modules/refunds/service.js';
import { createOperatorAlerts, type OperatorAlerts } from './modules/operator/alerts.js';
import type { Environment } from './db/schema.js';
import { createEventFeed, type EventFeed } from './modules/events/feed.js';
import { createEventLookup, type EventLookup } from './modules/events/lookup.js';
import {
  createHostResolver,
  createWebhookDispatcher,
  createWebhookEndpointService,
  createWebhookFanOut,
  type PinnableResolver,
  type WebhookDispatcher,
  type WebhookEndpointService,
} from './modules/webhooks/index.js';
import { DAY, SECOND, type Clock } from './shared/clock.js';
import { createWalletService, type WalletService } from './modules/wallets/service.js';
import { createCustomerService, type CustomerService } from './modules/customers/index.js';
import { createBinService, type BinService } from './modules/bins/index.js';
import { createDatabaseFileStorage, createFileService, type FileService } from './modules/files/index.js';
import {
  createWalletOperatorCommands,
  type WalletOperatorCommands,
} from './modules/operator/wallet-commands.js';
import { createJobKit, type JobKit } from './worker/kit.js';
import { countEvent, observedRateSource } from './metrics/registry.js';
import { createCursorCodec, type CursorCodec } from './shared/pagination.js';
import {
  createSecretBox,
  generateEncryptionKeys,
  parseEncryptionKeys,
  type SecretBox,
} from './shared/secret-box.js';

export interface Services {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Kdb;
  urls: Urls;
  box: SecretBox;
  /** Signs and checks list cursors (a key derived from the encryption key, shared by every instance). */
  cursors: CursorCodec;
  idempotencyStore: IdempotencyStore;
  sessions: SessionManager;
  audit: AuditLog;
  mailer: EmailService;
  applications: ApplicationService;
  users: UserService;
  /** Operator accounts (the console, the operator API and its CLI). */
  staff: StaffService;
  /** Application review: approval creates the organization, its owner and the first sandbox key. */
  underwriting: UnderwritingService;
  /** Approved merchants: KYC, fees, feature flags, rate limits, freezing. */
  organizations: OrganizationAdminService;
  /** What the checkout shows of a merchant: display name, brand colour, logo. */
  branding: BrandingService;
  apiKeys: ApiKeyService;
  /** Every operator write, audited: what the console, the operator API and the CLI call. */
  operator: OperatorCommands;
  /** The hosted checkout's use cases (card form, status polling). */
  checkout: CheckoutService;
  acquirers: Acquirers;
  charges: ChargeService;
  ledger: LedgerService;
  events: EventRecorder;
  /** The charge state machine: checkout answers, notifications, read-backs and expiry move charges through it. */
  completion: ChargeCompletionService;
  notifications: NotificationInbox;
  refunds: RefundService;
  /** Disputes, early fraud warnings and pre-dispute alerts (docs/decisions/0076-disputes.md). */
  disputes: DisputeService;
  /** The merchant's auto-refund rules of pre-dispute alerts and early fraud warnings, and their job. */
  disputeRefundRules: DisputeRefundRuleService;
  /** The card schemes' ratios per merchant, their settings and the hourly evaluation (docs/dispute-ratios.md). */
  disputeRatios: DisputeRatioService;
  /** Payouts of the available balance as USDT. */
  payouts: PayoutService;
  /** The payout jobs: submission to the sandbox chain and confirmation on chain. */
  payoutEngine: PayoutEngine;
  /** Releases of pending funds to available (settlement batches) and what each payout carries. */
  settlement: SettlementService;
  /**
   * The daily settlement batch: the 03:00 UTC run of business days, the sandbox's settle-now,
   * payout schedules and declared closures.
   */
  settlementBatches: SettlementBatchService;
  /** The daily reconciliation of the acquirers' settlement reports with the ledger. */
  reconciliation: ReconciliationService;
  /** Money problems raised for the operator: refused notifications, pending balances below zero. */
  alerts: OperatorAlerts;
  /** The job kit: queues of due rows, calendar schedules, the run log and parked rows (src/worker). */
  jobs: JobKit;
  /** The events feed (flag `events`). */
  eventFeed: EventFeed;
  /** What other modules may read of recorded events (webhook payloads and delivery logs). */
  eventLookup: EventLookup;
  /** Wallets and their change controls; also the payouts' `PayoutWallets` (destination). */
  wallets: WalletService;
  /** Customers (flag `customers`); a charge may name one (`customerId`). */
  customers: CustomerService;
  /** Uploaded files (dispute evidence, docs/files.md): their bytes behind the storage port. */
  files: FileService;
  /** The BIN table: what a card's first digits say of it (docs/risk.md, "The BIN table"). */
  bins: BinService;
  /** Charges and refunds per day, for the dashboard's overview. */
  activity: ActivityReader;
  /** The operator's wallet commands (cancel a change, set a cool-down), audited. */
  walletOperator: WalletOperatorCommands;
  webhooks: {
    endpoints: WebhookEndpointService;
    dispatcher: WebhookDispatcher;
    /** Resolves endpoint hosts (at registration and every attempt); static entries can be pinned. */
    resolver: PinnableResolver;
  };
}

/** How often the checkout's status endpoint may read a pending payment back from the acquirer, per charge. */
const CHECKOUT_STATUS_SYNC_INTERVAL_MS = 3 * SECOND;

/** The one place where services are created, each with its dependencies named. */
export function createServices(input: {
  database: Database;
  clock: Clock;
  config: Config;
  logger: Logger;
  urls: Urls;
  box: SecretBox;
  acquirers: Acquirers;
  /** The sandbox chain of sandbox payouts (its base URL once it listens). */
  sandboxChain: { url: () => string; apiKey: string };
}): Services {
  const { database, clock, config, logger, urls, box, acquirers } = input;
  const db = database.db;
  // Lists, exports and dashboard figures may read a replica (DATABASE_READ_URL, ADR 0040); every write,
  // and every read inside a transaction, stays on `db`.
  const readDb = database.readDb;
  const sessions = createSessionManager({ db, clock, secureCookies: config.nodeEnv === 'production' });
  const cursors = createCursorCodec(box.deriveKey('pagination-cursor'));
  // Keyed with every configured key so that a rotation within 24 hours still recognises a retry (ADR 0054).
  const fingerprints = createRequestFingerprints(box.deriveKeys('request-fingerprint'));
  const audit = createAuditLog({ clock, cursors });
  const alerts = createOperatorAlerts({ db, clock, audit, logger: logger.child({ module: 'alerts' }) });
  const jobs = createJobKit({ db, clock, alerts, logger: logger.child({ module: 'jobs' }) });
  const mailer = createEmailService({
    db,
    clock,
    box,
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    logger,
    jobs,
  });
  const acquirerFor = (environment: Environment) => acquirers[environment]?.acquirer;
  const ledger = createLedgerService({ db, clock, feesFor: feeRateIn });
  const events = createEventRecorder({ clock, subscribers: [createWebhookFanOut({ clock }), countEvent] });
  const webhookResolver = createHostResolver();
  const eventLookup = createEventLookup({ db });
  const organizations = createOrganizationAdminService({ db, clock, audit, cursors });
  const users = createUserService({ db, clock, urls, box, audit, mailer, sessions, logger, organizations });
  const staff = createStaffService({ db, clock, audit });
  const applicationReview = createApplicationReview({ db });
  const underwriting = createUnderwritingService({
    db,
    clock,
    audit,
    mailer,
    urls,
    cursors,
    users,
    applications: applicationReview,
  });
  // What a settlement release reads of charges and refunds for its items (a port of the settlement module).
  const settlementSources = { chargeReferences, refundChargeIds };
  const settlement = createSettlementService({ db, clock, ledger, sources: settlementSources, alerts });
  // Sandbox: the sandbox chain's rate feed (`PAYOUT_SANDBOX_RATE` is the in-process chain's rate); a
  // process with no chain to ask (the operator CLI settling a date) converts at `PAYOUT_SANDBOX_RATE`. A
  // stale or missing feed is refused as a live one is.
  const sandboxFeed = createTickerRateSource({
    url: () => `${input.sandboxChain.url()}/v1/rates/TRY-USDT`,
    field: 'rate',
    timeField: 'at',
    maxAgeMs: config.payouts.maxRateAgeMs,
    clock,
    timeoutMs: config.payouts.railTimeoutMs,
    name: 'sandbox',
  });
  const sandboxRate = withFallback(
    observedRateSource('ticker:sandbox', sandboxFeed),
    createConfiguredRateSource({ rate: config.payouts.sandboxRate, clock, name: 'sandbox' }),
    ['unreachable'],
  );
  // Live: the ticker, and while it has no usable rate the one an operator entered (if fresh); without a
  // ticker, the operators' rate alone.
  const operatorRate = createOperatorRateSource({
    db,
    clock,
    environment: 'live',
    maxAgeMs: config.payouts.operatorRateMaxAgeMs,
  });
  const liveRate = createChosenRateSource({
    db,
    ticker: config.payouts.ticker
      ? observedRateSource('ticker:live', createTickerRateSource({ ...config.payouts.ticker, clock }))
      : undefined,
    operator: operatorRate,
  });
  const completion = createChargeCompletionService({
    db,
    clock,
    logger: logger.child({ module: 'payments' }),
    acquirerFor,
    ledger,
    events,
    checkoutUrl: () => urls.checkout(),
    cardAttempts: config.checkout.cardAttempts,
    // The lease of a charge creation too: the config makes it exceed the longest acquirer call.
    cardClaimLeaseMs: config.idempotencyLockMs,
    jobs,
  });
  const customers = createCustomerService({ db, clock, box, cursors });
  const wallets = createWalletService({
    db,
    clock,
    logger: logger.child({ module: 'wallets' }),
    cursors,
    audit,
    mailer,
    events,
    team: users,
    webUrl: () => urls.web(),
    defaultCooldownSeconds: config.wallets.changeCooldownHours * 3600,
    confirmTtlMs: DAY,
  });
  const payouts = createPayoutService({
    db,
    readDb,
    clock,
    logger: logger.child({ module: 'payouts' }),
    cursors,
    fingerprints,
    ledger,
    events,
    wallets,
    contents: settlement.payoutContents,
    closures: settlement.payoutClosures,
    audit,
    rates: (environment) => (environment === 'live' ? liveRate : sandboxRate),
    tickerConfigured: config.payouts.ticker !== undefined,
    spreadBps: config.payouts.spreadBps,
  });
  const settlementBatches = createSettlementBatchService({
    db,
    clock,
    sources: settlementSources,
    logger: logger.child({ module: 'settlement' }),
    settlement,
    payouts,
    ledger,
    events,
    organizations: { frozen: frozenOrganizations },
    audit,
    alerts,
    mailer,
    team: users,
    webUrl: () => urls.web(),
    cursors,
    cutoffOf: (date) => settlementCutoffOn(date, config.settlement.cron ?? DEFAULT_SETTLEMENT_CRON),
    concurrency: config.settlement.concurrency,
  });
  const files = createFileService({ db, readDb, clock, cursors, storage: createDatabaseFileStorage() });
  const disputes = createDisputeService({
    db,
    readDb,
    clock,
    logger: logger.child({ module: 'disputes' }),
    cursors,
    acquirerFor,
    charges: createChargeDisputes({ db }),
    ledger,
    events,
    alerts,
    files,
  });
  const refunds = createRefundService({
    db,
    readDb,
    clock,
    logger: logger.child({ module: 'refunds' }),
    fingerprints,
    cursors,
    audit,
    acquirerFor,
    charges: createChargeRefunds({ db }),
    disputes: disputes.holds,
    ledger,
    events,
    alerts,
    checkoutUrl: () => urls.checkout(),
    retryAfterMs: config.idempotencyLockMs,
    jobs,
  });
  // Alerts and fraud warnings refunded by the merchant's rules, through the refund path (issue 37 item 5).
  const disputeRefundRules = createDisputeRefundRuleService({
    db,
    clock,
    logger: logger.child({ module: 'dispute-refund-rules' }),
    audit,
    jobs,
    refunds,
    charges: createChargeDisputes({ db }),
    refundBudgetMs: config.idempotencyLockMs,
  });
  const sandboxWatcher = createExplorerWatcher({
    url: input.sandboxChain.url,
    timeoutMs: config.payouts.railTimeoutMs,
  });
  const liveWatcher =
    config.payouts.explorerUrl === undefined
      ? undefined
      : createExplorerWatcher({
          url: () => config.payouts.explorerUrl,
          timeoutMs: config.payouts.railTimeoutMs,
        });
  return {
    config,
    logger,
    clock,
    db,
    urls,
    box,
    cursors,
    idempotencyStore: createIdempotencyStore(db, { lockMs: config.idempotencyLockMs, fingerprints }),
    sessions,
    audit,
    mailer,
    applications: createApplicationService({ db, clock, limit: config.applicationRateLimit }),
    users,
    staff,
    underwriting,
    organizations,
    branding: createBrandingService({ db, clock, audit }),
    apiKeys: createApiKeyService({ db, clock, audit, cursors }),
    operator: createOperatorCommands({
      db,
      clock,
      audit,
      staff,
      underwriting,
      organizations,
      alerts,
      users,
      sessions,
      applications: applicationReview,
      webUrl: () => urls.web(),
    }),
    checkout: createCheckoutService({
      completion,
      acquirerFor,
      organizations,
      clock,
      logger: logger.child({ module: 'checkout' }),
      cardAttempts: config.checkout.cardAttempts,
      statusSyncIntervalMs: CHECKOUT_STATUS_SYNC_INTERVAL_MS,
    }),
    acquirers,
    ledger,
    events,
    completion,
    alerts,
    jobs,
    notifications: createNotificationInbox({
      db,
      clock,
      completion,
      acquirerFor,
      alerts,
      logger: logger.child({ module: 'notifications' }),
      disputes: disputes.notifications,
    }),
    disputes,
    disputeRefundRules,
    disputeRatios: createDisputeRatioService({
      db,
      clock,
      alerts,
      audit,
      mailer,
      ownerEmails: (trx, organizationId) => users.activeOwnerEmails(trx, organizationId),
      dashboardUrl: () => `${urls.web()}/dashboard/dispute-ratios`,
      logger: logger.child({ module: 'dispute-ratios' }),
    }),
    eventFeed: createEventFeed({ db, cursors }),
    wallets,
    customers,
    files,
    bins: createBinService({ db, clock, audit, cursors }),
    activity: {
      charges: (owner, range) => dailyChargeActivity(readDb, owner, range),
      refunds: (owner, range) => dailyRefundActivity(readDb, owner, range),
    },
    walletOperator: createWalletOperatorCommands({ wallets, organizations }),
    eventLookup,
    webhooks: {
      endpoints: createWebhookEndpointService({
        db,
        clock,
        box,
        cursors,
        resolver: webhookResolver,
        allowPrivateTargets: config.webhooks.allowPrivateTargets,
        privateTargetOrigins: config.webhooks.privateTargetOrigins,
        lookupTimeoutMs: config.webhooks.timeoutMs,
        events: eventLookup,
      }),
      dispatcher: createWebhookDispatcher({
        db,
        clock,
        box,
        mailer,
        ownerEmails: (trx, organizationId) => users.activeOwnerEmails(trx, organizationId),
        events: eventLookup,
        logger: logger.child({ module: 'webhooks' }),
        resolver: webhookResolver,
        allowPrivateTargets: config.webhooks.allowPrivateTargets,
        privateTargetOrigins: config.webhooks.privateTargetOrigins,
        timeoutMs: config.webhooks.timeoutMs,
        concurrency: config.webhooks.concurrency,
        perEndpoint: config.webhooks.perEndpoint,
        dashboardUrl: () => urls.web(),
      }),
      resolver: webhookResolver,
    },
    settlement,
    settlementBatches,
    reconciliation: createReconciliationService({
      db,
      clock,
      logger: logger.child({ module: 'reconciliation' }),
      cursors,
      acquirerFor,
      ledger,
      charges: createChargeAcquirerLookup(db),
      refunds: createRefundAcquirerLookup(db),
      alerts,
      audit,
    }),
    payouts,
    payoutEngine: createPayoutEngine({
      db,
      logger: logger.child({ module: 'payout-engine' }),
      jobs,
      payouts,
      rail: createSandboxChainRail({ ...input.sandboxChain, timeoutMs: config.payouts.railTimeoutMs }),
      railTimeoutMs: config.payouts.railTimeoutMs,
      watcher: (environment) => (environment === 'live' ? liveWatcher : sandboxWatcher),
      alerts,
    }),
    refunds,
    charges: createChargeService({
      db,
      readDb,
      clock,
      box,
      fingerprints,
      logger: logger.child({ module: 'charges' }),
      cursors,
      acquirerFor,
      urls: {
        checkout: () => urls.checkout(),
        notifications: (environment) =>
          `${environment === 'live' ? urls.liveApi() : urls.sandboxApi()}/webhooks/v1/payments`,
      },
      creationLeaseMs: config.idempotencyLockMs,
      chargeExpiresAfterMs: config.checkout.chargeExpiresAfterMs,
      cardAttempts: config.checkout.cardAttempts,
      customers,
    }),
  };
}

/**
 * The services of a process that runs no listener and no worker: the operator CLI on a database it opens
 * (src/cli/operator-direct.ts) and the settlement bench. Every base URL is the configured one, and the
 * sandbox acquirer and chain are reached at their configured addresses (none of them is called unless a
 * command asks for it).
 */
export function createDetachedServices(input: {
  database: Database;
  clock: Clock;
  config: Config;
  logger: Logger;
}): Services {
  const { config, logger } = input;
  const fixed = (name: keyof Config['baseUrls']) => () => config.baseUrls[name];
  return createServices({
    ...input,
    box: resolveSecretBox(config),
    sandboxChain: {
      url: () => config.payouts.sandboxChain.url ?? '',
      apiKey: config.payouts.sandboxChain.apiKey ?? '',
    },
    urls: {
      web: fixed('web'),
      sandboxApi: fixed('sandboxApi'),
      liveApi: fixed('liveApi'),
      operator: fixed('operator'),
      checkout: () => config.checkout.baseUrl ?? config.baseUrls.web,
    },
    acquirers: createAcquirers({
      config,
      logger,
      sandbox: {
        ...resolveSandboxCredentials(config),
        url: () => config.acquirers.sandbox.url ?? `http://${config.host}:${config.acquirers.sandbox.port}`,
      },
    }),
  });
}

/**
 * ENCRYPTION_KEYS when set (required in production); otherwise a key generated once and kept in
 * DATA_DIR/encryption-keys (mode 0600), so a development database stays readable across restarts.
 */
export function resolveSecretBox(config: Config): SecretBox {
  if (config.encryptionKeys) return createSecretBox(config.encryptionKeys);
  const file = path.join(config.dataDir, 'encryption-keys');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${generateEncryptionKeys()}\n`, { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return createSecretBox(parseEncryptionKeys(readFileSync(file, 'utf8').trim()));
}
