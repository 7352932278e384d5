import type { FastifyRequest } from 'fastify';
import type { ApiKeyScope, Environment, FeatureFlag } from '../../db/schema.js';

/** Who is calling, as established by the API key of the request. */
export interface ApiKeyAuth {
  keyId: string;
  organizationId: string;
  environment: Environment;
  scopes: readonly ApiKeyScope[];
  featureFlags: readonly FeatureFlag[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on every authenticated route; null on public routes. */
    apiKeyAuth: ApiKeyAuth | null;
  }
}

/**
 * The caller of an authenticated route. Routes call this instead of reading the decoration, so that a
 * route wrongly declared `auth: 'public'` fails loudly instead of running without a caller.
 */
export function callerOf(request: FastifyRequest): ApiKeyAuth {
  const auth = request.apiKeyAuth;
  if (auth === null) throw new Error(`${request.method} ${request.url} has no authenticated caller`);
  return auth;
}

/**
 * The idempotency scope of an authenticated caller: keys live in its organization and environment
 * (product decision 14), and an outcome is replayed only to the API key that produced it.
 */
export function callerScope(request: FastifyRequest): { namespace: string; caller: string } {
  const caller = callerOf(request);
  return { namespace: `org:${caller.organizationId}:${caller.environment}`, caller: keyActor(caller) };
}

/**
 * The organization and environment that own what the caller creates and sees, and the key that makes
 * the request (recorded on what it creates).
 */
export function ownerOf(request: FastifyRequest): {
  organizationId: string;
  environment: Environment;
  keyId: string;
} {
  const caller = callerOf(request);
  return { organizationId: caller.organizationId, environment: caller.environment, keyId: caller.keyId };
}

/** `all` holds every scope. */
export function holdsScope(scopes: readonly ApiKeyScope[], scope: ApiKeyScope): boolean {
  return scopes.includes('all') || scopes.includes(scope);
}

/** The actor name the audit log records for a key. */
export function keyActor(auth: ApiKeyAuth): string {
  return `key:${auth.keyId}`;
}
