import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Environment } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';
import type { RouteAuth } from '../../http/route-config.js';
import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';
import { createApiKeyAuthenticator, type ApiKeyAuthenticator } from './authenticator.js';
import { AUTH_FAILURES } from './errors.js';
import { createKeyRateLimiter, type KeyRateLimiter } from './rate-limiter.js';
import { apiKeyRoutes } from './routes.js';
import { createApiKeyService } from './service.js';

export { callerOf, holdsScope, type ApiKeyAuth } from './context.js';
export { issueApiKey, createApiKeyService, type ApiKeyService, type IssuedApiKey } from './service.js';
export { apiKeyRetentionJob } from './retention.js';

export interface ApiKeysModuleOptions {
  services: Services;
  environment: Environment;
  redis: Redis | undefined;
}

export const API_KEY_HEADER = 'x-api-key';

/**
 * API-key authentication of every route of the listener (wrapped with fastify-plugin so that the hook
 * reaches routes registered by other modules, before or after this one), per-key rate limits and key
 * management (issue 4).
 */
async function apiKeys(app: App, options: ApiKeysModuleOptions): Promise<void> {
  const { services, environment, redis } = options;
  const logger = services.logger.child({ module: 'api-keys', environment });
  const authenticator = createApiKeyAuthenticator({
    db: services.db,
    clock: services.clock,
    environment,
    logger,
  });
  const limiter = createKeyRateLimiter({ redis, keyPrefix: services.config.redisKeyPrefix, logger });

  app.decorateRequest('apiKeyAuth', null);
  app.addHook('onRequest', authenticationHook(authenticator, limiter));

  await app.register(apiKeyRoutes, {
    service: createApiKeyService(services),
    idempotency: { store: services.idempotencyStore, clock: services.clock },
    box: services.box,
  });
}

export const apiKeysModule = fp(apiKeys, { name: 'api-keys', fastify: '5.x' });

/**
 * Runs before the body is read. Order: authentication (every 401), then the key's rate limit (429),
 * then authorization (403: frozen organization, scope, feature flag). An unknown path answers 404
 * without a key: there is nothing there to protect, and clients learn of a typo before a key problem.
 */
function authenticationHook(authenticator: ApiKeyAuthenticator, limiter: KeyRateLimiter) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.is404) return;
    const need: RouteAuth = request.routeOptions.config.auth ?? 'all';
    if (need === 'public') return;

    const header = request.headers[API_KEY_HEADER];
    const authentication = await authenticator.authenticate(
      Array.isArray(header) ? header.join(', ') : header,
      request.ip,
    );
    if (!authentication.ok) throw AUTH_FAILURES[authentication.failure]();
    const caller = authentication.value;

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

    const refusal = authenticator.authorize(caller, need, request.routeOptions.config.feature);
    if (refusal !== undefined) throw AUTH_FAILURES[refusal]();
    request.apiKeyAuth = caller.auth;
  };
}
