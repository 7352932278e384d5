import type { Environment } from '../../db/schema.js';
import { DAY } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { ApiKeyAuth } from './context.js';
import type { ApiKeyError } from './errors.js';
import { findKey, findKeyById, listKeyRequests } from './repository.js';
import type { ApiKeyServiceDeps, ApiKeyView, KeyRequestPage } from './types.js';
import { scopeOf, toApiKeyView, toKeyRequestView } from './views.js';

/** Spec 5.8: the per-key request log keeps each request this long. */
export const KEY_REQUEST_LOG_RETENTION_MS = 30 * DAY;

/** A page of one key's request log, newest first. */
async function requestPage(
  deps: ApiKeyServiceDeps,
  key: { id: string; organization_id: string; environment: Environment },
  limit: number,
  cursor?: string,
): Promise<Result<KeyRequestPage, ApiKeyError>> {
  const keyId = key.id;
  const pages = deps.cursors.for({
    list: 'api_key_requests',
    organizationId: key.organization_id,
    environment: key.environment,
    filter: key.id,
  });
  // Log rows have numeric ids; the cursor carries them as `kr_<id>`, the shape cursors expect. The
  // codec refuses (400) any cursor not issued for this key's log, so a decoded one has that shape.
  const decoded = cursor === undefined ? undefined : pages.decode(cursor);
  if (decoded && !decoded.ok) return decoded;
  const after = decoded && { createdAt: decoded.value.createdAt, id: decoded.value.id.replace(/^kr_/, '') };
  // Entries past 30 days are not shown even before the retention job deletes them.
  const since = new Date(deps.clock.now().getTime() - KEY_REQUEST_LOG_RETENTION_MS);
  const rows = await listKeyRequests(deps.db, keyId, { limit, since, ...(after ? { after } : {}) });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return ok({
    data: page.map(toKeyRequestView),
    nextCursor: rows.length > limit && last ? pages.encode(last.created_at, `kr_${last.id}`) : null,
  });
}

/** The key's requests of the last 30 days, newest first (a key of the caller's organization and environment). */
export async function listRequests(
  deps: ApiKeyServiceDeps,
  caller: ApiKeyAuth,
  id: string,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<KeyRequestPage, ApiKeyError>> {
  const key = await findKey(deps.db, scopeOf(caller), id);
  if (!key) return err({ code: 'not_found' });
  return requestPage(deps, key, limit, cursor);
}

/** The operator's view: any key's request log, with the key. */
export async function requestsOfKey(
  deps: ApiKeyServiceDeps,
  id: string,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<KeyRequestPage & { key: ApiKeyView; organizationId: string }, ApiKeyError>> {
  const key = await findKeyById(deps.db, id);
  if (!key) return err({ code: 'not_found' });
  const page = await requestPage(deps, key, limit, cursor);
  if (!page.ok) return page;
  return ok({ key: toApiKeyView(key), organizationId: key.organization_id, ...page.value });
}
