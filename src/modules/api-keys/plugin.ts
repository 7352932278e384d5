import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Environment } from '../../db/schema.js';
import { containsCardNumber } from '../../shared/card-numbers.js';
import { ApiError } from '../../http/errors.js';
import type { RouteAuth } from '../../http/route-config.js';
import type { App } from '../../http/server.js';
import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { createAuthFailureThrottle, type AuthFailureThrottle } from './auth-throttle.js';
import { createApiKeyAuthenticator, type ApiKeyAuthenticator, type Authentication } from './authenticator.js';
import type { ApiKeyAuth } from './context.js';
import { AUTH_FAILURES } from './errors.js';
import { parseApiKey } from './key-format.js';
import { createKeyRateLimiter, type KeyRateLimiter } from './rate-limiter.js';
import { createKeyRequestLog } from './request-log.js';
import { apiKeyRoutes, type ApiKeyRoutesOptions } from './routes.js';
import type { ApiKeyService } from './service.js';

export interface ApiKeysModuleOptions {
  apiKeys: ApiKeyService;
  db: Kdb;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  idempotencyStore: ApiKeyRoutesOptions['idempotency']['store'];
  /** REDIS_KEY_PREFIX and the per-address limit of failed authentications. */
  redisKeyPrefix: string;
  failureLimit: { max: number; windowMs: number };
  environment: Environment;
  redis: Redis | undefined;
}

export const API_KEY_HEADER = 'x-api-key';

/**
 * API-key authentication of every route of the listener (wrapped with fastify-plugin so that the hook
 * reaches routes registered by other modules, before or after this one), per-key rate limits and key
 * management.
 */
async function apiKeys(app: App, options: ApiKeysModuleOptions): Promise<void> {
  const { db, clock, environment, redis, redisKeyPrefix } = options;
  const logger = options.logger.child({ module: 'api-keys', environment });
  const authenticator = createApiKeyAuthenticator({ db, clock, environment, logger });
  const limiter = createKeyRateLimiter({ redis, keyPrefix: redisKeyPrefix, logger });
  const throttle = createAuthFailureThrottle({
    redis,
    keyPrefix: redisKeyPrefix,
    logger,
    clock,
    ...options.failureLimit,
  });
  const requestLog = createKeyRequestLog({ db, logger });

  app.decorateRequest('apiKeyAuth', null);
  app.decorateRequest('apiKeyActivity', null);
  app.addHook('onRequest', authenticationHook(authenticator, limiter, throttle));
  app.decorateRequest('apiKeyCreatedId', null);
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.apiKeyActivity !== null && request.method === 'POST') {
      request.apiKeyCreatedId = createdIdOf(reply.statusCode, payload);
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const caller = request.apiKeyActivity;
    if (caller === null) return;
    const params = request.params as Record<string, unknown> | undefined;
    // The id as the caller sent it in the path, unless it carries a card number (a card number pasted
    // where an id belongs, answered 404): the log is stored and listed, and card data never is.
    const sent = typeof params?.id === 'string' ? params.id : undefined;
    const id = sent === undefined ? request.apiKeyCreatedId : containsCardNumber(sent) ? null : sent;
    requestLog.record({
      keyId: caller.keyId,
      organizationId: caller.organizationId,
      environment: caller.environment,
      method: request.method,
      route: request.routeOptions.url ?? 'unknown',
      resourceId: id,
      statusCode: reply.statusCode,
      requestId: request.id,
      ip: request.ip,
      at: clock.now(),
    });
  });
  app.addHook('onClose', () => requestLog.close());

  await app.register(apiKeyRoutes, {
    service: options.apiKeys,
    idempotency: { store: options.idempotencyStore, clock },
    box: options.box,
  });
}

export const apiKeysModule = fp(apiKeys, { name: 'api-keys', fastify: '5.x' });

declare module 'fastify' {
  interface FastifyRequest {
    /** The key of the request once it authenticated and passed its rate limit: what the request log records. */
    apiKeyActivity: ApiKeyAuth | null;
    /** The `id` of what a successful POST without an `:id` created (for the request log). */
    apiKeyCreatedId: string | null;
  }
}

/** The top-level `id` of a 201 JSON body: what a creation made. Nothing else of the body is kept. */
function createdIdOf(status: number, payload: unknown): string | null {
  if (status !== 201 || typeof payload !== 'string' || payload.length > 65_536) return null;
  try {
    const parsed: unknown = JSON.parse(payload);
    if (parsed === null || typeof parsed !== 'object' || !('id' in parsed)) return null;
    const id = (parsed as { id: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function throttled(reply: FastifyReply, retryAfterSeconds: number): ApiError {
  reply.header('retry-after', retryAfterSeconds);
  return new ApiError(
    'too_many_requests',
    `Too many failed API-key authentications from this address; retry in ${retryAfterSeconds} s.`,
  );
}

/**
 * Runs before the body is read. Order: authentication (every 401, each counted against the address),
 * with the address's failed-authentication throttle (429) in front of any key the address has not
 * proven, then the key's rate limit (429), then authorization (403: frozen organization, scope, feature
 * flag), and only then is the use of the key recorded (`lastUsedAt`). An unknown path answers 404
 * without a key: there is nothing there to protect, and clients learn of a typo before a key problem.
 */
function authenticationHook(
  authenticator: ApiKeyAuthenticator,
  limiter: KeyRateLimiter,
  throttle: AuthFailureThrottle,
) {
  /**
   * A request from an address over its limit: only a key that already authenticated from there is
   * checked. Any other key (garbage, a guess, a leaked or a valid key new to the address) gets the same
   * 429 after the same work (a checksum and, with Redis, one EXISTS), and no database lookup.
   */
  const whileBlocked = async (
    request: FastifyRequest,
    reply: FastifyReply,
    header: string,
    retry: number,
    checked?: Authentication,
  ): Promise<Authentication> => {
    const parsed = parseApiKey(header.trim());
    if (parsed === undefined || !(await throttle.proven(request.ip, parsed.secretHash)))
      throw throttled(reply, retry);
    const authentication = checked ?? (await authenticator.authenticate(header, request.ip));
    if (authentication.ok) return authentication;
    const after = await throttle.fail(request.ip);
    throw throttled(reply, after.retryAfterSeconds);
  };

  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.is404) return;
    const need: RouteAuth = request.routeOptions.config.auth ?? 'all';
    if (need === 'public') return;

    const raw = request.headers[API_KEY_HEADER];
    const header = Array.isArray(raw) ? raw.join(', ') : raw;
    if (header === undefined || header.trim() === '') throw AUTH_FAILURES.missing_key();
    let authentication: Authentication;
    const known = throttle.knownBlocked(request.ip);
    if (known) {
      authentication = await whileBlocked(request, reply, header, known.retryAfterSeconds);
    } else {
      // The shared count is read beside the key lookup, adding no round trip in sequence.
      const [checked, block] = await Promise.all([
        authenticator.authenticate(header, request.ip),
        throttle.check(request.ip),
      ]);
      authentication = block.blocked
        ? await whileBlocked(request, reply, header, block.retryAfterSeconds, checked)
        : checked;
    }
    if (!authentication.ok) {
      const after = await throttle.fail(request.ip);
      if (after.blocked) throw throttled(reply, after.retryAfterSeconds);
      throw AUTH_FAILURES[authentication.failure]();
    }
    const caller = authentication.value;
    await throttle.succeed(request.ip, caller.secretHash);

    const rate = await limiter.hit(caller.auth.keyId, caller.rateLimit);
    const resetSeconds = Math.max(1, Math.ceil(rate.resetMs / 1000));
    reply.header('x-ratelimit-limit', rate.limit);
    reply.header('x-ratelimit-remaining', rate.remaining);
    reply.header('x-ratelimit-reset', resetSeconds);
    if (!rate.allowed) {
      reply.header('retry-after', resetSeconds);
      throw new ApiError(
        'too_many_requests',
        `Rate limit of ${rate.limit} requests per second for this key exceeded; retry in ${resetSeconds} s.`,
      );
    }

    request.apiKeyActivity = caller.auth;
    const refusal = authenticator.authorize(caller, need, request.routeOptions.config.feature);
    if (refusal !== undefined) throw AUTH_FAILURES[refusal]();
    await caller.recordUse();
    request.apiKeyAuth = caller.auth;
  };
}
