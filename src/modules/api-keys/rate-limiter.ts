import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Environment } from '../../db/schema.js';
import { countInRedisWindow, MEMORY_SWEEP_AT, REDIS_WARN_INTERVAL_MS } from './redis-window.js';

/** Product decision 35: requests per second per key, unless the organization has its own limit. */
export const DEFAULT_RATE_LIMITS: Record<Environment, number> = { live: 100, sandbox: 25 };

const WINDOW_MS = 1000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window closes. */
  resetMs: number;
}

export interface KeyRateLimiter {
  /** Counts one request of the key and says whether it is within `limit` requests per second. */
  hit(keyId: string, limit: number): Promise<RateDecision>;
}

/**
 * A fixed one-second window per key. With Redis the count is shared by every instance (INCR on
 * `<prefix>rate:api-key:<keyId>:<second>`, expiring after two seconds); without it each process counts
 * alone. Wall-clock time, not the injected business clock: a limit protects capacity, which passes in
 * real time. If Redis fails, counting falls back to this process rather than opening the gate or
 * failing the request.
 */
export function createKeyRateLimiter(options: {
  redis: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
  now?: () => number;
}): KeyRateLimiter {
  const now = options.now ?? Date.now;
  const memory = new Map<string, { window: number; count: number }>();
  let sweptWindow = 0;
  let lastWarning = 0;

  const countInMemory = (keyId: string, window: number): number => {
    const entry = memory.get(keyId);
    if (entry && entry.window === window) return ++entry.count;
    if (memory.size >= MEMORY_SWEEP_AT && sweptWindow < window) {
      sweptWindow = window;
      for (const [id, stale] of memory) if (stale.window < window) memory.delete(id);
    }
    memory.set(keyId, { window, count: 1 });
    return 1;
  };

  const countInRedis = (redis: Redis, keyId: string, window: number): Promise<number> =>
    countInRedisWindow(redis, `${options.keyPrefix}rate:api-key:${keyId}:${window}`, 2 * WINDOW_MS);

  return {
    async hit(keyId, limit) {
      const at = now();
      const window = Math.floor(at / WINDOW_MS);
      let count: number;
      if (options.redis) {
        try {
          count = await countInRedis(options.redis, keyId, window);
        } catch (error) {
          if (at - lastWarning > REDIS_WARN_INTERVAL_MS) {
            lastWarning = at;
            options.logger.warn({ err: error }, 'rate limiter: Redis unavailable, counting in this process');
          }
          count = countInMemory(keyId, window);
        }
      } else {
        count = countInMemory(keyId, window);
      }
      return {
        allowed: count <= limit,
        limit,
        remaining: Math.max(0, limit - count),
        resetMs: (window + 1) * WINDOW_MS - at,
      };
    },
  };
}
