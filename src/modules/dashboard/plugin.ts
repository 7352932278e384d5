import { cardNumberGuard, isUnscannedFormMember } from '../../http/card-data.js';
import type { App } from '../../http/server.js';
import type { SessionManager } from '../../http/session.js';
import type { Urls } from '../../shared/urls.js';
import type { Clock } from '../../shared/clock.js';
import type { Renderer } from '../../web/render.js';
import type { ApiKeyService } from '../api-keys/service.js';
import type { ChargeService } from '../charges/service.js';
import type { CustomerService } from '../customers/index.js';
import type { EventFeed } from '../events/feed.js';
import type { EventLookup } from '../events/lookup.js';
import type { LedgerService } from '../ledger/index.js';
import type { PayoutService } from '../payouts/service.js';
import type { RefundService } from '../refunds/service.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import { createDashboardAuth } from '../users/http.js';
import { accountRoutes } from '../users/routes.js';
import type { UserService } from '../users/service.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import type { BrandingService } from '../organizations/branding.js';
import type { DisputeRefundRuleService } from '../disputes/refund-rules/service.js';
import type { DisputeRatioService } from '../disputes/ratios/service.js';
import { balancePages } from './balance.js';
import { brandingPages } from './branding.js';
import { customerPages } from './customers.js';
import { disputeRatioPages } from './dispute-ratios.js';
import { disputeRefundRulePages } from './dispute-refund-rules.js';
import { disputePages, type DisputePagesOptions } from './disputes.js';
import { eventPages } from './events.js';
import { exportPages } from './exports.js';
import { homePages } from './home.js';
import type { ActivityReader } from './overview.js';
import { apiKeyPages } from './keys.js';
import { createPageKit } from './kit.js';
import { paymentPages } from './payments.js';
import { securityPages } from './security.js';
import { settlementPages } from './settlements.js';
import { signInPages } from './sign-in.js';
import { teamPages } from './team.js';
import { webhookPages } from './webhooks.js';
import { walletPages } from './wallets.js';
import type { WalletService } from '../wallets/service.js';

export interface DashboardModuleOptions {
  users: UserService;
  sessions: SessionManager;
  clock: Clock;
  urls: Pick<Urls, 'liveApi' | 'sandboxApi'>;
  apiKeys: ApiKeyService;
  webhooks: WebhookEndpointService;
  wallets: WalletService;
  settlements: Pick<
    SettlementBatchService,
    'list' | 'retrieve' | 'statement' | 'nextBatch' | 'batchOfPayout'
  >;
  /** The payout pages, exports, and the balance page's payout button (the service `POST /v1/payouts` uses). */
  payouts: Pick<PayoutService, 'retrieve' | 'pageCreatedIn' | 'list' | 'transactions' | 'create'>;
  customers: Pick<CustomerService, 'get' | 'list'>;
  charges: Pick<ChargeService, 'list' | 'search' | 'details' | 'pageCreatedIn'>;
  /** The refund from the charge page; the exports' refunds. */
  refunds: Pick<RefundService, 'create' | 'list' | 'pendingTotal' | 'pageCreatedIn'>;
  /** The charge page's ledger lines; the fee and net of each exported charge. */
  ledger: Pick<LedgerService, 'chargeEntries' | 'chargeFees' | 'balance'>;
  events: Pick<EventLookup, 'idsAboutCharge' | 'byIds'>;
  /** The overview's daily figures of charges and refunds. */
  activity: ActivityReader;
  /** The event pages (the Developers area, flag `events`): the same reads as `GET /v1/events`. */
  eventFeed: EventFeed;
  branding: Pick<BrandingService, 'get' | 'update'>;
  /** The auto-refund rules page (flag `disputes`): the same rules as `/v1/dispute-refund-rules`. */
  disputeRefundRules: Pick<DisputeRefundRuleService, 'list' | 'set'>;
  /** The Disputes pages (flag `disputes`): the same use cases as `/v1/disputes…` and `POST /v1/files`. */
  disputes: DisputePagesOptions['disputes'];
  files: DisputePagesOptions['files'];
  /** The chargeback-ratio page (flag `disputes`): the same figures as `GET /v1/dispute-ratios`. */
  disputeRatios: Pick<DisputeRatioService, 'ratios'>;
  renderer: Renderer;
}

/**
 * The merchant dashboard on the web listener: the account self-service JSON
 * routes of the users module, and one small page plugin per area, all built on the page kit.
 */
export async function dashboardModule(app: App, options: DashboardModuleOptions): Promise<void> {
  const { users, sessions } = options;
  const auth = createDashboardAuth({ sessions, users, clock: options.clock });
  const kit = createPageKit({ renderer: options.renderer, auth, sessions });
  // Card data never reaches the dashboard either: a card number typed into any form (a branding name,
  // an endpoint's description, a key's name, an invitation) would be stored, audited and e-mailed.
  app.addHook('preValidation', cardNumberGuard({ exempt: isUnscannedFormMember }));
  await app.register(accountRoutes, { users, auth });
  await app.register(signInPages, { kit, users });
  const home = { kit, users, urls: options.urls, activity: options.activity, clock: options.clock };
  await app.register(homePages, home);
  await app.register(teamPages, home);
  await app.register(securityPages, { kit, users });
  await app.register(apiKeyPages, { kit, apiKeys: options.apiKeys });
  await app.register(webhookPages, { kit, users, webhooks: options.webhooks });
  await app.register(walletPages, { kit, wallets: options.wallets });
  await app.register(settlementPages, { kit, settlements: options.settlements, payouts: options.payouts });
  await app.register(balancePages, {
    kit,
    ledger: options.ledger,
    payouts: options.payouts,
    settlements: options.settlements,
    wallets: options.wallets,
  });
  await app.register(customerPages, { kit, customers: options.customers, charges: options.charges });
  await app.register(paymentPages, {
    kit,
    users,
    charges: options.charges,
    refunds: options.refunds,
    ledger: options.ledger,
    webhooks: options.webhooks,
    events: options.events,
  });
  await app.register(eventPages, { kit, events: options.eventFeed });
  await app.register(brandingPages, { kit, branding: options.branding });
  await app.register(disputeRefundRulePages, { kit, rules: options.disputeRefundRules });
  await app.register(disputePages, {
    kit,
    clock: options.clock,
    users,
    disputes: options.disputes,
    files: options.files,
  });
  await app.register(disputeRatioPages, { kit, ratios: options.disputeRatios });
  await app.register(exportPages, {
    kit,
    clock: options.clock,
    charges: options.charges,
    refunds: options.refunds,
    payouts: options.payouts,
    ledger: options.ledger,
  });
}
