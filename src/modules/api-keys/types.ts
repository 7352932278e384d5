import type { Kdb } from '../../db/database.js';
import type { ApiKeyScope, Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { AuditLog } from '../audit/service.js';

export interface ApiKeyServiceDeps {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  cursors: CursorCodec;
}

/** An API key as the API shows it: never the secret, never its hash. */
export interface ApiKeyView {
  id: string;
  displayPrefix: string;
  environment: Environment;
  name: string | null;
  scopes: ApiKeyScope[];
  allowedIps: string[];
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface CreatedApiKey extends ApiKeyView {
  /** The whole key: returned by the creation only. */
  secret: string;
}

export interface CreateKeyRequest {
  scopes: ApiKeyScope[];
  allowedIps?: string[];
  /** ISO 8601; must be in the future. */
  expiresAt?: string;
  name?: string;
}

/** Where a change comes from, for the audit log. */
export interface RequestMeta {
  requestId: string;
  ip: string;
  /** Audit actor when the caller is not a key (the dashboard: `user:<id>`); defaults to `key:<keyId>`. */
  actor?: string;
}

export interface ApiKeyPage {
  data: ApiKeyView[];
  nextCursor: string | null;
}

/** One request of a key, as the merchant and the operator see it. */
export interface KeyRequestView {
  method: string;
  route: string;
  resourceId: string | null;
  statusCode: number;
  requestId: string;
  ip: string | null;
  createdAt: Date;
}

export interface KeyRequestPage {
  data: KeyRequestView[];
  nextCursor: string | null;
}
