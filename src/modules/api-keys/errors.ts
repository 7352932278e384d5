import type { ApiKeyScope, FeatureFlag } from '../../db/schema.js';
import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import {
  ApiError,
  toApiError,
  type ErrorCode,
  type ErrorTable,
  type ValidationIssue,
} from '../../http/errors.js';
import type { Result } from '../../shared/result.js';

/** Why a request was refused, in the order the checks run (docs/decisions/0005-api-key-authentication.md). */
export type AuthFailure =
  | 'missing_key'
  | 'invalid_key'
  | 'expired_key'
  | 'wrong_environment'
  | 'ip_not_allowed'
  | 'kyc_pending'
  | 'organization_frozen'
  | 'insufficient_scope'
  | 'feature_disabled'
  | 'payouts_disabled';

/** A refusal of authentication: a new error of the code and message each time it is thrown. */
const refusal = (code: ErrorCode, message: string) => () => new ApiError(code, message);

/**
 * Each refusal with its spec code. Messages help the developer who holds the key without saying anything
 * a stranger could use: an unknown, revoked or mistyped key all read the same.
 */
export const AUTH_FAILURES: Record<AuthFailure, () => ApiError> = {
  missing_key: refusal('missing_api_key', 'This endpoint needs an API key in the X-API-Key header.'),
  invalid_key: refusal('invalid_api_key', 'The API key is not valid.'),
  expired_key: refusal('api_key_expired', 'The API key has expired.'),
  wrong_environment: refusal(
    'unauthorized',
    'This key belongs to the other environment: sk_test_ keys work on the sandbox API, sk_live_ keys on the live API.',
  ),
  ip_not_allowed: refusal(
    'ip_not_allowed',
    "The request comes from an address outside the key's allowedIps.",
  ),
  kyc_pending: refusal('unauthorized', 'Live keys are refused until the account review is approved.'),
  organization_frozen: refusal('organization_frozen', 'The organization is paused; contact support.'),
  insufficient_scope: refusal(
    'insufficient_scope',
    'The API key does not have the scope this request needs.',
  ),
  feature_disabled: refusal(
    'forbidden',
    'This feature is not enabled for the organization; ask support to enable it.',
  ),
  payouts_disabled: refusal('payouts_unavailable', 'Crypto payouts are not enabled for the organization.'),
};

export function featureRefusal(feature: FeatureFlag): AuthFailure {
  return feature === 'payouts' ? 'payouts_disabled' : 'feature_disabled';
}

/** Refusals of the key-management use cases (docs/decisions/0020-domain-errors.md). */
export type ApiKeyError =
  | { code: 'not_found' }
  | { code: 'scope_not_held'; missingScopes: ApiKeyScope[] }
  | { code: 'invalid_input'; issues: ValidationIssue[] }
  | CursorError;

/** A key-management use case's answer: the value, or one of its refusals. */
export type ApiKeyResult<T> = Result<T, ApiKeyError>;

export const API_KEY_ERRORS: ErrorTable<ApiKeyError> = {
  not_found: () => new ApiError('not_found', 'No such API key.'),
  scope_not_held: (error) =>
    new ApiError('insufficient_scope', 'A key can only create or revoke keys whose scopes it holds itself.', {
      missingScopes: error.missingScopes,
    }),
  invalid_input: (error) => ApiError.validation(error.issues),
  ...INVALID_CURSOR,
};

/** The envelope of a key-management refusal, for every edge that calls the key service. */
export function apiKeyRefusal(error: ApiKeyError): ApiError {
  return toApiError(API_KEY_ERRORS, error);
}
