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

/** The counts of one owner, by month and scheme. */
export class CountIndex {
  private readonly counts = new Map<string, Counts>();

  add(row: CountRow): void {
    const key = `${row.month}|${row.scheme}`;
    const counts = this.counts.get(key) ?? { sales: 0, chargebacks: 0, fraudWarnings: 0, overlap: 0 };
    if (row.kind === 'sales') counts.sales += row.count;
    else if (row.kind === 'chargebacks') counts.chargebacks += row.count;
    else {
      counts.fraudWarnings += row.count;
      counts.overlap += row.overlap;
    }
    this.counts.set(key, counts);
  }

  of(month: string, scheme: Scheme): Counts {
    return (
      this.counts.get(`${month}|${scheme}`) ?? { sales: 0, chargebacks: 0, fraudWarnings: 0, overlap: 0 }
    );
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

function visaStyle(index: CountIndex, month: Month, scheme: Scheme, once: boolean): VisaStyleFigure {
  const counts = index.of(month.key, scheme);
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

function mastercardStyle(index: CountIndex, month: Month, scheme: Scheme): MastercardStyleFigure {
  const chargebacks = index.of(month.key, scheme).chargebacks;
  const previousMonthSales = index.of(monthOf(month.start, -1).key, scheme).sales;
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

function levelStatuses(levels: RatioLevel[], now: Fraction, projected: Fraction): LevelStatus[] {
  return levels.map((level) => {
    const proximity = proximityBps(level, now);
    return {
      level: level.level,
      thresholdPercent: ppmToPercent(level.thresholdPpm),
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

/** A scheme's figures of the month so far, with the projection to month end and each level's status. */
export function currentFigures(
  index: CountIndex,
  scheme: Scheme,
  settings: RatioSettings,
  now: Date,
): SchemeFigures {
  const month = monthOf(now);
  const visa = visaStyle(index, month, scheme, settings.countFraudAndDisputeOnce);
  const visaNow = { count: visa.counted, sales: visa.sales };
  const visaProjected = {
    count: projectCount(visa.counted, month, now),
    sales: projectCount(visa.sales, month, now),
  };
  const mastercard = mastercardStyle(index, month, scheme);
  const mastercardNow = { count: mastercard.chargebacks, sales: mastercard.previousMonthSales };
  const mastercardProjected = { ...mastercardNow, count: projectCount(mastercard.chargebacks, month, now) };
  const levels = (ratio: RatioKind) => levelsFor(settings.levels, scheme, ratio, month.key);
  return {
    scheme,
    month: month.key,
    visaStyle: {
      figure: visa,
      projected: { ...visaProjected, percent: percentOf(visaProjected) },
      levels: levelStatuses(levels('visa_style'), visaNow, visaProjected),
    },
    mastercardStyle: {
      figure: mastercard,
      projected: { ...mastercardProjected, percent: percentOf(mastercardProjected) },
      levels: levelStatuses(levels('mastercard_style'), mastercardNow, mastercardProjected),
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
    const month = monthOf(now, i - HISTORY_MONTHS);
    return {
      month: month.key,
      visaStyle: visaStyle(index, month, scheme, settings.countFraudAndDisputeOnce),
      mastercardStyle: mastercardStyle(index, month, scheme),
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
