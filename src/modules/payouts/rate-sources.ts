import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { httpCall } from '../../shared/http-client.js';
import { MoneyError, parseRate } from '../../shared/money.js';
import { RateUnavailableError, type RateQuote, type RateSource } from './rates.js';
import { findRateSource, latestFxRates } from './repository.js';

/**
 * A configured value, quoted at the time of asking: the sandbox's rate in a process that has no sandbox
 * chain to ask (the operator CLI running a settlement).
 */
export function createConfiguredRateSource(options: {
  rate: string;
  clock: Clock;
  name: string;
}): RateSource {
  parseRate('TRY', 'USDT', options.rate);
  return {
    quote: () => Promise.resolve({ rate: options.rate, source: options.name, at: options.clock.now() }),
  };
}

/**
 * A rate from an HTTP ticker (the live ticker, or the sandbox chain's rate feed): GET `url`, the rate at the dot path `field` (a decimal string or
 * number, USDT per TRY), its time at `timeField` (ISO text or Unix seconds; absent: the time of the
 * answer). Missing, unparsable, unreachable or older than `maxAgeMs`: refused, never guessed.
 */
export function createTickerRateSource(options: {
  /** A function when the address is known only once a listener is up (the in-process sandbox chain). */
  url: string | (() => string);
  field: string;
  timeField: string | undefined;
  maxAgeMs: number;
  clock: Clock;
  timeoutMs?: number;
  /** The source recorded on payouts; default `ticker:<host>`. */
  name?: string;
}): RateSource {
  const urlOf = typeof options.url === 'string' ? () => options.url as string : options.url;
  return {
    async quote(): Promise<RateQuote> {
      const url = urlOf();
      const name = options.name ?? `ticker:${new URL(url).host}`;
      let body: unknown;
      try {
        const response = await httpCall(url, {
          method: 'GET',
          headers: { accept: 'application/json' },
          timeoutMs: options.timeoutMs ?? 5000,
        });
        if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
        body = JSON.parse(response.text);
      } catch (error) {
        throw new RateUnavailableError(
          'unreachable',
          `the rate ticker did not answer: ${(error as Error).message}`,
        );
      }
      const raw = pick(body, options.field);
      const rate = typeof raw === 'number' ? String(raw) : raw;
      if (typeof rate !== 'string')
        throw new RateUnavailableError('missing', `the ticker has no ${options.field}`);
      try {
        parseRate('TRY', 'USDT', rate);
      } catch (error) {
        if (error instanceof MoneyError)
          throw new RateUnavailableError('invalid', `not a rate: ${rate.slice(0, 40)}`);
        throw error;
      }
      const now = options.clock.now();
      let at = now;
      if (options.timeField !== undefined) {
        const stamp = pick(body, options.timeField);
        at =
          typeof stamp === 'number'
            ? new Date(stamp * 1000)
            : new Date(typeof stamp === 'string' ? stamp : NaN);
        if (Number.isNaN(at.getTime()))
          throw new RateUnavailableError('invalid', `the ticker has no ${options.timeField}`);
      }
      if (now.getTime() - at.getTime() > options.maxAgeMs) {
        throw new RateUnavailableError('stale', `the ticker's rate is from ${at.toISOString()}`);
      }
      return { rate, source: name, at };
    },
  };
}

function pick(body: unknown, path: string): unknown {
  let value = body;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The rate an operator entered last for an environment (`fx_rates`): a source of its own, and the live
 * ticker's fallback. None, or older than `maxAgeMs`: refused, never guessed.
 */
export function createOperatorRateSource(options: {
  db: Kdb;
  clock: Clock;
  environment: Environment;
  maxAgeMs: number;
}): RateSource {
  return {
    async quote(): Promise<RateQuote> {
      const [latest] = await latestFxRates(options.db, options.environment, 1);
      if (!latest) throw new RateUnavailableError('missing', 'no operator has entered a rate');
      if (options.clock.now().getTime() - latest.entered_at.getTime() > options.maxAgeMs) {
        throw new RateUnavailableError(
          'stale',
          `the operators' rate is from ${latest.entered_at.toISOString()}`,
        );
      }
      return { rate: latest.rate, source: `operator:${latest.entered_by}`, at: latest.entered_at };
    },
  };
}

/**
 * The live rate from the source operators chose (`fx_rate_sources`, docs/decisions/0050-live-rate-source.md),
 * read at every quote: `ticker` (also when none was chosen) asks the ticker and, while it has no usable
 * rate, takes the operators' entered one; `operator` takes the operators' rate alone and never asks the
 * ticker. Without a ticker, the operators' rate whatever the choice.
 */
export function createChosenRateSource(options: {
  db: Kdb;
  ticker: RateSource | undefined;
  operator: RateSource;
}): RateSource {
  const withTicker = options.ticker ? withFallback(options.ticker, options.operator) : options.operator;
  return {
    async quote(): Promise<RateQuote> {
      const chosen = await findRateSource(options.db);
      return chosen?.source === 'operator' ? options.operator.quote() : withTicker.quote();
    },
  };
}

/**
 * `primary`'s quote, or `fallback`'s when `primary` has none (missing, stale, unreachable, invalid); when
 * both refuse, `primary`'s refusal.
 */
export function withFallback(
  primary: RateSource,
  fallback: RateSource,
  /** Which of `primary`'s refusals the fallback answers; default all. */
  reasons: ReadonlyArray<RateUnavailableError['reason']> = ['missing', 'stale', 'unreachable', 'invalid'],
): RateSource {
  return {
    async quote(): Promise<RateQuote> {
      try {
        return await primary.quote();
      } catch (error) {
        if (!(error instanceof RateUnavailableError) || !reasons.includes(error.reason)) throw error;
        try {
          return await fallback.quote();
        } catch (fallbackError) {
          if (fallbackError instanceof RateUnavailableError) throw error;
          throw fallbackError;
        }
      }
    },
  };
}
