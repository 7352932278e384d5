import { HOUR } from '../../shared/clock.js';
import { purgeInBatches } from '../../worker/purge.js';
import type { Job } from '../../worker/worker.js';
import type { ApiKeyService } from './service.js';

/**
 * Spec 5.8 and product decision 11: 30 days after revocation, a key's audit trail (its creation and
 * revocation entries and the entries it made as actor) is deleted. Batches claim keys with SKIP LOCKED
 * and mark them in the same transaction, so several workers share the work and a crash loses nothing.
 * The key row itself stays: its display prefix must never be issued again. The per-key request log
 * (every key, revoked or not) keeps each request 30 days and is purged here too.
 */
export function apiKeyRetentionJob({ apiKeys }: { apiKeys: ApiKeyService }): Job {
  return {
    name: 'api-key-audit-purge',
    intervalMs: HOUR,
    run: async (signal) => ({
      rows:
        (await purgeInBatches(() => apiKeys.purgeRevokedAuditTrails(), signal)) +
        // the per-key request log keeps each request 30 days
        (await purgeInBatches(() => apiKeys.purgeRequestLog(), signal)),
      errors: 0,
    }),
  };
}
