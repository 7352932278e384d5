export { operatorModule, type OperatorModuleOptions } from './plugin.js';
