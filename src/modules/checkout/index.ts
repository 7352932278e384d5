export { createCheckoutService, type CheckoutService } from './service.js';
export { type CheckoutModuleOptions, checkoutModule } from './plugin.js';
