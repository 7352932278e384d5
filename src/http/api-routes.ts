import type { FastifyContextConfig, preValidationAsyncHookHandler } from 'fastify';
import type { FeatureFlag } from '../db/schema.js';
import type { Result } from '../shared/result.js';
import { errorResponses, toApiError, type ErrorTable } from './errors.js';
import { IdempotencyHeaderSchema, idempotencyHooks, type IdempotencyOptions } from './idempotency.js';
import type { RouteAuth } from './route-config.js';

/**
 * What the merchant API's route declarations share (spec sections 2 to 4): the OpenAPI tags and feature
 * flag of a module's routes, the idempotency hooks of its writes, and the failure statuses of each kind
 * of route. A module's routes stay plain `app.get`/`app.post` calls; this only builds their options.
 */

/** The failure statuses of each kind of route (`errorResponses` adds 503 to every one). */
export const FAILURES = {
  /** A list: a bad query (400). */
  list: [400, 401, 403, 429, 500],
  /** One resource named by its id: another owner's or an unknown id is 404. */
  retrieve: [400, 401, 403, 404, 429, 500],
  /** A write with a body that creates a resource. */
  create: [400, 401, 403, 409, 413, 415, 429, 500],
  /** A write with a body on a resource named by its id. */
  update: [400, 401, 403, 404, 409, 413, 415, 429, 500],
  /** A write without a body on a resource named by its id (an action, a state change). */
  action: [400, 401, 403, 404, 409, 429, 500],
} as const satisfies Record<string, readonly number[]>;

export type RouteKind = keyof typeof FAILURES;

/** The error envelopes of a route of this kind, and of the statuses it adds (502 of an acquirer). */
export function failures(kind: RouteKind, ...more: number[]): ReturnType<typeof errorResponses> {
  return errorResponses(...FAILURES[kind], ...more);
}

/** What a route says of itself in the OpenAPI document, besides its module's tags. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description: string;
}

type Hooks = ReturnType<typeof idempotencyHooks>;

/**
 * A module's route options: `route` for a route without `X-Idempotency-Key` (`auth` defaults to
 * `read`), `idempotent` for a write that honours it (`auth` defaults to `write`), through the hooks
 * `idempotency` makes.
 */
export function routeKit(kit: { tags: string[]; feature?: FeatureFlag; idempotency?: IdempotencyOptions }) {
  const hooks = kit.idempotency === undefined ? undefined : idempotencyHooks(kit.idempotency);
  const config = (auth: RouteAuth): FastifyContextConfig =>
    kit.feature === undefined ? { auth } : { auth, feature: kit.feature };
  return {
    route<S extends object>(doc: RouteDoc, schema: S, auth: RouteAuth = 'read') {
      return { schema: { ...doc, tags: kit.tags, ...schema }, config: config(auth) };
    },
    /**
     * `before` runs ahead of the key's claim (a body the claim should fingerprint as it is stored);
     * `onSend` replaces the hook that records the outcome when the answer carries a secret (sealed
     * inside the stored outcome).
     */
    idempotent<S extends object>(
      doc: RouteDoc,
      schema: S,
      options: { auth?: RouteAuth; before?: preValidationAsyncHookHandler; onSend?: Hooks['onSend'] } = {},
    ) {
      if (hooks === undefined)
        throw new Error(`${doc.operationId}: an idempotent route needs the idempotency hooks`);
      return {
        schema: { ...doc, tags: kit.tags, headers: IdempotencyHeaderSchema, ...schema },
        config: config(options.auth ?? 'write'),
        preValidation:
          options.before === undefined ? hooks.preValidation : [options.before, hooks.preValidation],
        onSend: options.onSend ?? hooks.onSend,
      };
    },
  };
}

/** A module's `unwrap`: the value of a result, or its error's envelope thrown, through the module's table. */
export function unwrapWith<E extends { code: string }>(table: ErrorTable<E>) {
  return <T>(result: Result<T, E>): T => {
    if (!result.ok) throw toApiError(table, result.error);
    return result.value;
  };
}
