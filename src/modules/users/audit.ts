import type { Kdb } from '../../db/database.js';
import type { UserRow } from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { DashboardUser, RequestContext } from './types.js';

/** Who and what an audit entry names when it is not the user itself. */
export interface AuditExtra {
  actor?: string;
  after?: unknown;
  targetType?: string;
  targetId?: string;
}

/** One entry of the audit log about a user, by that user unless `extra.actor` says otherwise. */
export function record(
  deps: Pick<UserServiceDeps, 'audit'>,
  dbOrTrx: Kdb,
  user: Pick<UserRow, 'id' | 'organization_id'>,
  action: string,
  context: RequestContext,
  extra: AuditExtra = {},
) {
  return deps.audit.record(dbOrTrx, {
    actor: extra.actor ?? `user:${user.id}`,
    action,
    targetType: extra.targetType ?? 'user',
    targetId: extra.targetId ?? user.id,
    organizationId: user.organization_id,
    after: extra.after,
    requestId: context.requestId,
    ip: context.ip,
  });
}

/** A security action of a signed-in user that the pages record themselves. */
export async function recordAudit(
  deps: UserServiceDeps,
  actor: DashboardUser,
  action: string,
  context: RequestContext,
  extra: Omit<AuditExtra, 'actor'> = {},
): Promise<void> {
  await record(
    deps,
    deps.db,
    { id: actor.id, organization_id: actor.organizationId },
    action,
    context,
    extra,
  );
}
