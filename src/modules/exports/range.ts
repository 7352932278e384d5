import { DAY } from '../../shared/clock.js';
import type { CreatedWindow } from '../../shared/pagination.js';

/** Why a requested range is refused. */
export type ExportRangeError =
  'kind' | 'fromMissing' | 'toMissing' | 'fromInvalid' | 'toInvalid' | 'order' | 'tooLong';

/** The longest range one file covers, in days (both ends included): a leap year. */
export const EXPORT_MAX_DAYS = 366;
/** The dates a range may name. */
export const EXPORT_EARLIEST = '2000-01-01';
export const EXPORT_LATEST = '2999-12-31';

export type ExportRange =
  { ok: true; window: CreatedWindow; from: string; to: string } | { ok: false; errors: ExportRangeError[] };

/** The UTC calendar day of a time, `YYYY-MM-DD`. */
export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/** A calendar date `YYYY-MM-DD` between the earliest and the latest, as its UTC midnight. */
function dayOf(text: string): Date | undefined {
  if (!/^\d{4}-\d\d-\d\d$/.test(text) || text < EXPORT_EARLIEST || text > EXPORT_LATEST) return undefined;
  const day = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(day.getTime()) || utcDay(day) !== text ? undefined : day;
}

/**
 * The range of an export: `from` and `to` are UTC calendar days, both included, so the window of
 * creation times is [from 00:00Z, the day after `to` 00:00Z). Missing, malformed or impossible dates,
 * `from` after `to` and more than `EXPORT_MAX_DAYS` days are refused.
 */
export function exportRange(from: string | undefined, to: string | undefined): ExportRange {
  const errors: ExportRangeError[] = [];
  const fromText = from?.trim() ?? '';
  const toText = to?.trim() ?? '';
  const start = dayOf(fromText);
  const end = dayOf(toText);
  if (fromText === '') errors.push('fromMissing');
  else if (!start) errors.push('fromInvalid');
  if (toText === '') errors.push('toMissing');
  else if (!end) errors.push('toInvalid');
  if (!start || !end) return { ok: false, errors };
  if (start > end) return { ok: false, errors: ['order'] };
  const days = (end.getTime() - start.getTime()) / DAY + 1;
  if (days > EXPORT_MAX_DAYS) return { ok: false, errors: ['tooLong'] };
  return {
    ok: true,
    window: { from: start, to: new Date(end.getTime() + DAY) },
    from: fromText,
    to: toText,
  };
}
