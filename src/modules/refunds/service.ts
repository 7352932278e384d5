import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import type { Kdb } from '../../db/database.js';
import type { RefundsTable } from '../../db/schema.js';
import { ApiError, errorResponses } from '../../http/errors.js';
import {
  IDEMPOTENCY_HEADER,
  IdempotencyHeaderSchema,
  idempotencyHooks,
  type IdempotencyOptions,
} from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerRefund,
} from '../acquirer/types.js';
import type { EventRecorder } from '../events/service.js';
import type { OperatorAlerts } from '../operator/alerts.js';
import type { ChargeLedger } from './completion.js';
import { ChargeIdParamsSchema } from './schemas.js';
import { chargeView, type ChargeOwner, type ChargeRow } from './service.js';
import { PROVIDER_RETRY_AFTER_SECONDS } from './routes.js';

export type RefundRow = Selectable<RefundsTable>;

export const RefundCreateSchema = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Minor units to refund; absent means everything that remains refundable.',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Why, for your records; shown back as given.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RefundCreate = Static<typeof RefundCreateSchema>;

export const RefundViewSchema = Type.Object(
  {
    id: Type.String({ pattern: '^re_', description: 'Prefix `re_`.' }),
    chargeId: Type.String({ pattern: '^ch_' }),
    amount: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Decimal string of minor units.' }),
    currency: Type.Enum(['TRY']),
    status: Type.Enum(['pending', 'succeeded', 'failed'], {
      description:
        '`pending` while the acquirer is asked (it is retried in the background), `succeeded`, or `failed` ' +
        'when the acquirer refused it.',
    }),
    reason: Type.Union([Type.String(), Type.Null()]),
    failureCode: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A refund of all or part of a succeeded charge.' },
);
export type RefundView = Static<typeof RefundViewSchema>;

export function refundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    chargeId: row.charge_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    failureCode: row.failure_code,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface RefundService {
  create(
    owner: ChargeOwner,
    chargeId: string,
    input: RefundCreate,
    options: { idempotencyKey: string | undefined },
  ): Promise<RefundView>;
  list(owner: ChargeOwner, chargeId: string): Promise<RefundView[]>;
  /** Asks the acquirer again, with the same idempotency key, for refunds a failure left pending. */
  retryPending(limit?: number): Promise<number>;
}

export interface RefundServiceDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  acquirerFor: (environment: ChargeRow['environment']) => Acquirer | undefined;
  ledger: ChargeLedger;
  events: EventRecorder;
  /** Told when a refund leaves the merchant's pending balance below zero (docs/decisions/0014). */
  alerts: OperatorAlerts;
  checkoutUrl: () => string;
  /** A pending refund younger than this may still have its request in flight. */
  retryAfterMs: number;
}

/**
 * Refunds (product decision 13): all or part of a succeeded charge, through the acquirer with the refund
 * id as its idempotency key. The amount is reserved under the charge's row lock before the acquirer is
 * asked, so concurrent refunds can never exceed the charge; the ledger entry and `charge.refunded` are
 * written in the transaction that records the acquirer's answer.
 */
export function createRefundService(deps: RefundServiceDeps): RefundService {
  const { db, clock, logger } = deps;

  async function finish(refundId: string, answer: AcquirerRefund): Promise<RefundRow> {
    return db.transaction().execute(async (trx) => {
      const refund = await trx
        .selectFrom('refunds')
        .selectAll()
        .where('id', '=', refundId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (refund.status !== 'pending') return refund;
      const charge = await trx
        .selectFrom('charges')
        .selectAll()
        .where('id', '=', refund.charge_id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const now = clock.now();
      const refundedAmount = BigInt(charge.refunded_amount) + BigInt(refund.amount);
      const updatedCharge = await trx
        .updateTable('charges')
        .set({
          refunded_amount: refundedAmount.toString(),
          provider_status: refundedAmount === BigInt(charge.amount) ? 'refunded' : 'partially_refunded',
          updated_at: now,
        })
        .where('id', '=', charge.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const done = await trx
        .updateTable('refunds')
        .set({ status: 'succeeded', provider_refund_id: answer.id, updated_at: now })
        .where('id', '=', refund.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const posted = await deps.ledger.postRefund(trx, {
        id: done.id,
        chargeId: charge.id,
        organizationId: charge.organization_id,
        environment: charge.environment,
        amount: done.amount,
      });
      // A refund is never refused for want of balance (the customer is owed it and the acquirer debits
      // us anyway): the pending balance may go below zero, as a debt the next settlement recovers, and the
      // operator is told (docs/decisions/0014-refund-debt.md).
      if (posted.created && BigInt(posted.pendingAfter) < 0n) {
        const debt = (-BigInt(posted.pendingAfter)).toString();
        await deps.alerts.raise(trx, {
          kind: 'negative_pending_balance',
          organizationId: charge.organization_id,
          environment: charge.environment,
          subjectId: done.id,
          chargeId: charge.id,
          message: `Refund ${done.id} left the pending balance of ${charge.organization_id} (${charge.environment}) at ${posted.pendingAfter} TRY minor units`,
          details: {
            refundId: done.id,
            amount: done.amount,
            currency: done.currency,
            pendingAfter: posted.pendingAfter,
            debt,
          },
        });
      }
      await deps.events.record(trx, {
        organizationId: charge.organization_id,
        environment: charge.environment,
        type: 'charge.refunded',
        resourceId: charge.id,
        data: { ...chargeView(updatedCharge, deps.checkoutUrl()), refund: refundView(done) },
        payment: {
          id: charge.id,
          paymentId: charge.provider_payment_id ?? '',
          merchantReference: charge.merchant_reference,
        },
      });
      return done;
    });
  }

  async function fail(refundId: string, error: AcquirerRejectedError): Promise<RefundRow> {
    return db
      .updateTable('refunds')
      .set({
        status: 'failed',
        failure_code: error.providerCode,
        failure_message: error.sanitizedMessage,
        updated_at: clock.now(),
      })
      .where('id', '=', refundId)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** One acquirer round for a pending refund: succeeded, failed, or still pending (thrown). */
  async function ask(refund: RefundRow, paymentId: string, acquirer: Acquirer): Promise<RefundRow> {
    try {
      const answer = await acquirer.refund(paymentId, { idempotencyKey: refund.id, amount: refund.amount });
      return await finish(refund.id, answer);
    } catch (error) {
      if (error instanceof AcquirerRejectedError) {
        await fail(refund.id, error);
        throw error;
      }
      throw error;
    }
  }

  return {
    async create(owner, chargeId, input, { idempotencyKey }) {
      const reserved = await db.transaction().execute(async (trx) => {
        const charge = await trx
          .selectFrom('charges')
          .selectAll()
          .where('id', '=', chargeId)
          .where('organization_id', '=', owner.organizationId)
          .where('environment', '=', owner.environment)
          .where('creation_state', '=', 'created')
          .forUpdate()
          .executeTakeFirst();
        if (!charge) throw new ApiError('not_found', 'No such charge.');
        if (idempotencyKey !== undefined) {
          // A retry of a request whose refund is still pending (the acquirer was unavailable) asks again
          // for that same refund instead of reserving a second one.
          const earlier = await trx
            .selectFrom('refunds')
            .selectAll()
            .where('charge_id', '=', charge.id)
            .where('idempotency_key', '=', idempotencyKey)
            .executeTakeFirst();
          if (earlier) return { refund: earlier, charge };
        }
        if (charge.status !== 'succeeded') {
          throw new ApiError(
            'invalid_state_transition',
            `Only a succeeded charge can be refunded; this one is ${charge.status}.`,
          );
        }
        const pending = await trx
          .selectFrom('refunds')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount'), eb.val('0')).as('total'))
          .where('charge_id', '=', charge.id)
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        const remaining = BigInt(charge.amount) - BigInt(charge.refunded_amount) - BigInt(pending.total);
        const amount = input.amount === undefined ? remaining : BigInt(input.amount);
        if (remaining <= 0n) {
          throw new ApiError('invalid_state_transition', 'This charge has nothing left to refund.');
        }
        if (amount > remaining) {
          throw ApiError.validation(
            [
              {
                path: 'amount',
                in: 'body',
                code: 'too_large',
                message: `exceeds what remains refundable on this charge (${remaining.toString()})`,
              },
            ],
            `The refund exceeds the refundable amount of ${remaining.toString()}.`,
          );
        }
        const now = clock.now();
        const refund = await trx
          .insertInto('refunds')
          .values({
            id: newId('re', now),
            charge_id: charge.id,
            organization_id: charge.organization_id,
            environment: charge.environment,
            amount: amount.toString(),
            currency: 'TRY',
            status: 'pending',
            reason: input.reason ?? null,
            idempotency_key: idempotencyKey ?? null,
            created_by_key_id: owner.keyId ?? null,
            provider_refund_id: null,
            failure_code: null,
            failure_message: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { refund, charge };
      });
      const acquirer = deps.acquirerFor(reserved.charge.environment);
      if (!acquirer || reserved.charge.provider_payment_id === null) {
        throw new ApiError('service_unavailable', 'No acquirer is configured for this environment.');
      }
      if (reserved.refund.status !== 'pending') return refundView(reserved.refund);
      try {
        return refundView(await ask(reserved.refund, reserved.charge.provider_payment_id, acquirer));
      } catch (error) {
        if (error instanceof AcquirerRejectedError) {
          throw new ApiError('provider_rejected', error.sanitizedMessage, {
            providerCode: error.providerCode,
            providerStatus: error.providerHttpStatus,
            refundId: reserved.refund.id,
          });
        }
        if (error instanceof AcquirerUnavailableError) {
          throw new ApiError(
            'provider_unavailable',
            `The acquirer is unavailable; refund ${reserved.refund.id} stays pending and is retried in the background.`,
            { refundId: reserved.refund.id, retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
          );
        }
        throw error;
      }
    },

    async list(owner, chargeId) {
      const charge = await db
        .selectFrom('charges')
        .select('id')
        .where('id', '=', chargeId)
        .where('organization_id', '=', owner.organizationId)
        .where('environment', '=', owner.environment)
        .where('creation_state', '=', 'created')
        .executeTakeFirst();
      if (!charge) throw new ApiError('not_found', 'No such charge.');
      const rows = await db
        .selectFrom('refunds')
        .selectAll()
        .where('charge_id', '=', chargeId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(refundView);
    },

    async retryPending(limit = 20) {
      const due = await db
        .selectFrom('refunds')
        .innerJoin('charges', 'charges.id', 'refunds.charge_id')
        .selectAll('refunds')
        .select('charges.provider_payment_id as payment_id')
        .where('refunds.status', '=', 'pending')
        .where('refunds.updated_at', '<=', new Date(clock.now().getTime() - deps.retryAfterMs))
        .orderBy('refunds.updated_at')
        .limit(limit)
        .execute();
      let settled = 0;
      for (const row of due) {
        const acquirer = deps.acquirerFor(row.environment);
        if (!acquirer || row.payment_id === null) continue;
        try {
          await ask(row, row.payment_id, acquirer);
          settled++;
        } catch (error) {
          if (error instanceof AcquirerRejectedError) settled++;
          else
            logger.warn(
              { err: error, refundId: row.id },
              'refund retry deferred: the acquirer is unavailable',
            );
        }
      }
      return settled;
    },
  };
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
          'refunds again. `provider_unavailable` leaves the refund `pending`; it is retried in the background.',
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
      return reply.code(201).send(refund);
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
    async (request) => ({ data: await options.service.list(ownerOf(request), request.params.id) }),
  );
}
