import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { App } from './server.js';
import { ApiError } from './errors.js';

/**
 * Registers the limiter without a global limit; routes opt in with `config.rateLimit`. With Redis the
 * counters are shared by every instance; without it each process counts on its own.
 */
export async function registerRateLimit(
  app: App,
  options: { redis: Redis | undefined; keyPrefix: string; namespace: string },
) {
  await app.register(rateLimit, {
    global: false,
    ...(options.redis ? { redis: options.redis } : {}),
    nameSpace: `${options.keyPrefix}rate:${options.namespace}:`,
    // A limiter outage must not take the API down with it.
    skipOnError: true,
    keyGenerator: (request) => request.ip,
    addHeaders: {
      'retry-after': true,
      'x-ratelimit-limit': true,
      'x-ratelimit-remaining': true,
      'x-ratelimit-reset': true,
    },
    errorResponseBuilder: (_request, context) =>
      new ApiError('too_many_requests', `Rate limit exceeded; retry in ${context.after}.`),
  });
}
