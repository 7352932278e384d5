import type { FastifyContextConfig, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { FeatureFlag } from '../db/schema.js';
import type { Result } from '../shared/result.js';
import { errorResponses, toApiError, type ErrorTable } from './errors.js';
import {
  IDEMPOTENCY_HEADER,
  IdempotencyHeaderSchema,
  idempotencyHooks,
  type IdempotencyOptions,
} from './idempotency.js';
import type { RouteAuth } from './route-config.js';
import type { App } from './server.js';

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

/** What a module's routes share: their OpenAPI tags, feature flag and idempotency hooks. */
export interface RouteKitOptions {
  tags: string[];
  feature?: FeatureFlag;
  idempotency?: IdempotencyOptions;
}

/** The `{id}` of a route that names one resource (its `params` schema requires it). */
const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/**
 * A module's route options: `route` for a route without `X-Idempotency-Key` (`auth` defaults to
 * `read`), `idempotent` for a write that honours it (`auth` defaults to `write`), through the hooks
 * `idempotency` makes.
 */
export function routeKit(kit: RouteKitOptions) {
  const hooks = kit.idempotency === undefined ? undefined : idempotencyHooks(kit.idempotency);
  const config = (auth: RouteAuth): FastifyContextConfig =>
    kit.feature === undefined ? { auth } : { auth, feature: kit.feature };
  const route = <S extends object>(doc: RouteDoc, schema: S, auth: RouteAuth = 'read') => ({
    schema: { ...doc, tags: kit.tags, ...schema },
    config: config(auth),
  });
  return {
    route,
    /**
     * `GET url`: one page of the list `page`, as `read` answers the `querystring`. A list under a
     * resource (`params`) fails as a retrieve does: an unknown resource is 404.
     */
    list<Q extends TSchema, R extends TSchema, P extends TSchema | undefined = undefined>(
      app: App,
      url: string,
      querystring: Q,
      page: R,
      spec: RouteDoc & {
        params?: P;
        read: (
          request: FastifyRequest,
          query: Static<Q>,
          params: P extends TSchema ? Static<P> : undefined,
        ) => Promise<Static<R>>;
      },
    ): void {
      const { operationId, summary, description, params, read } = spec;
      const kind = params === undefined ? 'list' : 'retrieve';
      const response = { 200: page, ...failures(kind) };
      app.route({
        method: 'GET',
        url,
        ...route(
          { operationId, summary, description },
          params === undefined ? { querystring, response } : { params, querystring, response },
        ),
        handler: async (request: FastifyRequest) => {
          const named = params === undefined ? undefined : request.params;
          return read(request, request.query as Static<Q>, named as Parameters<typeof read>[2]);
        },
      });
    },
    /**
     * A route without a body on one resource named by its `{id}` (`params`), answering `item`: what
     * `read` answers for the id, 404 for an unknown one. `GET` and scope `read` unless `spec` says
     * otherwise.
     */
    byId<R extends TSchema>(
      app: App,
      url: string,
      params: TSchema,
      item: R,
      spec: RouteDoc & {
        method?: 'GET' | 'POST' | 'DELETE';
        auth?: RouteAuth;
        read: (request: FastifyRequest, id: string) => Promise<Static<R>>;
      },
    ): void {
      const { operationId, summary, description, method = 'GET', auth, read } = spec;
      const response = { 200: item, ...failures('retrieve') };
      app.route({
        method,
        url,
        ...route({ operationId, summary, description }, { params, response }, auth),
        handler: async (request: FastifyRequest) => read(request, idOf(request)),
      });
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

/** The `X-Idempotency-Key` of a request (the first, if sent more than once). */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers[IDEMPOTENCY_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

/** A module's `unwrap`: the value of a result, or its error's envelope thrown, through the module's table. */
export function unwrapWith<E extends { code: string }>(table: ErrorTable<E>) {
  return <T>(result: Result<T, E>): T => {
    if (!result.ok) throw toApiError(table, result.error);
    return result.value;
  };
}
