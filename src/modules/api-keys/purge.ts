import { DAY } from '../../shared/clock.js';
import { KEY_REQUEST_LOG_RETENTION_MS } from './key-requests.js';
import { purgeAuditTrails, purgeKeyRequests } from './repository.js';
import type { ApiKeyServiceDeps } from './types.js';

/** Spec 5.8: the link between a revoked key and its activity is kept this long after revocation. */
export const REVOKED_KEY_AUDIT_RETENTION_MS = 30 * DAY;

/** Deletes one batch of request-log entries older than 30 days; returns how many. */
export async function purgeRequestLog(deps: ApiKeyServiceDeps, batchSize = 5000): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - KEY_REQUEST_LOG_RETENTION_MS);
  return purgeKeyRequests(deps.db, cutoff, batchSize);
}

/** Purges one batch of audit trails of keys revoked more than 30 days ago; returns the keys done. */
export async function purgeRevokedAuditTrails(deps: ApiKeyServiceDeps, batchSize = 100): Promise<number> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - REVOKED_KEY_AUDIT_RETENTION_MS);
  return deps.db
    .transaction()
    .execute((trx) =>
      purgeAuditTrails(trx, cutoff, now, batchSize, (t, ids) => deps.audit.forgetKeys(t, ids)),
    );
}
