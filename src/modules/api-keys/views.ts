import type { ApiKeyAuth } from './context.js';
import type { ApiKeyRow, KeyRequestRow } from './repository.js';
import type { ApiKeyView, KeyRequestView } from './types.js';

/** The caller's organization and environment: the only keys a key sees. */
export const scopeOf = (caller: ApiKeyAuth) => ({
  organizationId: caller.organizationId,
  environment: caller.environment,
});

export function toKeyRequestView(row: KeyRequestRow): KeyRequestView {
  return {
    method: row.method,
    route: row.route,
    resourceId: row.resource_id,
    statusCode: row.status_code,
    requestId: row.request_id,
    ip: row.ip,
    createdAt: row.created_at,
  };
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    displayPrefix: row.display_prefix,
    environment: row.environment,
    name: row.name,
    scopes: row.scopes,
    allowedIps: row.allowed_ips,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** What the audit log keeps of a key: its shape, never its secret. */
export function auditView(view: ApiKeyView) {
  return {
    environment: view.environment,
    displayPrefix: view.displayPrefix,
    name: view.name,
    scopes: view.scopes,
    allowedIps: view.allowedIps,
    expiresAt: view.expiresAt,
  };
}
