import { err, ok, type Result } from '../../shared/result.js';
import type { AuditEntry } from '../audit/service.js';
import { reasonOf } from '../../shared/reasons.js';
import type { Actor, BatchDeps, ClosureView, SettlementCommandError } from './batch-types.js';
import { parseBusinessDate, type BusinessDate } from '../../shared/business-calendar.js';
import type { BatchContext } from './context.js';
import type { ClosureRow } from './model.js';
import * as settlement from './repository.js';

/**
 * Business days and the closures an operator declares (audited): a batch runs Monday to Friday, not on a
 * Turkish public holiday, not on a declared closure.
 */

const REASON_MAX_LENGTH = 500;

/** Whether a batch runs on this date: Monday to Friday, not a Turkish public holiday, not closed. */
export async function businessDay(
  run: Pick<BatchContext, 'db' | 'calendar'>,
  date: BusinessDate,
): Promise<{ open: true } | { open: false; why: string }> {
  const weekday = parseBusinessDate(date).getUTCDay();
  if (weekday === 0 || weekday === 6) return { open: false, why: 'weekend' };
  const holiday = run.calendar.holidayOn(date);
  if (holiday !== undefined) return { open: false, why: `public holiday: ${holiday}` };
  const closure = (await settlement.listClosures(run.db, date, date))[0];
  if (closure) return { open: false, why: `closure: ${closure.reason}` };
  return { open: true };
}

export async function closures(
  deps: Pick<BatchDeps, 'db'>,
  range: { from: BusinessDate; to: BusinessDate },
): Promise<ClosureView[]> {
  return (await settlement.listClosures(deps.db, range.from, range.to)).map(closureView);
}

/** Declares `date` closed (the caller checked it: `onTypedDate`). */
export async function declareClosure(
  deps: BatchDeps,
  date: BusinessDate,
  reason: string,
  by: Actor,
): Promise<Result<ClosureView, SettlementCommandError>> {
  const trimmed = reasonOf(reason, REASON_MAX_LENGTH);
  if (trimmed === undefined) return err({ code: 'reason_required' });
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const row = { business_date: date, reason: trimmed, declared_by: by.actor, created_at: now };
    if (!(await settlement.insertClosure(trx, row))) return err({ code: 'closure_exists' as const });
    await deps.audit.record(
      trx,
      dateEntry(by, 'settlement.closure_declared', date, { after: { reason: trimmed } }),
    );
    return ok(closureView(row));
  });
}

/** Removes the closure of `date` (the caller checked it: `onTypedDate`). */
export async function removeClosure(
  deps: BatchDeps,
  date: BusinessDate,
  by: Actor,
): Promise<Result<ClosureView, SettlementCommandError>> {
  return deps.db.transaction().execute(async (trx) => {
    const removed = await settlement.deleteClosure(trx, date);
    if (!removed) return err({ code: 'closure_not_found' as const });
    await deps.audit.record(
      trx,
      dateEntry(by, 'settlement.closure_removed', date, { before: { reason: removed.reason } }),
    );
    return ok(closureView(removed));
  });
}

/** The audit entry of an operator's command on a business date (a closure declared or removed, a run). */
export function dateEntry(
  by: Actor,
  action: string,
  date: BusinessDate,
  change: { before?: unknown; after?: unknown } = {},
): AuditEntry {
  return {
    actor: by.actor,
    action,
    targetType: 'business_date',
    targetId: date,
    organizationId: null,
    ...change,
    requestId: by.requestId ?? null,
    ip: by.ip ?? null,
  };
}

/** `command` on a business date an operator typed (`YYYY-MM-DD`): `invalid_date` before it runs. */
export async function onTypedDate<T>(
  text: string,
  command: (date: BusinessDate) => Promise<Result<T, SettlementCommandError>>,
): Promise<Result<T, SettlementCommandError>> {
  const date = checkedDate(text);
  return date.ok ? command(date.value) : date;
}

/** A business date as an operator typed it (`YYYY-MM-DD`), or `invalid_date`. */
export function checkedDate(text: string): Result<BusinessDate, SettlementCommandError> {
  try {
    parseBusinessDate(text);
    return ok(text);
  } catch (error) {
    return err({ code: 'invalid_date', message: (error as Error).message });
  }
}

function closureView(row: ClosureRow): ClosureView {
  return {
    businessDate: row.business_date,
    reason: row.reason,
    declaredBy: row.declared_by,
    createdAt: row.created_at.toISOString(),
  };
}
