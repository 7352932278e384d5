import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, toApiError, type ErrorTable, type ValidationIssue } from '../../http/errors.js';

/** What the endpoint and delivery use cases refuse (docs/decisions/0020-domain-errors.md). */
export type WebhookError =
  | { code: 'not_found' }
  | { code: 'delivery_not_found' }
  | { code: 'event_type_not_selected'; eventType: string }
  | { code: 'invalid_input'; issues: ValidationIssue[] }
  | { code: 'endpoint_limit'; limit: number }
  | { code: 'no_rotation' }
  | CursorError;

export const WEBHOOK_ERRORS: ErrorTable<WebhookError> = {
  not_found: () => new ApiError('not_found', 'No such webhook endpoint.'),
  delivery_not_found: () => new ApiError('not_found', 'No such webhook delivery.'),
  event_type_not_selected: (error) =>
    new ApiError(
      'invalid_state_transition',
      `The endpoint no longer receives ${error.eventType} events: add the kind to its enabledEvents to retry this delivery.`,
    ),
  invalid_input: (error) => ApiError.validation(error.issues),
  endpoint_limit: (error) =>
    new ApiError(
      'limit_reached',
      `An organization has at most ${error.limit} webhook endpoints in each environment: delete one first.`,
      { limit: error.limit },
    ),
  no_rotation: () =>
    new ApiError(
      'invalid_state_transition',
      'The endpoint has no new secret waiting to sign: rotate its secret first (POST /v1/webhook-endpoints/{id}/rotate-secret).',
    ),
  ...INVALID_CURSOR,
};

/** The envelope of a webhook refusal, for every edge that calls the webhook service. */
export function webhookRefusal(error: WebhookError): ApiError {
  return toApiError(WEBHOOK_ERRORS, error);
}
