import type { ApiKeyAuth } from './context.js';
import type { ApiKeyResult } from './errors.js';
import { createKey } from './issue.js';
import { listRequests, requestsOfKey } from './key-requests.js';
import { getKey, listCallerKeys, listForOrganization } from './listing.js';
import { purgeRequestLog, purgeRevokedAuditTrails } from './purge.js';
import { revokeKey } from './revoke.js';
import type {
  ApiKeyPage,
  ApiKeyServiceDeps,
  ApiKeyView,
  CreatedApiKey,
  CreateKeyRequest,
  KeyRequestPage,
  RequestMeta,
} from './types.js';

export interface ApiKeyService {
  /** A new key of the caller's organization and environment, holding no scope the caller lacks. */
  create(
    caller: ApiKeyAuth,
    input: CreateKeyRequest,
    meta: RequestMeta,
  ): Promise<ApiKeyResult<CreatedApiKey>>;
  list(caller: ApiKeyAuth, page: { limit: number; cursor?: string }): Promise<ApiKeyResult<ApiKeyPage>>;
  get(caller: ApiKeyAuth, id: string): Promise<ApiKeyResult<ApiKeyView>>;
  /** Revokes a key at once on every instance; revoking a revoked key changes nothing. */
  revoke(caller: ApiKeyAuth, id: string, meta: RequestMeta): Promise<ApiKeyResult<ApiKeyView>>;
  /** The key's requests of the last 30 days, newest first (a key of the caller's organization and environment). */
  listRequests(
    caller: ApiKeyAuth,
    id: string,
    page: { limit: number; cursor?: string },
  ): Promise<ApiKeyResult<KeyRequestPage>>;
  /** Operator views: every key of an organization, and any key's request log. */
  listForOrganization(organizationId: string): Promise<ApiKeyView[]>;
  requestsOfKey(
    id: string,
    page: { limit: number; cursor?: string },
  ): Promise<ApiKeyResult<KeyRequestPage & { key: ApiKeyView; organizationId: string }>>;
  /** Purges one batch of audit trails of keys revoked more than 30 days ago; returns the keys done. */
  purgeRevokedAuditTrails(batchSize?: number): Promise<number>;
  /** Deletes one batch of request-log entries older than 30 days; returns how many. */
  purgeRequestLog(batchSize?: number): Promise<number>;
}
export function createApiKeyService(deps: ApiKeyServiceDeps): ApiKeyService {
  return {
    create: (caller, input, meta) => createKey(deps, caller, input, meta),
    list: (caller, page) => listCallerKeys(deps, caller, page),
    get: (caller, id) => getKey(deps, caller, id),
    revoke: (caller, id, meta) => revokeKey(deps, caller, id, meta),
    listRequests: (caller, id, page) => listRequests(deps, caller, id, page),
    listForOrganization: (organizationId) => listForOrganization(deps, organizationId),
    requestsOfKey: (id, page) => requestsOfKey(deps, id, page),
    purgeRequestLog: (batchSize) => purgeRequestLog(deps, batchSize),
    purgeRevokedAuditTrails: (batchSize) => purgeRevokedAuditTrails(deps, batchSize),
  };
}
