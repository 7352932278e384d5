import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Environment, FeatureFlag } from '../../db/schema.js';
import type { RouteAuth } from '../../http/route-config.js';
import { MINUTE, type Clock } from '../../shared/clock.js';
import { holdsScope, type ApiKeyAuth } from './context.js';
import { featureRefusal, type AuthFailure } from './errors.js';
import { isAddressAllowed, parseAllowlist, type CidrRange } from './ip-allowlist.js';
import { parseApiKey } from './key-format.js';
import { DEFAULT_RATE_LIMITS } from './rate-limiter.js';
import {
  findKeyForAuth,
  readAuthEpoch,
  touchLastUsed,
  type AuthEpochReading,
  type KeyForAuth,
} from './repository.js';

export const KEY_CACHE_TTL_MS = MINUTE;
const KEY_CACHE_MAX_ENTRIES = 10_000;

/** A key that passed every authentication check (the 401s), with what authorization still needs. */
export interface Authenticated {
  auth: ApiKeyAuth;
  frozen: boolean;
  /** Requests per second allowed for this key. */
  rateLimit: number;
  /** The SHA-256 of the key, what the failure throttle proves a key by (never the key itself). */
  secretHash: string;
  /**
   * Records the use of the key (`lastUsedAt`, to the minute). Called only for a request the key was
   * allowed to make: authenticated, within its rate limit and authorized.
   */
  recordUse(): Promise<void>;
}

export type Authentication = { ok: true; value: Authenticated } | { ok: false; failure: AuthFailure };

export interface ApiKeyAuthenticator {
  /** Who holds this key, or why the request is refused with 401. */
  authenticate(header: string | undefined, clientIp: string): Promise<Authentication>;
  /** What a route needs beyond a valid key: an active organization, a scope, a feature flag (the 403s). */
  authorize(
    caller: Authenticated,
    need: Exclude<RouteAuth, 'public'>,
    feature?: FeatureFlag,
  ): AuthFailure | undefined;
}

interface CachedKey {
  key: KeyForAuth;
  ranges: CidrRange[];
  /** The auth epoch observed before the key was read: the entry is trusted only under that epoch. */
  epoch: bigint;
  loadedAt: number;
  /** When this process last recorded (or saw recorded) a use of the key. */
  lastUsedAt: number | null;
}

/**
 * API-key authentication for one listener's environment, in the order of docs/decisions/0005:
 * missing, malformed or bad checksum (no database access), unknown or revoked, expired, other
 * environment, outside allowedIps, live key before KYC approval.
 *
 * Lookups are cached per instance for a minute, keyed by the key's SHA-256. A cached lookup is used
 * only under the auth epoch it was made under (a one-row table moved by triggers on every revocation and
 * on every change of a key or its organization). The epoch itself is held under a lease
 * (`leasedEpoch`, decision 0038): every change that moves it waits out a lease before it commits, so a
 * revocation that returned is seen by the next request on every instance without each request reading
 * the epoch.
 */
export function createApiKeyAuthenticator(deps: {
  db: Kdb;
  clock: Clock;
  environment: Environment;
  logger: Logger;
  cacheTtlMs?: number;
}): ApiKeyAuthenticator {
  const { db, clock, environment, logger } = deps;
  const ttlMs = deps.cacheTtlMs ?? KEY_CACHE_TTL_MS;
  const cache = new Map<string, CachedKey>();
  let newestEpoch = -1n;
  const epoch = leasedEpoch(() => readAuthEpoch(db));

  const lookup = async (secretHash: string): Promise<CachedKey | undefined> => {
    const current = await epoch();
    if (current > newestEpoch) {
      newestEpoch = current;
      cache.clear();
    }
    const now = clock.now().getTime();
    const cached = cache.get(secretHash);
    if (cached && cached.epoch === current && now - cached.loadedAt < ttlMs) return cached;

    const key = await findKeyForAuth(db, secretHash);
    if (!key) return undefined;
    const entry: CachedKey = {
      key,
      ranges: parseAllowlist(key.allowedIps),
      epoch: current,
      loadedAt: now,
      lastUsedAt: key.lastUsedAt?.getTime() ?? null,
    };
    // A revoked key is never cached, so that it costs the same database lookup as a key that never
    // existed: the answer and its timing are those of an unknown key.
    if (current === newestEpoch && key.revokedAt === null) {
      cache.delete(secretHash);
      cache.set(secretHash, entry);
      if (cache.size > KEY_CACHE_MAX_ENTRIES) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
    }
    return entry;
  };

  const recordUse = async (entry: CachedKey, now: Date) => {
    if (entry.lastUsedAt !== null && now.getTime() - entry.lastUsedAt < MINUTE) return;
    entry.lastUsedAt = now.getTime();
    try {
      await touchLastUsed(db, entry.key.id, now);
    } catch (error) {
      // Bookkeeping must not fail the request; the next minute tries again.
      entry.lastUsedAt = null;
      logger.warn({ err: error, keyId: entry.key.id }, 'could not record lastUsedAt');
    }
  };

  return {
    async authenticate(header, clientIp) {
      if (header === undefined || header.trim() === '') return { ok: false, failure: 'missing_key' };
      const parsed = parseApiKey(header.trim());
      if (!parsed) return { ok: false, failure: 'invalid_key' };

      const entry = await lookup(parsed.secretHash);
      if (!entry || entry.key.revokedAt !== null) return { ok: false, failure: 'invalid_key' };
      const { key } = entry;
      const now = clock.now();
      if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) {
        return { ok: false, failure: 'expired_key' };
      }
      if (key.environment !== environment) return { ok: false, failure: 'wrong_environment' };
      if (key.allowedIps.length > 0 && !isAddressAllowed(entry.ranges, clientIp)) {
        return { ok: false, failure: 'ip_not_allowed' };
      }
      if (environment === 'live' && key.kycStatus !== 'APPROVED')
        return { ok: false, failure: 'kyc_pending' };

      const override = environment === 'live' ? key.rateLimitLive : key.rateLimitSandbox;
      return {
        ok: true,
        value: {
          auth: {
            keyId: key.id,
            organizationId: key.organizationId,
            environment: key.environment,
            scopes: key.scopes,
            featureFlags: key.featureFlags,
          },
          frozen: key.frozen,
          rateLimit: override ?? DEFAULT_RATE_LIMITS[environment],
          secretHash: parsed.secretHash,
          recordUse: () => recordUse(entry, now),
        },
      };
    },

    authorize(caller, need, feature) {
      if (caller.frozen) return 'organization_frozen';
      if (need !== 'key' && !holdsScope(caller.auth.scopes, need)) return 'insufficient_scope';
      if (feature !== undefined && !caller.auth.featureFlags.includes(feature))
        return featureRefusal(feature);
      return undefined;
    },
  };
}

/**
 * A reading is trusted for this share of its lease: room for the rates of the instance's and the
 * database server's clocks to differ (NTP slews by 500 ppm at most).
 */
export const LEASE_TRUST = 0.9;

/**
 * The current auth epoch, read again only when the last settled reading's lease ran out (decision
 * 0038). A reading is timed from before its query was sent; the database makes every transaction that
 * moves the epoch take the epoch's lock before its bump and wait a whole lease before it commits, and a
 * reading that found the lock free is given the lease. So a change that committed after such a reading
 * committed more than a lease after the reading started: once the change has returned to its writer,
 * no instance trusts a reading that misses it. A reading taken while a writer held the lock has no lease:
 * it serves the requests that asked for it, and the next request reads again. Readings are coalesced
 * (`coalesced`), so an instance under load sends one at a time.
 */
export function leasedEpoch(
  read: () => Promise<AuthEpochReading>,
  now: () => number = () => performance.now(),
): () => Promise<bigint> {
  let lease: { version: bigint; until: number } | undefined;
  const fresh = coalesced(async () => {
    const startedAt = now();
    const reading = await read();
    lease =
      reading.leaseMs > 0
        ? { version: reading.version, until: startedAt + reading.leaseMs * LEASE_TRUST }
        : undefined;
    return reading.version;
  });
  return () => (lease !== undefined && now() < lease.until ? Promise.resolve(lease.version) : fresh());
}

/**
 * Wraps a read so that concurrent callers share queries, while each caller still gets the result of a
 * query that started after it called: a caller that arrives while a query runs waits for the next one.
 */
export function coalesced<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const query = read().finally(() => {
      if (running === query) running = undefined;
    });
    running = query;
    return query;
  };
  return () => {
    if (running === undefined) return start();
    queued ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}
