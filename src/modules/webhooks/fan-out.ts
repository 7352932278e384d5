import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { EventSubscriber } from '../events/service.js';
import { selectsKind } from './model.js';

/** Rows per insert: 9 parameters a row, far below PostgreSQL's 65 535 parameters a statement. */
const DELIVERIES_PER_STATEMENT = 5_000;

/**
 * The transactional outbox's fan-out (product decision 28): one pending delivery per enabled endpoint of
 * the event's organization and environment that selected the kind, written in the event's transaction,
 * so a delivery exists exactly when the change it announces does. The events of one call are handled
 * together: one read of the endpoints of all their organizations, then one insert per 5 000 deliveries
 * (a settlement chunk records two events for each of hundreds of owners).
 */
export function createWebhookFanOut(deps: { clock: Clock }): EventSubscriber {
  return async (trx, events) => {
    if (events.length === 0) return;
    const organizations = [...new Set(events.map((event) => event.organizationId))];
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'organization_id', 'environment', 'enabled_events'])
      .where('organization_id', 'in', organizations)
      .where('status', '=', 'enabled')
      .where('deleted_at', 'is', null)
      .execute();
    if (endpoints.length === 0) return;
    const now = deps.clock.now();
    const ofOwner = new Map<string, typeof endpoints>();
    for (const endpoint of endpoints) {
      const key = `${endpoint.organization_id}:${endpoint.environment}`;
      ofOwner.set(key, [...(ofOwner.get(key) ?? []), endpoint]);
    }
    const deliveries = events.flatMap((event) =>
      (ofOwner.get(`${event.organizationId}:${event.environment}`) ?? [])
        .filter((endpoint) => selectsKind(endpoint.enabled_events, event.type))
        .map((endpoint) => ({
          id: newId('whd', now),
          event_id: event.id,
          endpoint_id: endpoint.id,
          organization_id: event.organizationId,
          environment: event.environment,
          status: 'pending' as const,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })),
    );
    for (let start = 0; start < deliveries.length; start += DELIVERIES_PER_STATEMENT) {
      await trx
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(start, start + DELIVERIES_PER_STATEMENT))
        .onConflict((conflict) => conflict.columns(['event_id', 'endpoint_id']).doNothing())
        .execute();
    }
  };
}
