import type { Result } from '../../shared/result.js';
import { backlogOfEndpoints, healthOf } from './backlog.js';
import {
  attemptsForCharge,
  deliveriesForCharge,
  endpointAttempts,
  isDeliveryOfEndpoint,
} from './delivery-log.js';
import type {
  ChargeDelivery,
  EndpointBacklog,
  EndpointHealth,
  WebhookEndpointServiceDeps,
} from './endpoint-types.js';
import { createEndpoint, getEndpoint, listEndpointsOf, removeEndpoint, updateEndpoint } from './endpoints.js';
import type { EndpointAttempt } from './repository.js';
import { retryDelivery } from './retry.js';
import type {
  RotateSecret,
  SwitchSecret,
  WebhookAttemptView,
  WebhookDeliveryView,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointView,
} from './schemas.js';
import type { WebhookError } from './errors.js';
import { resumeDeliveries, rotateSecret, switchSecret } from './secrets.js';
import type { Owner } from '../../shared/owner.js';

export type { WebhookError } from './errors.js';
export type { EndpointAttempt };

/** What a use case of the service answers: its value, or the refusal. */
type WebhookAnswer<T> = Promise<Result<T, WebhookError>>;

export interface WebhookEndpointService {
  create(owner: Owner, input: WebhookEndpointCreate): WebhookAnswer<WebhookEndpointView & { secret: string }>;
  list(
    owner: Owner,
    page: { limit: number; cursor?: string },
  ): WebhookAnswer<{ data: WebhookEndpointView[]; nextCursor: string | null }>;
  get(owner: Owner, id: string): WebhookAnswer<WebhookEndpointView>;
  update(owner: Owner, id: string, input: WebhookEndpointUpdate): WebhookAnswer<WebhookEndpointView>;
  remove(owner: Owner, id: string): WebhookAnswer<{ id: string; deleted: true }>;
  rotateSecret(
    owner: Owner,
    id: string,
    input: RotateSecret,
  ): WebhookAnswer<WebhookEndpointView & { secret: string }>;
  /**
   * Ends a rotation when the merchant chooses (ADR 0068): the new secret signs `Service-Signature` from
   * now on and the replaced one is dropped, while the endpoint's deliveries wait, queued, for
   * `pauseSeconds` (or until resumed): the time to deploy a receiver that holds one secret.
   * `no_rotation` when no replaced secret is signing.
   */
  switchSecret(owner: Owner, id: string, input: SwitchSecret): WebhookAnswer<WebhookEndpointView>;
  /** Ends a pause: the deliveries that waited are sent now. */
  resumeDeliveries(owner: Owner, id: string): WebhookAnswer<WebhookEndpointView>;
  /** Spec section 4: the last 20 attempts of events about a charge, newest first. */
  attemptsForCharge(owner: Owner, chargeId: string): Promise<WebhookAttemptView[]>;
  /**
   * The deliveries of the events about a charge, newest first (at most 50): the dashboard's charge page,
   * each with its event's type and its endpoint's URL, and whether it can be retried (its endpoint exists
   * and still selects the event's kind).
   */
  deliveriesForCharge(owner: Owner, chargeId: string): Promise<ChargeDelivery[]>;
  /**
   * Makes a delivery (named by its id or one of its attempts') due now, with the same event; refused
   * (`event_type_not_selected`) while its endpoint does not select the event's kind.
   */
  retry(owner: Owner, id: string): WebhookAnswer<WebhookDeliveryView>;
  /** The last attempts of one endpoint, newest first (the dashboard's endpoint page). */
  endpointAttempts(owner: Owner, endpointId: string, limit: number): Promise<EndpointAttempt[]>;
  /** Whether a delivery belongs to this endpoint of the owner (before a retry from the dashboard). */
  isDeliveryOfEndpoint(owner: Owner, endpointId: string, deliveryId: string): Promise<boolean>;
  /** Every endpoint with undelivered deliveries: how many, how many due, the oldest's age (metrics). */
  backlog(): Promise<EndpointBacklog[]>;
  /**
   * The operator's view of one organization's webhooks: its endpoints of both environments (at most
   * `limit`, newest first), each with since when it has been failing and its backlog.
   */
  healthOf(organizationId: string, limit: number): Promise<EndpointHealth[]>;
}

/**
 * Endpoints (product decision 27), their secrets, the delivery log and manual retries. The use cases are
 * in `endpoints.ts`, `secrets.ts`, `delivery-log.ts`, `retry.ts` and `backlog.ts`.
 */
export function createWebhookEndpointService(deps: WebhookEndpointServiceDeps): WebhookEndpointService {
  return {
    create: (owner, input) => createEndpoint(deps, owner, input),
    list: (owner, page) => listEndpointsOf(deps, owner, page),
    get: (owner, id) => getEndpoint(deps, owner, id),
    update: (owner, id, input) => updateEndpoint(deps, owner, id, input),
    remove: (owner, id) => removeEndpoint(deps, owner, id),
    rotateSecret: (owner, id, input) => rotateSecret(deps, owner, id, input),
    switchSecret: (owner, id, input) => switchSecret(deps, owner, id, input),
    resumeDeliveries: (owner, id) => resumeDeliveries(deps, owner, id),
    attemptsForCharge: (owner, chargeId) => attemptsForCharge(deps, owner, chargeId),
    deliveriesForCharge: (owner, chargeId) => deliveriesForCharge(deps, owner, chargeId),
    backlog: () => backlogOfEndpoints(deps),
    healthOf: (organizationId, limit) => healthOf(deps, organizationId, limit),
    retry: (owner, id) => retryDelivery(deps, owner, id),
    endpointAttempts: (owner, endpointId, limit) => endpointAttempts(deps, owner, endpointId, limit),
    isDeliveryOfEndpoint: (owner, endpointId, deliveryId) =>
      isDeliveryOfEndpoint(deps, owner, endpointId, deliveryId),
  };
}
