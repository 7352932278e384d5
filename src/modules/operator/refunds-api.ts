import { Type } from 'typebox';
import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { HELD_REFUND_ERRORS } from '../refunds/errors.js';
import { RefundViewSchema } from '../refunds/schemas.js';
import { heldRefundDecision, type RefundService } from '../refunds/service.js';
import { apiRoute } from './api-kit.js';
import { actorOf } from './auth.js';
import { IdParamsSchema } from './schemas.js';

const SettleBodySchema = Type.Object(
  {
    outcome: Type.Enum(['succeeded', 'failed'], {
      description:
        '`succeeded`: the acquirer refunded it (book it); `failed`: the acquirer refunded nothing (its ' +
        'amount is refundable again).',
    }),
    providerRefundId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The acquirer’s id of the refund it made (required with `succeeded`).',
      }),
    ),
    amount: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,17}$',
        description:
          'What the acquirer really refunded, in minor units (`succeeded` only; default: the refund’s own ' +
          'amount). At most what the charge can still refund.',
      }),
    ),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'What the acquirer said; audited.' }),
  },
  { additionalProperties: false },
);

/**
 * The operator's settlement of a held refund (ADR 0063): `POST /operator/v1/refunds/{id}/settle`, admin.
 */
export async function operatorRefundApi(
  app: App,
  deps: { refunds: Pick<RefundService, 'settleHeld'> },
): Promise<void> {
  app.post(
    '/operator/v1/refunds/:id/settle',
    apiRoute('administer', RefundViewSchema, {
      description:
        'Settles a held refund: one still `pending` but out of the retry queue (held for an acquirer ' +
        'answer that disagreed, alert `refund_mismatch`, or parked after its retries), once the operator ' +
        'has asked the acquirer what it did. `succeeded` books it (the charge’s refunded amount, the ' +
        'ledger entry, `charge.refunded`) for `amount` under `providerRefundId`; `failed` ends it, its ' +
        'amount refundable again. A refund that is not held is 409 `invalid_state_transition`. Audited ' +
        '(`refund.settled`).',
      params: IdParamsSchema,
      body: SettleBodySchema,
    }),
    async (request) => {
      const decision = heldRefundDecision(request.body);
      const settled = await deps.refunds.settleHeld(request.params.id, decision, actorOf(request));
      if (!settled.ok) throw toApiError(HELD_REFUND_ERRORS, settled.error);
      return settled.value;
    },
  );
}
