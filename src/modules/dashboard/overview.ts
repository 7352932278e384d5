import type { PaymentMethod } from '../../db/schema.js';
import { DAY } from '../../shared/clock.js';
import type { DailyChargeActivity } from '../charges/activity.js';
import type { DailyRefundActivity } from '../refunds/activity.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The dashboard's overview: volume, count, success rate and refunds per UTC day over the
 * last 7, 30 or 90 days, and the payment-method mix, drawn as SVG on the server (the CSP allows no
 * script of anyone else's, and a chart needs none). Each chart comes with a table of the same numbers
 * (screen readers, and the tests that compare them with the API).
 */

/** What the overview reads, from the modules that own the tables. */
export interface ActivityReader {
  charges(owner: Owner, range: { since: Date; until: Date }): Promise<DailyChargeActivity[]>;
  refunds(owner: Owner, range: { since: Date; until: Date }): Promise<DailyRefundActivity[]>;
}

export const OVERVIEW_PERIODS = [7, 30, 90] as const;
export type OverviewPeriod = (typeof OVERVIEW_PERIODS)[number];
export const DEFAULT_PERIOD: OverviewPeriod = 30;

export function periodOf(value: string | undefined): OverviewPeriod | undefined {
  if (value === undefined) return DEFAULT_PERIOD;
  return OVERVIEW_PERIODS.find((period) => String(period) === value);
}

export interface OverviewDay {
  day: string;
  /** Succeeded charges' amount, minor units. */
  volume: bigint;
  succeeded: number;
  /** Failed or expired. */
  unsuccessful: number;
  /**
   * Succeeded out of those with an outcome, in basis points (0 to 10 000) rounded half up (11 of 12 is
   * 9167); null with no outcome. The page's percentage is rounded from the counts, not from this.
   */
  successRate: number | null;
  refunded: bigint;
  refunds: number;
}

export interface MethodShare {
  method: PaymentMethod;
  succeeded: number;
  volume: bigint;
  /** Of the period's volume, in basis points. */
  share: number;
}

/** A bar of a chart, in the chart's own coordinates (viewBox `0 0 WIDTH HEIGHT`). */
export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  day: string;
}

export interface Chart {
  bars: Bar[];
  /** The largest value, the top of the scale (0 when every day is 0). */
  max: bigint;
}

export interface Overview {
  period: OverviewPeriod;
  since: string;
  until: string;
  days: OverviewDay[];
  totals: Omit<OverviewDay, 'day'>;
  methods: MethodShare[];
  charts: { volume: Chart; count: Chart; successRate: Chart; refunded: Chart };
}

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 160;

const METHODS: readonly PaymentMethod[] = ['credit_card_tr', 'credit_card_international', 'bank_transfer'];

function rate(succeeded: number, unsuccessful: number): number | null {
  const decided = succeeded + unsuccessful;
  return decided === 0 ? null : roundedShare(BigInt(succeeded), BigInt(decided), 10_000n);
}

/**
 * `part / whole` in units of `1 / scale`, rounded half up as a merchant expects (11 of 12 in tenths of a
 * percent is 917, not 916); integer arithmetic only. `whole` must be above zero.
 */
export function roundedShare(part: bigint, whole: bigint, scale: bigint): number {
  return Number((part * scale * 2n + whole) / (whole * 2n));
}

/** Bars for one value per day, scaled to the largest (or to `scale`); a day of 0 has no height. */
export function barChart(days: readonly string[], values: readonly bigint[], scale?: bigint): Chart {
  const max = scale ?? values.reduce((top, value) => (value > top ? value : top), 0n);
  const slot = CHART_WIDTH / days.length;
  const gap = slot > 6 ? Math.min(4, slot * 0.2) : 0;
  const bars = days.map((day, index) => {
    const value = values[index] ?? 0n;
    // Heights in tenths of a pixel from integer arithmetic: no float ever holds an amount.
    const height = max === 0n ? 0 : Number((value * BigInt(CHART_HEIGHT * 10)) / max) / 10;
    return {
      x: Math.round((index * slot + gap / 2) * 10) / 10,
      y: Math.round((CHART_HEIGHT - height) * 10) / 10,
      width: Math.round((slot - gap) * 10) / 10,
      height,
      day,
    };
  });
  return { bars, max };
}

/** The UTC days of the period ending today (`now`'s day), oldest first. */
export function periodDays(now: Date, period: OverviewPeriod): { days: string[]; since: Date; until: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (period - 1) * DAY);
  const until = new Date(today + DAY);
  const days = Array.from({ length: period }, (_, index) =>
    new Date(since.getTime() + index * DAY).toISOString().slice(0, 10),
  );
  return { days, since, until };
}

export async function overviewOf(
  reader: ActivityReader,
  owner: Owner,
  now: Date,
  period: OverviewPeriod,
): Promise<Overview> {
  const { days, since, until } = periodDays(now, period);
  const [charges, refunds] = await Promise.all([
    reader.charges(owner, { since, until }),
    reader.refunds(owner, { since, until }),
  ]);
  const byDay = new Map<string, OverviewDay>(
    days.map((day) => [
      day,
      { day, volume: 0n, succeeded: 0, unsuccessful: 0, successRate: null, refunded: 0n, refunds: 0 },
    ]),
  );
  const methods = new Map<PaymentMethod, { succeeded: number; volume: bigint }>(
    METHODS.map((method) => [method, { succeeded: 0, volume: 0n }]),
  );
  for (const row of charges) {
    const day = byDay.get(row.day);
    if (day) {
      day.volume += row.volume;
      day.succeeded += row.succeeded;
      day.unsuccessful += row.unsuccessful;
    }
    const method = methods.get(row.method);
    if (method) {
      method.succeeded += row.succeeded;
      method.volume += row.volume;
    }
  }
  for (const row of refunds) {
    const day = byDay.get(row.day);
    if (day) {
      day.refunded += row.amount;
      day.refunds += row.count;
    }
  }
  const list = [...byDay.values()];
  for (const day of list) day.successRate = rate(day.succeeded, day.unsuccessful);
  const totals = list.reduce(
    (sum, day) => ({
      volume: sum.volume + day.volume,
      succeeded: sum.succeeded + day.succeeded,
      unsuccessful: sum.unsuccessful + day.unsuccessful,
      successRate: null,
      refunded: sum.refunded + day.refunded,
      refunds: sum.refunds + day.refunds,
    }),
    {
      volume: 0n,
      succeeded: 0,
      unsuccessful: 0,
      successRate: null as number | null,
      refunded: 0n,
      refunds: 0,
    },
  );
  totals.successRate = rate(totals.succeeded, totals.unsuccessful);
  return {
    period,
    since: days[0] ?? '',
    until: days.at(-1) ?? '',
    days: list,
    totals,
    methods: METHODS.map((method) => {
      const { succeeded, volume } = methods.get(method) ?? { succeeded: 0, volume: 0n };
      return {
        method,
        succeeded,
        volume,
        share: totals.volume === 0n ? 0 : Number((volume * 10_000n) / totals.volume),
      };
    }),
    charts: {
      volume: barChart(
        days,
        list.map((day) => day.volume),
      ),
      count: barChart(
        days,
        list.map((day) => BigInt(day.succeeded)),
      ),
      successRate: barChart(
        days,
        list.map((day) => BigInt(day.successRate ?? 0)),
        10_000n,
      ),
      refunded: barChart(
        days,
        list.map((day) => day.refunded),
      ),
    },
  };
}
