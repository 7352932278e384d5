/**
 * Money as integer minor units of a currency, never floats. A `Minor<C>` is a bigint branded with its
 * currency, so a TRY amount cannot be added to a USDT amount or passed where the other is expected
 * without a conversion at an explicit rate with an explicit rounding.
 */

export const CURRENCIES = {
  TRY: { decimals: 2 },
  USDT: { decimals: 6 },
} as const;

export type Currency = keyof typeof CURRENCIES;

declare const currencyBrand: unique symbol;
export type Minor<C extends Currency> = bigint & { readonly [currencyBrand]: C };

/** How a result that falls between two minor units is settled. */
export type Rounding =
  /** Towards zero: what is paid out never exceeds what is owed (payouts, conversions). */
  | 'down'
  /** To the nearest unit, halves away from zero (fees, product decision 21). */
  | 'half-up';

export class MoneyError extends RangeError {
  override readonly name = 'MoneyError';
}

export function decimalsOf(currency: Currency): number {
  return CURRENCIES[currency].decimals;
}

/** Brands an integer number of minor units; refuses non-integers and unsafe numbers. */
export function minor<C extends Currency>(_currency: C, units: bigint | number): Minor<C> {
  if (typeof units === 'number' && !Number.isSafeInteger(units)) {
    throw new MoneyError(`minor units must be a safe integer, got ${units}`);
  }
  return BigInt(units) as Minor<C>;
}

const MINOR_UNITS = /^-?(0|[1-9][0-9]*)$/;

/** Parses the decimal string of minor units that the API and the database use ("12550"). */
export function parseMinor<C extends Currency>(currency: C, text: string): Minor<C> {
  if (!MINOR_UNITS.test(text)) throw new MoneyError(`not an integer of minor units: ${JSON.stringify(text)}`);
  return minor(currency, BigInt(text));
}

/** The decimal string of minor units, as responses carry money ("12550"). */
export function formatMinor(amount: Minor<Currency>): string {
  return amount.toString();
}

/** The amount in major units with every decimal of the currency: 12550 TRY minor -> "125.50". */
export function toMajorString<C extends Currency>(currency: C, amount: Minor<C>): string {
  const decimals = decimalsOf(currency);
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}

const MAJOR_DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** Parses "125.50" into minor units; more decimals than the currency has is an error, never a rounding. */
export function parseMajor<C extends Currency>(currency: C, text: string): Minor<C> {
  const match = MAJOR_DECIMAL.exec(text);
  if (match === null) throw new MoneyError(`not a non-negative decimal amount: ${JSON.stringify(text)}`);
  const decimals = decimalsOf(currency);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new MoneyError(`${currency} has ${decimals} decimals, got ${JSON.stringify(text)}`);
  }
  return minor(currency, BigInt((match[1] ?? '0') + fraction.padEnd(decimals, '0')));
}

export function add<C extends Currency>(a: Minor<C>, b: Minor<C>): Minor<C> {
  return (a + b) as Minor<C>;
}

export function sum<C extends Currency>(currency: C, amounts: Iterable<Minor<C>>): Minor<C> {
  let total = 0n;
  for (const amount of amounts) total += amount;
  return minor(currency, total);
}

export function min<C extends Currency>(a: Minor<C>, b: Minor<C>): Minor<C> {
  return a < b ? a : b;
}

/** numerator / denominator rounded as asked; the denominator is positive. */
function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator <= 0n) throw new MoneyError('the denominator must be positive');
  const quotient = numerator / denominator; // truncates towards zero
  if (rounding === 'down') return quotient;
  const remainder = numerator % denominator;
  const absRemainder = remainder < 0n ? -remainder : remainder;
  if (absRemainder * 2n >= denominator) return numerator < 0n ? quotient - 1n : quotient + 1n;
  return quotient;
}

/** amount × basisPoints / 10000, rounded as asked: a fee, a spread or a reserve share. */
export function applyBasisPoints<C extends Currency>(
  amount: Minor<C>,
  basisPoints: number,
  rounding: Rounding,
): Minor<C> {
  if (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints > 10_000) {
    throw new MoneyError(`basis points must be an integer from 0 to 10000, got ${basisPoints}`);
  }
  return divide(amount * BigInt(basisPoints), 10_000n, rounding) as Minor<C>;
}

/**
 * An exchange rate as an exact fraction: one major unit of `from` is worth numerator / denominator
 * major units of `to`. Decimal rates ("0.028731") are held exactly, never as a float.
 */
export interface Rate<From extends Currency, To extends Currency> {
  readonly from: From;
  readonly to: To;
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const RATE_DECIMAL = /^(0|[1-9][0-9]{0,17})(?:\.([0-9]{1,18}))?$/;

/** Parses a positive decimal rate ("0.028731") exactly. */
export function parseRate<From extends Currency, To extends Currency>(
  from: From,
  to: To,
  text: string,
): Rate<From, To> {
  const match = RATE_DECIMAL.exec(text);
  if (match === null) throw new MoneyError(`not a decimal rate: ${JSON.stringify(text)}`);
  const fraction = match[2] ?? '';
  const numerator = BigInt((match[1] ?? '0') + fraction);
  if (numerator === 0n) throw new MoneyError('a rate must be positive');
  return reduce({ from, to, numerator, denominator: 10n ** BigInt(fraction.length) });
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce<From extends Currency, To extends Currency>(rate: Rate<From, To>): Rate<From, To> {
  const divisor = gcd(rate.numerator, rate.denominator);
  return { ...rate, numerator: rate.numerator / divisor, denominator: rate.denominator / divisor };
}

/** The rate as a decimal string with at most `decimals` places, rounded down (for display and records). */
export function formatRate(rate: Rate<Currency, Currency>, decimals = 12): string {
  const scaled = (rate.numerator * 10n ** BigInt(decimals)) / rate.denominator;
  const digits = scaled.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * The rate less a spread in basis points (what the merchant gets when the house keeps `basisPoints`):
 * exact, no rounding.
 */
export function lessSpread<From extends Currency, To extends Currency>(
  rate: Rate<From, To>,
  basisPoints: number,
): Rate<From, To> {
  if (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints >= 10_000) {
    throw new MoneyError(`a spread must be an integer from 0 to 9999 basis points, got ${basisPoints}`);
  }
  return reduce({
    ...rate,
    numerator: rate.numerator * BigInt(10_000 - basisPoints),
    denominator: rate.denominator * 10_000n,
  });
}

export interface Conversion<From extends Currency, To extends Currency> {
  /** What `amount` is worth in `to`, rounded as asked. */
  converted: Minor<To>;
  /**
   * The part of `amount` that `converted` accounts for, in `from` minor units, rounded up, so that
   * `amount - covered` is what a rounding down leaves behind (it stays in the balance).
   */
  covered: Minor<From>;
}

/**
 * Converts minor units of one currency into another at an exact rate, rounding only once, at the end.
 * With 'down' the converted amount is never worth more than `amount`.
 */
export function convert<From extends Currency, To extends Currency>(
  amount: Minor<From>,
  rate: Rate<From, To>,
  rounding: Rounding,
): Conversion<From, To> {
  if (amount < 0n) throw new MoneyError('only a non-negative amount can be converted');
  const fromScale = 10n ** BigInt(decimalsOf(rate.from));
  const toScale = 10n ** BigInt(decimalsOf(rate.to));
  // to_minor = from_minor / fromScale × rate × toScale
  const converted = divide(
    amount * rate.numerator * toScale,
    fromScale * rate.denominator,
    rounding,
  ) as Minor<To>;
  const needed = neededFor(converted, rate);
  const covered = needed > amount ? amount : needed;
  return { converted, covered: covered as Minor<From> };
}

/** The `from` minor units `converted` is worth at `rate`, rounded up: converted / rate, in `from`. */
export function neededFor<From extends Currency, To extends Currency>(
  converted: Minor<To>,
  rate: Rate<From, To>,
): Minor<From> {
  const fromScale = 10n ** BigInt(decimalsOf(rate.from));
  const toScale = 10n ** BigInt(decimalsOf(rate.to));
  const divisor = toScale * rate.numerator;
  return ((converted * rate.denominator * fromScale + divisor - 1n) / divisor) as Minor<From>;
}
