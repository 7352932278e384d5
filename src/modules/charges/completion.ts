import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { HOUR, MINUTE, type Clock } from '../../shared/clock.js';
import type { JobKit } from '../../worker/kit.js';
import type { BatchReport, Claimed, RetryPolicy } from '../../worker/queue.js';
import {
  AcquirerRejectedError,
  type Acquirer,
  type AcquirerPayment,
  type ProviderStatus,
} from '../acquirer/types.js';
import { sanitizeProviderMessage } from '../acquirer/sanitize.js';
import type { EventRecorder } from '../events/service.js';
import type { ChargeRow, ChargeStatus } from './model.js';
import * as charges from './repository.js';
import { chargeView } from './service.js';

/** What the state machine needs of the ledger (src/modules/ledger): the entry of a succeeded charge. */
export interface ChargeLedger {
  postChargeSucceeded(
    trx: Trx,
    charge: {
      id: string;
      organizationId: string;
      environment: Environment;
      amount: string;
      paymentMethod: ChargeRow['payment_method'];
      /** Recorded on the entry for the settlement item (the charge's own, as created). */
      merchantReference: string | null;
    },
  ): Promise<{ gross: string; fee: string; net: string; created: boolean }>;
}

export interface PaymentCompletionDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  ledger: ChargeLedger;
  events: EventRecorder;
  checkoutUrl: () => string;
  /** Card attempts a charge allows (the checkout counts them; the acquirer fails the payment at this many). */
  cardAttempts: number;
  /**
   * How long a claimed card attempt holds the charge (ADR 0065): longer than the acquirer's authorize call
   * can take, so that only a claim a crashed process left runs out.
   */
  cardClaimLeaseMs: number;
  jobs: JobKit;
}

export interface ApplyOutcome {
  charge: ChargeRow;
  /** The charge reached a final status in this call (and its ledger entry and event were written). */
  transitioned: boolean;
}

/**
 * The charge state machine (product decisions 13 and 20): `pending` -> `succeeded` | `failed` |
 * `expired`, moved only by what the acquirer says about the payment, whoever brings the news (the
 * checkout's own call, a notification, a read-back or the expiry job). A final status never changes; a
 * late or out-of-order report never moves `providerStatus` backwards. Reaching `succeeded` writes the
 * ledger entry and the `charge.succeeded` event in the same transaction.
 */
export interface PaymentCompletion {
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
    attempt: {
      outcome: 'succeeded' | 'declined' | 'challenge' | 'error';
      failureCode: string | null;
      card: { brand: string | null; last4: string } | null;
    },
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

/** How far a payment has come at the acquirer; a report of an earlier stage is stale. */
const PROVIDER_RANK: Record<ProviderStatus, number> = {
  awaiting_payment: 0,
  requires_action: 1,
  failed: 2,
  canceled: 2,
  succeeded: 2,
  partially_refunded: 3,
  refunded: 4,
};

const CHARGE_STATUS: Record<ProviderStatus, ChargeStatus> = {
  awaiting_payment: 'pending',
  requires_action: 'pending',
  succeeded: 'succeeded',
  partially_refunded: 'succeeded',
  refunded: 'succeeded',
  failed: 'failed',
  // Only the expiry job cancels a payment.
  canceled: 'expired',
};

/**
 * What of an acquirer payment disagrees with the charge it claims to be (empty when nothing does): its
 * id, its reference (the charge id), its amount (the same decimal string of minor units) or currency.
 */
export function paymentDifferences(
  charge: Pick<ChargeRow, 'id' | 'provider_payment_id' | 'amount' | 'currency'>,
  payment: Pick<AcquirerPayment, 'id' | 'reference' | 'amount' | 'currency'>,
): Array<'id' | 'reference' | 'amount' | 'currency'> {
  const differences: Array<'id' | 'reference' | 'amount' | 'currency'> = [];
  if (payment.id !== charge.provider_payment_id) differences.push('id');
  if (payment.reference !== charge.id) differences.push('reference');
  if (typeof payment.amount !== 'string' || payment.amount !== charge.amount) differences.push('amount');
  if (payment.currency !== charge.currency) differences.push('currency');
  return differences;
}

/** Whether applying this reported state would credit money: a pending charge would become `succeeded`. */
export function wouldCredit(charge: Pick<ChargeRow, 'status'>, reported: ProviderStatus): boolean {
  return charge.status === 'pending' && CHARGE_STATUS[reported] === 'succeeded';
}

/**
 * Whether a report moves `providerStatus`: anything may follow a stage before the outcome (a failed 3-D
 * Secure challenge goes back to `awaiting_payment`); after an outcome only a later stage may (refunds).
 */
function isNewer(known: ProviderStatus | null, reported: ProviderStatus): boolean {
  if (known === null || PROVIDER_RANK[known] < PROVIDER_RANK.succeeded) return true;
  return PROVIDER_RANK[reported] > PROVIDER_RANK[known];
}

const EVENT_OF = {
  succeeded: 'charge.succeeded',
  failed: 'charge.failed',
  expired: 'charge.expired',
} as const;

export function createPaymentCompletion(deps: PaymentCompletionDeps): PaymentCompletion {
  const { db, clock, logger } = deps;

  async function applyLocked(trx: Trx, charge: ChargeRow, payment: AcquirerPayment): Promise<ApplyOutcome> {
    const differences = paymentDifferences(charge, payment);
    if (differences.length > 0) {
      // Whoever brings the report, money never moves on a payment that is not this charge's.
      throw new Error(`payment ${payment.id} does not match charge ${charge.id}: ${differences.join(', ')}`);
    }
    const known = charge.provider_status as ProviderStatus | null;
    const reported = payment.status;
    const forward = isNewer(known, reported);
    const target = CHARGE_STATUS[reported];
    const transition = charge.status === 'pending' && target !== 'pending' && forward;
    if (charge.status !== 'pending' && target !== charge.status && target !== 'pending') {
      logger.warn(
        { chargeId: charge.id, status: charge.status, reported },
        'the acquirer reports another final state for a final charge; the charge keeps its status',
      );
    }
    const now = clock.now();
    const patch: charges.ChargePatch = {
      provider_status: forward ? reported : known,
      ...(payment.card ? { card_brand: payment.card.brand, card_last4: payment.card.last4 } : {}),
      // The last decline while the charge is payable, or the reason it failed; a success clears it
      // (the acquirer keeps reporting the earlier decline of a payment that later succeeded). The message
      // is the acquirer's own text, shown to the merchant: sanitised as its 4xx answers are (spec section 7).
      ...(payment.failure && target !== 'succeeded' && (transition || charge.status === 'pending')
        ? {
            failure_code: payment.failure.code,
            failure_message: sanitizeProviderMessage(payment.failure.message),
          }
        : {}),
      ...(transition && target === 'succeeded' ? { failure_code: null, failure_message: null } : {}),
      ...(payment.bankTransfer && charge.bank_transfer === null
        ? { bank_transfer: JSON.stringify(payment.bankTransfer) }
        : {}),
      ...(transition ? { finalized_at: now } : {}),
      updated_at: now,
    };
    const updated = transition
      ? await charges.transition(trx, charge.id, ['pending'], target, patch)
      : await charges.update(trx, charge.id, patch);
    // The row is locked and was pending: a transition that finds it elsewhere is a bug.
    if (!updated) throw new Error(`charge ${charge.id} left pending under its row lock`);
    if (!transition) return { charge: updated, transitioned: false };

    if (target === 'succeeded') {
      await deps.ledger.postChargeSucceeded(trx, {
        id: updated.id,
        organizationId: updated.organization_id,
        environment: updated.environment,
        amount: updated.amount,
        paymentMethod: updated.payment_method,
        merchantReference: updated.merchant_reference,
      });
    }
    await deps.events.record(trx, {
      organizationId: updated.organization_id,
      environment: updated.environment,
      type: EVENT_OF[target as keyof typeof EVENT_OF],
      resourceId: updated.id,
      data: chargeView(updated, deps.checkoutUrl()),
      payment: {
        id: updated.id,
        paymentId: updated.provider_payment_id ?? '',
        merchantReference: updated.merchant_reference,
      },
    });
    logger.info(
      { chargeId: updated.id, status: target, providerStatus: reported },
      'charge reached a final status',
    );
    return { charge: updated, transitioned: true };
  }

  async function lockAndApply(chargeId: string, payment: AcquirerPayment): Promise<ApplyOutcome> {
    return db
      .transaction()
      .execute(async (trx) => applyLocked(trx, await charges.lockById(trx, chargeId), payment));
  }

  async function sync(chargeId: string): Promise<ApplyOutcome> {
    const charge = await charges.findById(db, chargeId);
    if (!charge) throw new Error(`no charge ${chargeId}`);
    const acquirer = deps.acquirerFor(charge.environment);
    if (!acquirer || charge.provider_payment_id === null) return { charge, transitioned: false };
    return lockAndApply(chargeId, await acquirer.getPayment(charge.provider_payment_id));
  }

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

  /** Cancels one claimed charge at the acquirer, then applies the answer and ends the claim together. */
  async function expireOne(claimed: Claimed): Promise<'expired' | 'final' | 'failed'> {
    const charge = await charges.findById(db, claimed.id);
    if (!charge) throw new Error(`charge ${claimed.id} is gone`);
    try {
      const acquirer = deps.acquirerFor(charge.environment);
      if (!acquirer || charge.provider_payment_id === null) {
        throw new Error(`no acquirer payment to cancel (${charge.environment})`);
      }
      let payment: AcquirerPayment;
      try {
        // Cancel first: a payment the customer completed a moment ago succeeds instead of expiring.
        payment = await acquirer.cancel(charge.provider_payment_id);
      } catch (error) {
        // A "not now" 4xx says nothing of the payment: the expiry is tried again later.
        if (!(error instanceof AcquirerRejectedError) || error.transient) throw error;
        // Already final at the acquirer (paid or failed): take its word for it.
        payment = await acquirer.getPayment(charge.provider_payment_id);
      }
      const outcome = await db.transaction().execute(async (trx) => {
        const locked = await charges.lockById(trx, charge.id);
        const applied = await applyLocked(trx, locked, payment);
        await expiry.succeed(trx, claimed);
        return applied;
      });
      return outcome.charge.status === 'expired' ? 'expired' : 'final';
    } catch (error) {
      logger.warn({ err: error, chargeId: charge.id }, 'expiry deferred: the acquirer could not cancel');
      await db.transaction().execute((trx) => expiry.fail(trx, claimed, error));
      return 'failed';
    }
  }

  async function expireDueBatch(limit = 50): Promise<BatchReport> {
    const claimed = await expiry.claim(limit);
    const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
    for (const charge of claimed) {
      const outcome = await expireOne(charge);
      if (outcome === 'expired') report.done++;
      if (outcome === 'failed') report.failed++;
    }
    return report;
  }

  return {
    async findByPaymentId(paymentId) {
      return charges.findByPaymentId(db, paymentId);
    },

    apply: lockAndApply,
    applyLocked,
    sync,

    async takeCardAttempt(chargeId) {
      const now = clock.now();
      return charges.takeCardAttempt(db, chargeId, {
        maxAttempts: deps.cardAttempts,
        now,
        claimedUntil: new Date(now.getTime() + deps.cardClaimLeaseMs),
      });
    },

    async finishCardAttempt(chargeId, number, attempt, payment) {
      const last4 =
        attempt.card !== null && /^[0-9]{4}$/.test(attempt.card.last4) ? attempt.card.last4 : null;
      return db.transaction().execute(async (trx) => {
        let charge = await charges.lockById(trx, chargeId);
        await charges.recordCardAttempt(trx, {
          charge_id: chargeId,
          number,
          outcome: attempt.outcome,
          failure_code: attempt.failureCode,
          card_brand: last4 === null ? null : (attempt.card?.brand ?? null),
          card_last4: last4,
          attempted_at: clock.now(),
        });
        if (payment !== null) charge = (await applyLocked(trx, charge, payment)).charge;
        return (await charges.endCardAttemptClaim(trx, chargeId, number)) ?? charge;
      });
    },

    async endStaleCardAttempt(chargeId, number) {
      await charges.endCardAttemptClaim(db, chargeId, number, clock.now());
    },

    async expireDue(limit = 50) {
      return (await expireDueBatch(limit)).done;
    },

    expireDueBatch,
  };
}
