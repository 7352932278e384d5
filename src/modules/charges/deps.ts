import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { RequestFingerprints } from '../../shared/idempotent-write.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { JobKit } from '../../worker/kit.js';
import type { Acquirer } from '../acquirer/types.js';
import type { CustomerService } from '../customers/index.js';
import type { EventRecorder } from '../events/service.js';
import type { ChargeRow } from './model.js';

/** What the charge service's and the state machine's factories bind (the use cases take them too). */

export interface ChargeServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  box: SecretBox;
  /** The keyed hash a charge records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  logger: Logger;
  cursors: CursorCodec;
  /** The acquirer of an environment; undefined when none is configured (live without LIVE_ACQUIRER_URL). */
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  urls: {
    /** `{checkout_url}`: paymentPageUrl is `{checkout_url}/c/<paymentId>`. */
    checkout: () => string;
    /** Where an environment's acquirer sends its notifications (`/webhooks/v1/payments` of that listener). */
    notifications: (environment: Environment) => string;
  };
  /** How long a creation holds its charge before a retry or the recovery job may take over. */
  creationLeaseMs: number;
  chargeExpiresAfterMs: number;
  cardAttempts: number;
  /** A charge made for a customer (`customerId`) copies its details (flag `customers`). */
  customers: Pick<CustomerService, 'detailsForCharge'>;
}

/** What the state machine needs of the ledger (src/modules/ledger): the entry of a succeeded charge. */
export interface ChargeLedger {
  postChargeSucceeded(
    trx: Trx,
    charge: {
      id: string;
      organizationId: string;
      environment: Environment;
      amount: string;
      paymentMethod: ChargeRow['payment_method'];
      /** Recorded on the entry for the settlement item (the charge's own, as created). */
      merchantReference: string | null;
    },
  ): Promise<{ gross: string; fee: string; net: string; created: boolean }>;
}

export interface ChargeCompletionDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  ledger: ChargeLedger;
  events: EventRecorder;
  checkoutUrl: () => string;
  /** Card attempts a charge allows (the checkout counts them; the acquirer fails the payment at this many). */
  cardAttempts: number;
  /**
   * How long a claimed card attempt holds the charge (ADR 0065): longer than the acquirer's authorize call
   * can take, so that only a claim a crashed process left runs out.
   */
  cardClaimLeaseMs: number;
  jobs: JobKit;
}
