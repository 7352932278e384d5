import type { Kdb } from '../../db/database.js';
import type { WebhookAttemptView } from './schemas.js';
import {
  attemptsOfEndpoint,
  attemptsOfEvents,
  deliveriesOfEvents,
  deliveryOfEndpoint,
  type EndpointAttempt,
  type EventsPage,
} from './repository.js';
import type { ChargeDelivery, WebhookEndpointServiceDeps } from './endpoint-types.js';
import { selectsKind } from './model.js';
import { attemptView, deliveryView } from './views.js';
import type { Owner } from '../../shared/owner.js';

export const CHARGE_ATTEMPTS_LIMIT = 20;
export const CHARGE_DELIVERIES_LIMIT = 50;

/** A read of the charge page: rows about the events of one charge. */
type ChargeLog<View> = (deps: WebhookEndpointServiceDeps, owner: Owner, chargeId: string) => Promise<View[]>;

/**
 * The rows `read` finds of the events about one charge (at most `limit`; none without any event), each
 * with its event's type ('' for an event no longer found).
 */
async function ofChargeEvents<Row extends { event_id: string }>(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  chargeId: string,
  read: (db: Kdb, owner: Owner, page: EventsPage) => Promise<Row[]>,
  limit: number,
): Promise<Array<{ row: Row; eventType: string }>> {
  const eventIds = await deps.events.idsAboutCharge(owner.organizationId, chargeId);
  const rows = eventIds.length === 0 ? [] : await read(deps.db, owner, { eventIds, limit });
  const events = await deps.events.byIds(rows.map((row) => row.event_id));
  return rows.map((row) => ({ row, eventType: events.get(row.event_id)?.type ?? '' }));
}

export const attemptsForCharge: ChargeLog<WebhookAttemptView> = async (deps, owner, chargeId) => {
  const rows = await ofChargeEvents(deps, owner, chargeId, attemptsOfEvents, CHARGE_ATTEMPTS_LIMIT);
  return rows.map(({ row, eventType }) => attemptView(row, eventType));
};

export const deliveriesForCharge: ChargeLog<ChargeDelivery> = async (deps, owner, chargeId) => {
  const rows = await ofChargeEvents(deps, owner, chargeId, deliveriesOfEvents, CHARGE_DELIVERIES_LIMIT);
  return rows.map(({ row, eventType }) => ({
    ...deliveryView(row),
    eventType,
    url: row.url,
    retryable: !row.endpoint_deleted && selectsKind(row.enabled_events, eventType),
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
  }));
};

export async function endpointAttempts(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  endpointId: string,
  limit: number,
): Promise<EndpointAttempt[]> {
  const { db } = deps;
  const rows = await attemptsOfEndpoint(db, owner, endpointId, limit);
  const events = await deps.events.byIds(rows.map((row) => row.eventId));
  return rows.map((row) => ({ ...row, eventType: events.get(row.eventId)?.type ?? '' }));
}

export function isDeliveryOfEndpoint(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  endpointId: string,
  deliveryId: string,
): Promise<boolean> {
  return deliveryOfEndpoint(deps.db, owner, endpointId, deliveryId);
}
