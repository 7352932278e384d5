import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';
import type { Renderer } from '../../web/render.js';

export interface DashboardModuleOptions {
  services: Services;
  renderer: Renderer;
}

/** The merchant dashboard and account self-service on the web listener (issue 3). */
export async function dashboardModule(_app: App, _options: DashboardModuleOptions): Promise<void> {
  // Filled in by the users module work in progress.
}
