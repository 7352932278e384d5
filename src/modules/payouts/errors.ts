import { ApiError, type ErrorTable } from '../../http/errors.js';
import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import type { DestinationRefusal } from './ports.js';

/**
 * Why a rate source has no usable quote (`RateUnavailableError` in rates.ts carries it); named here so
 * that rates.ts, whose use cases answer `PayoutError`, and this file do not import each other.
 */
export type RateUnavailableReason = 'missing' | 'stale' | 'unreachable' | 'invalid';

/** What creating or reading payouts can refuse (docs/decisions/0020-domain-errors.md, spec section 7). */
export type PayoutError =
  | { code: 'not_found' }
  | { code: 'wallet_not_configured'; reason: DestinationRefusal; walletId?: string }
  | { code: 'amount_below_minimum'; minimum: string; network: string }
  | { code: 'insufficient_balance'; available: string }
  | { code: 'rate_unavailable'; reason: RateUnavailableReason | 'not_configured' }
  /**
   * The idempotency key already made a payout (in the last 24 hours) for another request body, or for
   * another API key of the organization (`other_api_key`).
   */
  | { code: 'idempotency_key_reuse'; reason: 'other_body' | 'other_api_key' }
  /** Operator commands: a transaction hash not of the payout network's form. */
  | { code: 'invalid_tx_hash'; network: string; expected: string }
  /** The hash is already another payout's (one payout per hash). */
  | { code: 'tx_hash_in_use'; payoutId: string }
  /** The command does not apply to the payout as it is (its rail or status). */
  | { code: 'invalid_state'; message: string }
  | { code: 'reason_required' }
  /** Operator commands: not a positive decimal rate (USDT per TRY). */
  | { code: 'invalid_rate' }
  | CursorError;

/** An error table's entry for a refusal that is the API's `not_found` (404) with `message`. */
export function notFound(message: string): () => ApiError {
  return () => new ApiError('not_found', message);
}

const WALLET_REASONS: Record<DestinationRefusal, string> = {
  no_default_wallet: 'The organization has no active default wallet in this environment.',
  wallet_not_found: 'No such wallet.',
  wallet_not_active: 'The wallet is not active (a pending change, archived or canceled).',
};

export const PAYOUT_ERRORS: ErrorTable<PayoutError> = {
  not_found: notFound('No such payout.'),
  wallet_not_configured: (error) =>
    new ApiError('wallet_not_configured', WALLET_REASONS[error.reason], {
      reason: error.reason,
      ...(error.walletId !== undefined ? { walletId: error.walletId } : {}),
    }),
  amount_below_minimum: (error) =>
    new ApiError(
      'amount_below_minimum',
      `The smallest payout on ${error.network} is ${error.minimum} TRY minor units.`,
      { minimum: error.minimum, currency: 'TRY', network: error.network },
    ),
  insufficient_balance: (error) =>
    new ApiError('insufficient_balance', `The available balance is ${error.available} TRY minor units.`, {
      available: error.available,
      currency: 'TRY',
    }),
  rate_unavailable: (error) =>
    new ApiError(
      'payouts_unavailable',
      'No current TRY to USDT rate: payouts are held rather than converted at a guessed rate. Retry later.',
      { reason: `rate_${error.reason}` },
    ),
  // The idempotency store's own refusals (src/http/idempotency.ts), said the same way.
  idempotency_key_reuse: (error) => ApiError.idempotencyKeyReuse(error.reason),
  invalid_tx_hash: (error) =>
    ApiError.validation(
      [{ path: 'txHash', in: 'body', code: 'invalid_format', message: `must be ${error.expected}` }],
      `A ${error.network} transaction hash is ${error.expected}.`,
    ),
  tx_hash_in_use: (error) =>
    new ApiError('tx_hash_in_use', 'This transaction hash is recorded for another payout.', {
      payoutId: error.payoutId,
    }),
  invalid_state: (error) => new ApiError('invalid_state_transition', error.message),
  invalid_rate: () =>
    ApiError.validation(
      [
        {
          path: 'rate',
          in: 'body',
          code: 'invalid_format',
          message: 'must be a positive decimal, USDT per TRY',
        },
      ],
      'The rate is not valid.',
    ),
  reason_required: () =>
    ApiError.validation(
      [{ path: 'reason', in: 'body', code: 'required', message: 'must not be empty' }],
      'A reason is required.',
    ),
  ...INVALID_CURSOR,
};
