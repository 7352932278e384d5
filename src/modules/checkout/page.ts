import type { BankTransferInstructions, ChargeStatus } from '../../db/schema.js';
import type { AcquirerPayment } from '../acquirer/types.js';
import type { ChargeRow } from '../charges/service.js';
import { isAcquirerProblem, logProblem, syncQuietly } from './acquirer-problems.js';
import type { CheckoutServiceDeps } from './deps.js';

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

export const CARD_METHODS: ReadonlySet<ChargeRow['payment_method']> = new Set([
  'credit_card_tr',
  'credit_card_international',
]);

/** A pending charge past `expiresAt` is expired for the customer even before the expiry job cancels it. */
export const effectiveStatus = (deps: Pick<CheckoutServiceDeps, 'clock'>, charge: ChargeRow): ChargeStatus =>
  charge.status === 'pending' && charge.expires_at.getTime() <= deps.clock.now().getTime()
    ? 'expired'
    : charge.status;

/** What `/c/<paymentId>` shows. */
export async function checkoutPage(deps: CheckoutServiceDeps, paymentId: string): Promise<CheckoutPage> {
  const charge = await deps.completion.findByPaymentId(paymentId);
  return charge ? pageFor(deps, charge) : { kind: 'not_found' };
}

function cardPage(deps: Pick<CheckoutServiceDeps, 'cardAttempts'>, charge: ChargeRow): CardPage {
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
  deps: CheckoutServiceDeps,
  charge: ChargeRow,
): Promise<{ url: string; charge: ChargeRow } | { url: null; charge: ChargeRow } | 'unavailable'> {
  const acquirer = deps.acquirerFor(charge.environment);
  if (!acquirer || charge.provider_payment_id === null) return 'unavailable';
  let payment: AcquirerPayment;
  try {
    payment = await acquirer.getPayment(charge.provider_payment_id);
  } catch (error) {
    if (!isAcquirerProblem(error)) throw error;
    logProblem(deps, error, charge.id, 'challenge');
    return 'unavailable';
  }
  const { charge: updated } = await deps.completion.apply(charge.id, payment);
  const url = payment.status === 'requires_action' ? payment.challenge?.url : undefined;
  return url !== undefined && isHttpUrl(url) ? { url, charge: updated } : { url: null, charge: updated };
}

export async function pageFor(deps: CheckoutServiceDeps, charge: ChargeRow): Promise<CheckoutPage> {
  const { completion, clock } = deps;
  const status = effectiveStatus(deps, charge);
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
        logProblem(deps, error, charge.id, 'stale_attempt');
        return { kind: 'unavailable', charge };
      }
      await completion.endStaleCardAttempt(charge.id, charge.card_attempts);
      const now = effectiveStatus(deps, charge);
      if (now !== 'pending') return { kind: now, charge };
    }
    // `providerStatus` never moves back, so it can stay `requires_action` after a failed challenge:
    // the acquirer is asked.
    if (charge.provider_status === 'requires_action') {
      const challenge = await openChallenge(deps, charge);
      if (challenge === 'unavailable') return { kind: 'unavailable', charge };
      if (challenge.url !== null) return { kind: 'challenge', charge: challenge.charge, url: challenge.url };
      charge = challenge.charge;
      const now = effectiveStatus(deps, charge);
      if (now !== 'pending') return { kind: now, charge };
    }
    if (charge.card_attempts >= deps.cardAttempts) return { kind: 'attempts_exhausted', charge };
    return cardPage(deps, charge);
  }

  if (charge.bank_transfer === null) {
    charge = await syncQuietly(deps, charge, 'bank_transfer_details');
    const now = effectiveStatus(deps, charge);
    if (now !== 'pending') return { kind: now, charge };
  }
  return bankTransferPage(charge);
}

export const bankTransferPage = (charge: ChargeRow): BankTransferPage => ({
  kind: 'bank_transfer',
  charge,
  instructions: charge.bank_transfer,
  sandbox: charge.environment === 'sandbox',
});

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
