import type { Logger } from 'pino';
import type { BankTransferInstructions, ChargeStatus, Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerPayment,
} from '../acquirer/types.js';
import type { PaymentCompletion } from '../charges/completion.js';
import type { ChargeRow } from '../charges/service.js';
import { checkCard, type CardField, type CardForm, type CardIssue } from './card.js';

export interface CheckoutServiceDeps {
  /** The charge state machine: the only way a charge's status moves. */
  completion: PaymentCompletion;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  clock: Clock;
  logger: Logger;
  /** Card attempts a charge allows (CHECKOUT_CARD_ATTEMPTS): the card-testing limit. */
  cardAttempts: number;
  /** The status endpoint reads a pending payment back from the acquirer at most this often per charge. */
  statusSyncIntervalMs: number;
}

export interface Failure {
  code: string | null;
  message: string | null;
}

export type CardPage = {
  kind: 'card';
  charge: ChargeRow;
  attemptsLeft: number;
  /** The latest declined attempt, shown above the form. */
  lastDecline: Failure | null;
};
export type BankTransferPage = {
  kind: 'bank_transfer';
  charge: ChargeRow;
  /** Null when the acquirer could not be asked for them just now. */
  instructions: BankTransferInstructions | null;
  /** The sandbox shows a control that makes the sandbox acquirer receive the transfer. */
  sandbox: boolean;
};

/** What `/c/<paymentId>` shows, from the charge's state (and, for an open 3-D Secure step, the acquirer's). */
export type CheckoutPage =
  | { kind: 'not_found' }
  | CardPage
  | BankTransferPage
  | { kind: 'challenge'; charge: ChargeRow; url: string }
  | { kind: 'attempts_exhausted'; charge: ChargeRow }
  /** A card attempt is at the acquirer (another tab's, or a double submission): its outcome comes next. */
  | { kind: 'in_progress'; charge: ChargeRow }
  | { kind: 'succeeded' | 'failed' | 'expired'; charge: ChargeRow }
  | { kind: 'unavailable'; charge: ChargeRow };

export type AcquirerProblem = 'rejected' | 'unavailable';

export type CardPaymentResult =
  /** Whatever happened (paid, challenge opened, declined, not payable now), the charge's page says it. */
  | { outcome: 'show_page' }
  | { outcome: 'not_found' }
  | {
      outcome: 'invalid';
      page: CardPage;
      issues: Partial<Record<CardField, CardIssue>>;
      keep: { holderName: string; expiry: string };
    }
  | { outcome: 'acquirer_error'; page: CardPage; problem: AcquirerProblem };

export type TransferResult =
  | { outcome: 'show_page' }
  | { outcome: 'not_found' }
  | { outcome: 'acquirer_error'; page: BankTransferPage; problem: AcquirerProblem };

export interface CheckoutService {
  page(paymentId: string): Promise<CheckoutPage>;
  /**
   * Checks the card, claims the attempt and forwards the card to the acquirer; the card is never kept.
   * While another attempt of the charge is at the acquirer, nothing is sent: the page says it is in
   * progress.
   */
  payByCard(paymentId: string, form: CardForm, returnUrl: string): Promise<CardPaymentResult>;
  /** The customer's browser is back from the 3-D Secure page: reads the payment back. */
  returned(paymentId: string): Promise<'found' | 'not_found'>;
  status(paymentId: string): Promise<{ status: ChargeStatus; providerStatus: string | null } | undefined>;
  /** Sandbox only: the sandbox acquirer receives the transfer. */
  simulateTransfer(paymentId: string): Promise<TransferResult>;
}

const CARD_METHODS: ReadonlySet<ChargeRow['payment_method']> = new Set([
  'credit_card_tr',
  'credit_card_international',
]);

/** Entries of the status throttle kept at most; older ones are dropped first. */
const STATUS_THROTTLE_ENTRIES = 10_000;

export function createCheckoutService(deps: CheckoutServiceDeps): CheckoutService {
  const { completion, clock, logger } = deps;
  const lastStatusSync = new Map<string, number>();

  /** A pending charge past `expiresAt` is expired for the customer even before the expiry job cancels it. */
  const effectiveStatus = (charge: ChargeRow): ChargeStatus =>
    charge.status === 'pending' && charge.expires_at.getTime() <= clock.now().getTime()
      ? 'expired'
      : charge.status;

  const isAcquirerProblem = (error: unknown): error is AcquirerRejectedError | AcquirerUnavailableError =>
    error instanceof AcquirerRejectedError || error instanceof AcquirerUnavailableError;

  // A "not now" 4xx (408, 425, 429) refused nothing: the customer is told to try again, as after an outage.
  const problemOf = (error: AcquirerRejectedError | AcquirerUnavailableError): AcquirerProblem =>
    error instanceof AcquirerRejectedError && !error.transient ? 'rejected' : 'unavailable';

  const logProblem = (
    error: AcquirerRejectedError | AcquirerUnavailableError,
    chargeId: string,
    step: string,
  ) =>
    logger.warn(
      error instanceof AcquirerRejectedError
        ? { chargeId, step, providerCode: error.providerCode, providerHttpStatus: error.providerHttpStatus }
        : { chargeId, step, problem: error.message },
      'checkout: the acquirer did not complete the step',
    );

  /** Reads the payment back and applies it; a failure leaves the charge as it is (logged). */
  async function syncQuietly(charge: ChargeRow, step: string): Promise<ChargeRow> {
    try {
      return (await completion.sync(charge.id)).charge;
    } catch (error) {
      if (!isAcquirerProblem(error)) throw error;
      logProblem(error, charge.id, step);
      return charge;
    }
  }

  function cardPage(charge: ChargeRow): CardPage {
    const declined = charge.card_attempts > 0 && charge.failure_code !== null;
    return {
      kind: 'card',
      charge,
      attemptsLeft: Math.max(0, deps.cardAttempts - charge.card_attempts),
      lastDecline: declined ? { code: charge.failure_code, message: charge.failure_message } : null,
    };
  }

  /**
   * A charge whose payment was last seen `requires_action`: the acquirer says whether the challenge is
   * still open (then the customer continues to it) or was answered (then its outcome is applied).
   */
  async function openChallenge(
    charge: ChargeRow,
  ): Promise<{ url: string; charge: ChargeRow } | { url: null; charge: ChargeRow } | 'unavailable'> {
    const acquirer = deps.acquirerFor(charge.environment);
    if (!acquirer || charge.provider_payment_id === null) return 'unavailable';
    let payment: AcquirerPayment;
    try {
      payment = await acquirer.getPayment(charge.provider_payment_id);
    } catch (error) {
      if (!isAcquirerProblem(error)) throw error;
      logProblem(error, charge.id, 'challenge');
      return 'unavailable';
    }
    const { charge: updated } = await completion.apply(charge.id, payment);
    const url = payment.status === 'requires_action' ? payment.challenge?.url : undefined;
    return url !== undefined && isHttpUrl(url) ? { url, charge: updated } : { url: null, charge: updated };
  }

  async function pageFor(charge: ChargeRow): Promise<CheckoutPage> {
    const status = effectiveStatus(charge);
    if (status !== 'pending') return { kind: status, charge };

    if (CARD_METHODS.has(charge.payment_method)) {
      const claimedUntil = charge.card_attempt_claimed_until;
      if (claimedUntil !== null) {
        if (claimedUntil.getTime() > clock.now().getTime()) return { kind: 'in_progress', charge };
        // A claim a crashed process left: its card may have reached the acquirer (paid, declined, or a
        // challenge opened), so the payment is read back before another card may be taken, and the
        // claim stays while the acquirer cannot say.
        try {
          charge = (await completion.sync(charge.id)).charge;
        } catch (error) {
          if (!isAcquirerProblem(error)) throw error;
          logProblem(error, charge.id, 'stale_attempt');
          return { kind: 'unavailable', charge };
        }
        await completion.endStaleCardAttempt(charge.id, charge.card_attempts);
        const now = effectiveStatus(charge);
        if (now !== 'pending') return { kind: now, charge };
      }
      // `providerStatus` never moves back, so it can stay `requires_action` after a failed challenge:
      // the acquirer is asked.
      if (charge.provider_status === 'requires_action') {
        const challenge = await openChallenge(charge);
        if (challenge === 'unavailable') return { kind: 'unavailable', charge };
        if (challenge.url !== null)
          return { kind: 'challenge', charge: challenge.charge, url: challenge.url };
        charge = challenge.charge;
        const now = effectiveStatus(charge);
        if (now !== 'pending') return { kind: now, charge };
      }
      if (charge.card_attempts >= deps.cardAttempts) return { kind: 'attempts_exhausted', charge };
      return cardPage(charge);
    }

    if (charge.bank_transfer === null) {
      charge = await syncQuietly(charge, 'bank_transfer_details');
      const now = effectiveStatus(charge);
      if (now !== 'pending') return { kind: now, charge };
    }
    return bankTransferPage(charge);
  }

  const bankTransferPage = (charge: ChargeRow): BankTransferPage => ({
    kind: 'bank_transfer',
    charge,
    instructions: charge.bank_transfer,
    sandbox: charge.environment === 'sandbox',
  });

  /** Sync throttle of the status endpoint: real time, per process (a bound on acquirer calls, not business time). */
  function statusSyncDue(chargeId: string): boolean {
    const now = performance.now();
    const last = lastStatusSync.get(chargeId);
    if (last !== undefined && now - last < deps.statusSyncIntervalMs) return false;
    lastStatusSync.delete(chargeId);
    lastStatusSync.set(chargeId, now);
    while (lastStatusSync.size > STATUS_THROTTLE_ENTRIES) {
      const oldest = lastStatusSync.keys().next().value;
      if (oldest === undefined) break;
      lastStatusSync.delete(oldest);
    }
    return true;
  }

  return {
    async page(paymentId) {
      const charge = await completion.findByPaymentId(paymentId);
      return charge ? pageFor(charge) : { kind: 'not_found' };
    },

    async payByCard(paymentId, form, returnUrl) {
      const charge = await completion.findByPaymentId(paymentId);
      if (!charge) return { outcome: 'not_found' };
      if (!CARD_METHODS.has(charge.payment_method) || effectiveStatus(charge) !== 'pending') {
        return { outcome: 'show_page' };
      }
      const page = await pageFor(charge);
      // An attempt in flight, an open challenge, used-up attempts or an unreachable acquirer: the page
      // says so.
      if (page.kind !== 'card') return { outcome: 'show_page' };

      const checked = checkCard(form, clock.now());
      if (!checked.ok) return { outcome: 'invalid', page, issues: checked.issues, keep: checked.keep };

      const acquirer = deps.acquirerFor(charge.environment);
      if (!acquirer) return { outcome: 'acquirer_error', page, problem: 'unavailable' };
      // The claim is committed before the card leaves: of simultaneous submissions one gets it, and the
      // others are shown the page, which says the payment is in progress.
      const attemptNumber = await completion.takeCardAttempt(charge.id);
      if (attemptNumber === undefined) return { outcome: 'show_page' };
      // The last four digits the customer typed: the most of a card number the gateway keeps.
      const typedLast4 = checked.card.number.slice(-4);
      let result: Awaited<ReturnType<Acquirer['authorize']>>;
      try {
        result = await acquirer.authorize(paymentId, checked.card, returnUrl);
      } catch (error) {
        // Anything else is a bug: the claim is left to run out, as a crash's would.
        if (!isAcquirerProblem(error)) throw error;
        logProblem(error, charge.id, 'authorize');
        // Read back under the claim: a card that did reach the acquirer is on the charge before the
        // next one may be taken.
        await syncQuietly(charge, 'authorize');
        const finished = await completion.finishCardAttempt(
          charge.id,
          attemptNumber,
          { outcome: 'error', failureCode: null, card: { brand: null, last4: typedLast4 } },
          null,
        );
        // The attempt stays counted: a card tester gains nothing from an upstream failure.
        const after = await pageFor(finished);
        return after.kind === 'card'
          ? { outcome: 'acquirer_error', page: after, problem: problemOf(error) }
          : { outcome: 'show_page' };
      }
      const { attempt, ...payment } = result;
      const applied = await completion.finishCardAttempt(
        charge.id,
        attemptNumber,
        {
          outcome: attempt.outcome,
          failureCode: attempt.failure?.code ?? null,
          card: payment.card
            ? { brand: payment.card.brand, last4: payment.card.last4 }
            : { brand: null, last4: typedLast4 },
        },
        payment,
      );
      logger.info(
        { chargeId: charge.id, outcome: attempt.outcome, status: applied.status },
        'checkout: card attempt',
      );
      return { outcome: 'show_page' };
    },

    async returned(paymentId) {
      const charge = await completion.findByPaymentId(paymentId);
      if (!charge) return 'not_found';
      if (charge.status === 'pending') await syncQuietly(charge, 'return');
      return 'found';
    },

    async status(paymentId) {
      let charge = await completion.findByPaymentId(paymentId);
      if (!charge) return undefined;
      // Notifications move the charge too; the read-back covers a lost or late one.
      if (effectiveStatus(charge) === 'pending' && statusSyncDue(charge.id)) {
        charge = await syncQuietly(charge, 'status');
      }
      return { status: effectiveStatus(charge), providerStatus: charge.provider_status };
    },

    async simulateTransfer(paymentId) {
      const charge = await completion.findByPaymentId(paymentId);
      if (!charge || charge.environment !== 'sandbox' || charge.payment_method !== 'bank_transfer') {
        return { outcome: 'not_found' };
      }
      if (effectiveStatus(charge) !== 'pending') return { outcome: 'show_page' };
      const acquirer = deps.acquirerFor('sandbox');
      if (!acquirer)
        return { outcome: 'acquirer_error', page: bankTransferPage(charge), problem: 'unavailable' };
      try {
        await completion.apply(charge.id, await acquirer.simulateTransfer(paymentId));
      } catch (error) {
        if (!isAcquirerProblem(error)) throw error;
        logProblem(error, charge.id, 'simulate_transfer');
        const after = await syncQuietly(charge, 'simulate_transfer');
        // Refused because it is already paid (or failed): the page shows that.
        if (effectiveStatus(after) !== 'pending') return { outcome: 'show_page' };
        return { outcome: 'acquirer_error', page: bankTransferPage(after), problem: problemOf(error) };
      }
      return { outcome: 'show_page' };
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
