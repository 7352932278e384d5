import {
  bpsToPercent,
  crosses,
  levelsFor,
  monthOf,
  percentOf,
  ppmToPercent,
  projectCount,
  proximityBps,
  SCHEMES,
  type Fraction,
  type Month,
  type RatioKind,
  type RatioLevel,
  type RatioSettings,
  type Scheme,
} from './levels.js';
import type { CountRow } from './repository.js';

/**
 * The figures of the ratios built from the counts of `countsOf` (docs/dispute-ratios.md): per month and
 * scheme, the Visa-style ratio (fraud warnings and disputes of the month over its settled card sales)
 * and the Mastercard-style ratio (chargebacks of the month over the previous month's sales).
 */

export const HISTORY_MONTHS = 6;

interface Counts {
  sales: number;
  chargebacks: number;
  fraudWarnings: number;
  overlap: number;
}

const NO_COUNTS: Readonly<Counts> = Object.freeze({ sales: 0, chargebacks: 0, fraudWarnings: 0, overlap: 0 });

/** The counts of one owner, by month and scheme. */
export class CountIndex {
  private readonly months = new Map<string, Map<string, Counts>>();

  add(row: CountRow): void {
    let schemes = this.months.get(row.month);
    if (schemes === undefined) {
      schemes = new Map();
      this.months.set(row.month, schemes);
    }
    let counts = schemes.get(row.scheme);
    if (counts === undefined) {
      counts = { sales: 0, chargebacks: 0, fraudWarnings: 0, overlap: 0 };
      schemes.set(row.scheme, counts);
    }
    if (row.kind === 'sales') counts.sales += row.count;
    else if (row.kind === 'chargebacks') counts.chargebacks += row.count;
    else {
      counts.fraudWarnings += row.count;
      counts.overlap += row.overlap;
    }
  }

  of(month: string, scheme: Scheme): Readonly<Counts> {
    return this.months.get(month)?.get(scheme) ?? NO_COUNTS;
  }
}

export interface VisaStyleFigure {
  fraudWarnings: number;
  disputes: number;
  /** Fraud warnings whose charge also has a dispute counted in their month or before. */
  fraudWarningsAlsoDisputed: number;
  /** What the ratio counts: both, less the overlap when a charge with both counts once. */
  counted: number;
  sales: number;
  percent: string | null;
}

export interface MastercardStyleFigure {
  chargebacks: number;
  previousMonthSales: number;
  percent: string | null;
}

function visaStyle(index: CountIndex, month: string, scheme: Scheme, once: boolean): VisaStyleFigure {
  const counts = index.of(month, scheme);
  const counted = counts.chargebacks + counts.fraudWarnings - (once ? counts.overlap : 0);
  return {
    fraudWarnings: counts.fraudWarnings,
    disputes: counts.chargebacks,
    fraudWarningsAlsoDisputed: counts.overlap,
    counted,
    sales: counts.sales,
    percent: percentOf({ count: counted, sales: counts.sales }),
  };
}

function mastercardStyle(
  index: CountIndex,
  month: string,
  previousMonth: string,
  scheme: Scheme,
): MastercardStyleFigure {
  const chargebacks = index.of(month, scheme).chargebacks;
  const previousMonthSales = index.of(previousMonth, scheme).sales;
  return {
    chargebacks,
    previousMonthSales,
    percent: percentOf({ count: chargebacks, sales: previousMonthSales }),
  };
}

export interface LevelStatus {
  level: string;
  thresholdPercent: string;
  minimumCount: number;
  crossed: boolean;
  projectedCrossed: boolean;
  /** How far along the month so far is towards the level (100.00 = reached). */
  proximityPercent: string;
  proximityBps: bigint;
}

export interface CurrentFigure<F> {
  figure: F;
  projected: Fraction & { percent: string | null };
  levels: LevelStatus[];
}

/** A level that applies to the month, with its threshold as shown. */
interface MonthLevel {
  level: RatioLevel;
  thresholdPercent: string;
}

function levelStatuses(levels: readonly MonthLevel[], now: Fraction, projected: Fraction): LevelStatus[] {
  return levels.map(({ level, thresholdPercent }) => {
    const proximity = proximityBps(level, now);
    return {
      level: level.level,
      thresholdPercent,
      minimumCount: level.minimumCount,
      crossed: crosses(level, now),
      projectedCrossed: crosses(level, projected),
      proximityPercent: bpsToPercent(proximity),
      proximityBps: proximity,
    };
  });
}

export interface SchemeFigures {
  scheme: Scheme;
  month: string;
  visaStyle: CurrentFigure<VisaStyleFigure>;
  mastercardStyle: CurrentFigure<MastercardStyleFigure>;
}

/**
 * What the figures of one month so far share whoever they are of: the month, the one before, the levels
 * of each scheme's ratios that apply to it. Built once per read, so that every merchant's month (the
 * hourly evaluation, the watchlist) does not filter the settings again for each merchant and scheme.
 */
export interface MonthContext {
  now: Date;
  month: Month;
  previousMonth: string;
  countFraudAndDisputeOnce: boolean;
  levels: Readonly<Record<Scheme, Readonly<Record<RatioKind, readonly MonthLevel[]>>>>;
}

export function monthContext(settings: RatioSettings, now: Date): MonthContext {
  const month = monthOf(now);
  const of = (scheme: Scheme, ratio: RatioKind) =>
    levelsFor(settings.levels, scheme, ratio, month.key).map((level) => ({
      level,
      thresholdPercent: ppmToPercent(level.thresholdPpm),
    }));
  const byRatio = (scheme: Scheme) => ({
    visa_style: of(scheme, 'visa_style'),
    mastercard_style: of(scheme, 'mastercard_style'),
  });
  const levels = { visa: byRatio('visa'), mastercard: byRatio('mastercard'), troy: byRatio('troy') };
  return {
    now,
    month,
    previousMonth: monthOf(now, -1).key,
    countFraudAndDisputeOnce: settings.countFraudAndDisputeOnce,
    levels,
  };
}

/** A scheme's figures of the month so far, with the projection to month end and each level's status. */
export function currentFigures(index: CountIndex, scheme: Scheme, context: MonthContext): SchemeFigures {
  const { month, now } = context;
  const visa = visaStyle(index, month.key, scheme, context.countFraudAndDisputeOnce);
  const visaNow = { count: visa.counted, sales: visa.sales };
  const visaProjected = {
    count: projectCount(visa.counted, month, now),
    sales: projectCount(visa.sales, month, now),
  };
  const mastercard = mastercardStyle(index, month.key, context.previousMonth, scheme);
  const mastercardNow = { count: mastercard.chargebacks, sales: mastercard.previousMonthSales };
  const mastercardProjected = { ...mastercardNow, count: projectCount(mastercard.chargebacks, month, now) };
  const levels = context.levels[scheme];
  return {
    scheme,
    month: month.key,
    visaStyle: {
      figure: visa,
      projected: { ...visaProjected, percent: percentOf(visaProjected) },
      levels: levelStatuses(levels.visa_style, visaNow, visaProjected),
    },
    mastercardStyle: {
      figure: mastercard,
      projected: { ...mastercardProjected, percent: percentOf(mastercardProjected) },
      levels: levelStatuses(levels.mastercard_style, mastercardNow, mastercardProjected),
    },
  };
}

export interface MonthFigures {
  month: string;
  visaStyle: VisaStyleFigure;
  mastercardStyle: MastercardStyleFigure;
}

/** The complete months before the current one, oldest first. */
export function historyOf(
  index: CountIndex,
  scheme: Scheme,
  settings: RatioSettings,
  now: Date,
): MonthFigures[] {
  return Array.from({ length: HISTORY_MONTHS }, (_, i) => {
    const month = monthOf(now, i - HISTORY_MONTHS).key;
    return {
      month,
      visaStyle: visaStyle(index, month, scheme, settings.countFraudAndDisputeOnce),
      mastercardStyle: mastercardStyle(index, month, monthOf(now, i - HISTORY_MONTHS - 1).key, scheme),
    };
  });
}

/** The months one owner's page reads: sales from the month before the oldest month of its history. */
export function pageRange(now: Date): { salesFrom: Date; from: Date; to: Date } {
  return {
    salesFrom: monthOf(now, -HISTORY_MONTHS - 1).start,
    from: monthOf(now, -HISTORY_MONTHS).start,
    to: monthOf(now).end,
  };
}

/** The months the evaluation of every merchant reads: this month, and last month's sales. */
export function monthRange(now: Date): { salesFrom: Date; from: Date; to: Date } {
  return { salesFrom: monthOf(now, -1).start, from: monthOf(now).start, to: monthOf(now).end };
}

export { SCHEMES };
