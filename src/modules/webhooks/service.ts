import type { EventLookup } from '../events/lookup.js';
import type { Kdb } from '../../db/database.js';
import type { ValidationIssue } from '../../http/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { SecretBox } from '../../shared/secret-box.js';
import {
  attemptsOfEvents,
  deliveriesOfEvents,
  failPendingDeliveries,
  attemptsOfEndpoint,
  deliveryOfEndpoint,
  type EndpointAttempt,
  findDelivery,
  pendingByEndpoint,
  endpointsOfOrganization,
  findEndpoint,
  countEndpoints,
  insertEndpoint,
  listEndpoints,
  lockEndpointsOf,
  transitionDelivery,
  type AttemptWithDelivery,
  type DeliveryRow,
  type EndpointRow,
  type Owner,
} from './repository.js';
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
import { selectsKind } from './model.js';
import { generateWebhookSecret } from './signing.js';
import { checkWebhookUrl, privateTargetAllowed, type HostResolver } from './url-guard.js';

export type { WebhookError } from './errors.js';
export type { EndpointAttempt };

export const CHARGE_ATTEMPTS_LIMIT = 20;
/**
 * Endpoints an organization may have in one environment (ADR 0061): every event is delivered to each
 * endpoint that selects it, so their number bounds the deliveries one payment makes.
 */
export const WEBHOOK_ENDPOINT_LIMIT = 16;
export const CHARGE_DELIVERIES_LIMIT = 50;

/** A delivery of an event about a charge, as the dashboard's charge page shows it. */
export interface ChargeDelivery extends WebhookDeliveryView {
  eventType: string;
  url: string;
  retryable: boolean;
  lastAttemptAt: string | null;
}
export const DEFAULT_GRACE_SECONDS = 86_400;
/** How long a switch of secrets holds the endpoint's deliveries by default (ADR 0068). */
export const DEFAULT_PAUSE_SECONDS = 900;

export interface WebhookEndpointService {
  create(
    owner: Owner,
    input: WebhookEndpointCreate,
  ): Promise<Result<WebhookEndpointView & { secret: string }, WebhookError>>;
  list(
    owner: Owner,
    page: { limit: number; cursor?: string },
  ): Promise<Result<{ data: WebhookEndpointView[]; nextCursor: string | null }, WebhookError>>;
  get(owner: Owner, id: string): Promise<Result<WebhookEndpointView, WebhookError>>;
  update(
    owner: Owner,
    id: string,
    input: WebhookEndpointUpdate,
  ): Promise<Result<WebhookEndpointView, WebhookError>>;
  remove(owner: Owner, id: string): Promise<Result<{ id: string; deleted: true }, WebhookError>>;
  rotateSecret(
    owner: Owner,
    id: string,
    input: RotateSecret,
  ): Promise<Result<WebhookEndpointView & { secret: string }, WebhookError>>;
  /**
   * Ends a rotation when the merchant chooses (ADR 0068): the new secret signs `Service-Signature` from
   * now on and the replaced one is dropped, while the endpoint's deliveries wait, queued, for
   * `pauseSeconds` (or until resumed): the time to deploy a receiver that holds one secret.
   * `no_rotation` when no replaced secret is signing.
   */
  switchSecret(
    owner: Owner,
    id: string,
    input: SwitchSecret,
  ): Promise<Result<WebhookEndpointView, WebhookError>>;
  /** Ends a pause: the deliveries that waited are sent now. */
  resumeDeliveries(owner: Owner, id: string): Promise<Result<WebhookEndpointView, WebhookError>>;
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
  retry(owner: Owner, id: string): Promise<Result<WebhookDeliveryView, WebhookError>>;
  /** The last attempts of one endpoint, newest first (the dashboard's endpoint page). */
  endpointAttempts(owner: Owner, endpointId: string, limit: number): Promise<EndpointAttempt[]>;
  /** Whether a delivery belongs to this endpoint of the owner (before a retry from the dashboard). */
  isDeliveryOfEndpoint(owner: Owner, endpointId: string, deliveryId: string): Promise<boolean>;
  /** Every endpoint with undelivered deliveries: how many, how many due, the oldest's age (metrics). */
  backlog(): Promise<
    Array<{ endpointId: string; environment: string; pending: number; due: number; oldestSeconds: number }>
  >;
  /**
   * The operator's view of one organization's webhooks (issue 15 item 7): its endpoints of both
   * environments (at most `limit`, newest first), each with since when it has been failing and its backlog.
   */
  healthOf(organizationId: string, limit: number): Promise<EndpointHealth[]>;
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

export function endpointView(row: EndpointRow, now: Date): WebhookEndpointView {
  const graceOpen =
    row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > now.getTime();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabledEvents: row.enabled_events as WebhookEndpointView['enabledEvents'],
    status: row.status,
    disabledReason: row.status === 'disabled' ? (row.disabled_reason as 'merchant' | 'failing') : null,
    livemode: row.environment === 'live',
    previousSecretExpiresAt: graceOpen ? (row.previous_secret_expires_at?.toISOString() ?? null) : null,
    pausedUntil:
      row.paused_until !== null && row.paused_until.getTime() > now.getTime()
        ? row.paused_until.toISOString()
        : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function deliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}

function attemptView(row: AttemptWithDelivery, eventType: string): WebhookAttemptView {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventType,
    endpointId: row.endpoint_id,
    url: row.url,
    attemptedAt: row.attempted_at.toISOString(),
    succeeded: row.succeeded,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    deliveryStatus: row.delivery_status,
    nextAttemptAt: row.delivery_status === 'pending' ? row.next_attempt_at.toISOString() : null,
  };
}

const notFound = err<WebhookError>({ code: 'not_found' });

/** Endpoints (product decision 27), their secrets, the delivery log and manual retries. */
export function createWebhookEndpointService(deps: WebhookEndpointServiceDeps): WebhookEndpointService {
  const { db, clock, box, cursors } = deps;

  const checkUrl = async (url: string, owner: Owner): Promise<ValidationIssue[]> => {
    const check = await checkWebhookUrl(url, owner.environment, {
      resolver: deps.resolver,
      allowPrivate: privateTargetAllowed(url, deps),
      ...(deps.lookupTimeoutMs === undefined ? {} : { timeoutMs: deps.lookupTimeoutMs }),
    });
    return check.ok ? [] : [{ path: 'url', in: 'body', code: 'invalid_value', message: check.message }];
  };

  return {
    async create(owner, input) {
      const issues = await checkUrl(input.url, owner);
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
      const now = clock.now();
      const secret = generateWebhookSecret();
      const row = await db.transaction().execute(async (trx) => {
        await lockEndpointsOf(trx, owner);
        if ((await countEndpoints(trx, owner)) >= WEBHOOK_ENDPOINT_LIMIT) return undefined;
        return insertEndpoint(trx, {
          id: newId('we', now),
          organization_id: owner.organizationId,
          environment: owner.environment,
          url: input.url,
          description: input.description ?? null,
          enabled_events: input.enabledEvents,
          status: 'enabled',
          disabled_reason: null,
          secret_enc: box.seal(secret),
          created_by_key_id: owner.keyId ?? null,
          created_at: now,
          updated_at: now,
        });
      });
      if (!row) return err({ code: 'endpoint_limit', limit: WEBHOOK_ENDPOINT_LIMIT });
      return ok({ ...endpointView(row, now), secret });
    },

    async list(owner, { limit, cursor }) {
      const pages = cursors.for({
        list: 'webhook_endpoints',
        organizationId: owner.organizationId,
        environment: owner.environment,
      });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after && !after.ok) return after;
      const rows = await listEndpoints(db, owner, { limit, ...(after ? { after: after.value } : {}) });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const now = clock.now();
      return ok({
        data: page.map((row) => endpointView(row, now)),
        nextCursor: rows.length > limit && last ? pages.encode(last.created_at, last.id) : null,
      });
    },

    async get(owner, id) {
      const row = await findEndpoint(db, owner, id);
      return row ? ok(endpointView(row, clock.now())) : notFound;
    },

    async update(owner, id, input) {
      if (input.url !== undefined) {
        if (!(await findEndpoint(db, owner, id))) return notFound;
        const issues = await checkUrl(input.url, owner);
        if (issues.length > 0) return err({ code: 'invalid_input', issues });
      }
      const now = clock.now();
      const row = await db
        .updateTable('webhook_endpoints')
        .set({
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.enabledEvents !== undefined ? { enabled_events: input.enabledEvents } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.disabled === true ? { status: 'disabled', disabled_reason: 'merchant' } : {}),
          // Enabled again: a fresh start, so 5 more days of failure before it is disabled again.
          ...(input.disabled === false
            ? { status: 'enabled', disabled_reason: null, failing_since: null }
            : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .where('organization_id', '=', owner.organizationId)
        .where('environment', '=', owner.environment)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? ok(endpointView(row, now)) : notFound;
    },

    async remove(owner, id) {
      const now = clock.now();
      // Kept (soft-deleted) so that its delivery log stays readable for 30 days; it never receives again.
      // Its pending deliveries fail in the same transaction: none is left counted in the backlog.
      return db
        .transaction()
        .execute(async (trx): Promise<Result<{ id: string; deleted: true }, WebhookError>> => {
          const row = await trx
            .updateTable('webhook_endpoints')
            .set({ deleted_at: now, status: 'disabled', disabled_reason: 'merchant', updated_at: now })
            .where('id', '=', id)
            .where('organization_id', '=', owner.organizationId)
            .where('environment', '=', owner.environment)
            .where('deleted_at', 'is', null)
            .returning('id')
            .executeTakeFirst();
          if (!row) return notFound;
          await failPendingDeliveries(trx, row.id, now);
          return ok({ id: row.id, deleted: true as const });
        });
    },

    async rotateSecret(owner, id, input) {
      const graceSeconds = input.gracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
      return db
        .transaction()
        .execute(async (trx): Promise<Result<WebhookEndpointView & { secret: string }, WebhookError>> => {
          const row = await findEndpoint(trx, owner, id, true);
          if (!row) return notFound;
          const now = clock.now();
          const secret = generateWebhookSecret();
          // The secret being replaced signs `Service-Signature` until the grace period ends. A rotation
          // during a grace period drops the secret before it: receivers hold at most two.
          const updated = await trx
            .updateTable('webhook_endpoints')
            .set({
              secret_enc: box.seal(secret),
              previous_secret_enc: graceSeconds > 0 ? row.secret_enc : null,
              previous_secret_expires_at:
                graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
              updated_at: now,
            })
            .where('id', '=', row.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          return ok({ ...endpointView(updated, now), secret });
        });
    },

    async switchSecret(owner, id, input) {
      const pauseSeconds = input.pauseSeconds ?? DEFAULT_PAUSE_SECONDS;
      return db.transaction().execute(async (trx): Promise<Result<WebhookEndpointView, WebhookError>> => {
        const row = await findEndpoint(trx, owner, id, true);
        if (!row) return notFound;
        const now = clock.now();
        const rotating =
          row.previous_secret_enc !== null &&
          row.previous_secret_expires_at !== null &&
          row.previous_secret_expires_at.getTime() > now.getTime();
        if (!rotating) return err({ code: 'no_rotation' as const });
        // A claim reads the secrets with the pause: what was claimed before this commits goes out
        // within the attempt's timeout signed with the replaced secret, which the receiver still holds
        // (it is deployed with the new one after the switch); what is due after waits for the pause.
        const updated = await trx
          .updateTable('webhook_endpoints')
          .set({
            previous_secret_enc: null,
            previous_secret_expires_at: null,
            paused_until: pauseSeconds > 0 ? new Date(now.getTime() + pauseSeconds * 1000) : null,
            updated_at: now,
          })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return ok(endpointView(updated, now));
      });
    },

    async resumeDeliveries(owner, id) {
      const now = clock.now();
      const updated = await db
        .updateTable('webhook_endpoints')
        .set({ paused_until: null, updated_at: now })
        .where('id', '=', id)
        .where('organization_id', '=', owner.organizationId)
        .where('environment', '=', owner.environment)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return updated ? ok(endpointView(updated, now)) : notFound;
    },

    async attemptsForCharge(owner, chargeId) {
      const eventIds = await deps.events.idsAboutCharge(owner.organizationId, chargeId);
      const rows = await attemptsOfEvents(db, owner, eventIds, CHARGE_ATTEMPTS_LIMIT);
      const events = await deps.events.byIds(rows.map((row) => row.event_id));
      return rows.map((row) => attemptView(row, events.get(row.event_id)?.type ?? ''));
    },

    async deliveriesForCharge(owner, chargeId) {
      const eventIds = await deps.events.idsAboutCharge(owner.organizationId, chargeId);
      const rows = await deliveriesOfEvents(db, owner, eventIds, CHARGE_DELIVERIES_LIMIT);
      const events = await deps.events.byIds(rows.map((row) => row.event_id));
      return rows.map((row) => {
        const eventType = events.get(row.event_id)?.type ?? '';
        return {
          ...deliveryView(row),
          eventType,
          url: row.url,
          retryable: !row.endpoint_deleted && selectsKind(row.enabled_events, eventType),
          lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
        };
      });
    },

    async backlog() {
      const now = clock.now();
      return (await pendingByEndpoint(db, now)).map((row) => ({
        endpointId: row.endpoint_id,
        environment: row.environment,
        pending: Number(row.pending),
        due: Number(row.due),
        oldestSeconds: Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
      }));
    },

    async healthOf(organizationId, limit) {
      const now = clock.now();
      const rows = await endpointsOfOrganization(db, organizationId, limit);
      const backlog = new Map(
        (
          await pendingByEndpoint(
            db,
            now,
            rows.map((row) => row.id),
          )
        ).map((row) => [row.endpoint_id, row]),
      );
      return rows.map((row) => {
        const pending = backlog.get(row.id);
        return {
          endpoint: endpointView(row, now),
          failingSince: row.failing_since?.toISOString() ?? null,
          pending: Number(pending?.pending ?? 0),
          due: Number(pending?.due ?? 0),
          oldestSeconds: pending
            ? Math.max(0, Math.round((now.getTime() - new Date(pending.oldest).getTime()) / 1000))
            : 0,
        };
      });
    },

    async retry(owner, id) {
      const delivery = await findDelivery(db, owner, id);
      if (!delivery) return err({ code: 'delivery_not_found' });
      // An endpoint never receives a kind it does not select: not even by hand (the claim checks again).
      const eventType = (await deps.events.byIds([delivery.event_id])).get(delivery.event_id)?.type;
      if (eventType !== undefined && !selectsKind(delivery.enabled_events, eventType)) {
        return err({ code: 'event_type_not_selected', eventType });
      }
      const now = clock.now();
      // Due now. A worker sending it this instant loses its claim: its attempt is logged, and it goes again.
      const row = await transitionDelivery(db, delivery.id, ['pending', 'succeeded', 'failed'], 'pending', {
        next_attempt_at: now,
        lease_token: null,
        updated_at: now,
      });
      if (!row) throw new Error(`webhook delivery ${delivery.id} has a status outside its union`);
      return ok(deliveryView(row));
    },

    async endpointAttempts(owner, endpointId, limit) {
      const rows = await attemptsOfEndpoint(db, owner, endpointId, limit);
      const events = await deps.events.byIds(rows.map((row) => row.eventId));
      return rows.map((row) => ({ ...row, eventType: events.get(row.eventId)?.type ?? '' }));
    },
    isDeliveryOfEndpoint: (owner, endpointId, deliveryId) =>
      deliveryOfEndpoint(db, owner, endpointId, deliveryId),
  };
}
