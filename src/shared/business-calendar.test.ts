import { describe, expect, it } from 'vitest';
import { addDays, createBusinessCalendar, parseBusinessDate } from './business-calendar.js';

const calendar = createBusinessCalendar();

/** Every date of a year that the calendar closes as a public holiday. */
function holidaysOf(year: number): string[] {
  const closed: string[] = [];
  for (let date = `${year}-01-01`; date.startsWith(String(year)); date = addDays(date, 1)) {
    if (calendar.holidayOn(date) !== undefined) closed.push(date);
  }
  return closed;
}

describe('the Turkish business-day calendar', () => {
  // The official lists of public holidays (resmî tatiller) for 2026 and 2027, whole days only; the
  // half-day eves (19 March, 26 May and 28 October 2026; 8 March, 15 May and 28 October 2027) are
  // business days for settlement, which runs at 06:00 Istanbul time.
  it('closes exactly the official public holidays of 2026', () => {
    expect(holidaysOf(2026)).toEqual([
      '2026-01-01',
      '2026-03-20',
      '2026-03-21',
      '2026-03-22', // Ramazan Bayramı
      '2026-04-23',
      '2026-05-01',
      '2026-05-19',
      '2026-05-27',
      '2026-05-28',
      '2026-05-29',
      '2026-05-30', // Kurban Bayramı
      '2026-07-15',
      '2026-08-30',
      '2026-10-29',
    ]);
  });

  it('closes exactly the official public holidays of 2027', () => {
    expect(holidaysOf(2027)).toEqual([
      '2027-01-01',
      '2027-03-09',
      '2027-03-10',
      '2027-03-11', // Ramazan Bayramı
      '2027-04-23',
      '2027-05-01',
      '2027-05-16',
      '2027-05-17',
      '2027-05-18',
      '2027-05-19', // Kurban Bayramı; 19 May is also Youth Day
      '2027-07-15',
      '2027-08-30',
      '2027-10-29',
    ]);
  });

  it('keeps half-day eves open and closes weekends', () => {
    for (const eve of ['2026-03-19', '2026-05-26', '2026-10-28', '2027-03-08', '2027-10-28']) {
      expect(calendar.isBusinessDay(eve), eve).toBe(true);
    }
    expect(calendar.isBusinessDay('2026-11-21')).toBe(false); // Saturday
    expect(calendar.isBusinessDay('2026-11-22')).toBe(false); // Sunday
    expect(calendar.isBusinessDay('2026-11-23')).toBe(true); // Monday
    expect(calendar.isBusinessDay('2026-10-29')).toBe(false); // Republic Day, a Thursday
  });

  it('finds the next business day across weekends, a multi-day bayram and declared closures', () => {
    expect(calendar.nextBusinessDay('2026-11-20')).toBe('2026-11-23'); // Friday -> Monday
    expect(calendar.nextBusinessDay('2026-05-26')).toBe('2026-06-01'); // eve -> after Kurban Bayramı and a Sunday
    expect(calendar.nextBusinessDay('2026-03-19')).toBe('2026-03-23'); // eve -> Monday after Ramazan Bayramı
    expect(calendar.nextBusinessDay('2026-10-28')).toBe('2026-10-30');
    expect(calendar.nextBusinessDay('2026-12-31')).toBe('2027-01-04'); // New Year, then a weekend
    const closures = new Set(['2026-11-23', '2026-11-24']);
    expect(calendar.isBusinessDay('2026-11-23', closures)).toBe(false);
    expect(calendar.nextBusinessDay('2026-11-20', closures)).toBe('2026-11-25');
    expect(calendar.previousBusinessDay('2026-06-01')).toBe('2026-05-26');
  });

  it('refuses what is not a calendar date', () => {
    for (const text of ['2026-02-30', '2026-2-01', '', '2026-13-01', 'tomorrow']) {
      expect(() => parseBusinessDate(text), text).toThrow(RangeError);
    }
  });
});
