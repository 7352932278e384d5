export { balanceRoutes, type BalanceRoutesOptions } from './routes.js';
export { computeFee, defaultFeeRate, type FeeRate } from './fees.js';
export {
  createLedger,
  type Balance,
  type ChargeForLedger,
  type ChargeSplit,
  type EntryLines,
  type Ledger,
  type LedgerDeps,
  type LedgerOwner,
  type PendingDebt,
  type RefundForLedger,
} from './service.js';
