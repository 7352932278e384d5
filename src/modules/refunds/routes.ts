import { failures, idempotencyKeyOf, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { ChargeIdParamsSchema } from '../charges/schemas.js';
import { REFUND_ERRORS, REFUND_LIST_ERRORS } from './errors.js';
import { RefundCreateSchema, RefundListQuerySchema, RefundListSchema, RefundViewSchema } from './schemas.js';
import type { RefundService } from './service.js';

const TAGS = ['Refunds'];

const unwrap = unwrapWith(REFUND_ERRORS);
const unwrapPage = unwrapWith(REFUND_LIST_ERRORS);

/** `POST /v1/charges/{id}/refunds` and `GET /v1/charges/{id}/refunds`. */
export async function refundRoutes(
  app: App,
  options: { service: RefundService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const kit = routeKit({ tags: TAGS, idempotency: { ...options.idempotency, scopeOf: callerScope } });

  app.post(
    '/v1/charges/:id/refunds',
    kit.idempotent(
      {
        operationId: 'createRefund',
        summary: 'Refund a charge',
        description:
          'Refunds all (no `amount`) or part of a succeeded charge through the acquirer. More than what remains ' +
          'refundable is 400 `validation_failed` (`amount`, `too_large`); a charge that is not `succeeded` is ' +
          '409 `invalid_state_transition`. The fee is not returned. Writes the ledger entry and the ' +
          '`charge.refunded` event. Needs scope `write`. Honours `X-Idempotency-Key`; without it, a retry ' +
          'refunds again. `provider_unavailable` (the acquirer down, or answering 408, 425 or 429 on every ' +
          "attempt, or silent for the request's time budget) leaves the refund `pending`, with " +
          '`Retry-After: 30`; it is retried in the background, ' +
          'and a retry with the same key and body asks for that refund again. The same key with another body, ' +
          'or from another API key, is 409 `idempotency_key_reuse`. Keys are remembered for 24 hours: after ' +
          'that, the same key is a new refund.',
      },
      {
        params: ChargeIdParamsSchema,
        body: RefundCreateSchema,
        response: { 201: RefundViewSchema, ...failures('update', 502) },
      },
    ),
    async (request, reply) => {
      const idempotencyKey = idempotencyKeyOf(request);
      const refund = await options.service.create(ownerOf(request), request.params.id, request.body ?? {}, {
        idempotencyKey,
      });
      return reply.code(201).send(unwrap(refund));
    },
  );

  kit.list(app, '/v1/charges/:id/refunds', RefundListQuerySchema, RefundListSchema, {
    operationId: 'listRefunds',
    summary: 'List the refunds of a charge',
    description:
      'The refunds of the charge, newest first, a page at a time (`limit` 1 to 100, default 20; pass ' +
      "`nextCursor` back as `cursor`). A cursor is bound to the charge it was issued for: another charge's " +
      'is 400 `validation_failed`. Needs scope `read`.',
    params: ChargeIdParamsSchema,
    read: async (request, query, { id }) =>
      unwrapPage(await options.service.list(ownerOf(request), id, query)),
  });
}
