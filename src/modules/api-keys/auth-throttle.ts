import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.js';

const MEMORY_SWEEP_AT = 10_000;
const REDIS_WARN_INTERVAL_MS = 10_000;

export interface ThrottleDecision {
  blocked: boolean;
  /** Seconds until the address may try again (the end of the current window), at least 1. */
  retryAfterSeconds: number;
}

/**
 * Failed API-key authentications per client address (issue 11, item 5). While an address is over its
 * limit, every request from it that presents a key is refused with 429, valid keys included: otherwise a
 * guess that happens to be right would still be told apart from the wrong ones.
 */
export interface AuthFailureThrottle {
  /** No I/O: this process already knows the address is over its limit in the current window. */
  knownBlocked(address: string): ThrottleDecision | undefined;
  /** Whether the address is over its limit (reads the shared count when Redis is configured). */
  check(address: string): Promise<ThrottleDecision>;
  /** Counts one failed authentication of the address. */
  fail(address: string): Promise<ThrottleDecision>;
}

/**
 * A fixed window per address: at most `max` failures per `windowMs`. With Redis the count is shared by
 * every instance (`<prefix>auth-fail:<address>:<window>`, INCR then PEXPIRE of two windows); without it,
 * or while Redis fails, each process counts alone. The window follows the injected clock, so tests (and
 * an operator's reasoning about `Retry-After`) do not wait on wall-clock time.
 */
export function createAuthFailureThrottle(options: {
  redis: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
  clock: Clock;
  max: number;
  windowMs: number;
}): AuthFailureThrottle {
  const { redis, max, windowMs, clock, logger } = options;
  const memory = new Map<string, { window: number; count: number }>();
  let sweptWindow = 0;
  let lastWarning = 0;

  const windowOf = (at: number) => Math.floor(at / windowMs);
  const decision = (count: number, at: number, threshold: number): ThrottleDecision => ({
    blocked: count >= threshold,
    retryAfterSeconds: Math.max(1, Math.ceil(((windowOf(at) + 1) * windowMs - at) / 1000)),
  });
  const redisKey = (address: string, window: number) => `${options.keyPrefix}auth-fail:${address}:${window}`;

  const memoryCount = (address: string, window: number): number => {
    const entry = memory.get(address);
    return entry && entry.window === window ? entry.count : 0;
  };
  /** Keeps the larger of what this process counted and what Redis said, for `knownBlocked`. */
  const remember = (address: string, window: number, count: number) => {
    const entry = memory.get(address);
    if (entry && entry.window === window) {
      entry.count = Math.max(entry.count, count);
      return;
    }
    if (memory.size >= MEMORY_SWEEP_AT && sweptWindow < window) {
      sweptWindow = window;
      for (const [key, stale] of memory) if (stale.window < window) memory.delete(key);
    }
    memory.set(address, { window, count });
  };
  const warn = (error: unknown, at: number) => {
    if (at - lastWarning > REDIS_WARN_INTERVAL_MS) {
      lastWarning = at;
      logger.warn({ err: error }, 'auth-failure throttle: Redis unavailable, counting in this process');
    }
  };

  return {
    knownBlocked(address) {
      const at = clock.now().getTime();
      const count = memoryCount(address, windowOf(at));
      return count >= max ? decision(count, at, max) : undefined;
    },

    async check(address) {
      const at = clock.now().getTime();
      const window = windowOf(at);
      if (!redis) return decision(memoryCount(address, window), at, max);
      try {
        const shared = Number((await redis.get(redisKey(address, window))) ?? 0);
        if (shared >= max) remember(address, window, shared);
        return decision(Math.max(shared, memoryCount(address, window)), at, max);
      } catch (error) {
        warn(error, at);
        return decision(memoryCount(address, window), at, max);
      }
    },

    async fail(address) {
      const at = clock.now().getTime();
      const window = windowOf(at);
      let count = memoryCount(address, window) + 1;
      if (redis) {
        try {
          const key = redisKey(address, window);
          const results = await redis
            .multi()
            .incr(key)
            .pexpire(key, 2 * windowMs)
            .exec();
          const [incrError, shared] = results?.[0] ?? [new Error('empty reply'), null];
          if (incrError) throw incrError;
          count = Math.max(count, Number(shared));
        } catch (error) {
          warn(error, at);
        }
      }
      remember(address, window, count);
      // The failure that reaches the limit is still answered 401; only those past it are refused.
      return decision(count, at, max + 1);
    },
  };
}
