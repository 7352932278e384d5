import Holidays from 'date-holidays';

/** A calendar date in Türkiye, `YYYY-MM-DD`. */
export type BusinessDate = string;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
/** Noon in Istanbul (UTC+3 all year since 2016) as an offset from the date's UTC midnight. */
const ISTANBUL_NOON_MS = 9 * 3_600_000;

export function parseBusinessDate(text: string): Date {
  const match = DATE.exec(text);
  const date = match === null ? new Date(NaN) : new Date(`${text}T00:00:00.000Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
    throw new RangeError(`not a calendar date (YYYY-MM-DD): ${JSON.stringify(text)}`);
  }
  return date;
}

function format(date: Date): BusinessDate {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: BusinessDate, days: number): BusinessDate {
  return format(new Date(parseBusinessDate(date).getTime() + days * DAY_MS));
}

/** The calendar date of an instant in UTC: the business date of a 03:00 UTC run is its UTC date. */
export function utcDateOf(instant: Date): BusinessDate {
  return format(instant);
}

export interface BusinessCalendar {
  /** The name of the Turkish public holiday that closes `date`, if one does. */
  holidayOn(date: BusinessDate): string | undefined;
  /**
   * Monday to Friday, not a Turkish public holiday, not an operator-declared closure. A half-day eve
   * (arife: the afternoons before the two bayrams and before 29 October) is a business day: the batch
   * runs at 03:00 UTC, 06:00 in Istanbul, hours before the half-day closing.
   */
  isBusinessDay(date: BusinessDate, closures?: ReadonlySet<BusinessDate>): boolean;
  /** The first business day strictly after `date`: a batch payout's `arrivalDate`. */
  nextBusinessDay(date: BusinessDate, closures?: ReadonlySet<BusinessDate>): BusinessDate;
  /** The last business day strictly before `date`, or undefined if none in the year before it. */
  previousBusinessDay(date: BusinessDate, closures?: ReadonlySet<BusinessDate>): BusinessDate | undefined;
}

/**
 * Business days in Türkiye from the date-holidays library's Turkish public holidays, whose religious
 * holidays (Ramazan and Kurban Bayramı) move every year. The library gives each holiday as an interval
 * that may start on the eve's afternoon; a date is closed when that interval covers its noon in Istanbul,
 * so the eve itself stays open.
 */
export function createBusinessCalendar(): BusinessCalendar {
  const holidays = new Holidays('TR', { types: ['public'] });
  const byYear = new Map<number, Map<BusinessDate, string>>();

  const closedDates = (year: number): Map<BusinessDate, string> => {
    let dates = byYear.get(year);
    if (dates !== undefined) return dates;
    dates = new Map();
    for (const holiday of holidays.getHolidays(year)) {
      if (holiday.type !== 'public') continue;
      const start = holiday.start.getTime();
      const end = holiday.end.getTime();
      // Every date whose Istanbul noon falls in [start, end).
      let day = Date.UTC(
        holiday.start.getUTCFullYear(),
        holiday.start.getUTCMonth(),
        holiday.start.getUTCDate(),
      );
      for (; day + ISTANBUL_NOON_MS < end; day += DAY_MS) {
        if (day + ISTANBUL_NOON_MS >= start) dates.set(format(new Date(day)), holiday.name);
      }
    }
    byYear.set(year, dates);
    return dates;
  };

  const holidayOn = (date: BusinessDate): string | undefined => {
    const year = parseBusinessDate(date).getUTCFullYear();
    return closedDates(year).get(date) ?? closedDates(year - 1).get(date);
  };

  const isBusinessDay = (date: BusinessDate, closures: ReadonlySet<BusinessDate> = new Set()): boolean => {
    const weekday = parseBusinessDate(date).getUTCDay();
    if (weekday === 0 || weekday === 6) return false;
    if (closures.has(date)) return false;
    return holidayOn(date) === undefined;
  };

  const step = (date: BusinessDate, direction: 1 | -1, closures?: ReadonlySet<BusinessDate>) => {
    let candidate = date;
    for (let i = 0; i < 366; i++) {
      candidate = addDays(candidate, direction);
      if (isBusinessDay(candidate, closures)) return candidate;
    }
    return undefined;
  };

  return {
    holidayOn,
    isBusinessDay,
    nextBusinessDay: (date, closures) => {
      const next = step(date, 1, closures);
      if (next === undefined) throw new RangeError(`no business day in the year after ${date}`);
      return next;
    },
    previousBusinessDay: (date, closures) => step(date, -1, closures),
  };
}
