import {
  attemptIds,
  attemptOutcome,
  type AttemptWithDelivery,
  type DeliveryRow,
  type EndpointRow,
} from './repository.js';
import type { WebhookAttemptView, WebhookDeliveryView, WebhookEndpointView } from './schemas.js';
import type { WebhookError } from './errors.js';
import { err } from '../../shared/result.js';

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

export function attemptView(row: AttemptWithDelivery, eventType: string): WebhookAttemptView {
  return {
    ...attemptIds(row),
    eventType,
    endpointId: row.endpoint_id,
    url: row.url,
    attemptedAt: row.attempted_at.toISOString(),
    ...attemptOutcome(row),
    nextAttemptAt: row.delivery_status === 'pending' ? row.next_attempt_at.toISOString() : null,
  };
}

export const notFound = err<WebhookError>({ code: 'not_found' });
