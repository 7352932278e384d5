import { pendingByEndpoint, endpointsOfOrganization } from './repository.js';
import type { EndpointBacklog, EndpointHealth, WebhookEndpointServiceDeps } from './endpoint-types.js';
import { endpointView } from './views.js';

export async function backlogOfEndpoints(deps: WebhookEndpointServiceDeps): Promise<EndpointBacklog[]> {
  const { db, clock } = deps;
  const now = clock.now();
  return (await pendingByEndpoint(db, now)).map((row) => ({
    endpointId: row.endpoint_id,
    environment: row.environment,
    pending: Number(row.pending),
    due: Number(row.due),
    oldestSeconds: Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
  }));
}

export async function healthOf(
  deps: WebhookEndpointServiceDeps,
  organizationId: string,
  limit: number,
): Promise<EndpointHealth[]> {
  const { db, clock } = deps;
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
}
