import type { Locale } from '../../web/i18n.js';
import type { DisputeRatiosView } from '../disputes/ratios/schemas.js';
import { ratioChart, type RatioChart } from './dispute-ratio-chart.js';
import type { DisputeRatioMessages } from './dispute-ratio-i18n.js';
import { format } from './i18n.js';

/**
 * What the chargeback-ratio page shows of `GET /v1/dispute-ratios`' figures, in the page's language: per
 * scheme, both ratios of the month so far with their projection, levels and chart, and the history.
 * Every number is the API's; only its spelling changes (`1.2500%`, `%1,2500`).
 */

type SchemeView = DisputeRatiosView['schemes'][number];
type PastMonth = SchemeView['history'][number];
/**
 * A scheme's figures as `GET /v1/dispute-ratios` sends them. The schema's static type of a current
 * figure keeps only its projection and levels (TypeBox loses the members it spreads in), so the counts
 * are added back here from a past month's type, which has them.
 */
type SchemeRatios = Omit<SchemeView, 'visaStyle' | 'mastercardStyle'> & {
  visaStyle: SchemeView['visaStyle'] & PastMonth['visaStyle'];
  mastercardStyle: SchemeView['mastercardStyle'] & PastMonth['mastercardStyle'];
};
type RatioKey = 'visaStyle' | 'mastercardStyle';
type Level = SchemeView['visaStyle']['levels'][number];

const tag = (locale: Locale) => (locale === 'tr' ? 'tr-TR' : 'en-US');

/** A percentage string of the API as the page spells it; `none` without sales to divide by. */
export function shownPercent(percent: string | null, locale: Locale, none: string): string {
  if (percent === null) return none;
  return locale === 'tr' ? `%${percent.replace('.', ',')}` : `${percent}%`;
}

export const shownCount = (count: number, locale: Locale) => count.toLocaleString(tag(locale));

const monthDate = (month: string) => new Date(`${month}-01T00:00:00.000Z`);
const monthName = (month: string, locale: Locale) =>
  new Intl.DateTimeFormat(tag(locale), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    monthDate(month),
  );
const monthShort = (month: string, locale: Locale) =>
  new Intl.DateTimeFormat(tag(locale), { month: 'short', timeZone: 'UTC' }).format(monthDate(month));

export const levelName = (level: string, messages: DisputeRatioMessages) =>
  messages.levelNames[level] ?? level;

function levelView(level: Level, locale: Locale, messages: DisputeRatioMessages) {
  return {
    ...level,
    name: levelName(level.level, messages),
    thresholdShown: shownPercent(level.thresholdPercent, locale, ''),
    minimumShown: shownCount(level.minimumCount, locale),
    proximityShown: shownPercent(level.proximityPercent, locale, ''),
    status: level.crossed
      ? messages.levels.crossed
      : level.projectedCrossed
        ? messages.levels.projectedCrossed
        : messages.levels.clear,
  };
}

/** The count and the divisor of a ratio, this month or a past one. */
function fractionOf(scheme: Pick<SchemeRatios, RatioKey> | PastMonth, key: RatioKey) {
  return key === 'visaStyle'
    ? { count: scheme.visaStyle.counted, sales: scheme.visaStyle.sales, percent: scheme.visaStyle.percent }
    : {
        count: scheme.mastercardStyle.chargebacks,
        sales: scheme.mastercardStyle.previousMonthSales,
        percent: scheme.mastercardStyle.percent,
      };
}

const shownFraction = (
  fraction: ReturnType<typeof fractionOf>,
  locale: Locale,
  messages: DisputeRatioMessages,
) => ({
  ...fraction,
  shown: shownPercent(fraction.percent, locale, messages.noSales),
  countShown: shownCount(fraction.count, locale),
  salesShown: shownCount(fraction.sales, locale),
});

function ratioView(
  scheme: SchemeRatios,
  key: RatioKey,
  month: string,
  locale: Locale,
  messages: DisputeRatioMessages,
) {
  const words = messages.ratios[key];
  const current = scheme[key];
  const now = fractionOf(scheme, key);
  const percent = (value: string | null) => shownPercent(value, locale, messages.noSales);
  const levels = current.levels.map((level) => levelView(level, locale, messages));
  const history = scheme.history.map((past) => ({ month: past.month, ...fractionOf(past, key) }));
  const chart: RatioChart = ratioChart({
    history: history.map((past) => ({
      month: past.month,
      label: monthShort(past.month, locale),
      percent: past.percent,
    })),
    current: { month, label: monthShort(month, locale), percent: now.percent },
    projectedPercent: current.projected.percent,
    levels: levels.map((level) => ({
      level: level.level,
      label: `${level.name} ${level.thresholdShown}`,
      thresholdPercent: level.thresholdPercent,
      crossed: level.crossed,
    })),
  });
  return {
    key,
    id: `${scheme.scheme}-${key === 'visaStyle' ? 'visa-style' : 'mastercard-style'}`,
    words,
    ...now,
    shown: percent(now.percent),
    countShown: shownCount(now.count, locale),
    salesShown: shownCount(now.sales, locale),
    projected: {
      ...current.projected,
      shown: percent(current.projected.percent),
      countShown: shownCount(current.projected.count, locale),
      salesShown: shownCount(current.projected.sales, locale),
    },
    levels,
    chart,
    chartScale: format(messages.chart.scale, { max: shownPercent(chart.top, locale, '') }),
    chartLabel: format(messages.chart.label, {
      ratio: words.name,
      scheme: messages.schemes[scheme.scheme],
      history: history.map((past) => `${monthShort(past.month, locale)} ${percent(past.percent)}`).join(', '),
      current: percent(now.percent),
      projected: percent(current.projected.percent),
    }),
  };
}

/** Whether a scheme had any card sale, dispute or fraud report in the seven months shown. */
function active(scheme: SchemeRatios): boolean {
  const months = [scheme, ...scheme.history];
  return months.some(
    (month) =>
      month.visaStyle.sales > 0 ||
      month.visaStyle.counted > 0 ||
      month.visaStyle.fraudWarnings > 0 ||
      month.mastercardStyle.chargebacks > 0 ||
      month.mastercardStyle.previousMonthSales > 0,
  );
}

/** The page's figures, from the ratios of the session's owner. */
export function ratioPageView(view: DisputeRatiosView, locale: Locale, messages: DisputeRatioMessages) {
  return {
    month: view.month,
    monthName: monthName(view.month, locale),
    asOf: view.asOf,
    countedOnce: view.countFraudAndDisputeOnce,
    schemes: (view.schemes as SchemeRatios[]).map((scheme) => ({
      scheme: scheme.scheme,
      name: messages.schemes[scheme.scheme],
      active: active(scheme),
      visaBreakdown: format(messages.visaBreakdown, {
        fraudWarnings: shownCount(scheme.visaStyle.fraudWarnings, locale),
        disputes: shownCount(scheme.visaStyle.disputes, locale),
        overlap: shownCount(scheme.visaStyle.fraudWarningsAlsoDisputed, locale),
      }),
      ratios: (['visaStyle', 'mastercardStyle'] as const).map((key) =>
        ratioView(scheme, key, view.month, locale, messages),
      ),
      history: scheme.history.map((past) => ({
        month: past.month,
        name: monthName(past.month, locale),
        visaStyle: shownFraction(fractionOf(past, 'visaStyle'), locale, messages),
        mastercardStyle: shownFraction(fractionOf(past, 'mastercardStyle'), locale, messages),
      })),
    })),
  };
}
