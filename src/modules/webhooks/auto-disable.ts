import type { Trx } from '../../db/database.js';
import { webhookEndpointDisabledEmail } from '../email/templates.js';
import type { WebhookDispatcherDeps } from './dispatcher-types.js';
import { DISABLE_AFTER_MS } from './delivery-policy.js';

type DisableDeps = Pick<
  WebhookDispatcherDeps,
  'db' | 'clock' | 'mailer' | 'ownerEmails' | 'logger' | 'dashboardUrl'
>;

/** Disables endpoints failing for 5 days and e-mails their organization's owners. */
export async function disableFailing(deps: DisableDeps): Promise<number> {
  const disabled = await deps.db.transaction().execute((trx) => disableFailingIn(deps, trx));
  if (disabled > 0) deps.mailer.nudge();
  return disabled;
}

/** Disables endpoints (the ones given, or every one due) failing for 5 days; e-mails are queued in the same transaction. */
export async function disableFailingIn(
  deps: Omit<DisableDeps, 'db'>,
  trx: Trx,
  endpointIds?: readonly string[],
): Promise<number> {
  const now = deps.clock.now();
  let query = trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null)
    .where('failing_since', '<=', new Date(now.getTime() - DISABLE_AFTER_MS))
    // A paused endpoint is not attempted, so it cannot recover meanwhile: it is not disabled while
    // paused, only if it still fails once its deliveries resume (ADR 0068).
    .where((eb) => eb.or([eb('paused_until', 'is', null), eb('paused_until', '<=', now)]))
    .limit(100)
    .forUpdate()
    .skipLocked();
  if (endpointIds !== undefined) query = query.where('id', 'in', [...endpointIds]);
  const endpoints = await query.execute();
  for (const endpoint of endpoints) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'failing', updated_at: now })
      .where('id', '=', endpoint.id)
      .execute();
    const owners = await deps.ownerEmails(trx, endpoint.organization_id);
    for (const email of owners) {
      await deps.mailer.enqueue(
        trx,
        email,
        webhookEndpointDisabledEmail({
          url: endpoint.url,
          endpointId: endpoint.id,
          environment: endpoint.environment,
          failingSince: endpoint.failing_since ?? now,
          dashboardUrl: deps.dashboardUrl(),
        }),
      );
    }
    deps.logger.warn(
      { endpointId: endpoint.id, organizationId: endpoint.organization_id, owners: owners.length },
      'webhook endpoint disabled after 5 days of failures',
    );
  }
  return endpoints.length;
}
