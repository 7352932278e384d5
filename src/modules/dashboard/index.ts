export { dashboardModule, type DashboardModuleOptions } from './plugin.js';
