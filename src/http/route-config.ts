import type { ApiKeyScope } from '../db/schema.js';

/**
 * What a route on an API listener needs from the caller (issue 4):
 * - 'public': no key (POST /v1/applications, the OpenAPI document, health checks);
 * - 'key': any valid key of this environment;
 * - a scope: a key holding that scope or `all`.
 * A route that does not say is treated as 'all': forgetting to declare never opens a route.
 */
export type RouteAuth = 'public' | 'key' | Exclude<ApiKeyScope, 'all'> | 'all';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}
