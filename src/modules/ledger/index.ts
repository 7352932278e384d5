export { balanceRoutes, type BalanceRoutesOptions } from './routes.js';
export { computeFee, defaultFeeRate, type FeeRate } from './fees.js';
export { createLedger, type Balance, type EntryLines, type Ledger } from './service.js';
export type { ChargeForLedger, ChargeSplit, LedgerDeps, PendingDebt, RefundForLedger } from './types.js';
