import { sql, type Selectable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type {
  ApiKeyRequestsTable,
  ApiKeysTable,
  Environment,
  FeatureFlag,
  KycStatus,
} from '../../db/schema.js';
import { MINUTE } from '../../shared/clock.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { ownedBy, type OwnerKey } from '../../db/scopes.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** What authentication needs about a key and its organization, read in one statement. */
export interface KeyForAuth {
  id: string;
  organizationId: string;
  environment: Environment;
  scopes: ApiKeyRow['scopes'];
  allowedIps: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  kycStatus: KycStatus;
  frozen: boolean;
  featureFlags: FeatureFlag[];
  rateLimitLive: number | null;
  rateLimitSandbox: number | null;
}

/**
 * The key with this SHA-256 and the state of its organization, through the unique index on
 * `secret_hash`: the same plan whether the key exists or not. Reading the organization here (rather than
 * through its module) keeps authentication at one round trip.
 */
export async function findKeyForAuth(db: Kdb, secretHash: string): Promise<KeyForAuth | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('organizations as o', 'o.id', 'k.organization_id')
    .select([
      'k.id',
      'k.organization_id',
      'k.environment',
      'k.scopes',
      'k.allowed_ips',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'o.kyc_status',
      'o.frozen_at',
      'o.feature_flags',
      'o.rate_limit_live',
      'o.rate_limit_sandbox',
    ])
    .where('k.secret_hash', '=', secretHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    scopes: row.scopes,
    allowedIps: row.allowed_ips,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    kycStatus: row.kyc_status,
    frozen: row.frozen_at !== null,
    featureFlags: row.feature_flags,
    rateLimitLive: row.rate_limit_live,
    rateLimitSandbox: row.rate_limit_sandbox,
  };
}

/** A reading of the auth epoch: its version, and how long it may be trusted (0: this request only). */
export interface AuthEpochReading {
  version: bigint;
  leaseMs: number;
}

/**
 * Reads the auth epoch through `api_key_auth_epoch_read()` (migration 0028, decision 0038): one round
 * trip, on its own (never inside a transaction), and on the primary.
 */
export async function readAuthEpoch(db: Kdb): Promise<AuthEpochReading> {
  const { rows } = await sql<{
    version: string;
    lease_ms: number;
  }>`SELECT version, lease_ms FROM api_key_auth_epoch_read()`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('api_key_auth_epoch_read() returned no row');
  return { version: BigInt(row.version), leaseMs: row.lease_ms };
}

/**
 * Records use to the minute: writes only when the stored value is a minute old or more, so that several
 * instances serving the same key write once a minute between them.
 */
export async function touchLastUsed(db: Kdb, id: string, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(now.getTime() - MINUTE))]),
    )
    .execute();
}

export async function findKey(
  db: Kdb,
  scope: OwnerKey,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ApiKeyRow | undefined> {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', id).$call(ownedBy(scope));
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Newest first, by (created_at, id) descending; one extra row tells whether a next page exists. */
export async function listKeys(
  db: Kdb,
  scope: OwnerKey,
  page: { limit: number; after?: Cursor },
): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .$call(ownedBy(scope))
    .$call(keysetPage(page.after, page.limit + 1))
    .execute();
}

export async function markRevoked(db: Kdb, id: string, by: string, now: Date): Promise<ApiKeyRow> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: now, revoked_by: by })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Claims up to `batchSize` keys revoked before `cutoff` whose audit trail is still there, has `forget`
 * delete their trail (entries about the key and entries the key made; the audit module owns them) and
 * marks them purged, in the caller's transaction. SKIP LOCKED lets several workers share the work.
 */
export async function purgeAuditTrails(
  trx: Trx,
  cutoff: Date,
  now: Date,
  batchSize: number,
  forget: (trx: Trx, keyIds: string[]) => Promise<void>,
): Promise<number> {
  const due = await trx
    .selectFrom('api_keys')
    .select('id')
    .where('revoked_at', '<=', cutoff)
    .where('audit_purged_at', 'is', null)
    .orderBy('revoked_at')
    .limit(batchSize)
    .forUpdate()
    .skipLocked()
    .execute();
  if (due.length === 0) return 0;
  const ids = due.map((row) => row.id);
  await forget(trx, ids);
  await trx.updateTable('api_keys').set({ audit_purged_at: now }).where('id', 'in', ids).execute();
  return ids.length;
}

/** Counts for tests and diagnostics: how many audit entries still name the key. */
export { countKeyTrail as countAuditTrail } from '../audit/service.js';

export type KeyRequestRow = Selectable<ApiKeyRequestsTable>;

/** One request of a key, as the log keeps it: no body, no header, no query string, no secret. */
export interface KeyRequestEntry {
  keyId: string;
  organizationId: string;
  environment: Environment;
  method: string;
  /** The route's path template, `/v1/charges/:id`. */
  route: string;
  resourceId: string | null;
  statusCode: number;
  requestId: string;
  ip: string;
  at: Date;
}

/** One multi-row INSERT for a batch of the request log. */
export async function insertKeyRequests(db: Kdb, entries: ReadonlyArray<KeyRequestEntry>): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('api_key_requests')
    .values(
      entries.map((entry) => ({
        key_id: entry.keyId,
        organization_id: entry.organizationId,
        environment: entry.environment,
        method: entry.method.slice(0, 16),
        route: entry.route.slice(0, 200),
        resource_id: entry.resourceId?.slice(0, 100) ?? null,
        status_code: entry.statusCode,
        request_id: entry.requestId,
        ip: entry.ip,
        created_at: entry.at,
      })),
    )
    .execute();
}

/** A key's requests, newest first, by (created_at, id) descending; one extra row says a next page exists. */
export async function listKeyRequests(
  db: Kdb,
  keyId: string,
  page: { limit: number; since: Date; after?: Cursor },
): Promise<KeyRequestRow[]> {
  return db
    .selectFrom('api_key_requests')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('created_at', '>=', page.since)
    .$call(keysetPage(page.after, page.limit + 1))
    .execute();
}

/** Deletes up to `batchSize` request-log rows older than `cutoff`; returns how many. */
export async function purgeKeyRequests(db: Kdb, cutoff: Date, batchSize: number): Promise<number> {
  const result = await db
    .deleteFrom('api_key_requests')
    .where(
      'id',
      'in',
      db.selectFrom('api_key_requests').select('id').where('created_at', '<', cutoff).limit(batchSize),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every key of an organization, both environments, newest first (the operator's view). */
export async function listOrganizationKeys(db: Kdb, organizationId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findKeyById(db: Kdb, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}
