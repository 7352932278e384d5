import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import { HOUR, MINUTE } from '../../shared/clock.js';
import type { BatchReport, RetryPolicy } from '../../worker/queue.js';
import type { AcquirerPayment } from '../acquirer/types.js';
import { applyLocked, lockAndApply, sync, type ApplyOutcome } from './apply-payment.js';
import {
  endStaleCardAttempt,
  finishCardAttempt,
  takeCardAttempt,
  type CardAttemptOutcome,
} from './card-attempts.js';
import type { ChargeCompletionDeps } from './deps.js';
import { workDueBatch } from '../../worker/due-batch.js';
import { expireClaimed } from './expiry.js';
import type { ChargeRow } from './model.js';
import * as charges from './repository/charges.js';

/**
 * The charge state machine (product decisions 13 and 20): `pending` -> `succeeded` | `failed` |
 * `expired`, moved only by what the acquirer says about the payment, whoever brings the news (the
 * checkout's own call, a notification, a read-back or the expiry job). A final status never changes; a
 * late or out-of-order report never moves `providerStatus` backwards. Reaching `succeeded` writes the
 * ledger entry and the `charge.succeeded` event in the same transaction.
 */
export interface ChargeCompletionService {
  /** The visible charge behind an acquirer payment id (the checkout's `/c/<paymentId>`). */
  findByPaymentId(paymentId: string): Promise<ChargeRow | undefined>;
  /** Applies a payment state the acquirer reported, in one transaction under the charge's row lock. */
  apply(chargeId: string, payment: AcquirerPayment): Promise<ApplyOutcome>;
  /** The same, inside the caller's transaction, with the charge row already locked. */
  applyLocked(trx: Trx, charge: ChargeRow, payment: AcquirerPayment): Promise<ApplyOutcome>;
  /** Reads the payment back from the acquirer and applies it. */
  sync(chargeId: string): Promise<ApplyOutcome>;
  /**
   * Counts and claims one card attempt of a pending charge, committed before the card goes to the
   * acquirer: its number, or undefined when its attempts are used up or another attempt is in flight
   * (its claim has not run out). Only the holder of a claim sends a card (ADR 0065).
   */
  takeCardAttempt(chargeId: string): Promise<number | undefined>;
  /**
   * Attempt `number` is over, in one transaction under the charge's row lock: what the acquirer
   * answered to it (the charge page's timeline: the outcome, the decline's code, the card's brand and
   * last four; `error` when the acquirer could not be asked), the payment it reported applied when there
   * is one, and the attempt's claim ended, so that the next card is taken only once this one's outcome
   * is on the charge.
   */
  finishCardAttempt(
    chargeId: string,
    number: number,
    attempt: CardAttemptOutcome,
    payment: AcquirerPayment | null,
  ): Promise<ChargeRow>;
  /** Ends the claim of attempt `number` if its lease has run out (one a crashed process left). */
  endStaleCardAttempt(chargeId: string, number: number): Promise<void>;
  /** Cancels unpaid charges past `expiresAt` at the acquirer and applies the answer; returns how many. */
  expireDue(limit?: number): Promise<number>;
  /** One batch of the expiry job: claims due charges, and reports what became of them. */
  expireDueBatch(limit?: number): Promise<BatchReport>;
}

/** Charge expiry's backoff: a charge the acquirer cannot cancel for about 8 hours is parked. */
export const EXPIRY_RETRY: RetryPolicy = { baseMs: MINUTE, capMs: HOUR, maxAttempts: 12, jitter: 0.2 };

export function createChargeCompletionService(deps: ChargeCompletionDeps): ChargeCompletionService {
  // Claimed in due order with SKIP LOCKED and leased while the acquirer is asked: a charge that keeps
  // failing backs off and finally parks instead of holding the head of the queue, and two workers never
  // cancel the same charge at once.
  const expiry = deps.jobs.queue({
    job: 'charge-expiry',
    table: 'charges',
    prefix: 'expiry_',
    eligible: sql`status = 'pending' and creation_state = 'created'`,
    firstDueAt: sql`expires_at`,
    leaseMs: 5 * MINUTE,
    retry: EXPIRY_RETRY,
  });

  const expireDueBatch = (limit = 50) =>
    workDueBatch(expiry, limit, (claimed) => expireClaimed(deps, expiry, claimed));

  return {
    findByPaymentId: (paymentId) => charges.findByPaymentId(deps.db, paymentId),
    apply: (chargeId, payment) => lockAndApply(deps, chargeId, payment),
    applyLocked: (trx, charge, payment) => applyLocked(deps, trx, charge, payment),
    sync: (chargeId) => sync(deps, chargeId),
    takeCardAttempt: (chargeId) => takeCardAttempt(deps, chargeId),
    finishCardAttempt: (chargeId, number, attempt, payment) =>
      finishCardAttempt(deps, chargeId, number, attempt, payment),
    endStaleCardAttempt: (chargeId, number) => endStaleCardAttempt(deps, chargeId, number),
    async expireDue(limit) {
      return (await expireDueBatch(limit)).done;
    },
    expireDueBatch,
  };
}
