import type { Redis } from 'ioredis';

// The fixed-window counters of authentication (per key, per address) count in Redis, across instances,
// and in each instance's memory, its fallback while Redis does not answer.

/** Entries an instance's memory map may hold before its stale ones are swept. */
export const MEMORY_SWEEP_AT = 10_000;
/** At most one warning this often while Redis does not answer. */
export const REDIS_WARN_INTERVAL_MS = 10_000;

/**
 * One more hit in a fixed window counted in Redis, shared by every instance: INCR, the key expiring after
 * `ttlMs`; the window's count after it. Throws when Redis does not answer (the callers fall back to
 * their own memory).
 */
export async function countInRedisWindow(redis: Redis, key: string, ttlMs: number): Promise<number> {
  const results = await redis.multi().incr(key).pexpire(key, ttlMs).exec();
  const [incrError, count] = results?.[0] ?? [new Error('empty reply'), null];
  if (incrError) throw incrError;
  return Number(count);
}
