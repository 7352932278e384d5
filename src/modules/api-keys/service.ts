import type { Kdb } from '../../db/database.js';
import type { ApiKeyScope, Environment } from '../../db/schema.js';
import type { ValidationIssue } from '../../http/errors.js';
import { DAY, type Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { holdsScope, keyActor, type ApiKeyAuth } from './context.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { ApiKeyError } from './errors.js';
import { normalizeCidr } from './ip-allowlist.js';
import { generateApiKey } from './key-format.js';
import {
  findKey,
  findKeyById,
  listKeyRequests,
  listKeys,
  listOrganizationKeys,
  markRevoked,
  purgeAuditTrails,
  purgeKeyRequests,
  type ApiKeyRow,
  type KeyRequestRow,
} from './repository.js';

export interface IssuedApiKey {
  id: string;
  /** The whole key, returned once and never stored. */
  secret: string;
  displayPrefix: string;
  environment: Environment;
  scopes: ApiKeyScope[];
  allowedIps: string[];
  expiresAt: Date | null;
  createdAt: Date;
}

export interface IssueKeyInput {
  organizationId: string;
  environment: Environment;
  scopes: ApiKeyScope[];
  allowedIps?: string[];
  expiresAt?: Date | null;
  name?: string | null;
  /** Audit actor: `staff:…`, `user:…`, `key:…`, `system`, `cli`. */
  createdBy: string;
}

/** Creates a key in the caller's transaction. Only its SHA-256 and display prefix are stored. */
export async function issueApiKey(db: Kdb, clock: Clock, input: IssueKeyInput): Promise<IssuedApiKey> {
  const now = clock.now();
  for (;;) {
    const generated = generateApiKey(input.environment);
    const inserted = await db
      .insertInto('api_keys')
      .values({
        id: newId('key', now),
        organization_id: input.organizationId,
        environment: input.environment,
        display_prefix: generated.displayPrefix,
        secret_hash: generated.secretHash,
        name: input.name ?? null,
        scopes: input.scopes,
        allowed_ips: input.allowedIps ?? [],
        expires_at: input.expiresAt ?? null,
        created_by: input.createdBy,
        created_at: now,
      })
      // A display prefix is never re-issued: on the (rare) clash, draw another key.
      .onConflict((oc) => oc.column('display_prefix').doNothing())
      .returning(['id', 'created_at'])
      .executeTakeFirst();
    if (!inserted) continue;
    return {
      id: inserted.id,
      secret: generated.secret,
      displayPrefix: generated.displayPrefix,
      environment: input.environment,
      scopes: input.scopes,
      allowedIps: input.allowedIps ?? [],
      expiresAt: input.expiresAt ?? null,
      createdAt: inserted.created_at,
    };
  }
}

/** Spec 5.8: the link between a revoked key and its activity is kept this long after revocation. */
export const REVOKED_KEY_AUDIT_RETENTION_MS = 30 * DAY;

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

/** Spec 5.8: the per-key request log keeps each request this long. */
export const KEY_REQUEST_LOG_RETENTION_MS = 30 * DAY;

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

export interface ApiKeyService {
  /** A new key of the caller's organization and environment, holding no scope the caller lacks. */
  create(
    caller: ApiKeyAuth,
    input: CreateKeyRequest,
    meta: RequestMeta,
  ): Promise<Result<CreatedApiKey, ApiKeyError>>;
  list(
    caller: ApiKeyAuth,
    page: { limit: number; cursor?: string },
  ): Promise<Result<ApiKeyPage, ApiKeyError>>;
  get(caller: ApiKeyAuth, id: string): Promise<Result<ApiKeyView, ApiKeyError>>;
  /** Revokes a key at once on every instance; revoking a revoked key changes nothing. */
  revoke(caller: ApiKeyAuth, id: string, meta: RequestMeta): Promise<Result<ApiKeyView, ApiKeyError>>;
  /** The key's requests of the last 30 days, newest first (a key of the caller's organization and environment). */
  listRequests(
    caller: ApiKeyAuth,
    id: string,
    page: { limit: number; cursor?: string },
  ): Promise<Result<KeyRequestPage, ApiKeyError>>;
  /** Operator views: every key of an organization, and any key's request log. */
  listForOrganization(organizationId: string): Promise<ApiKeyView[]>;
  requestsOfKey(
    id: string,
    page: { limit: number; cursor?: string },
  ): Promise<Result<KeyRequestPage & { key: ApiKeyView; organizationId: string }, ApiKeyError>>;
  /** Purges one batch of audit trails of keys revoked more than 30 days ago; returns the keys done. */
  purgeRevokedAuditTrails(batchSize?: number): Promise<number>;
  /** Deletes one batch of request-log entries older than 30 days; returns how many. */
  purgeRequestLog(batchSize?: number): Promise<number>;
}

function toKeyRequestView(row: KeyRequestRow): KeyRequestView {
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

export function createApiKeyService(deps: {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  cursors: CursorCodec;
}): ApiKeyService {
  const { db, clock, audit, cursors } = deps;
  const scopeOf = (caller: ApiKeyAuth) => ({
    organizationId: caller.organizationId,
    environment: caller.environment,
  });

  const requestPage = async (
    key: { id: string; organization_id: string; environment: Environment },
    limit: number,
    cursor?: string,
  ): Promise<Result<KeyRequestPage, ApiKeyError>> => {
    const keyId = key.id;
    const pages = cursors.for({
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
    const since = new Date(clock.now().getTime() - KEY_REQUEST_LOG_RETENTION_MS);
    const rows = await listKeyRequests(db, keyId, { limit, since, ...(after ? { after } : {}) });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return ok({
      data: page.map(toKeyRequestView),
      nextCursor: rows.length > limit && last ? pages.encode(last.created_at, `kr_${last.id}`) : null,
    });
  };

  return {
    async create(caller, input, meta) {
      const missingScopes = input.scopes.filter((scope) => !holdsScope(caller.scopes, scope));
      if (missingScopes.length > 0) return err({ code: 'scope_not_held', missingScopes });

      const issues: ValidationIssue[] = [];
      const allowedIps: string[] = [];
      (input.allowedIps ?? []).forEach((entry, index) => {
        const cidr = normalizeCidr(entry);
        if (cidr === undefined) {
          issues.push({
            path: `allowedIps.${index}`,
            in: 'body',
            code: 'invalid_format',
            message: 'must be an IPv4 or IPv6 address or CIDR range, such as 203.0.113.0/24 or 2001:db8::/32',
          });
        } else if (!allowedIps.includes(cidr)) allowedIps.push(cidr);
      });
      const now = clock.now();
      const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
      if (expiresAt !== null && !(expiresAt.getTime() > now.getTime())) {
        issues.push({
          path: 'expiresAt',
          in: 'body',
          code: 'invalid_value',
          message: 'must be in the future',
        });
      }
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
      const actor = meta.actor ?? keyActor(caller);

      const created = await db.transaction().execute(async (trx) => {
        const issued = await issueApiKey(trx, clock, {
          organizationId: caller.organizationId,
          environment: caller.environment,
          scopes: [...new Set(input.scopes)],
          allowedIps,
          expiresAt,
          name: input.name === undefined || input.name === '' ? null : input.name,
          createdBy: actor,
        });
        const row = await findKey(trx, scopeOf(caller), issued.id);
        if (!row) throw new Error(`key ${issued.id} vanished inside its own transaction`);
        const view = toApiKeyView(row);
        await audit.record(trx, {
          actor,
          action: 'api_key.created',
          targetType: 'api_key',
          targetId: view.id,
          organizationId: caller.organizationId,
          after: auditView(view),
          requestId: meta.requestId,
          ip: meta.ip,
        });
        return { ...view, secret: issued.secret };
      });
      return ok(created);
    },

    async list(caller, { limit, cursor }) {
      const pages = cursors.for({ list: 'api_keys', ...scopeOf(caller) });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after && !after.ok) return after;
      const rows = await listKeys(db, scopeOf(caller), { limit, ...(after ? { after: after.value } : {}) });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return ok({
        data: page.map(toApiKeyView),
        nextCursor: rows.length > limit && last ? pages.encode(last.created_at, last.id) : null,
      });
    },

    async get(caller, id) {
      const row = await findKey(db, scopeOf(caller), id);
      return row ? ok(toApiKeyView(row)) : err({ code: 'not_found' });
    },

    async revoke(caller, id, meta) {
      return db.transaction().execute(async (trx): Promise<Result<ApiKeyView, ApiKeyError>> => {
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
    },

    async listRequests(caller, id, { limit, cursor }) {
      const key = await findKey(db, scopeOf(caller), id);
      if (!key) return err({ code: 'not_found' });
      return requestPage(key, limit, cursor);
    },

    async listForOrganization(organizationId) {
      return (await listOrganizationKeys(db, organizationId)).map(toApiKeyView);
    },

    async requestsOfKey(id, { limit, cursor }) {
      const key = await findKeyById(db, id);
      if (!key) return err({ code: 'not_found' });
      const page = await requestPage(key, limit, cursor);
      if (!page.ok) return page;
      return ok({ key: toApiKeyView(key), organizationId: key.organization_id, ...page.value });
    },

    async purgeRequestLog(batchSize = 5000) {
      const cutoff = new Date(clock.now().getTime() - KEY_REQUEST_LOG_RETENTION_MS);
      return purgeKeyRequests(db, cutoff, batchSize);
    },

    async purgeRevokedAuditTrails(batchSize = 100) {
      const now = clock.now();
      const cutoff = new Date(now.getTime() - REVOKED_KEY_AUDIT_RETENTION_MS);
      return db
        .transaction()
        .execute((trx) =>
          purgeAuditTrails(trx, cutoff, now, batchSize, (t, ids) => deps.audit.forgetKeys(t, ids)),
        );
    },
  };
}

/** What the audit log keeps of a key: its shape, never its secret. */
function auditView(view: ApiKeyView) {
  return {
    environment: view.environment,
    displayPrefix: view.displayPrefix,
    name: view.name,
    scopes: view.scopes,
    allowedIps: view.allowedIps,
    expiresAt: view.expiresAt,
  };
}
