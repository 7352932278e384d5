import type { Acquirer, AuthorizeOptions } from '../acquirer/types.js';
import { checkCard, type CardField, type CardForm, type CardIssue } from './card.js';
import { afterAcquirerProblem, type AcquirerProblem } from './acquirer-problems.js';
import type { CheckoutServiceDeps } from './deps.js';
import { CARD_METHODS, effectiveStatus, pageFor, type CardPage } from './page.js';

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

/**
 * Checks the card, claims the attempt and forwards the card to the acquirer; the card is never kept.
 * While another attempt of the charge is at the acquirer, nothing is sent: the page says it is in
 * progress.
 */
export async function payByCard(
  deps: CheckoutServiceDeps,
  paymentId: string,
  form: CardForm,
  returnUrl: string,
): Promise<CardPaymentResult> {
  const { completion, clock, logger } = deps;
  const charge = await completion.findByPaymentId(paymentId);
  if (!charge) return { outcome: 'not_found' };
  if (!CARD_METHODS.has(charge.payment_method) || effectiveStatus(deps, charge) !== 'pending') {
    return { outcome: 'show_page' };
  }
  const page = await pageFor(deps, charge);
  // An attempt in flight, an open challenge, used-up attempts or an unreachable acquirer: the page
  // says so.
  if (page.kind !== 'card') return { outcome: 'show_page' };

  const checked = checkCard(form, clock.now());
  if (!checked.ok) return { outcome: 'invalid', page, issues: checked.issues, keep: checked.keep };

  const acquirer = deps.acquirerFor(charge.environment);
  if (!acquirer) return { outcome: 'acquirer_error', page, problem: 'unavailable' };
  const threeDSecure = await threeDSecureOf(deps, charge.organization_id);
  // The claim is committed before the card leaves: of simultaneous submissions one gets it, and the
  // others are shown the page, which says the payment is in progress.
  const attemptNumber = await completion.takeCardAttempt(charge.id);
  if (attemptNumber === undefined) return { outcome: 'show_page' };
  // The last four digits the customer typed: the most of a card number the gateway keeps.
  const typedLast4 = checked.card.number.slice(-4);
  let result: Awaited<ReturnType<Acquirer['authorize']>>;
  try {
    result = await acquirer.authorize(paymentId, checked.card, returnUrl, threeDSecure);
  } catch (error) {
    // Anything but an acquirer problem is a bug: the claim is left to run out, as a crash's would. The
    // read-back is under the claim: a card that did reach the acquirer is on the charge before the next
    // one may be taken.
    const { problem } = await afterAcquirerProblem(deps, error, charge, 'authorize');
    const finished = await completion.finishCardAttempt(
      charge.id,
      attemptNumber,
      { outcome: 'error', failureCode: null, card: { brand: null, last4: typedLast4 } },
      null,
    );
    // The attempt stays counted: a card tester gains nothing from an upstream failure.
    const after = await pageFor(deps, finished);
    return after.kind === 'card'
      ? { outcome: 'acquirer_error', page: after, problem }
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
}

/**
 * What the attempt asks of 3-D Secure: `required` while an operator requires it of the charge's
 * organization (read at each attempt, so a change applies from the next card on), else the acquirer's
 * own rule.
 */
async function threeDSecureOf(deps: CheckoutServiceDeps, organizationId: string): Promise<AuthorizeOptions> {
  const organization = await deps.organizations.find(organizationId);
  return organization?.threeDSecureRequired ? { threeDSecure: 'required' } : {};
}
