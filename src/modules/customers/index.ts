export { customerRoutes } from './routes.js';
export {
  createCustomerService,
  type CustomerDetails,
  type CustomerOwner,
  type CustomerService,
} from './service.js';
