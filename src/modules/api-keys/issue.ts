import type { Kdb } from '../../db/database.js';
import type { ApiKeyScope, Environment } from '../../db/schema.js';
import type { ValidationIssue } from '../../http/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok } from '../../shared/result.js';
import { holdsScope, keyActor, type ApiKeyAuth } from './context.js';
import type { ApiKeyResult } from './errors.js';
import { normalizeCidr } from './ip-allowlist.js';
import { generateApiKey } from './key-format.js';
import { findKey } from './repository.js';
import type { ApiKeyServiceDeps, CreatedApiKey, CreateKeyRequest, RequestMeta } from './types.js';
import { auditView, scopeOf, toApiKeyView } from './views.js';

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

/** A new key of the caller's organization and environment, holding no scope the caller lacks. */
export async function createKey(
  deps: ApiKeyServiceDeps,
  caller: ApiKeyAuth,
  input: CreateKeyRequest,
  meta: RequestMeta,
): Promise<ApiKeyResult<CreatedApiKey>> {
  const { db, clock, audit } = deps;
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
}
