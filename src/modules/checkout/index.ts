import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';
import { SECOND } from '../../shared/clock.js';
import type { Renderer } from '../../web/render.js';
import { CHECKOUT_PREFIX, checkoutRoutes } from './routes.js';
import { createCheckoutService } from './service.js';

export interface CheckoutModuleOptions {
  services: Services;
  renderer: Renderer;
}

export { createCheckoutService, type CheckoutService } from './service.js';

/** How often the status endpoint may read a pending payment back from the acquirer, per charge. */
const STATUS_SYNC_INTERVAL_MS = 3 * SECOND;

/** The hosted checkout at `{checkout_url}/c/<paymentId>` on the web listener (product decision 18). */
export async function checkoutModule(app: App, options: CheckoutModuleOptions): Promise<void> {
  const { services, renderer } = options;
  const checkout = createCheckoutService({
    completion: services.completion,
    acquirerFor: (environment) => services.acquirers[environment]?.acquirer,
    clock: services.clock,
    logger: services.logger.child({ module: 'checkout' }),
    cardAttempts: services.config.checkout.cardAttempts,
    statusSyncIntervalMs: STATUS_SYNC_INTERVAL_MS,
  });
  await app.register(checkoutRoutes, {
    checkout,
    renderer,
    clock: services.clock,
    checkoutUrl: () => services.urls.checkout(),
    prefix: CHECKOUT_PREFIX,
  });
}
