/**
 * The arithmetic of the schemes' ratios (docs/dispute-ratios.md): exact, in integers. A ratio is a count
 * over a count; thresholds are parts per million (15000 = 1.5%); what is shown is a decimal string of
 * the percentage with four places (hundredths of a basis point), rounded half-up. Nothing here is a float.
 */

export const SCHEMES = ['visa', 'mastercard', 'troy'] as const;
export type Scheme = (typeof SCHEMES)[number];
export const RATIOS = ['visa_style', 'mastercard_style'] as const;
export type RatioKind = (typeof RATIOS)[number];

/** One programme level: crossed when the count reaches `minimumCount` and the ratio `thresholdPpm`. */
export interface RatioLevel {
  scheme: Scheme;
  ratio: RatioKind;
  level: string;
  thresholdPpm: number;
  minimumCount: number;
  /** The first and last months (`YYYY-MM`, inclusive) the level applies to; null is open. */
  fromMonth: string | null;
  untilMonth: string | null;
}

export interface RatioSettings {
  countFraudAndDisputeOnce: boolean;
  levels: RatioLevel[];
  updatedBy: string;
  updatedAt: Date;
}

/** A count over a count: the numerator a programme counts and the sales it divides by. */
export interface Fraction {
  count: number;
  sales: number;
}

const PPM = 1_000_000n;

/** The ratio in parts per million, rounded down; null without sales. */
export function ratioPpm({ count, sales }: Fraction): bigint | null {
  return sales === 0 ? null : (BigInt(count) * PPM) / BigInt(sales);
}

/** The ratio as a percentage with four decimal places, rounded half-up (`"1.2500"`); null without sales. */
export function percentOf({ count, sales }: Fraction): string | null {
  if (sales === 0) return null;
  // Hundredths of a basis point: count / sales * 100 * 10^4, rounded half-up.
  const scaled = (BigInt(count) * 2_000_000n + BigInt(sales)) / (2n * BigInt(sales));
  return `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, '0')}`;
}

/** Parts per million as a percentage string without trailing zeros (`15000` -> `"1.5"`). */
export function ppmToPercent(ppm: number): string {
  const whole = Math.trunc(ppm / 10_000);
  const rest = (ppm % 10_000).toString().padStart(4, '0').replace(/0+$/, '');
  return rest === '' ? `${whole}` : `${whole}.${rest}`;
}

/** A percentage string (`"1.125"`, at most four decimals) as parts per million. */
export function percentToPpm(percent: string): number {
  const [whole = '0', fraction = ''] = percent.split('.');
  return Number(whole) * 10_000 + Number(fraction.padEnd(4, '0'));
}

/**
 * Whether a level is crossed: the count reaches the minimum (and is not zero) and the ratio reaches the
 * threshold, compared exactly (count × 10^6 ≥ threshold × sales). A count over no sales at all is above
 * every threshold.
 */
export function crosses(level: Pick<RatioLevel, 'thresholdPpm' | 'minimumCount'>, figure: Fraction): boolean {
  if (figure.count === 0 || figure.count < level.minimumCount) return false;
  return BigInt(figure.count) * PPM >= BigInt(level.thresholdPpm) * BigInt(figure.sales);
}

/**
 * How far along a figure is towards a level, in basis points of the way (10000 = reached): the lesser of
 * the ratio's share of the threshold and the count's share of the minimum, capped at 10000.
 */
export function proximityBps(
  level: Pick<RatioLevel, 'thresholdPpm' | 'minimumCount'>,
  figure: Fraction,
): bigint {
  const cap = 10_000n;
  const ppm = figure.sales === 0 ? (figure.count > 0 ? BigInt(level.thresholdPpm) : 0n) : ratioPpm(figure);
  const byRatio = ((ppm ?? 0n) * cap) / BigInt(level.thresholdPpm);
  const byCount = level.minimumCount === 0 ? cap : (BigInt(figure.count) * cap) / BigInt(level.minimumCount);
  const least = byRatio < byCount ? byRatio : byCount;
  return least > cap ? cap : least;
}

/** Basis points of the way as a percentage with two decimals (`8750n` -> `"87.50"`). */
export const bpsToPercent = (bps: bigint): string =>
  `${bps / 100n}.${(bps % 100n).toString().padStart(2, '0')}`;

/** The levels of a scheme's ratio that apply to a month, lowest threshold first. */
export function levelsFor(
  levels: readonly RatioLevel[],
  scheme: Scheme,
  ratio: RatioKind,
  month: string,
): RatioLevel[] {
  return levels
    .filter(
      (level) =>
        level.scheme === scheme &&
        level.ratio === ratio &&
        (level.fromMonth === null || level.fromMonth <= month) &&
        (level.untilMonth === null || month <= level.untilMonth),
    )
    .sort((a, b) => a.thresholdPpm - b.thresholdPpm || a.minimumCount - b.minimumCount);
}

/** A calendar month (UTC): its `YYYY-MM`, its first instant and the first instant of the next one. */
export interface Month {
  key: string;
  start: Date;
  end: Date;
}

export function monthOf(at: Date, offset = 0): Month {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const key = `${start.getUTCFullYear()}-${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
  return { key, start, end };
}

/**
 * The month-end projection of a count of the month so far, linear by elapsed time: count × (length of
 * the month) ÷ (time since it began), in milliseconds, rounded half-up. A month that has ended projects
 * to what it counted.
 */
export function projectCount(count: number, month: Month, now: Date): number {
  const elapsed = BigInt(Math.max(1, Math.min(now.getTime(), month.end.getTime()) - month.start.getTime()));
  const length = BigInt(month.end.getTime() - month.start.getTime());
  return Number((BigInt(count) * length * 2n + elapsed) / (2n * elapsed));
}
