import swagger from '@fastify/swagger';
import type { App } from '../../http/server.js';

export const OPERATOR_API_PREFIX = '/operator/v1/';

/**
 * The operator API's OpenAPI document at `GET /operator/v1/openapi.json` on the operator listener,
 * built from the routes' own schemas (console pages are left out). Each operation is named after its
 * method and path, and tagged by the resource it acts on.
 */
export async function registerOperatorOpenApi(app: App, options: { baseUrl: () => string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payment Gateway operator API',
        version: '1.0.0',
        description:
          'What the operator console does, as JSON, for scripts and the operator CLI: underwriting, ' +
          'organizations, staff, alerts, the audit log and the mailbox. Writes are audited. Every failure ' +
          'uses the error envelope `{ error: { code, message, requestId, details? } }`.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Gateway operations', email: 'operations@gateway.invalid' },
      },
      servers: [{ url: 'http://localhost', description: 'operator' }],
      components: {
        securitySchemes: {
          StaffSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'gw_operator',
            description:
              'The staff session cookie from `POST /operator/v1/session`; writes also need its CSRF token in ' +
              'the `X-CSRF-Token` header.',
          },
          CliToken: {
            type: 'http',
            scheme: 'bearer',
            description: "The local CLI's token, written by the gateway to DATA_DIR/operator-cli-token.",
          },
        },
      },
      security: [{ StaffSession: [] }, { CliToken: [] }],
    },
    transform: ({ schema, url, route }) => {
      const routeSchema = (schema ?? {}) as Record<string, unknown>;
      if (!url.startsWith(OPERATOR_API_PREFIX) || url === `${OPERATOR_API_PREFIX}openapi.json`)
        return { schema: { ...routeSchema, hide: true }, url };
      const method = (Array.isArray(route.method) ? route.method[0] : route.method) ?? 'GET';
      const isPublic = route.config?.operator === 'public';
      return {
        schema: {
          ...routeSchema,
          operationId: operationIdOf(method, url),
          summary: `${method} ${url}`,
          tags: [tagOf(url)],
          ...(isPublic ? { security: [] } : {}),
        },
        url,
      };
    },
  });
  app.get(
    `${OPERATOR_API_PREFIX}openapi.json`,
    { schema: { hide: true }, config: { operator: 'public' } },
    async () => ({
      ...(app.swagger() as Record<string, unknown>),
      servers: [{ url: options.baseUrl(), description: 'operator' }],
    }),
  );
}

/** `POST /operator/v1/applications/:id/start-review` -> `postApplicationsIdStartReview`. */
function operationIdOf(method: string, url: string): string {
  const words = url
    .slice(OPERATOR_API_PREFIX.length)
    .split(/[/:-]/)
    .filter((word) => word !== '');
  return [method.toLowerCase(), ...words.map((w) => w[0]?.toUpperCase() + w.slice(1))].join('');
}

function tagOf(url: string): string {
  const first = url.slice(OPERATOR_API_PREFIX.length).split('/')[0] ?? '';
  return first === '' ? 'Operator' : first;
}
