import type { WebhookDispatcherDeps } from './dispatcher-types.js';
import { RETENTION_MS } from './delivery-policy.js';

/** Deletes attempts older than 30 days and finished deliveries older than 30 days (one batch). */
export async function purgeExpired(
  deps: Pick<WebhookDispatcherDeps, 'db' | 'clock'>,
  batchSize = 1000,
): Promise<number> {
  const { db, clock } = deps;
  const cutoff = new Date(clock.now().getTime() - RETENTION_MS);
  const attempts = await db
    .deleteFrom('webhook_attempts')
    .where('id', 'in', (eb) =>
      eb.selectFrom('webhook_attempts').select('id').where('attempted_at', '<', cutoff).limit(batchSize),
    )
    .executeTakeFirst();
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '<>', 'pending')
        .where('updated_at', '<', cutoff)
        .limit(batchSize),
    )
    .executeTakeFirst();
  return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
}
