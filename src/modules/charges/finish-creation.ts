import type { Kdb } from '../../db/database.js';
import type { OutcomeSeam } from '../../shared/idempotent-write.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerPayment,
  type CreatePaymentInput,
} from '../acquirer/types.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import type { ChargeRow } from './model.js';
import * as charges from './repository/charges.js';
import * as creation from './repository/creation.js';
import type { ChargeView } from './schemas.js';
import { toView } from './views.js';

/**
 * The idempotent outcome of a creation request, written in the same statement as phase 2 (ADR 0046): the
 * acquirer's ids and the stored 201 commit together, one commit instead of two. The route provides it
 * when the request holds an idempotency claim.
 */
/** How phase 2 stores the request's 201 with its own statement: the outcome seam of ADR 0046. */
export type CreationOutcome = OutcomeSeam<ChargeView>;

/**
 * Phase 2: the acquirer call recorded in phase 1 (the charge id is its idempotency key), then the
 * acquirer's ids.
 */
export async function finishCreation(
  deps: ChargeServiceDeps,
  charge: ChargeRow,
  acquirer: Acquirer,
  outcome: CreationOutcome | undefined,
): Promise<Result<ChargeView, ChargeError>> {
  const { db, clock, logger } = deps;
  let payment: AcquirerPayment;
  try {
    payment = await acquirer.createPayment(charge.provider_request as CreatePaymentInput);
    assertPaymentMatches(charge, payment);
  } catch (error) {
    if (error instanceof AcquirerRejectedError) {
      await markRejected(db, charge.id, error, clock.now());
      return err({
        code: 'provider_rejected',
        providerCode: error.providerCode,
        providerStatus: error.providerHttpStatus,
        message: error.sanitizedMessage,
      });
    }
    // Nothing final is known: the lease is released so that a retry of the same key can go again at
    // once; the recovery job settles the charge if nobody does.
    await creation.releaseLease(db, charge.id, clock.now());
    if (error instanceof AcquirerUnavailableError) return err({ code: 'provider_unavailable' });
    throw error;
  }
  const now = clock.now();
  if (outcome !== undefined) {
    // Nothing but the lease's holder writes a `creating` charge (notifications find a charge by the
    // payment id this very statement sets; the recovery job and a retry first take the lease): while
    // the lease is still ours, the row is phase 1's plus this patch, so its view is known before the
    // statement runs, and the stored outcome is exactly the 201 the route sends.
    const patch = createdPatch(payment, now);
    const expected = toView(deps, { ...charge, ...patch, creation_state: 'created' });
    const done = await outcome.storeWith(
      { status: 201, body: outcome.serialize(expected) },
      creation.finishCreationHolding(charge.id, charge.creation_locked_until, patch),
    );
    if (done.rows.length > 0) return ok(expected);
    // The lease was taken over (this request outlived it): finish as a lone write, as without a key.
  }
  const created = await markCreated(db, charge.id, payment, now);
  if (created) return ok(toView(deps, created));
  // Someone else (the recovery job after a lapsed lease) finished it first, with the same payment.
  const current = await charges.findById(db, charge.id);
  if (current?.creation_state === 'created') return ok(toView(deps, current));
  logger.error({ chargeId: charge.id, state: current?.creation_state }, 'charge creation lost its lease');
  return err({ code: 'provider_unavailable' });
}

/** An acquirer answer for another charge or amount is never recorded: it would pay the wrong thing. */
export function assertPaymentMatches(charge: ChargeRow, payment: AcquirerPayment): void {
  if (
    typeof payment.id !== 'string' ||
    !payment.id.startsWith('pay_') ||
    payment.reference !== charge.id ||
    payment.amount !== charge.amount ||
    payment.currency !== charge.currency
  ) {
    throw new AcquirerUnavailableError(
      'the acquirer answered with a payment that does not match the charge',
      1,
    );
  }
}

export async function takeLease(
  db: Kdb,
  id: string,
  now: Date,
  leaseMs: number,
): Promise<ChargeRow | undefined> {
  return creation.takeLease(db, id, now, new Date(now.getTime() + leaseMs));
}

/** What phase 2 writes: the acquirer's ids, and the lease let go. */
function createdPatch(payment: AcquirerPayment, now: Date) {
  return {
    creation_locked_until: null,
    provider_payment_id: payment.id,
    provider_status: payment.status,
    updated_at: now,
  };
}

export async function markCreated(
  db: Kdb,
  id: string,
  payment: AcquirerPayment,
  now: Date,
): Promise<ChargeRow | undefined> {
  return charges.transitionCreation(db, id, ['creating'], 'created', createdPatch(payment, now));
}

async function markRejected(db: Kdb, id: string, error: AcquirerRejectedError, now: Date): Promise<void> {
  await charges.transitionCreation(db, id, ['creating'], 'rejected', {
    creation_locked_until: null,
    provider_error: JSON.stringify({
      code: error.providerCode,
      httpStatus: error.providerHttpStatus,
      message: error.sanitizedMessage,
    }),
    updated_at: now,
  });
}

export async function markAbandoned(db: Kdb, id: string, now: Date): Promise<void> {
  await charges.transitionCreation(db, id, ['creating'], 'abandoned', {
    creation_locked_until: null,
    updated_at: now,
  });
}
