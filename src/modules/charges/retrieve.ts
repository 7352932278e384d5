import { err, ok, type Result } from '../../shared/result.js';
import type { ChargeServiceDeps } from './deps.js';
import type { ChargeError } from './errors.js';
import { cardAttemptsOf } from './repository/card-attempts.js';
import * as charges from './repository/charges.js';
import { notificationsOf } from './repository/notifications.js';
import type { ChargeView } from './schemas.js';
import { toView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** What the charge page shows beyond the API's view of a charge. */
export interface ChargeDetails {
  charge: ChargeView;
  /** Card attempts the checkout counted (the card of the last one is `charge.card`). */
  cardAttempts: number;
  /**
   * Each of them, in order, with what the acquirer answered (migration 0023; a charge attempted before it
   * has none, only the count).
   */
  attempts: Array<{
    number: number;
    outcome: 'succeeded' | 'declined' | 'challenge' | 'error';
    failureCode: string | null;
    card: { brand: string | null; last4: string } | null;
    at: string;
  }>;
  /** When the charge reached its final status; null while pending. */
  finalizedAt: string | null;
  /** The acquirer's notifications about the charge, oldest first: card brand and last four only. */
  notifications: Array<{
    id: string;
    type: string;
    outcome: string;
    receivedAt: string;
    paymentStatus: string | null;
    card: { brand: string; last4: string } | null;
    refundAmount: string | null;
  }>;
}

export async function getCharge(
  deps: Pick<ChargeServiceDeps, 'db' | 'urls'>,
  owner: Owner,
  id: string,
): Promise<Result<ChargeView, ChargeError>> {
  const row = await charges.findVisible(deps.db, owner, id);
  return row ? ok(toView(deps, row)) : err({ code: 'not_found' });
}

/** The charge page: the charge and what its timeline needs (attempts, notifications, when it ended). */
export async function chargeDetails(
  deps: Pick<ChargeServiceDeps, 'db' | 'urls'>,
  owner: Owner,
  id: string,
): Promise<Result<ChargeDetails, ChargeError>> {
  const { db } = deps;
  const row = await charges.findVisible(db, owner, id);
  if (!row) return err({ code: 'not_found' });
  const [notifications, attempts] = await Promise.all([
    notificationsOf(db, row.id),
    cardAttemptsOf(db, row.id),
  ]);
  return ok({
    charge: toView(deps, row),
    cardAttempts: row.card_attempts,
    attempts: attempts.map((attempt) => ({
      number: attempt.number,
      outcome: attempt.outcome,
      failureCode: attempt.failure_code,
      card: attempt.card_last4 === null ? null : { brand: attempt.card_brand, last4: attempt.card_last4 },
      at: new Date(attempt.attempted_at).toISOString(),
    })),
    finalizedAt: row.finalized_at?.toISOString() ?? null,
    notifications: notifications.map((n) => ({
      id: n.id,
      type: n.type,
      outcome: n.outcome,
      receivedAt: new Date(n.received_at).toISOString(),
      paymentStatus: n.payment_status,
      card:
        n.card_brand !== null && n.card_last4 !== null && /^[0-9]{4}$/.test(n.card_last4)
          ? { brand: n.card_brand, last4: n.card_last4 }
          : null,
      refundAmount: n.refund_amount,
    })),
  });
}
