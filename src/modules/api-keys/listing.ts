import { cursorPage } from '../../shared/cursor-page.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { ApiKeyAuth } from './context.js';
import type { ApiKeyError } from './errors.js';
import { findKey, listKeys, listOrganizationKeys } from './repository.js';
import type { ApiKeyPage, ApiKeyServiceDeps, ApiKeyView } from './types.js';
import { scopeOf, toApiKeyView } from './views.js';

/** The caller's organization and environment's keys, newest first, a page at a time. */
export async function listCallerKeys(
  deps: ApiKeyServiceDeps,
  caller: ApiKeyAuth,
  { limit, cursor }: { limit: number; cursor?: string },
): Promise<Result<ApiKeyPage, ApiKeyError>> {
  return cursorPage(deps.cursors, {
    list: 'api_keys',
    owner: scopeOf(caller),
    query: { limit, cursor },
    rows: (after) => listKeys(deps.db, scopeOf(caller), { limit, ...(after ? { after } : {}) }),
    view: (rows) => rows.map(toApiKeyView),
  });
}

export async function getKey(
  deps: ApiKeyServiceDeps,
  caller: ApiKeyAuth,
  id: string,
): Promise<Result<ApiKeyView, ApiKeyError>> {
  const row = await findKey(deps.db, scopeOf(caller), id);
  return row ? ok(toApiKeyView(row)) : err({ code: 'not_found' });
}

/** The operator's view: every key of an organization. */
export async function listForOrganization(
  deps: ApiKeyServiceDeps,
  organizationId: string,
): Promise<ApiKeyView[]> {
  return (await listOrganizationKeys(deps.db, organizationId)).map(toApiKeyView);
}
