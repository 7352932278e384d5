import type { App } from '../../http/server.js';
import { DASHBOARD_RATE_LIMITS } from '../users/http.js';
import {
  deleteEndpoint,
  resumeDeliveries,
  retryDelivery,
  RetryRoute,
  rotateSecret,
  RotateRoute,
  switchSecret,
  SwitchRoute,
} from './webhook-commands.js';
import {
  confirmDelete,
  createEndpoint,
  EndpointCreateRoute,
  EndpointEditRoute,
  EndpointListRoute,
  EndpointRoute,
  EndpointStatusRoute,
  editEndpoint,
  setEndpointStatus,
  showEndpoint,
  showEndpoints,
} from './webhook-endpoints.js';
import { EndpointCommandRoute } from './webhook-pages.js';
import type { DashboardWebhookPagesOptions } from './webhook-options.js';

/**
 * The webhook endpoint pages of the merchant dashboard: list, create, detail, rotate, switch to the new
 * secret and resume the paused deliveries (ADR 0068), delete.
 */
export async function webhookPages(app: App, options: DashboardWebhookPagesOptions): Promise<void> {
  options.kit.handleErrors(app);
  const config = { rateLimit: DASHBOARD_RATE_LIMITS.accountSettings };

  app.get('/dashboard/webhooks', { schema: EndpointListRoute }, (request, reply) =>
    showEndpoints(options, request, reply),
  );
  app.post('/dashboard/webhooks', { schema: EndpointCreateRoute, config }, (request, reply) =>
    createEndpoint(options, request, reply),
  );
  app.get('/dashboard/webhooks/:id', { schema: EndpointRoute }, (request, reply) =>
    showEndpoint(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/status', { schema: EndpointStatusRoute, config }, (request, reply) =>
    setEndpointStatus(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/edit', { schema: EndpointEditRoute, config }, (request, reply) =>
    editEndpoint(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/rotate', { schema: RotateRoute, config }, (request, reply) =>
    rotateSecret(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/switch', { schema: SwitchRoute, config }, (request, reply) =>
    switchSecret(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/resume', { schema: EndpointCommandRoute, config }, (request, reply) =>
    resumeDeliveries(options, request, reply),
  );
  app.get('/dashboard/webhooks/:id/delete', { schema: EndpointRoute }, (request, reply) =>
    confirmDelete(options, request, reply),
  );
  app.post('/dashboard/webhooks/:id/delete', { schema: EndpointCommandRoute, config }, (request, reply) =>
    deleteEndpoint(options, request, reply),
  );
  app.post(
    '/dashboard/webhooks/:id/deliveries/:deliveryId/retry',
    { schema: RetryRoute, config },
    (request, reply) => retryDelivery(options, request, reply),
  );
}
