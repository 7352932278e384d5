import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';
import type { Renderer } from '../../web/render.js';
import { createApiKeyService } from '../api-keys/index.js';
import { createOrganizationAdminService, createUnderwritingService } from '../organizations/service.js';
import { operatorAlertRoutes } from './alert-routes.js';
import { operatorApiRoutes } from './api-routes.js';
import { registerOperatorAuth } from './auth.js';
import { operatorConsoleRoutes } from './console-routes.js';
import { operatorJobRoutes } from './job-routes.js';
import { createStaffService } from './staff.js';

export interface OperatorModuleOptions {
  services: Services;
  renderer: Renderer;
  /** The local CLI's bearer token for the operator API (embedded database only); undefined disables it. */
  cliToken: string | undefined;
}

/** The operator console and operator API, on the operator listener (issue 3). */
export async function operatorModule(app: App, options: OperatorModuleOptions): Promise<void> {
  const { services } = options;
  const staff = createStaffService({ db: services.db, clock: services.clock });
  const underwriting = createUnderwritingService(services);
  const organizations = createOrganizationAdminService(services);
  registerOperatorAuth(app, { sessions: services.sessions, staff, cliToken: options.cliToken });
  const apiKeys = createApiKeyService(services);
  const deps = { services, staff, underwriting, organizations, mailer: services.mailer, apiKeys };
  await app.register(operatorApiRoutes, deps);
  await app.register(operatorConsoleRoutes, { ...deps, renderer: options.renderer });
  await app.register(operatorAlertRoutes, { services, renderer: options.renderer });
  await app.register(operatorJobRoutes, { jobs: services.jobs, renderer: options.renderer });
}
