import type { WebhookAttemptView } from './schemas.js';
import {
  attemptsOfEndpoint,
  attemptsOfEvents,
  deliveriesOfEvents,
  deliveryOfEndpoint,
  type EndpointAttempt,
} from './repository.js';
import type { ChargeDelivery, WebhookEndpointServiceDeps } from './endpoint-types.js';
import { selectsKind } from './model.js';
import { attemptView, deliveryView } from './views.js';
import type { Owner } from '../../shared/owner.js';

export const CHARGE_ATTEMPTS_LIMIT = 20;
export const CHARGE_DELIVERIES_LIMIT = 50;

export async function attemptsForCharge(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  chargeId: string,
): Promise<WebhookAttemptView[]> {
  const { db } = deps;
  const eventIds = await deps.events.idsAboutCharge(owner.organizationId, chargeId);
  const rows = await attemptsOfEvents(db, owner, eventIds, CHARGE_ATTEMPTS_LIMIT);
  const events = await deps.events.byIds(rows.map((row) => row.event_id));
  return rows.map((row) => attemptView(row, events.get(row.event_id)?.type ?? ''));
}

export async function deliveriesForCharge(
  deps: WebhookEndpointServiceDeps,
  owner: Owner,
  chargeId: string,
): Promise<ChargeDelivery[]> {
  const { db } = deps;
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
}

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
