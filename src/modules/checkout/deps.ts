import type { Logger } from 'pino';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { Acquirer } from '../acquirer/types.js';
import type { ChargeCompletionService } from '../charges/completion.js';

/** What the checkout service's factory binds (its use cases take them too). */

export interface CheckoutServiceDeps {
  /** The charge state machine: the only way a charge's status moves. */
  completion: ChargeCompletionService;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  clock: Clock;
  logger: Logger;
  /** Card attempts a charge allows (CHECKOUT_CARD_ATTEMPTS): the card-testing limit. */
  cardAttempts: number;
  /** The status endpoint reads a pending payment back from the acquirer at most this often per charge. */
  statusSyncIntervalMs: number;
}
