import type { FastifyRequest } from 'fastify';
import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import { sealedSecretOnSend, type IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { trimBodyStrings } from '../../http/trim.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { callerOf, callerScope } from './context.js';
import { API_KEY_ERRORS } from './errors.js';
import {
  ApiKeyCreatedSchema,
  ApiKeyCreateSchema,
  ApiKeyIdParamsSchema,
  ApiKeyListQuerySchema,
  ApiKeyListSchema,
  ApiKeyRequestListSchema,
  ApiKeySchema,
  type ApiKeyRequestResponse,
  type ApiKeyResponse,
} from './schemas.js';
import type { ApiKeyService } from './service.js';
import type { ApiKeyView, KeyRequestView } from './types.js';

export interface ApiKeyRoutesOptions {
  service: ApiKeyService;
  idempotency: Omit<IdempotencyOptions, 'scopeOf'>;
  /** Seals the secret inside a stored idempotent outcome (see `sealedSecretOnSend`). */
  box: SecretBox;
}

const TAGS = ['API keys'];
const FLAG_NOTE =
  'Needs the `apiKeys` feature of the organization (403 `forbidden` without it). Keys and their lists ' +
  'belong to the environment of the base URL.';

const unwrap = unwrapWith(API_KEY_ERRORS);

export function toApiKeyResponse(view: ApiKeyView): ApiKeyResponse {
  return {
    id: view.id,
    displayPrefix: view.displayPrefix,
    environment: view.environment,
    name: view.name,
    scopes: view.scopes,
    allowedIps: view.allowedIps,
    lastUsedAt: view.lastUsedAt?.toISOString() ?? null,
    expiresAt: view.expiresAt?.toISOString() ?? null,
    createdAt: view.createdAt.toISOString(),
    revokedAt: view.revokedAt?.toISOString() ?? null,
  };
}

export function toRequestResponse(view: KeyRequestView): ApiKeyRequestResponse {
  return {
    method: view.method,
    route: view.route,
    resourceId: view.resourceId,
    statusCode: view.statusCode,
    requestId: view.requestId,
    ip: view.ip,
    createdAt: view.createdAt.toISOString(),
  };
}

const meta = (request: FastifyRequest) => ({ requestId: request.id, ip: request.ip });

/** Key management on the listener's environment (Stripe-like: create, list, retrieve, revoke). */
export async function apiKeyRoutes(app: App, options: ApiKeyRoutesOptions): Promise<void> {
  const { service } = options;
  const kit = routeKit({
    tags: TAGS,
    feature: 'apiKeys',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  app.post(
    '/v1/api-keys',
    kit.idempotent(
      {
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          'Creates a key of this environment. The response carries the whole key in `secret`, once; only ' +
          'its hash is stored. A key cannot create a key with a scope it does not hold itself (403 ' +
          '`insufficient_scope`). Needs scope `write`. Honours `X-Idempotency-Key`: a retry within 24 ' +
          'hours returns the same key to the same caller; another API key sending the same idempotency key ' +
          `gets 409 \`idempotency_key_reuse\`, never the secret. ${FLAG_NOTE}`,
      },
      { body: ApiKeyCreateSchema, response: { 201: ApiKeyCreatedSchema, ...failures('create') } },
      {
        // Strings are trimmed before the key is claimed: the request is fingerprinted as it is stored.
        before: trimBodyStrings,
        onSend: sealedSecretOnSend({ store: options.idempotency.store, box: options.box }),
      },
    ),
    async (request, reply) => {
      const created = unwrap(await service.create(callerOf(request), request.body, meta(request)));
      return reply.code(201).send({ ...toApiKeyResponse(created), secret: created.secret });
    },
  );

  kit.list(app, '/v1/api-keys', ApiKeyListQuerySchema, ApiKeyListSchema, {
    operationId: 'listApiKeys',
    summary: 'List API keys',
    description: `Keys of this environment, revoked ones included, newest first. Needs scope \`read\`. ${FLAG_NOTE}`,
    read: async (request, query) => {
      const page = unwrap(await service.list(callerOf(request), query));
      return { data: page.data.map(toApiKeyResponse), nextCursor: page.nextCursor };
    },
  });

  kit.byId(app, '/v1/api-keys/:id', ApiKeyIdParamsSchema, ApiKeySchema, {
    operationId: 'getApiKey',
    summary: 'Retrieve an API key',
    description: `Needs scope \`read\`. A key of another organization or environment is 404 \`not_found\`. ${FLAG_NOTE}`,
    read: async (request, id) => toApiKeyResponse(unwrap(await service.get(callerOf(request), id))),
  });

  kit.list(app, '/v1/api-keys/:id/requests', ApiKeyListQuerySchema, ApiKeyRequestListSchema, {
    operationId: 'listApiKeyRequests',
    summary: 'List the requests of an API key',
    description:
      'The requests the key made in the last 30 days, newest first, revoked keys included: method, ' +
      'route template, the object named or created, status, request id, client address and time; never ' +
      'a body, a header or a secret. Requests refused before the key was identified (401) or by its ' +
      'rate limit (429) are not listed. Entries reach the log within about a second of the answer. ' +
      `Needs scope \`read\`. ${FLAG_NOTE}`,
    params: ApiKeyIdParamsSchema,
    read: async (request, query, { id }) => {
      const page = unwrap(await service.listRequests(callerOf(request), id, query));
      return { data: page.data.map(toRequestResponse), nextCursor: page.nextCursor };
    },
  });

  app.post(
    '/v1/api-keys/:id/revoke',
    kit.idempotent(
      {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          'Revokes the key at once, on every instance: its next request is refused with 401 `invalid_api_key`. ' +
          'The record stays (with `revokedAt`) and its prefix is never issued again; revoking a revoked key ' +
          'returns it unchanged. Needs scope `write`, and every scope of the key revoked unless a key ' +
          `revokes itself. No request body. Honours \`X-Idempotency-Key\`. ${FLAG_NOTE}`,
      },
      {
        params: ApiKeyIdParamsSchema,
        response: { 200: ApiKeySchema, ...failures('action') },
      },
    ),
    async (request) =>
      toApiKeyResponse(unwrap(await service.revoke(callerOf(request), request.params.id, meta(request)))),
  );
}
