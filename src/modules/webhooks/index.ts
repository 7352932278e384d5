export { webhookRoutes, type WebhookRoutesOptions } from './routes.js';
export { createWebhookEndpointService, type WebhookEndpointService } from './service.js';
export type { WebhookEndpointServiceDeps } from './endpoint-types.js';
export { createWebhookDispatcher, type WebhookDispatcher } from './delivery.js';
export { RETRY_SCHEDULE_MS, MAX_ATTEMPTS } from './delivery-policy.js';
export { createWebhookFanOut } from './fan-out.js';
export { createHostResolver, type HostResolver, type PinnableResolver } from './url-guard.js';
export { signWebhook, SIGNATURE_HEADER, NEXT_SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signing.js';
