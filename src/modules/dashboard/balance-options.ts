import type { LedgerService } from '../ledger/index.js';
import type { PayoutService } from '../payouts/service.js';
import type { SettlementBatchService } from '../settlement/batch.js';
import type { WalletService } from '../wallets/service.js';
import type { PageKit } from './kit.js';

export interface DashboardBalancePagesOptions {
  kit: PageKit;
  /** The same read as `GET /v1/balance`. */
  ledger: Pick<LedgerService, 'balance'>;
  /**
   * The same reads as `GET /v1/payouts`, `GET /v1/payouts/{id}` and `…/transactions`, and the same
   * creation as `POST /v1/payouts`: every payout rule applies to the page's payout button.
   */
  payouts: Pick<PayoutService, 'list' | 'retrieve' | 'transactions' | 'create'>;
  /** The next batch, and the batch (and statement) a payout came from. */
  settlements: Pick<SettlementBatchService, 'nextBatch' | 'batchOfPayout' | 'statement'>;
  /** Whether an automatic payout has somewhere to go. */
  wallets: Pick<WalletService, 'defaultWallet'>;
}
