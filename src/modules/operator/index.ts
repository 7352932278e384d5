import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';
import type { Renderer } from '../../web/render.js';

export interface OperatorModuleOptions {
  services: Services;
  renderer: Renderer;
}

/** The operator console and operator API (issue 3). */
export async function operatorModule(_app: App, _options: OperatorModuleOptions): Promise<void> {
  // Filled in by the operator work in progress.
}
