export { balanceRoutes, type BalanceRoutesOptions } from './routes.js';
export { computeFee, defaultFeeRate, type FeeRate } from './fees.js';
export { createLedgerService, type Balance, type EntryLines, type LedgerService } from './service.js';
export type { ChargeForLedger, ChargeSplit, LedgerDeps, PendingDebt, RefundForLedger } from './types.js';
