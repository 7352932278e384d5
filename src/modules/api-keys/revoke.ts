import { err, ok } from '../../shared/result.js';
import { holdsScope, keyActor, type ApiKeyAuth } from './context.js';
import type { ApiKeyResult } from './errors.js';
import { findKey, markRevoked } from './repository.js';
import type { ApiKeyServiceDeps, ApiKeyView, RequestMeta } from './types.js';
import { scopeOf, toApiKeyView } from './views.js';

/** Revokes a key at once on every instance; revoking a revoked key changes nothing. */
export async function revokeKey(
  { db, clock, audit }: ApiKeyServiceDeps,
  caller: ApiKeyAuth,
  id: string,
  meta: RequestMeta,
): Promise<ApiKeyResult<ApiKeyView>> {
  return db.transaction().execute(async (trx): Promise<ApiKeyResult<ApiKeyView>> => {
    const row = await findKey(trx, scopeOf(caller), id, { forUpdate: true });
    if (!row) return err({ code: 'not_found' });
    // A key may revoke itself, or keys no more powerful than itself: a leaked read key cannot
    // lock the merchant out by revoking its `all` key.
    const missingScopes = row.scopes.filter((scope) => !holdsScope(caller.scopes, scope));
    if (row.id !== caller.keyId && missingScopes.length > 0) {
      return err({ code: 'scope_not_held', missingScopes });
    }
    if (row.revoked_at !== null) return ok(toApiKeyView(row));
    const actor = meta.actor ?? keyActor(caller);
    const revoked = toApiKeyView(await markRevoked(trx, row.id, actor, clock.now()));
    await audit.record(trx, {
      actor,
      action: 'api_key.revoked',
      targetType: 'api_key',
      targetId: row.id,
      organizationId: caller.organizationId,
      before: { revokedAt: null },
      after: { revokedAt: revoked.revokedAt },
      requestId: meta.requestId,
      ip: meta.ip,
    });
    return ok(revoked);
  });
}
