import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DAY, MINUTE, type Clock } from '../../shared/clock.js';
import { sha256Hex } from '../../shared/crypto.js';
import { throttleAddress } from '../../shared/client-address.js';
import { countInRedisWindow, MEMORY_SWEEP_AT, REDIS_WARN_INTERVAL_MS } from './redis-window.js';

/** How long a key that authenticated from an address stays proven there (since its last success). */
export const PROVEN_FOR_MS = DAY;
/** A busy key renews its proof at most this often per process: one Redis write, not one per request. */
const PROVEN_RENEW_MS = 10 * MINUTE;

export interface ThrottleDecision {
  blocked: boolean;
  /** Seconds until the address may try again (the end of the current window), at least 1. */
  retryAfterSeconds: number;
}

/**
 * Failed API-key authentications per client address (docs/decisions/0012 and 0066). While an address is
 * over its limit, a key is checked only if it already authenticated from that address (it is "proven"
 * there, for a day since its last success); any other key is refused with 429 without a lookup, valid
 * ones included. So the merchant's own servers keep working behind an address a neighbour fails from,
 * while the address cannot use the throttled state to test keys it never held: a guess, a leaked key
 * and garbage all get the same 429 for the same (lookup-free) work.
 */
export interface AuthFailureThrottle {
  /** No I/O: this process already knows the address is over its limit in the current window. */
  knownBlocked(address: string): ThrottleDecision | undefined;
  /** Whether the address is over its limit (reads the shared count when Redis is configured). */
  check(address: string): Promise<ThrottleDecision>;
  /** Counts one failed authentication of the address. */
  fail(address: string): Promise<ThrottleDecision>;
  /** Whether the key (by its SHA-256) authenticated from the address lately (shared through Redis). */
  proven(address: string, secretHash: string): Promise<boolean>;
  /** Records that the key authenticated from the address (a Redis write at most every 10 minutes). */
  succeed(address: string, secretHash: string): Promise<void>;
}

/** The throttle's options and what this process remembers between calls. */
interface ThrottleState {
  options: AuthFailureThrottleOptions;
  memory: Map<string, { window: number; count: number }>;
  /** `address + '\n' + key hash` to when this process last recorded the key's success from there. */
  provenMemory: Map<string, number>;
  sweptWindow: number;
  provenSweptAt: number;
  lastWarning: number;
}

export interface AuthFailureThrottleOptions {
  redis: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
  clock: Clock;
  max: number;
  windowMs: number;
}

/**
 * A fixed window per address: at most `max` failures per `windowMs`. With Redis the count is shared by
 * every instance (`<prefix>auth-fail:<address>:<window>`, INCR then PEXPIRE of two windows); without it,
 * or while Redis fails, each process counts alone. The window follows the injected clock, so tests (and
 * an operator's reasoning about `Retry-After`) do not wait on wall-clock time.
 */
export function createAuthFailureThrottle(options: AuthFailureThrottleOptions): AuthFailureThrottle {
  const state: ThrottleState = {
    options,
    memory: new Map(),
    provenMemory: new Map(),
    sweptWindow: 0,
    provenSweptAt: Number.NEGATIVE_INFINITY,
    lastWarning: 0,
  };
  // Counted under the address's throttle form: an IPv6 client by its /64 (docs/decisions/0072).
  return {
    knownBlocked: (address) => knownBlocked(state, throttleAddress(address)),
    check: (address) => check(state, throttleAddress(address)),
    fail: (address) => fail(state, throttleAddress(address)),
    proven: (address, secretHash) => proven(state, throttleAddress(address), secretHash),
    succeed: (address, secretHash) => succeed(state, throttleAddress(address), secretHash),
  };
}

function knownBlocked(state: ThrottleState, address: string): ThrottleDecision | undefined {
  const { clock, max } = state.options;
  const at = clock.now().getTime();
  const count = memoryCount(state, address, windowOf(state, at));
  return count >= max ? decision(state, count, at, max) : undefined;
}

async function check(state: ThrottleState, address: string): Promise<ThrottleDecision> {
  const { redis, clock, max } = state.options;
  const at = clock.now().getTime();
  const window = windowOf(state, at);
  if (!redis) return decision(state, memoryCount(state, address, window), at, max);
  try {
    const shared = Number((await redis.get(redisKey(state, address, window))) ?? 0);
    if (shared >= max) remember(state, address, window, shared);
    return decision(state, Math.max(shared, memoryCount(state, address, window)), at, max);
  } catch (error) {
    warn(state, error, at);
    return decision(state, memoryCount(state, address, window), at, max);
  }
}

async function fail(state: ThrottleState, address: string): Promise<ThrottleDecision> {
  const { redis, clock, max, windowMs } = state.options;
  const at = clock.now().getTime();
  const window = windowOf(state, at);
  let count = memoryCount(state, address, window) + 1;
  if (redis) {
    try {
      const shared = await countInRedisWindow(redis, redisKey(state, address, window), 2 * windowMs);
      count = Math.max(count, shared);
    } catch (error) {
      warn(state, error, at);
    }
  }
  remember(state, address, window, count);
  // The failure that reaches the limit is still answered 401; only those past it are refused.
  return decision(state, count, at, max + 1);
}

async function proven(state: ThrottleState, address: string, secretHash: string): Promise<boolean> {
  const { redis, clock } = state.options;
  const at = clock.now().getTime();
  const recordedAt = state.provenMemory.get(`${address}\n${secretHash}`);
  if (recordedAt !== undefined && at - recordedAt < PROVEN_FOR_MS) return true;
  if (!redis) return false;
  try {
    return (await redis.exists(provenKey(state, address, provenTag(secretHash)))) === 1;
  } catch (error) {
    warn(state, error, at);
    return false;
  }
}

async function succeed(state: ThrottleState, address: string, secretHash: string): Promise<void> {
  const { redis, clock } = state.options;
  const at = clock.now().getTime();
  const entry = `${address}\n${secretHash}`;
  const recordedAt = state.provenMemory.get(entry);
  if (recordedAt !== undefined && at - recordedAt >= 0 && at - recordedAt < PROVEN_RENEW_MS) return;
  rememberProven(state, entry, at);
  if (!redis) return;
  try {
    await redis.set(provenKey(state, address, provenTag(secretHash)), '1', 'PX', PROVEN_FOR_MS);
  } catch (error) {
    warn(state, error, at);
  }
}

const windowOf = (state: ThrottleState, at: number) => Math.floor(at / state.options.windowMs);
const decision = (state: ThrottleState, count: number, at: number, threshold: number): ThrottleDecision => ({
  blocked: count >= threshold,
  retryAfterSeconds: Math.max(1, Math.ceil(((windowOf(state, at) + 1) * state.options.windowMs - at) / 1000)),
});
const redisKey = (state: ThrottleState, address: string, window: number) =>
  `${state.options.keyPrefix}auth-fail:${address}:${window}`;
// The key's hash hashed again: Redis never holds the value the database looks keys up by.
const provenTag = (secretHash: string) => sha256Hex(`auth-ok:${secretHash}`);
const provenKey = (state: ThrottleState, address: string, tag: string) =>
  `${state.options.keyPrefix}auth-ok:${address}:${tag}`;

function rememberProven(state: ThrottleState, entry: string, at: number): void {
  const { provenMemory } = state;
  provenMemory.delete(entry);
  if (provenMemory.size >= MEMORY_SWEEP_AT && at - state.provenSweptAt >= MINUTE) {
    state.provenSweptAt = at;
    for (const [stale, recordedAt] of provenMemory) {
      if (at - recordedAt >= PROVEN_FOR_MS) provenMemory.delete(stale);
    }
  }
  // Still full of live entries: the oldest goes (insertion order is recording order). Redis keeps
  // the proof when it is configured; without it, such an address waits for its window as before.
  if (provenMemory.size >= MEMORY_SWEEP_AT) {
    const oldest = provenMemory.keys().next();
    if (!oldest.done) provenMemory.delete(oldest.value);
  }
  provenMemory.set(entry, at);
}

function memoryCount(state: ThrottleState, address: string, window: number): number {
  const entry = state.memory.get(address);
  return entry && entry.window === window ? entry.count : 0;
}

/** Keeps the larger of what this process counted and what Redis said, for `knownBlocked`. */
function remember(state: ThrottleState, address: string, window: number, count: number): void {
  const { memory } = state;
  const entry = memory.get(address);
  if (entry && entry.window === window) {
    entry.count = Math.max(entry.count, count);
    return;
  }
  if (memory.size >= MEMORY_SWEEP_AT && state.sweptWindow < window) {
    state.sweptWindow = window;
    for (const [key, stale] of memory) if (stale.window < window) memory.delete(key);
  }
  memory.set(address, { window, count });
}

function warn(state: ThrottleState, error: unknown, at: number): void {
  if (at - state.lastWarning > REDIS_WARN_INTERVAL_MS) {
    state.lastWarning = at;
    state.options.logger.warn(
      { err: error },
      'auth-failure throttle: Redis unavailable, counting in this process',
    );
  }
}
