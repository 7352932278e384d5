import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { httpCall } from '../../shared/http-client.js';
import { newId } from '../../shared/ids.js';
import {
  convert,
  formatRate,
  lessSpread,
  minor,
  MoneyError,
  neededFor,
  parseRate,
} from '../../shared/money.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { PayoutError, RateUnavailableReason } from './errors.js';
import type { PayoutActor } from './ports.js';
import { reasonOf } from '../../shared/reasons.js';
import * as payouts from './repository.js';

/*
 * The FX of payouts in one place: the quote and the sources it comes from, the conversion at the rate
 * less the spread, and the operators' entered rates, spreads and choice of the live source.
 */

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
    readonly reason: RateUnavailableReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The part of the payout service's dependencies (`PayoutServiceDeps`, deps.ts) the FX use cases take;
 * named here because deps.ts names this file's `RateSource` (no cycle of files, ADR 0027).
 */
export interface FxDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  audit: AuditLog;
  rates: (environment: Environment) => RateSource | undefined;
  spreadBps?: number;
  tickerConfigured?: boolean;
}

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
      const [latest] = await payouts.latestFxRates(options.db, options.environment, 1);
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
      const chosen = await payouts.findRateSource(options.db);
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

/**
 * The current TRY -> USDT quote of an environment, asked outside any transaction; `rate_unavailable`
 * when there is none or it is stale.
 */
export async function quote(
  deps: Pick<FxDeps, 'rates' | 'logger'>,
  environment: Environment,
): Promise<Result<RateQuote, PayoutError>> {
  const source = deps.rates(environment);
  if (!source) return err({ code: 'rate_unavailable', reason: 'not_configured' });
  try {
    return ok(await source.quote());
  } catch (error) {
    if (error instanceof RateUnavailableError) {
      deps.logger.warn({ environment, reason: error.reason, err: error }, 'payout refused: no usable rate');
      return err({ code: 'rate_unavailable', reason: error.reason });
    }
    throw error;
  }
}

/** The environment's spread, read in the payout's transaction. */
export async function spreadOf(deps: Pick<FxDeps, 'spreadBps'>, trx: Trx, environment: Environment) {
  return (await payouts.findSpread(trx, environment)) ?? deps.spreadBps ?? 0;
}

/**
 * A quote converted as the merchant is paid: at the market rate less the spread. `covered` TRY leave
 * the available balance; `converted` USDT is sent, rounded down; `spread` is the part of `covered` kept
 * as FX revenue (what the USDT sent is worth at the market rate is the rest).
 */
export function conversion(amount: bigint, quote: RateQuote, spreadBps: number) {
  const market = parseRate('TRY', 'USDT', quote.rate);
  const applied = lessSpread(market, spreadBps);
  const { converted, covered } = convert(minor('TRY', amount), applied, 'down');
  const atMarket = neededFor(converted, market);
  const spread = covered > atMarket ? covered - atMarket : 0n;
  // Without a spread the quote's own text is kept as it came.
  return {
    converted,
    covered,
    spread,
    spreadBps,
    rate: spreadBps === 0 ? quote.rate : formatRate(applied, 18),
  };
}

export interface FxSpreadView {
  environment: Environment;
  spreadBps: number;
  /** `operator`: set by `updatedBy`; `default`: `PAYOUT_FX_SPREAD_BPS`. */
  source: 'operator' | 'default';
  updatedBy: string | null;
  updatedAt: string | null;
}

/** The live rate source operators chose (docs/decisions/0050-live-rate-source.md). */
export interface FxRateSourceView {
  environment: 'live';
  /** `ticker`: the live ticker, the operators' rate its fallback; `operator`: the operators' rate alone. */
  source: 'ticker' | 'operator';
  /** Whether `FX_TICKER_URL` is set: without it, `ticker` means the operators' rate alone. */
  tickerConfigured: boolean;
  /** Null while no operator has chosen (the default, `ticker`). */
  reason: string | null;
  updatedBy: string | null;
  updatedAt: string | null;
}

/** The longest reason an entered rate or a rate source choice keeps (the console's field says as much). */
export const FX_REASON_MAX_LENGTH = 500;

/** An operator's reason for an FX change, trimmed; undefined when empty or longer than the limit. */
function fxReasonOf(text: string): string | undefined {
  return reasonOf(text, FX_REASON_MAX_LENGTH);
}

export interface FxRateView {
  id: string;
  environment: Environment;
  rate: string;
  reason: string;
  enteredBy: string;
  enteredAt: string;
}

function fxRateView(row: payouts.FxRateRow): FxRateView {
  return {
    id: row.id,
    environment: row.environment,
    rate: row.rate,
    reason: row.reason,
    enteredBy: row.entered_by,
    enteredAt: row.entered_at.toISOString(),
  };
}

/** The live rate source as operators chose it (`row`), or the default `ticker` when none did. */
function rateSourceView(
  deps: Pick<FxDeps, 'tickerConfigured'>,
  row: { source: 'ticker' | 'operator'; reason: string; updated_by: string; updated_at: Date } | undefined,
): FxRateSourceView {
  return {
    environment: 'live',
    source: row?.source ?? 'ticker',
    tickerConfigured: deps.tickerConfigured ?? false,
    reason: row?.reason ?? null,
    updatedBy: row?.updated_by ?? null,
    updatedAt: row?.updated_at.toISOString() ?? null,
  };
}

/**
 * An operator enters the TRY -> USDT rate of an environment (USDT per TRY, a positive decimal): the
 * source of `operator`-rate environments and the live ticker's fallback while it is fresh. Audited.
 */
export async function enterRate(
  deps: FxDeps,
  environment: Environment,
  input: { rate: string; reason: string },
  by: PayoutActor,
): Promise<Result<FxRateView, PayoutError>> {
  const reason = fxReasonOf(input.reason);
  if (reason === undefined) return err({ code: 'reason_required' });
  try {
    parseRate('TRY', 'USDT', input.rate);
  } catch {
    return err({ code: 'invalid_rate' });
  }
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const row = await payouts.insertFxRate(trx, {
      id: newId('fxr', now),
      environment,
      rate: input.rate,
      reason,
      entered_by: by.actor,
      entered_at: now,
    });
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'fx_rate.entered',
      targetType: 'fx_rate',
      targetId: row.id,
      organizationId: null,
      after: { environment, rate: row.rate, reason },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return ok(fxRateView(row));
  });
}

/** The operators' latest rates of an environment, newest first. */
export async function enteredRates(
  deps: FxDeps,
  environment: Environment,
  limit: number,
): Promise<FxRateView[]> {
  return (await payouts.latestFxRates(deps.db, environment, limit)).map(fxRateView);
}

/** Each environment's FX spread: the one an operator set, or the configured default. */
export async function spreads(deps: FxDeps): Promise<FxSpreadView[]> {
  const rows = await payouts.listSpreads(deps.db);
  return (['sandbox', 'live'] as const).map((environment) => {
    const row = rows.find((candidate) => candidate.environment === environment);
    return row
      ? {
          environment,
          spreadBps: row.spread_bps,
          source: 'operator' as const,
          updatedBy: row.updated_by,
          updatedAt: row.updated_at.toISOString(),
        }
      : {
          environment,
          spreadBps: deps.spreadBps ?? 0,
          source: 'default' as const,
          updatedBy: null,
          updatedAt: null,
        };
  });
}

/** The live rate source operators chose. */
export async function rateSource(deps: FxDeps): Promise<FxRateSourceView> {
  return rateSourceView(deps, await payouts.findRateSource(deps.db));
}

/** An operator chooses the live rate source, with a reason; quotes from now on use it. Audited. */
export async function setRateSource(
  deps: FxDeps,
  input: { source: 'ticker' | 'operator'; reason: string },
  by: PayoutActor,
): Promise<Result<FxRateSourceView, PayoutError>> {
  const reason = fxReasonOf(input.reason);
  if (reason === undefined) return err({ code: 'reason_required' });
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const before = await payouts.setRateSource(trx, {
      source: input.source,
      reason,
      by: by.actor,
      now,
    });
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'fx_rate_source.updated',
      targetType: 'fx_rate_source',
      targetId: 'live',
      organizationId: null,
      before: { source: before?.source ?? 'ticker' },
      after: { source: input.source, reason },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return ok(rateSourceView(deps, { source: input.source, reason, updated_by: by.actor, updated_at: now }));
  });
}

/** An operator sets an environment's FX spread (0 to 1000 basis points) for payouts from now on. Audited. */
export async function setSpread(
  deps: FxDeps,
  environment: Environment,
  spreadBps: number,
  by: PayoutActor,
): Promise<FxSpreadView> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const before = await payouts.setSpread(trx, environment, spreadBps, by.actor, now);
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'fx_spread.updated',
      targetType: 'fx_spread',
      targetId: environment,
      organizationId: null,
      before: {
        spreadBps: before ?? deps.spreadBps ?? 0,
        source: before === undefined ? 'default' : 'operator',
      },
      after: { spreadBps },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return {
      environment,
      spreadBps,
      source: 'operator' as const,
      updatedBy: by.actor,
      updatedAt: now.toISOString(),
    };
  });
}
