import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Kdb } from '../../src/db/database.js';
import type { ApiKeyScope, Environment, FeatureFlag, KycStatus } from '../../src/db/schema.js';
import { startGateway, type Gateway } from '../../src/gateway.js';
import { createLogger } from '../../src/logger.js';
import { issueApiKey, type IssuedApiKey } from '../../src/modules/api-keys/issue.js';
import type { Clock } from '../../src/shared/clock.js';
import { newId } from '../../src/shared/ids.js';
import type { TestGateway } from './gateway.js';
import { gatewayEnv } from './process.js';

/** High enough that no test is throttled by accident; rate-limit tests set their own. */
export const UNTHROTTLED = 1_000_000;

export interface OrganizationOptions {
  name?: string;
  kycStatus?: KycStatus;
  /** Defaults to `['apiKeys']`. */
  featureFlags?: FeatureFlag[];
  frozen?: boolean;
  /** Requests per second per key; null means the environment's default. Defaults to UNTHROTTLED. */
  rateLimits?: { live?: number | null; sandbox?: number | null };
  /**
   * `manual`: the settlement batch releases the funds and makes no automatic payout, as an operator sets
   * it for a merchant paying out by hand (tests of manual payouts). Defaults to the gateway's `daily`.
   */
  payoutSchedule?: 'daily' | 'manual';
}

/** An `organizations` row written directly, as underwriting approval would leave it. */
export async function createOrganization(
  db: Kdb,
  clock: Clock,
  options: OrganizationOptions = {},
): Promise<string> {
  const now = clock.now();
  const id = newId('org', now);
  await db
    .insertInto('organizations')
    .values({
      id,
      name: options.name ?? `Merchant ${id.slice(-6)}`,
      application_id: null,
      contact_email: `${id}@merchant.example`,
      kyc_status: options.kycStatus ?? 'APPROVED',
      feature_flags: options.featureFlags ?? ['apiKeys'],
      rate_limit_live: options.rateLimits?.live === undefined ? UNTHROTTLED : options.rateLimits.live,
      rate_limit_sandbox:
        options.rateLimits?.sandbox === undefined ? UNTHROTTLED : options.rateLimits.sandbox,
      frozen_at: options.frozen ? now : null,
      frozen_reason: options.frozen ? 'test' : null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  if (options.payoutSchedule !== undefined) {
    await db
      .insertInto('settlement_settings')
      .values({
        organization_id: id,
        payout_schedule: options.payoutSchedule,
        updated_by: 'staff:test',
        updated_at: now,
      })
      .execute();
  }
  return id;
}

export interface KeyOptions {
  environment?: Environment;
  scopes?: ApiKeyScope[];
  allowedIps?: string[];
  expiresAt?: Date | null;
  name?: string;
  revoked?: boolean;
}

/** A key issued exactly as the gateway issues them (only the hash is stored). */
export async function issueKey(
  db: Kdb,
  clock: Clock,
  organizationId: string,
  options: KeyOptions = {},
): Promise<IssuedApiKey> {
  const key = await issueApiKey(db, clock, {
    organizationId,
    environment: options.environment ?? 'sandbox',
    scopes: options.scopes ?? ['all'],
    allowedIps: options.allowedIps ?? [],
    expiresAt: options.expiresAt ?? null,
    name: options.name ?? null,
    createdBy: 'system',
  });
  if (options.revoked) await revokeKeyInDatabase(db, clock, key.id);
  return key;
}

export interface Merchant {
  organizationId: string;
  keys: Record<Environment, IssuedApiKey>;
}

/** An organization with one `all` key per environment. */
export async function createMerchant(t: TestGateway, options: OrganizationOptions = {}): Promise<Merchant> {
  const db = t.gateway.database.db;
  const organizationId = await createOrganization(db, t.clock, options);
  return {
    organizationId,
    keys: {
      sandbox: await issueKey(db, t.clock, organizationId, { environment: 'sandbox' }),
      live: await issueKey(db, t.clock, organizationId, { environment: 'live' }),
    },
  };
}

/** As an operator (or a script) would: straight in the database, not through the API. */
export async function revokeKeyInDatabase(db: Kdb, clock: Clock, id: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now(), revoked_by: 'staff:test' })
    .where('id', '=', id)
    .execute();
}

export async function updateOrganization(
  db: Kdb,
  id: string,
  patch: {
    kycStatus?: KycStatus;
    frozen?: boolean;
    featureFlags?: FeatureFlag[];
    rateLimits?: { live?: number | null; sandbox?: number | null };
  },
  now = new Date(),
): Promise<void> {
  await db
    .updateTable('organizations')
    .set({
      ...(patch.kycStatus !== undefined ? { kyc_status: patch.kycStatus } : {}),
      ...(patch.frozen !== undefined
        ? { frozen_at: patch.frozen ? now : null, frozen_reason: patch.frozen ? 'test' : null }
        : {}),
      ...(patch.featureFlags !== undefined ? { feature_flags: patch.featureFlags } : {}),
      ...(patch.rateLimits?.live !== undefined ? { rate_limit_live: patch.rateLimits.live } : {}),
      ...(patch.rateLimits?.sandbox !== undefined ? { rate_limit_sandbox: patch.rateLimits.sandbox } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/** Copies a key and its organization into another test database (for instances that cannot share one). */
export async function copyKey(from: Kdb, to: Kdb, keyId: string): Promise<void> {
  const key = await from.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
  const organization = await from
    .selectFrom('organizations')
    .selectAll()
    .where('id', '=', key.organization_id)
    .executeTakeFirstOrThrow();
  await to
    .insertInto('organizations')
    .values(organization)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await to.insertInto('api_keys').values(key).execute();
}

export interface PeerGateway {
  gateway: Gateway;
  urls: Required<Gateway['urls']>;
  logs: string[];
  close(): Promise<void>;
}

/**
 * A second gateway instance on the same PostgreSQL database as `t` (its own pool, its own caches, the
 * same clock and encryption keys), as a second process of a deployment would be. PostgreSQL only: an
 * embedded database belongs to one process.
 */
export async function startPeerGateway(
  t: TestGateway,
  env: Record<string, string> = {},
): Promise<PeerGateway> {
  if (t.testDb.url === undefined) throw new Error('a peer instance needs a PostgreSQL database');
  const config = loadConfig(
    gatewayEnv({
      LOG_LEVEL: 'info',
      ROLES: 'api',
      API_KEY_FAILURE_LIMIT_MAX: '1000000',
      SANDBOX_ACQUIRER_URL: t.sandboxAcquirer.url,
      SANDBOX_ACQUIRER_API_KEY: t.sandboxAcquirer.apiKey,
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: t.gateway.services.acquirers.sandbox.notificationSecret,
      ...env,
    }),
  );
  config.encryptionKeys = t.gateway.services.config.encryptionKeys;
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const gateway = await startGateway({
    config,
    logger: createLogger({ level: config.logLevel, destination }),
    clock: t.clock,
    database: await openDatabase({ databaseUrl: t.testDb.url, poolSize: 5 }),
  });
  return {
    gateway,
    urls: gateway.urls as Required<Gateway['urls']>,
    logs,
    close: () => gateway.close(),
  };
}

export function apiUrl(urls: { sandboxApi: string; liveApi: string }, environment: Environment): string {
  return environment === 'sandbox' ? urls.sandboxApi : urls.liveApi;
}
