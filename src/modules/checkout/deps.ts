import type { Logger } from 'pino';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { Acquirer } from '../acquirer/types.js';
import type { ChargeCompletionService } from '../charges/completion.js';
import type { OrganizationDirectory } from '../organizations/types.js';

/** What the checkout service's factory binds (its use cases take them too). */

export interface CheckoutServiceDeps {
  /** The charge state machine: the only way a charge's status moves. */
  completion: ChargeCompletionService;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  /**
   * The charge's organization, read at each card attempt: an operator may require 3-D Secure on every
   * card payment of it. Without it (a composition that passes none), no attempt asks for 3-D Secure.
   */
  organizations: OrganizationDirectory;
  clock: Clock;
  logger: Logger;
  /** Card attempts a charge allows (CHECKOUT_CARD_ATTEMPTS): the card-testing limit. */
  cardAttempts: number;
  /** The status endpoint reads a pending payment back from the acquirer at most this often per charge. */
  statusSyncIntervalMs: number;
}
