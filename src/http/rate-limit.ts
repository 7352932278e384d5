import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { createHmac } from 'node:crypto';
import { throttleAddress } from '../shared/client-address.js';
import type { App } from './server.js';
import { ApiError } from './errors.js';
import { LOGIN_THROTTLE, throttleEmail } from './login-throttle.js';
import { MINUTE } from '../shared/clock.js';

const STORE = Symbol('rate limit store');
interface Store {
  redis: Redis | undefined;
  prefix: string;
  /** Keys the hash of a form's subject (a typed e-mail) in counter and proof names. */
  subjectKey: Buffer;
}
function storeOf(app: App): Store {
  const store = (app as unknown as Record<symbol, Store | undefined>)[STORE];
  if (!store) throw new Error('registerRateLimit must run before a form limit is made');
  return store;
}

/**
 * A form's subject (a typed e-mail) as it appears in a counter's or a proof's name: an HMAC under a key
 * derived from the gateway's encryption key, so Redis never holds a value anyone can test e-mail
 * addresses against (an unkeyed hash of an address is one dictionary lookup away from it).
 */
const subjectTag = (store: Store, subject: string) =>
  createHmac('sha256', store.subjectKey).update(throttleEmail(subject)).digest('hex').slice(0, 32);

/**
 * Registers the limiter without a global limit; routes opt in with `config.rateLimit`. With Redis the
 * counters are shared by every instance; without it each process counts on its own.
 */
export async function registerRateLimit(
  app: App,
  options: { redis: Redis | undefined; keyPrefix: string; namespace: string; subjectKey: Buffer },
) {
  const nameSpace = `${options.keyPrefix}rate:${options.namespace}:`;
  // Child instances (route plugins) inherit it: the login flood guard keeps its proofs beside the counters.
  const store: Store = { redis: options.redis, prefix: nameSpace, subjectKey: options.subjectKey };
  Object.defineProperty(app, STORE, { value: store });
  await app.register(rateLimit, {
    global: false,
    ...(options.redis ? { redis: options.redis } : {}),
    nameSpace,
    // A limiter outage must not take the API down with it.
    skipOnError: true,
    keyGenerator: (request) => throttleAddress(request.ip),
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
 * A limit per client address and one subject of the form (the typed e-mail of a login form, the account
 * of a half-open session on the second-factor form): one account's posts (a user's own retries, or
 * someone guessing it) never use up another's, so a neighbour behind the same address cannot keep the
 * others out (docs/decisions/0066). Checked in the handler, once the body is parsed (and, for the second
 * factor, once the half-open session is found). Counted where the route limits are (Redis when
 * configured), under a hash of the subject, never the subject.
 */
export function accountAddressLimit(
  app: App,
  name: string,
  limit: { max: number; timeWindow: number },
): (request: FastifyRequest, reply: FastifyReply, subject: string) => Promise<void> {
  const store = storeOf(app);
  const subjects = new WeakMap<FastifyRequest, string>();
  const check = app.createRateLimit({
    ...limit,
    keyGenerator: (request) =>
      `${name}:${throttleAddress(request.ip)}:${subjectTag(store, subjects.get(request) ?? '')}`,
  });
  return async (request, reply, subject) => {
    subjects.set(request, subject);
    const result = await check(request);
    if (result.isAllowed || !result.isExceeded) return;
    refuse(reply, result.ttlInSeconds);
  };
}

function refuse(reply: FastifyReply, ttlInSeconds: number): never {
  const wait = Math.max(1, ttlInSeconds);
  reply.header('retry-after', wait);
  throw new ApiError('too_many_requests', `Rate limit exceeded; retry in ${wait} seconds.`);
}

/** How long an e-mail that signed in from an address stays exempt from that address's flood guard. */
const LOGIN_PROVEN_FOR_MS = LOGIN_THROTTLE.pair.forgetMs;
/** A user who signs in often renews the proof in Redis at most this often per process. */
const LOGIN_PROOF_RENEW_MS = 10 * MINUTE;
/** Proofs a process keeps in memory per guard; the oldest goes first (Redis keeps them all). */
const LOGIN_PROOFS_IN_MEMORY = 10_000;

export interface LoginFloodGuard {
  /**
   * Counts a login post against its client address. Over the limit, refuses it (429 with
   * `Retry-After`) unless the typed e-mail signed in from that address within a day: a flood from an
   * address slows the accounts new to it, never the people who work from it.
   */
  check(request: FastifyRequest, reply: FastifyReply, email: string): Promise<void>;
  /** Records that the e-mail signed in from the request's address (the whole login, second factor included). */
  prove(request: FastifyRequest, email: string): Promise<void>;
}

/**
 * The per-address flood guard of a login form, well above what one person or an office sends. Cheap for
 * garbage: one counter increment, and while the address is over its limit one proof lookup (process
 * memory, then one Redis `EXISTS` when Redis is configured), never the database. Proofs live where the
 * counters do: in process memory, and with Redis under
 * `<prefix>rate:<namespace>:login-ok:<name>:<address>:<keyed hash of the e-mail>` with a one-day `PX`.
 * A Redis error counts as "not proven" (the limiter's own errors let the post through, `skipOnError`).
 */
export function loginFloodGuard(
  app: App,
  name: string,
  limit: { max: number; timeWindow: number },
): LoginFloodGuard {
  const store = storeOf(app);
  const count = app.createRateLimit({
    ...limit,
    keyGenerator: (request) => `${name}-flood:${throttleAddress(request.ip)}`,
  });
  const memory = new Map<string, number>();
  const proofKey = (request: FastifyRequest, email: string) =>
    `${name}:${throttleAddress(request.ip)}:${subjectTag(store, email)}`;
  const fresh = (recordedAt: number | undefined, now: number, forMs: number) =>
    recordedAt !== undefined && now - recordedAt < forMs;

  const proven = async (key: string): Promise<boolean> => {
    if (fresh(memory.get(key), Date.now(), LOGIN_PROVEN_FOR_MS)) return true;
    if (!store.redis) return false;
    try {
      return (await store.redis.exists(`${store.prefix}login-ok:${key}`)) === 1;
    } catch {
      return false;
    }
  };

  return {
    async check(request, reply, email) {
      const result = await count(request);
      if (result.isAllowed || !result.isExceeded) return;
      if (await proven(proofKey(request, email))) return;
      refuse(reply, result.ttlInSeconds);
    },

    async prove(request, email) {
      const key = proofKey(request, email);
      const now = Date.now();
      const renew = !fresh(memory.get(key), now, LOGIN_PROOF_RENEW_MS);
      memory.delete(key);
      if (memory.size >= LOGIN_PROOFS_IN_MEMORY) {
        const oldest = memory.keys().next();
        if (!oldest.done) memory.delete(oldest.value);
      }
      memory.set(key, now);
      if (!renew || !store.redis) return;
      try {
        await store.redis.set(`${store.prefix}login-ok:${key}`, '1', 'PX', LOGIN_PROVEN_FOR_MS);
      } catch (error) {
        // The sign-in itself succeeded; only the exemption is lost on other processes.
        app.log.warn({ err: error }, 'could not record a login proof in Redis');
      }
    },
  };
}
