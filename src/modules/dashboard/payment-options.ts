import type { ChargeService } from '../charges/service.js';
import type { EventLookup } from '../events/lookup.js';
import type { LedgerService } from '../ledger/index.js';
import type { RefundService } from '../refunds/service.js';
import type { UserService } from '../users/service.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import type { PageKit } from './kit.js';

export interface DashboardPaymentPagesOptions {
  kit: PageKit;
  users: Pick<UserService, 'recordAudit'>;
  /** The charges of the session's environment: the list's search and the charge page's details. */
  charges: Pick<ChargeService, 'search' | 'details'>;
  /** The same service as `POST /v1/charges/{id}/refunds`: every refund rule applies. */
  refunds: Pick<RefundService, 'create' | 'list' | 'pendingTotal'>;
  /** The charge's fee, net and ledger lines. */
  ledger: Pick<LedgerService, 'chargeEntries'>;
  /** The charge's webhook deliveries and their retry (the same as `POST /v1/webhook-deliveries/{id}/retry`). */
  webhooks: Pick<WebhookEndpointService, 'deliveriesForCharge' | 'retry'>;
  /** The events about the charge. */
  events: Pick<EventLookup, 'idsAboutCharge' | 'byIds'>;
}
