import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';
import { PROVIDER_RETRY_AFTER_SECONDS } from '../charges/errors.js';
import type { DisputeStatus } from './model.js';

/** What the merchant's dispute use cases refuse (docs/decisions/0020-domain-errors.md). */
export type DisputeError =
  | { code: 'dispute_not_found' }
  | { code: 'fraud_warning_not_found' }
  | { code: 'dispute_alert_not_found' }
  | { code: 'invalid_input'; issues: ValidationIssue[] }
  /** Nothing is staged, so there is nothing to send. */
  | { code: 'nothing_to_submit' }
  | { code: 'evidence_past_due'; evidenceDueBy: string }
  | { code: 'evidence_already_submitted' }
  /** The dispute's status does not take this answer. */
  | { code: 'not_answerable'; status: DisputeStatus; action: 'evidence' | 'accept' }
  | { code: 'acquirer_not_configured' }
  | { code: 'provider_rejected'; providerCode: string; providerStatus: number; message: string }
  | { code: 'provider_unavailable' }
  | CursorError;

export const DISPUTE_ERRORS: ErrorTable<DisputeError> = {
  dispute_not_found: () => new ApiError('not_found', 'No such dispute.'),
  fraud_warning_not_found: () => new ApiError('not_found', 'No such early fraud warning.'),
  dispute_alert_not_found: () => new ApiError('not_found', 'No such pre-dispute alert.'),
  invalid_input: (error) => ApiError.validation(error.issues),
  nothing_to_submit: () =>
    ApiError.validation(
      [{ path: '', in: 'body', code: 'required', message: 'no evidence is staged: send at least one field' }],
      'There is no evidence to submit.',
    ),
  evidence_past_due: (error) =>
    new ApiError('evidence_past_due', `The evidence is too late: it was due by ${error.evidenceDueBy}.`, {
      evidenceDueBy: error.evidenceDueBy,
    }),
  evidence_already_submitted: () =>
    new ApiError(
      'evidence_already_submitted',
      'Evidence was already submitted for this stage of the dispute.',
    ),
  not_answerable: (error) =>
    new ApiError(
      'invalid_state_transition',
      error.action === 'accept'
        ? `Only a dispute that needs a response can be accepted; this one is ${error.status}.`
        : `This dispute is ${error.status}: it takes no evidence now.`,
      { status: error.status },
    ),
  acquirer_not_configured: () =>
    new ApiError('service_unavailable', 'No acquirer is configured for this environment.'),
  provider_rejected: (error) =>
    new ApiError('provider_rejected', error.message, {
      providerCode: error.providerCode,
      providerStatus: error.providerStatus,
    }),
  provider_unavailable: () =>
    new ApiError(
      'provider_unavailable',
      'The acquirer is unavailable; nothing was submitted. Retry with the same X-Idempotency-Key after ' +
        `${PROVIDER_RETRY_AFTER_SECONDS} seconds.`,
      { retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS },
    ),
  ...INVALID_CURSOR,
};
