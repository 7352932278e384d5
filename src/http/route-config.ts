import type { ApiKeyScope, FeatureFlag } from '../db/schema.js';

/**
 * What a route on an API listener needs from the caller:
 * - 'public': no key (POST /v1/applications, the OpenAPI document, health checks);
 * - 'key': any valid key of this environment;
 * - a scope: a key holding that scope or `all`.
 * A route that does not say is treated as 'all': forgetting to declare never opens a route.
 */
export type RouteAuth = 'public' | 'key' | Exclude<ApiKeyScope, 'all'> | 'all';

/** What an operator-listener route needs: 'public' (the login page), or a staff permission. */
export type OperatorAuth = 'public' | 'read' | 'underwrite' | 'administer';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    operator?: OperatorAuth;
    /**
     * The organization feature flag the route sits behind (product decision 8). Without it the caller
     * gets 403 `forbidden` (`payouts`: 503 `payouts_unavailable`), after the key and its scope pass.
     */
    feature?: FeatureFlag;
  }
}
