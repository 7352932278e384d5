import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { sha256Hex } from '../shared/crypto.js';
import type { App } from './server.js';
import { ApiError } from './errors.js';
import { throttleEmail } from './login-throttle.js';

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

/**
 * A limit per client address and typed e-mail, for the login forms: one account's posts (a user's own
 * retries, or someone guessing it) never use up another's, so a neighbour behind the same address
 * cannot keep the others out (docs/decisions/0066). Checked in the handler, once the body is parsed;
 * the route's own per-address limit stays as a flood guard, well above what one person sends. Counted
 * where the route limits are (Redis when configured), under a hash of the e-mail, never the e-mail.
 */
export function accountAddressLimit(
  app: App,
  name: string,
  limit: { max: number; timeWindow: number },
): (request: FastifyRequest, reply: FastifyReply, email: string) => Promise<void> {
  const emails = new WeakMap<FastifyRequest, string>();
  const check = app.createRateLimit({
    ...limit,
    keyGenerator: (request) =>
      `${name}:${request.ip}:${sha256Hex(throttleEmail(emails.get(request) ?? '')).slice(0, 32)}`,
  });
  return async (request, reply, email) => {
    emails.set(request, email);
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    reply.header('retry-after', Math.max(1, result.ttlInSeconds));
    throw new ApiError(
      'too_many_requests',
      `Rate limit exceeded; retry in ${Math.max(1, result.ttlInSeconds)} seconds.`,
    );
  };
}
