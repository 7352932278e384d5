export type { Acquirer, AcquirerPayment, AcquirerSettlementReport } from './types.js';
export { AcquirerRejectedError, AcquirerUnavailableError } from './types.js';
export {
  SANDBOX_ACQUIRER_CREDENTIALS_FILE,
  SANDBOX_ACQUIRER_JOURNAL_FILE,
  createAcquirers,
  resolveSandboxCredentials,
  type AcquirerCredentials,
} from './acquirers.js';
