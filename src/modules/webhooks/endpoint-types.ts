import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Owner } from '../../shared/owner.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { EventLookup } from '../events/lookup.js';
import type { WebhookError } from './errors.js';
import type { WebhookDeliveryView, WebhookEndpointView } from './schemas.js';
import type { HostResolver } from './url-guard.js';

// The deps and the results the endpoint service's use cases share (`endpoints.ts`, `secrets.ts`,
// `delivery-log.ts`, `retry.ts`, `backlog.ts`), below every one of them and below `service.ts`.

export interface WebhookEndpointServiceDeps {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  cursors: CursorCodec;
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  /** Origins endpoints may target on private addresses (`WEBHOOK_PRIVATE_TARGET_ORIGINS`, ADR 0059). */
  privateTargetOrigins?: readonly string[];
  /** How long registration waits for the URL's host to resolve (`WEBHOOK_TIMEOUT_MS`). */
  lookupTimeoutMs?: number;
  /** Event types and the events about a charge, read through the events module. */
  events: EventLookup;
}

/**
 * A use case on one of the owner's endpoints or deliveries, named by its id (`not_found` when the owner has
 * none), with the method's further arguments after it.
 */
export type ByIdUseCase<T, Rest extends unknown[] = []> = (
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  id: string,
  ...rest: Rest
) => Promise<Result<T, WebhookError>>;

/** A delivery of an event about a charge, as the dashboard's charge page shows it. */
export interface ChargeDelivery extends WebhookDeliveryView {
  eventType: string;
  url: string;
  retryable: boolean;
  lastAttemptAt: string | null;
}

/** An endpoint as the operator console's merchant view shows it. */
export interface EndpointHealth {
  endpoint: WebhookEndpointView;
  /** When its deliveries started failing (reset by a success); null while healthy. */
  failingSince: string | null;
  /** Undelivered deliveries, those due now, and the oldest one's age in seconds (0 without any). */
  pending: number;
  due: number;
  oldestSeconds: number;
}

/** An endpoint with undelivered deliveries: how many, how many due, the oldest's age (metrics). */
export interface EndpointBacklog {
  endpointId: string;
  environment: string;
  pending: number;
  due: number;
  oldestSeconds: number;
}
