export { webhookRoutes, type WebhookRoutesOptions } from './routes.js';
export {
  createWebhookEndpointService,
  type WebhookEndpointService,
  type WebhookEndpointServiceDeps,
} from './service.js';
export {
  createWebhookDispatcher,
  type WebhookDispatcher,
  RETRY_SCHEDULE_MS,
  MAX_ATTEMPTS,
} from './delivery.js';
export { createWebhookFanOut } from './fan-out.js';
export { createHostResolver, type HostResolver, type PinnableResolver } from './url-guard.js';
export { signWebhook, SIGNATURE_HEADER, NEXT_SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signing.js';
