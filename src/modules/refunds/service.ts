import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerRefund,
} from '../acquirer/types.js';
import { chargeView, type ChargeOwner, type ChargeRefunds } from '../charges/service.js';
import type { EventRecorder } from '../events/service.js';
import type { OperatorAlerts } from '../operator/alerts.js';
import type { RefundError } from './errors.js';
import type { RefundRow } from './model.js';
import * as refunds from './repository.js';
import { refundView, type RefundCreate, type RefundView } from './schemas.js';

/** What refunds need of the ledger (src/modules/ledger): the entry of a refund, in its transaction. */
export interface RefundLedger {
  postRefund(
    trx: Trx,
    refund: {
      id: string;
      chargeId: string;
      organizationId: string;
      environment: Environment;
      amount: string;
    },
  ): Promise<{ created: boolean; pendingAfter: string }>;
}

export interface RefundService {
  create(
    owner: ChargeOwner,
    chargeId: string,
    input: RefundCreate,
    options: { idempotencyKey: string | undefined },
  ): Promise<Result<RefundView, RefundError>>;
  list(owner: ChargeOwner, chargeId: string): Promise<Result<RefundView[], RefundError>>;
  /** Asks the acquirer again, with the same idempotency key, for refunds a failure left pending. */
  retryPending(limit?: number): Promise<number>;
}

export interface RefundServiceDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  /** The charge a refund is for: the charges module owns that table. */
  charges: ChargeRefunds;
  ledger: RefundLedger;
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
      const refund = await refunds.lockById(trx, refundId);
      if (refund.status !== 'pending') return refund;
      const charge = await deps.charges.lock(trx, refund.charge_id);
      const now = clock.now();
      const updatedCharge = await deps.charges.recordRefund(trx, charge, refund.amount, now);
      const done = await refunds.transition(trx, refund.id, ['pending'], 'succeeded', {
        provider_refund_id: answer.id,
        updated_at: now,
      });
      if (!done) throw new Error(`refund ${refund.id} left pending under its row lock`);
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
    const failed = await refunds.transition(db, refundId, ['pending'], 'failed', {
      failure_code: error.providerCode,
      failure_message: error.sanitizedMessage,
      updated_at: clock.now(),
    });
    if (!failed) throw new Error(`refund ${refundId} is no longer pending`);
    return failed;
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
      type Reserved = {
        refund: RefundRow;
        charge: { environment: Environment; provider_payment_id: string | null };
      };
      const reserved = await db.transaction().execute(async (trx): Promise<Result<Reserved, RefundError>> => {
        const charge = await deps.charges.lockVisible(trx, owner, chargeId);
        if (!charge) return err({ code: 'charge_not_found' });
        if (idempotencyKey !== undefined) {
          // A retry of a request whose refund is still pending (the acquirer was unavailable) asks again
          // for that same refund instead of reserving a second one.
          const earlier = await refunds.findByIdempotencyKey(trx, charge.id, idempotencyKey);
          if (earlier) return ok({ refund: earlier, charge });
        }
        if (charge.status !== 'succeeded') {
          return err({ code: 'charge_not_refundable', status: charge.status });
        }
        const pending = await refunds.pendingTotal(trx, charge.id);
        const remaining = BigInt(charge.amount) - BigInt(charge.refunded_amount) - BigInt(pending);
        const amount = input.amount === undefined ? remaining : BigInt(input.amount);
        if (remaining <= 0n) return err({ code: 'nothing_to_refund' });
        if (amount > remaining) return err({ code: 'exceeds_refundable', remaining: remaining.toString() });
        const now = clock.now();
        const refund = await refunds.insert(trx, {
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
        });
        return ok({ refund, charge });
      });
      if (!reserved.ok) return reserved;
      const { refund, charge } = reserved.value;
      const acquirer = deps.acquirerFor(charge.environment);
      if (!acquirer || charge.provider_payment_id === null) return err({ code: 'acquirer_not_configured' });
      if (refund.status !== 'pending') return ok(refundView(refund));
      try {
        return ok(refundView(await ask(refund, charge.provider_payment_id, acquirer)));
      } catch (error) {
        if (error instanceof AcquirerRejectedError) {
          return err({
            code: 'provider_rejected',
            refundId: refund.id,
            providerCode: error.providerCode,
            providerStatus: error.providerHttpStatus,
            message: error.sanitizedMessage,
          });
        }
        if (error instanceof AcquirerUnavailableError) {
          return err({ code: 'provider_unavailable', refundId: refund.id });
        }
        throw error;
      }
    },

    async list(owner, chargeId) {
      const charge = await deps.charges.findVisible(owner, chargeId);
      if (!charge) return err({ code: 'charge_not_found' });
      return ok((await refunds.listByCharge(db, chargeId)).map(refundView));
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
