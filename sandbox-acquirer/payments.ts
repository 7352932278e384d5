import type { Logger } from 'pino';
import type { Clock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { newPaymentReferenceCode, sandboxIban, SANDBOX_ACCOUNT_HOLDER } from './bank.js';
import { cardDispute, cardOutcome, DECLINE_MESSAGES, type CardDispute } from './cards.js';
import { AcquirerError, invalidState, notFound, paymentNotFound } from './errors.js';
import { randomId } from './ids.js';
import type {
  AttemptResult,
  CardSummary,
  Challenge,
  Failure,
  NotificationType,
  Payment,
  Refund,
  StoredPayment,
} from './model.js';
import type { AcquirerStore } from './store.js';
import type { CardAttemptInput, CreatePaymentInput } from './validation.js';

/** The one-time code that passes a sandbox 3-D Secure challenge. */
export const CHALLENGE_CODE = '123456';

export interface PaymentServiceDeps {
  store: AcquirerStore;
  clock: Clock;
  logger: Logger;
  /** The URL of a challenge page, from where the acquirer is reachable now. */
  challengeUrl: (challengeId: string) => string;
  notify: (type: NotificationType, payment: Payment, refund: Refund | null) => void;
  /** What disputes learn of payments; absent, payments have no disputes. */
  disputes?: PaymentDisputeHooks;
}

/** How payments and disputes meet (implemented by DisputeService). */
export interface PaymentDisputeHooks {
  /** A dispute test card's payment succeeded: its dispute is raised after the delay. */
  cardSucceeded(payment: StoredPayment, dispute: CardDispute): void;
  /** Before a refund: the amount of the payment that its disputes hold (withdrawn, not reinstated). */
  heldAmount(paymentId: string): number;
  /** After a refund: it may resolve a pre-dispute alert. */
  refunded(payment: StoredPayment): void;
}

/** An answer that may replay an earlier one: 201 when created now, 200 when replayed. */
export interface Created<T> {
  created: boolean;
  value: T;
}

export interface ChallengeCompletion {
  payment: Payment;
  succeeded: boolean;
  returnUrl: string;
}

const AUTHENTICATION_FAILED: Failure = {
  code: 'authentication_failed',
  message: 'The cardholder did not pass 3-D Secure authentication.',
};

/**
 * What the acquirer does with payments. Every method is synchronous: between reading the state and
 * writing it nothing else runs, which is what makes idempotency keys and state checks race-free.
 */
export class PaymentService {
  constructor(private readonly deps: PaymentServiceDeps) {}

  /** The protocol's view of a stored payment. */
  view(payment: StoredPayment): Payment {
    const { challengeId, ...rest } = payment;
    return {
      id: rest.id,
      reference: rest.reference,
      amount: rest.amount,
      currency: rest.currency,
      method: rest.method,
      status: rest.status,
      description: rest.description,
      notificationUrl: rest.notificationUrl,
      card: rest.card,
      bankTransfer: rest.bankTransfer,
      challenge: challengeId === null ? null : { id: challengeId, url: this.deps.challengeUrl(challengeId) },
      failure: rest.failure,
      attempts: rest.attempts,
      maxAttempts: rest.maxAttempts,
      refundedAmount: rest.refundedAmount,
      refunds: rest.refunds,
      createdAt: rest.createdAt,
      updatedAt: rest.updatedAt,
    };
  }

  get(id: string): StoredPayment {
    const payment = this.deps.store.payment(id);
    if (!payment) throw paymentNotFound();
    return payment;
  }

  findByReference(reference: string): StoredPayment[] {
    return this.deps.store.paymentsByReference(reference);
  }

  /** Creates a payment, or answers the one this key created when the body is the same. */
  create(input: CreatePaymentInput, idempotencyKey: string, fingerprint: string): Created<StoredPayment> {
    const { store } = this.deps;
    const seen = store.idempotencyRecord('create_payment', idempotencyKey);
    if (seen) {
      const earlier = this.get(seen.resourceId);
      if (seen.fingerprint !== fingerprint) throw idempotencyConflict(earlier);
      return { created: false, value: earlier };
    }
    const now = this.deps.clock.now();
    const id = newId('pay', now);
    const payment: StoredPayment = {
      id,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      method: input.method,
      status: 'awaiting_payment',
      description: input.description,
      notificationUrl: input.notificationUrl,
      card: null,
      bankTransfer: input.method === 'bank_transfer' ? bankTransferFor(id) : null,
      challengeId: null,
      failure: null,
      attempts: 0,
      maxAttempts: input.maxAttempts,
      refundedAmount: '0',
      refunds: [],
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    store.savePayment(payment);
    store.saveIdempotency({
      scope: 'create_payment',
      key: idempotencyKey,
      fingerprint,
      resourceId: id,
      createdAt: now.toISOString(),
    });
    this.deps.logger.info({ paymentId: id, method: payment.method }, 'payment created');
    return { created: true, value: payment };
  }

  /** A card attempt. The number decides the outcome and goes no further than this call. */
  authorize(id: string, attempt: CardAttemptInput): { payment: StoredPayment; attempt: AttemptResult } {
    const payment = this.get(id);
    if (payment.method !== 'card')
      throw invalidState(payment.status, 'Only card payments take card attempts.');
    if (payment.status !== 'awaiting_payment') {
      throw invalidState(payment.status, `The payment is ${payment.status}: it takes no card attempt now.`);
    }
    const outcome = cardOutcome(attempt.number, attempt.threeDSecure);
    switch (outcome.kind) {
      case 'succeeded': {
        const after = this.succeed(payment, attempt.card);
        const dispute = cardDispute(attempt.number);
        if (dispute) this.deps.disputes?.cardSucceeded(after, dispute);
        return { payment: after, attempt: { outcome: 'succeeded', failure: null } };
      }
      case 'challenge':
        return {
          payment: this.openChallenge(payment, attempt, outcome.alwaysFails),
          attempt: { outcome: 'challenge', failure: null },
        };
      case 'declined': {
        const failure = { code: outcome.code, message: DECLINE_MESSAGES[outcome.code] };
        return {
          payment: this.decline(payment, failure, attempt.card),
          attempt: { outcome: 'declined', failure },
        };
      }
    }
  }

  /** The challenge of a page, while it can still be answered. */
  openChallengeOf(challengeId: string): { challenge: Challenge; payment: StoredPayment } {
    const challenge = this.deps.store.challenge(challengeId);
    if (!challenge) throw notFound('No 3-D Secure challenge has this id.');
    const payment = this.get(challenge.paymentId);
    if (
      challenge.state !== 'open' ||
      payment.status !== 'requires_action' ||
      payment.challengeId !== challengeId
    ) {
      throw invalidState(payment.status, 'This 3-D Secure challenge is already completed.');
    }
    return { challenge, payment };
  }

  /** Answers a challenge by its id (the page's form). */
  completeChallenge(challengeId: string, code: string): ChallengeCompletion {
    const { challenge, payment } = this.openChallengeOf(challengeId);
    const succeeded = code === CHALLENGE_CODE && !challenge.alwaysFails;
    const now = this.deps.clock.now().toISOString();
    this.deps.store.saveChallenge({
      ...challenge,
      state: succeeded ? 'succeeded' : 'failed',
      updatedAt: now,
    });
    const cleared = { ...payment, challengeId: null };
    const after = succeeded
      ? this.succeed(cleared, challenge.card)
      : this.decline(cleared, AUTHENTICATION_FAILED, challenge.card);
    if (succeeded && challenge.raises) this.deps.disputes?.cardSucceeded(after, challenge.raises);
    return { payment: this.view(after), succeeded, returnUrl: challenge.returnUrl };
  }

  /** Answers the open challenge of a payment (the API form). */
  completeChallengeOfPayment(id: string, code: string): ChallengeCompletion {
    const payment = this.get(id);
    if (payment.status !== 'requires_action' || payment.challengeId === null) {
      throw invalidState(
        payment.status,
        `The payment is ${payment.status}: it has no open 3-D Secure challenge.`,
      );
    }
    return this.completeChallenge(payment.challengeId, code);
  }

  /** The customer's bank transfer arrives, with `amount` or the payment's amount. */
  simulateTransfer(id: string, amount: string | null): StoredPayment {
    const payment = this.get(id);
    if (payment.method !== 'bank_transfer') {
      throw invalidState(payment.status, 'Only bank-transfer payments receive transfers.');
    }
    if (payment.status !== 'awaiting_payment') {
      throw invalidState(payment.status, `The payment is ${payment.status}: it awaits no transfer.`);
    }
    const received = amount ?? payment.amount;
    if (received === payment.amount) return this.succeed(payment, null);
    const failure = {
      code: 'amount_mismatch',
      message: `The transfer was ${received} minor units; the payment expects ${payment.amount}.`,
    };
    return this.settle(payment, { status: 'failed', failure }, 'payment.failed');
  }

  /** Cancels a payment that is not paid yet; canceling again changes nothing. */
  cancel(id: string): StoredPayment {
    const payment = this.get(id);
    if (payment.status === 'canceled') return payment;
    if (payment.status !== 'awaiting_payment' && payment.status !== 'requires_action') {
      throw invalidState(payment.status, `The payment is ${payment.status}: it can no longer be canceled.`);
    }
    if (payment.challengeId !== null) this.closeChallenge(payment.challengeId);
    return this.settle(payment, { status: 'canceled', challengeId: null }, 'payment.canceled');
  }

  /** Refunds part or all of what remains of a succeeded payment. */
  refund(id: string, amount: string, idempotencyKey: string, fingerprint: string): Created<Refund> {
    const { store } = this.deps;
    const seen = store.idempotencyRecord('refund', idempotencyKey);
    if (seen) {
      const earlier = store.refund(seen.resourceId);
      if (!earlier) throw new AcquirerError(500, 'internal_error', 'The refund of this key is missing.');
      if (seen.fingerprint !== fingerprint) throw idempotencyConflict(store.payment(earlier.paymentId));
      return { created: false, value: earlier };
    }
    const payment = this.get(id);
    if (payment.status !== 'succeeded' && payment.status !== 'partially_refunded') {
      throw invalidState(
        payment.status,
        `The payment is ${payment.status}: only a succeeded payment is refunded.`,
      );
    }
    const remaining = Number(payment.amount) - Number(payment.refundedAmount);
    if (Number(amount) > remaining) {
      throw new AcquirerError(
        400,
        'refund_exceeds_payment',
        `The refund is more than what remains of the payment (${remaining} minor units).`,
        payment.status,
      );
    }
    const held = this.deps.disputes?.heldAmount(id) ?? 0;
    if (held > 0 && Number(amount) > remaining - held) {
      throw new AcquirerError(
        409,
        'payment_disputed',
        `Disputes hold ${held} minor units of the payment: at most ${Math.max(0, remaining - held)} can be refunded.`,
        payment.status,
      );
    }
    const now = this.deps.clock.now().toISOString();
    const refund: Refund = { id: randomId('rf'), paymentId: id, amount, status: 'succeeded', createdAt: now };
    const refundedAmount = String(Number(payment.refundedAmount) + Number(amount));
    const after: StoredPayment = {
      ...payment,
      refundedAmount,
      refunds: [...payment.refunds, refund],
      status: refundedAmount === payment.amount ? 'refunded' : 'partially_refunded',
      updatedAt: now,
    };
    store.saveRefund(refund);
    store.savePayment(after);
    store.saveIdempotency({
      scope: 'refund',
      key: idempotencyKey,
      fingerprint,
      resourceId: refund.id,
      createdAt: now,
    });
    this.deps.logger.info({ paymentId: id, refundId: refund.id, status: after.status }, 'payment refunded');
    this.deps.notify('refund.succeeded', this.view(after), refund);
    this.deps.disputes?.refunded(after);
    return { created: true, value: refund };
  }

  private succeed(payment: StoredPayment, card: CardSummary | null): StoredPayment {
    return this.settle(
      payment,
      { status: 'succeeded', card: card ?? payment.card, succeededAt: this.deps.clock.now().toISOString() },
      'payment.succeeded',
    );
  }

  private openChallenge(
    payment: StoredPayment,
    attempt: CardAttemptInput,
    alwaysFails: boolean,
  ): StoredPayment {
    const now = this.deps.clock.now().toISOString();
    const challenge: Challenge = {
      id: randomId('3ds'),
      paymentId: payment.id,
      returnUrl: attempt.returnUrl,
      alwaysFails,
      card: attempt.card,
      // A dispute card challenged because 3-D Secure was required still raises its case once paid.
      raises: cardDispute(attempt.number),
      state: 'open',
      createdAt: now,
      updatedAt: now,
    };
    this.deps.store.saveChallenge(challenge);
    return this.settle(
      payment,
      { status: 'requires_action', card: attempt.card, challengeId: challenge.id },
      null,
    );
  }

  /** A declined attempt: the payment fails at its maxAttempts-th decline, else awaits another card. */
  private decline(payment: StoredPayment, failure: Failure, card: CardSummary): StoredPayment {
    const attempts = payment.attempts + 1;
    const failed = attempts >= payment.maxAttempts;
    return this.settle(
      payment,
      { status: failed ? 'failed' : 'awaiting_payment', card, failure, attempts },
      failed ? 'payment.failed' : null,
    );
  }

  private closeChallenge(challengeId: string): void {
    const challenge = this.deps.store.challenge(challengeId);
    if (!challenge || challenge.state !== 'open') return;
    const now = this.deps.clock.now().toISOString();
    this.deps.store.saveChallenge({ ...challenge, state: 'closed', updatedAt: now });
  }

  /** Saves a change of a payment and sends its notification, if it has one. */
  private settle(
    payment: StoredPayment,
    change: Partial<StoredPayment>,
    notification: NotificationType | null,
  ): StoredPayment {
    const after: StoredPayment = { ...payment, ...change, updatedAt: this.deps.clock.now().toISOString() };
    this.deps.store.savePayment(after);
    this.deps.logger.info(
      { paymentId: after.id, status: after.status, attempts: after.attempts },
      'payment updated',
    );
    if (notification) this.deps.notify(notification, this.view(after), null);
    return after;
  }
}

function bankTransferFor(paymentId: string) {
  return {
    iban: sandboxIban(paymentId),
    accountHolder: SANDBOX_ACCOUNT_HOLDER,
    paymentReference: newPaymentReferenceCode(),
  };
}

function idempotencyConflict(payment: StoredPayment | undefined): AcquirerError {
  return new AcquirerError(
    409,
    'idempotency_conflict',
    'This Idempotency-Key was already used with a different body.',
    payment?.status ?? null,
  );
}
