import { sql } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { EventSubscriber } from '../events/service.js';

/**
 * The transactional outbox's fan-out (product decision 28): one pending delivery per enabled endpoint of
 * the event's organization and environment that selected the kind, written in the event's transaction,
 * so a delivery exists exactly when the change it announces does.
 */
export function createWebhookFanOut(deps: { clock: Clock }): EventSubscriber {
  return async (trx, event) => {
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', event.organizationId)
      .where('environment', '=', event.environment)
      .where('status', '=', 'enabled')
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`enabled_events && ARRAY[${event.type}, '*']::text[]`)
      .execute();
    if (endpoints.length === 0) return;
    const now = deps.clock.now();
    await trx
      .insertInto('webhook_deliveries')
      .values(
        endpoints.map((endpoint) => ({
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
      )
      .onConflict((conflict) => conflict.columns(['event_id', 'endpoint_id']).doNothing())
      .execute();
  };
}
