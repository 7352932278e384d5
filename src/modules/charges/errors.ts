import { ApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';
import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';

/** Spec section 7: seconds after which a `provider_unavailable` request may be retried with the same key. */
export const PROVIDER_RETRY_AFTER_SECONDS = 30;

/** What creating or reading a charge can refuse (docs/decisions/0020-domain-errors.md). */
export type ChargeError =
  | { code: 'invalid_input'; issues: ValidationIssue[] }
  | { code: 'duplicate_merchant_reference'; chargeId: string | null }
  | { code: 'creation_in_progress' }
  /** The idempotency key belongs to a charge made by another API key or with another body (ADR 0052). */
  | { code: 'idempotency_key_reuse'; reason: 'other_api_key' | 'other_body' }
  | { code: 'acquirer_not_configured' }
  | { code: 'provider_rejected'; providerCode: string; providerStatus: number; message: string }
  | { code: 'provider_unavailable' }
  | { code: 'not_found' }
  | { code: 'customers_disabled' }
  | CursorError;

export const CHARGE_ERRORS: ErrorTable<ChargeError> = {
  invalid_input: (error) => ApiError.validation(error.issues),
  duplicate_merchant_reference: (error) =>
    new ApiError(
      'duplicate_merchant_reference',
      'A charge with this merchantReference already exists in this environment.',
      error.chargeId === null ? undefined : { chargeId: error.chargeId },
    ),
  creation_in_progress: () =>
    new ApiError(
      'duplicate_request',
      'This charge is still being created by an earlier request with the same idempotency key; retry shortly.',
    ),
  // The same answers as the idempotency store's (src/http/idempotency.ts).
  idempotency_key_reuse: (error) => ApiError.idempotencyKeyReuse(error.reason),
  acquirer_not_configured: () =>
    new ApiError(
      'service_unavailable',
      'No acquirer is configured for this environment yet; no charge was created.',
    ),
  provider_rejected: (error) =>
    new ApiError('provider_rejected', error.message, {
      providerCode: error.providerCode,
      providerStatus: error.providerStatus,
    }),
  provider_unavailable: () =>
    new ApiError(
      'provider_unavailable',
      `The acquirer is unavailable. Retry with the same X-Idempotency-Key after ${PROVIDER_RETRY_AFTER_SECONDS} seconds.`,
      { retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
    ),
  not_found: () => new ApiError('not_found', 'No such charge.'),
  customers_disabled: () =>
    new ApiError(
      'forbidden',
      'customerId needs the customers feature, which is not enabled for the organization; ask support to enable it.',
    ),
  ...INVALID_CURSOR,
};

/** What the acquirer's notification endpoint refuses (its signature, its body, an unconfirmable claim). */
export type NotificationError =
  | { code: 'acquirer_not_configured' }
  | { code: 'unsigned' }
  | { code: 'malformed_timestamp' }
  | { code: 'timestamp_out_of_tolerance' }
  | { code: 'bad_signature' }
  | { code: 'invalid_notification'; paths: string[] }
  | { code: 'read_back_unavailable' };

export const NOTIFICATION_ERRORS: ErrorTable<NotificationError> = {
  acquirer_not_configured: () =>
    new ApiError('unauthorized', 'No acquirer is configured for this environment.'),
  unsigned: () => new ApiError('unauthorized', 'The notification is not signed.'),
  malformed_timestamp: () => new ApiError('unauthorized', 'The notification timestamp is malformed.'),
  timestamp_out_of_tolerance: () =>
    new ApiError('unauthorized', 'The notification timestamp is outside the tolerance.'),
  bad_signature: () => new ApiError('unauthorized', 'The notification signature does not match.'),
  invalid_notification: (error) =>
    ApiError.validation(
      error.paths.map((path) => ({
        path,
        in: 'body' as const,
        code: 'invalid_value' as const,
        message: 'is missing or invalid',
      })),
    ),
  // Nothing was recorded: the acquirer's retry of this notification is confirmed later.
  read_back_unavailable: () =>
    new ApiError(
      'provider_unavailable',
      'The payment could not be read back from the acquirer to confirm the notification; send it again.',
    ),
};
