import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import type { Renderer } from '../../web/render.js';
import type { BrandingService } from '../organizations/branding.js';
import { CHECKOUT_BRAND_PREFIX, checkoutBrandRoutes } from './brand-routes.js';
import { CHECKOUT_PREFIX } from './pages.js';
import { checkoutRoutes } from './routes.js';
import type { CheckoutService } from './service.js';

export interface CheckoutModuleOptions {
  checkout: CheckoutService;
  /** The merchant's display name, colour and logo on every page of its charges. */
  branding: Pick<BrandingService, 'get' | 'logo'>;
  clock: Clock;
  checkoutUrl: () => string;
  renderer: Renderer;
}

/** The hosted checkout at `{checkout_url}/c/<paymentId>` on the web listener (product decision 18). */
export async function checkoutModule(app: App, options: CheckoutModuleOptions): Promise<void> {
  await app.register(checkoutRoutes, { ...options, prefix: CHECKOUT_PREFIX });
  await app.register(checkoutBrandRoutes, { branding: options.branding, prefix: CHECKOUT_BRAND_PREFIX });
}
