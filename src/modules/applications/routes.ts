import type { App } from '../../http/server.js';
import { refuseCardNumbers } from '../../http/card-data.js';
import { errorResponses, toApiError } from '../../http/errors.js';
import { idempotencyHooks, type IdempotencyOptions } from '../../http/idempotency.js';
import { trimBodyStrings } from '../../http/trim.js';
import { APPLICATION_ERRORS } from './errors.js';
import { ApplicationCreateSchema, ApplicationCreatedSchema } from './schemas.js';
import type { ApplicationService } from './service.js';

export interface ApplicationRoutesOptions {
  service: ApplicationService;
  idempotency: Omit<IdempotencyOptions, 'scopeOf'>;
}

export async function applicationRoutes(app: App, options: ApplicationRoutesOptions): Promise<void> {
  // The endpoint is public: keys live in one public namespace, guarded by the body fingerprint.
  const idempotency = idempotencyHooks({
    ...options.idempotency,
    scopeOf: () => ({ namespace: 'public:applications', caller: null }),
  });

  app.post(
    '/v1/applications',
    {
      schema: {
        operationId: 'createApplication',
        summary: 'Apply for a merchant account',
        description:
          'Unauthenticated. Underwriting reviews most applications within 48 hours; approved merchants receive ' +
          'their first API keys at `contactEmail`. Accepted applications are limited per client IP address ' +
          '(429 `too_many_requests` with `Retry-After`); refused bodies and idempotent replays do not count. ' +
          'Honours `X-Idempotency-Key`.',
        tags: ['Applications'],
        security: [],
        headers: {
          type: 'object',
          properties: {
            'x-idempotency-key': {
              type: 'string',
              description: 'Optional; the same key and body return the original response for 24 hours.',
            },
          },
        },
        body: ApplicationCreateSchema,
        response: { 201: ApplicationCreatedSchema, ...errorResponses(400, 409, 413, 415, 429, 500) },
      },
      config: { auth: 'public' },
      // The route checks for card numbers itself (product decision 16): the web listener, where the
      // hosted form posts, has no listener-wide check (its checkout pages take card numbers).
      preValidation: [refuseCardNumbers, trimBodyStrings, idempotency.preValidation],
      onSend: idempotency.onSend,
    },
    async (request, reply) => {
      const outcome = await options.service.submit(request.body, { ip: request.ip });
      if (!outcome.ok) {
        if (outcome.error.code === 'too_many_applications') {
          reply.header('retry-after', outcome.error.retryAfterSeconds);
        }
        throw toApiError(APPLICATION_ERRORS, outcome.error);
      }
      return reply.code(201).send(outcome.value);
    },
  );
}
