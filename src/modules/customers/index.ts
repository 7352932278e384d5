export { customerRoutes } from './routes.js';
export { createCustomerService, type CustomerDetails, type CustomerService } from './service.js';
