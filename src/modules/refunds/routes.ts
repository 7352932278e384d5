import { Type } from 'typebox';
import { errorResponses, toApiError } from '../../http/errors.js';
import {
  IDEMPOTENCY_HEADER,
  IdempotencyHeaderSchema,
  idempotencyHooks,
  type IdempotencyOptions,
} from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { ChargeIdParamsSchema } from '../charges/schemas.js';
import { REFUND_ERRORS, type RefundError } from './errors.js';
import { RefundCreateSchema, RefundViewSchema } from './schemas.js';
import type { RefundService } from './service.js';

function unwrap<T>(result: Result<T, RefundError>): T {
  if (!result.ok) throw toApiError(REFUND_ERRORS, result.error);
  return result.value;
}

/** `POST /v1/charges/{id}/refunds` and `GET /v1/charges/{id}/refunds`. */
export async function refundRoutes(
  app: App,
  options: { service: RefundService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const idempotency = idempotencyHooks({
    ...options.idempotency,
    scopeOf: callerScope,
  });

  app.post(
    '/v1/charges/:id/refunds',
    {
      schema: {
        operationId: 'createRefund',
        summary: 'Refund a charge',
        description:
          'Refunds all (no `amount`) or part of a succeeded charge through the acquirer. More than what remains ' +
          'refundable is 400 `validation_failed` (`amount`, `too_large`); a charge that is not `succeeded` is ' +
          '409 `invalid_state_transition`. The fee is not returned. Writes the ledger entry and the ' +
          '`charge.refunded` event. Needs scope `write`. Honours `X-Idempotency-Key`; without it, a retry ' +
          'refunds again. `provider_unavailable` leaves the refund `pending`; it is retried in the background, ' +
          'and a retry with the same key and body asks for that refund again. The same key with another body, ' +
          'or from another API key, is 409 `idempotency_key_reuse`. Keys are remembered for 24 hours: after ' +
          'that, the same key is a new refund.',
        tags: ['Refunds'],
        headers: IdempotencyHeaderSchema,
        params: ChargeIdParamsSchema,
        body: RefundCreateSchema,
        response: {
          201: RefundViewSchema,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503),
        },
      },
      config: { auth: 'write' },
      preValidation: idempotency.preValidation,
      onSend: idempotency.onSend,
    },
    async (request, reply) => {
      const header = request.headers[IDEMPOTENCY_HEADER];
      const refund = await options.service.create(ownerOf(request), request.params.id, request.body ?? {}, {
        idempotencyKey: Array.isArray(header) ? header[0] : header,
      });
      return reply.code(201).send(unwrap(refund));
    },
  );

  app.get(
    '/v1/charges/:id/refunds',
    {
      schema: {
        operationId: 'listRefunds',
        summary: 'List the refunds of a charge',
        description: 'Every refund of the charge, newest first. Needs scope `read`.',
        tags: ['Refunds'],
        params: ChargeIdParamsSchema,
        response: {
          200: Type.Object({ data: Type.Array(RefundViewSchema) }),
          ...errorResponses(400, 401, 403, 404, 429, 500),
        },
      },
      config: { auth: 'read' },
    },
    async (request) => ({ data: unwrap(await options.service.list(ownerOf(request), request.params.id)) }),
  );
}
