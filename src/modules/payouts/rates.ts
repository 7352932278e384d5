/**
 * The TRY -> USDT rate a payout is converted at (docs/decisions/0028-payouts.md). A source answers the
 * current quote or refuses; a quote older than the configured limit is refused, never used.
 */
export interface RateQuote {
  /** USDT per TRY, an exact positive decimal ("0.028731"). */
  rate: string;
  /** Where it came from (`sandbox-chain`, `ticker:<host>`, `operator`). */
  source: string;
  /** When the source fixed it. */
  at: Date;
}

export interface RateSource {
  /** The current quote; throws `RateUnavailableError` when there is none or it is stale. */
  quote(): Promise<RateQuote>;
}

export class RateUnavailableError extends Error {
  override readonly name = 'RateUnavailableError';
  constructor(
    readonly reason: 'missing' | 'stale' | 'unreachable' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}
