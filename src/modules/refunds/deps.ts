import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { RequestFingerprints } from '../../shared/idempotent-write.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { JobKit } from '../../worker/kit.js';
import type { Acquirer } from '../acquirer/types.js';
import type { AuditLog } from '../audit/service.js';
import type { ChargeRefunds } from '../charges/service.js';
import type { EventRecorder } from '../events/service.js';

/** What the refund service's factory binds (its use cases take them too). */

/** What refunds need of the ledger (src/modules/ledger): the entry of a refund, in its transaction. */
export interface RefundLedger {
  postRefund(
    trx: Trx,
    refund: {
      id: string;
      chargeId: string;
      organizationId: string;
      environment: Environment;
      amount: string;
      /** The refunded charge's, recorded on the entry with `chargeId` for the settlement item. */
      merchantReference: string | null;
    },
  ): Promise<{ created: boolean; pendingAfter: string }>;
}

/** What refunds need of disputes (src/modules/disputes): the part of a charge its chargebacks hold. */
export interface RefundDisputeHolds {
  heldOn(trx: Trx, chargeId: string): Promise<bigint>;
}

export interface RefundServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  logger: Logger;
  /** The keyed hash a refund records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  /** Signs and checks list cursors. */
  cursors: CursorCodec;
  /** The operator's settlements of held refunds are audited. */
  audit: AuditLog;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  /** The charge a refund is for: the charges module owns that table. */
  charges: ChargeRefunds;
  /** A disputed amount cannot be refunded (409 `charge_disputed`). */
  disputes: RefundDisputeHolds;
  ledger: RefundLedger;
  events: EventRecorder;
  /** Told when a refund leaves the merchant's pending balance below zero (docs/decisions/0014). */
  alerts: AlertRaiser;
  checkoutUrl: () => string;
  /** A pending refund younger than this may still have its request in flight. */
  retryAfterMs: number;
  jobs: JobKit;
}
