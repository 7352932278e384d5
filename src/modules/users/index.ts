import type { App } from '../../http/server.js';
import { createApiKeyService } from '../api-keys/service.js';
import type { Services } from '../../services.js';
import type { Renderer } from '../../web/render.js';
import { createDashboardAuth } from './http.js';
import { dashboardPages } from './pages.js';
import { accountRoutes } from './routes.js';
import { dashboardWebhookPages } from './webhook-pages.js';

export interface DashboardModuleOptions {
  services: Services;
  renderer: Renderer;
}

export { createUserService, type UserService } from './service.js';

/** The merchant dashboard and account self-service on the web listener (issue 3). */
export async function dashboardModule(app: App, options: DashboardModuleOptions): Promise<void> {
  const { services, renderer } = options;
  // The one instance of services.ts: its out-of-band password resets are awaited at shutdown.
  const users = services.users;
  const auth = createDashboardAuth({
    sessions: services.sessions,
    users,
    clock: services.clock,
    secureCookies: services.config.nodeEnv === 'production',
  });
  await app.register(accountRoutes, { users, auth });
  await app.register(dashboardPages, {
    users,
    auth,
    sessions: services.sessions,
    renderer,
    urls: services.urls,
    apiKeys: createApiKeyService(services),
  });
  await app.register(dashboardWebhookPages, { users, auth, renderer, services });
}
