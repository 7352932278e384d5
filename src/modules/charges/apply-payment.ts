import type { Trx } from '../../db/database.js';
import type { AcquirerPayment, ProviderStatus } from '../acquirer/types.js';
import { sanitizeProviderMessage } from '../acquirer/sanitize.js';
import type { ChargeCompletionDeps } from './deps.js';
import type { ChargeRow, ChargeStatus } from './model.js';
import * as charges from './repository/charges.js';
import { chargeView } from './views.js';

export interface ApplyOutcome {
  charge: ChargeRow;
  /** The charge reached a final status in this call (and its ledger entry and event were written). */
  transitioned: boolean;
}

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

/** Applies a payment state the acquirer reported, inside the caller's transaction, the charge row locked. */
export async function applyLocked(
  deps: Pick<ChargeCompletionDeps, 'clock' | 'logger' | 'ledger' | 'events' | 'checkoutUrl'>,
  trx: Trx,
  charge: ChargeRow,
  payment: AcquirerPayment,
): Promise<ApplyOutcome> {
  const { clock, logger } = deps;
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

/** The same in one transaction of its own, under the charge's row lock. */
export async function lockAndApply(
  deps: ChargeCompletionDeps,
  chargeId: string,
  payment: AcquirerPayment,
): Promise<ApplyOutcome> {
  return deps.db
    .transaction()
    .execute(async (trx) => applyLocked(deps, trx, await charges.lockById(trx, chargeId), payment));
}

/** Reads the payment back from the acquirer and applies it. */
export async function sync(deps: ChargeCompletionDeps, chargeId: string): Promise<ApplyOutcome> {
  const charge = await charges.findById(deps.db, chargeId);
  if (!charge) throw new Error(`no charge ${chargeId}`);
  const acquirer = deps.acquirerFor(charge.environment);
  if (!acquirer || charge.provider_payment_id === null) return { charge, transitioned: false };
  return lockAndApply(deps, chargeId, await acquirer.getPayment(charge.provider_payment_id));
}
