import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { RequestFingerprints } from '../../shared/idempotent-write.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';
import type { EventRecorder } from '../events/service.js';
import type { PayoutClosures, PayoutContents, PayoutLedger, PayoutWallets } from './ports.js';
import type { RateSource } from './rates.js';

/** What the payout service is given (src/services.ts); `createPayoutService` binds it to each use case. */
export interface PayoutServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  /** The keyed hash a payout records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  ledger: PayoutLedger;
  events: EventRecorder;
  wallets: PayoutWallets;
  contents: PayoutContents;
  /** The operators' declared closures, which a payout's arrival date skips. */
  closures: PayoutClosures;
  audit: AuditLog;
  /** The rate source of an environment; undefined: payouts there answer 503 `payouts_unavailable`. */
  rates: (environment: Environment) => RateSource | undefined;
  /** The FX spread in basis points (`PAYOUT_FX_SPREAD_BPS`): the merchant is paid at the rate less it. */
  spreadBps?: number;
  /** Whether a live ticker is configured (`FX_TICKER_URL`): shown beside the live rate source. */
  tickerConfigured?: boolean;
}
