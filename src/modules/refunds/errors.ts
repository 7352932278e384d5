import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable } from '../../http/errors.js';
import { CHARGE_ERRORS, PROVIDER_RETRY_AFTER_SECONDS } from '../charges/errors.js';

/** What creating a refund can refuse (docs/decisions/0020-domain-errors.md). */
export type RefundError =
  | { code: 'charge_not_found' }
  | { code: 'charge_not_refundable'; status: string }
  | { code: 'nothing_to_refund' }
  /** The idempotency key belongs to a refund made by another API key or with another body (ADR 0052). */
  | { code: 'idempotency_key_reuse'; reason: 'other_api_key' | 'other_body' }
  | { code: 'exceeds_refundable'; remaining: string }
  /** Chargebacks hold part of the charge: at most `refundable` can still be refunded. */
  | { code: 'charge_disputed'; refundable: string }
  | { code: 'acquirer_not_configured' }
  | {
      code: 'provider_rejected';
      refundId: string;
      providerCode: string;
      providerStatus: number;
      message: string;
    }
  | { code: 'provider_unavailable'; refundId: string };

/** What listing a charge's refunds can refuse. */
export type RefundListError = { code: 'charge_not_found' } | CursorError;

export const REFUND_ERRORS: ErrorTable<RefundError> = {
  charge_not_found: () => new ApiError('not_found', 'No such charge.'),
  charge_not_refundable: (error) =>
    new ApiError(
      'invalid_state_transition',
      `Only a succeeded charge can be refunded; this one is ${error.status}.`,
    ),
  nothing_to_refund: () =>
    new ApiError('invalid_state_transition', 'This charge has nothing left to refund.'),
  exceeds_refundable: (error) =>
    ApiError.validation(
      [
        {
          path: 'amount',
          in: 'body',
          code: 'too_large',
          message: `exceeds what remains refundable on this charge (${error.remaining})`,
        },
      ],
      `The refund exceeds the refundable amount of ${error.remaining}.`,
    ),
  charge_disputed: (error) =>
    new ApiError(
      'charge_disputed',
      `Disputes hold part of this charge; at most ${error.refundable} can still be refunded.`,
      { refundable: error.refundable },
    ),
  // The same answers as a charge's and the idempotency store's (src/http/idempotency.ts).
  idempotency_key_reuse: CHARGE_ERRORS.idempotency_key_reuse,
  acquirer_not_configured: () =>
    new ApiError('service_unavailable', 'No acquirer is configured for this environment.'),
  provider_rejected: (error) =>
    new ApiError('provider_rejected', error.message, {
      providerCode: error.providerCode,
      providerStatus: error.providerStatus,
      refundId: error.refundId,
    }),
  provider_unavailable: (error) =>
    new ApiError(
      'provider_unavailable',
      `The acquirer is unavailable; refund ${error.refundId} stays pending and is retried in the background.`,
      { refundId: error.refundId, retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
    ),
};

export const REFUND_LIST_ERRORS: ErrorTable<RefundListError> = {
  charge_not_found: REFUND_ERRORS.charge_not_found,
  ...INVALID_CURSOR,
};

/** What an operator's settlement of a held refund can refuse (ADR 0063). */
export type HeldRefundError =
  | { code: 'refund_not_found' }
  | { code: 'refund_not_held'; status: string }
  | { code: 'reason_required' }
  | { code: 'invalid_amount' }
  | { code: 'invalid_provider_refund_id' }
  | { code: 'exceeds_refundable'; remaining: string }
  | { code: 'provider_refund_id_in_use'; refundId: string };

export const HELD_REFUND_ERRORS: ErrorTable<HeldRefundError> = {
  refund_not_found: () => new ApiError('not_found', 'No such refund.'),
  refund_not_held: (error) =>
    new ApiError(
      'invalid_state_transition',
      error.status === 'pending'
        ? 'The refund is still being asked for (not parked); only a held refund is settled by hand.'
        : `The refund is ${error.status}; only a held (pending, parked) refund is settled by hand.`,
    ),
  reason_required: () => ApiError.invalidBody('reason', 'must be 1 to 500 characters, not blank'),
  invalid_amount: () =>
    ApiError.invalidBody('amount', 'must be a positive whole number of minor units, as a string'),
  invalid_provider_refund_id: () =>
    ApiError.invalidBody(
      'providerRefundId',
      'must be the acquirer’s refund id: 1 to 255 printable characters',
    ),
  exceeds_refundable: (error) =>
    ApiError.validation(
      [
        {
          path: 'amount',
          in: 'body',
          code: 'too_large',
          message: `exceeds what the charge can still refund (${error.remaining})`,
        },
      ],
      `The amount exceeds what the charge can still refund: ${error.remaining}.`,
    ),
  provider_refund_id_in_use: (error) =>
    new ApiError(
      'invalid_state_transition',
      `The acquirer's refund id is already recorded on refund ${error.refundId}.`,
      { refundId: error.refundId },
    ),
};
