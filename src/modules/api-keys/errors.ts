import type { FeatureFlag } from '../../db/schema.js';
import { ApiError } from '../../http/errors.js';

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

/**
 * Each refusal with its spec code. Messages help the developer who holds the key without saying anything
 * a stranger could use: an unknown, revoked or mistyped key all read the same.
 */
export const AUTH_FAILURES: Record<AuthFailure, () => ApiError> = {
  missing_key: () =>
    new ApiError('missing_api_key', 'This endpoint needs an API key in the X-API-Key header.'),
  invalid_key: () => new ApiError('invalid_api_key', 'The API key is not valid.'),
  expired_key: () => new ApiError('api_key_expired', 'The API key has expired.'),
  wrong_environment: () =>
    new ApiError(
      'unauthorized',
      'This key belongs to the other environment: sk_test_ keys work on the sandbox API, sk_live_ keys on the live API.',
    ),
  ip_not_allowed: () =>
    new ApiError('ip_not_allowed', "The request comes from an address outside the key's allowedIps."),
  kyc_pending: () =>
    new ApiError('unauthorized', 'Live keys are refused until the account review is approved.'),
  organization_frozen: () =>
    new ApiError('organization_frozen', 'The organization is paused; contact support.'),
  insufficient_scope: () =>
    new ApiError('insufficient_scope', 'The API key does not have the scope this request needs.'),
  feature_disabled: () =>
    new ApiError('forbidden', 'This feature is not enabled for the organization; ask support to enable it.'),
  payouts_disabled: () =>
    new ApiError('payouts_unavailable', 'Crypto payouts are not enabled for the organization.'),
};

export function featureRefusal(feature: FeatureFlag): AuthFailure {
  return feature === 'payouts' ? 'payouts_disabled' : 'feature_disabled';
}

/** Refusals of the key-management use cases. */
export type ApiKeyError = 'not_found' | 'scope_not_held' | 'invalid_input';
