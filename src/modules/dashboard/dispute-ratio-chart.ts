/**
 * The chargeback-ratio page's chart, drawn as SVG on the server (the CSP allows no script of anyone
 * else's, and a chart needs none; its colours and dashes are classes of styles.css): one bar per month,
 * the six complete months and this month so far, the projection to the month end as a dashed bar behind
 * this month's, and a line at each level's threshold. Ratios come as the API's exact percentage strings;
 * they are read as parts per million (integers), and only the drawing's coordinates are fractions.
 */

export const RATIO_CHART_WIDTH = 600;
export const RATIO_CHART_HEIGHT = 200;
const LEFT = 8;
const RIGHT = RATIO_CHART_WIDTH - 8;
const TOP = 14;
const BASELINE = RATIO_CHART_HEIGHT - 22;
const PLOT_HEIGHT = BASELINE - TOP;

export interface ChartMonth {
  /** `YYYY-MM`. */
  month: string;
  /** What the month's label under its bar says (`Nov`). */
  label: string;
  /** The month's ratio (`"1.2500"`, a percentage); null without sales. */
  percent: string | null;
}

export interface ChartLevel {
  level: string;
  /** The level's name and threshold as the page shows them. */
  label: string;
  thresholdPercent: string;
  crossed: boolean;
}

export interface ChartBar {
  x: number;
  y: number;
  width: number;
  height: number;
  month: string;
  percent: string | null;
}

export interface RatioChart {
  width: number;
  height: number;
  baseline: number;
  left: number;
  right: number;
  /** The past months, oldest first, then this month so far (`current`). */
  bars: ChartBar[];
  current: ChartBar;
  /** This month's projection to its end, behind its bar; null without sales to divide by. */
  projected: ChartBar | null;
  /** Each level's line at `y`, and its label at `labelY`: above the line, or above the label below it. */
  thresholds: Array<{ y: number; labelY: number; level: string; label: string; crossed: boolean }>;
  labels: Array<{ x: number; text: string }>;
  /** The top of the scale, a percentage string without trailing zeros (`"3.3"`). */
  top: string;
}

/** A percentage string (`"1.5"`, `"12.0000"`) in parts per million (1% = 10000). */
export function percentToPpm(percent: string): number {
  const [whole = '0', fraction = ''] = percent.split('.');
  return Number(whole) * 10_000 + Number(fraction.slice(0, 4).padEnd(4, '0'));
}

/** Parts per million as a percentage string without trailing zeros (`33000` -> `"3.3"`). */
export function ppmToPercent(ppm: number): string {
  const whole = Math.trunc(ppm / 10_000);
  const rest = (ppm % 10_000).toString().padStart(4, '0').replace(/0+$/, '');
  return rest === '' ? `${whole}` : `${whole}.${rest}`;
}

/** The top of the scale: a tenth above the largest value, rounded up to 1, 2, 2.5 or 5 times a power of ten. */
export function scaleTop(largestPpm: number): number {
  if (largestPpm <= 0) return 10_000;
  const target = Math.ceil((largestPpm * 11) / 10);
  let power = 1;
  while (power * 10 < target) power *= 10;
  for (const step of [1, 2, 2.5, 5, 10]) if (power * step >= target) return power * step;
  return power * 10;
}

const tenth = (value: number) => Math.round(value * 10) / 10;
/** The height of a label's line of text, in the chart's units (styles.css sets 12px). */
const LABEL_LINE = 13;

/**
 * Labels for lines that may lie close together (a 1.125% and a 1.5% threshold on a scale to 100%): each
 * just above its line, or a line of text above the label of the line below it, so none overlaps another.
 */
function stackedLabels<L extends { y: number }>(lines: L[]): Array<L & { labelY: number }> {
  const lowestFirst = [...lines].sort((a, b) => b.y - a.y);
  const placed = new Map<L, number>();
  let below = Number.POSITIVE_INFINITY;
  for (const line of lowestFirst) {
    const labelY = Math.max(LABEL_LINE - 2, Math.min(line.y - 3, below - LABEL_LINE));
    placed.set(line, tenth(labelY));
    below = labelY;
  }
  return lines.map((line) => ({ ...line, labelY: placed.get(line) ?? line.y }));
}

/** The chart of one ratio of one scheme. */
export function ratioChart(input: {
  history: ChartMonth[];
  current: ChartMonth;
  projectedPercent: string | null;
  levels: ChartLevel[];
}): RatioChart {
  const months = [...input.history, input.current];
  const values = [
    ...months.map((month) => month.percent),
    input.projectedPercent,
    ...input.levels.map((level) => level.thresholdPercent),
  ].flatMap((percent) => (percent === null ? [] : [percentToPpm(percent)]));
  const top = scaleTop(Math.max(0, ...values));
  const slot = (RIGHT - LEFT) / months.length;
  const heightOf = (percent: string | null) =>
    percent === null ? 0 : tenth((Math.min(percentToPpm(percent), top) * PLOT_HEIGHT) / top);
  const barAt = (index: number, month: string, percent: string | null, share: number): ChartBar => {
    const height = heightOf(percent);
    return {
      x: tenth(LEFT + index * slot + (slot * (1 - share)) / 2),
      y: tenth(BASELINE - height),
      width: tenth(slot * share),
      height,
      month,
      percent,
    };
  };
  const bars = months.map((month, index) => barAt(index, month.month, month.percent, 0.56));
  const currentIndex = months.length - 1;
  return {
    width: RATIO_CHART_WIDTH,
    height: RATIO_CHART_HEIGHT,
    baseline: BASELINE,
    left: LEFT,
    right: RIGHT,
    bars,
    current: bars[currentIndex]!,
    projected:
      input.projectedPercent === null
        ? null
        : barAt(currentIndex, input.current.month, input.projectedPercent, 0.72),
    thresholds: stackedLabels(
      input.levels.map((level) => ({
        y: tenth(BASELINE - heightOf(level.thresholdPercent)),
        level: level.level,
        label: level.label,
        crossed: level.crossed,
      })),
    ),
    labels: months.map((month, index) => ({ x: tenth(LEFT + (index + 0.5) * slot), text: month.label })),
    top: ppmToPercent(top),
  };
}
