import type { NextBatchView, SkippedDate } from './batch-types.js';
import { addDays, parseBusinessDate, utcDateOf } from '../../shared/business-calendar.js';
import type { BatchContext } from './context.js';
import * as settlement from './repository.js';
import { batchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** How far ahead the next batch is looked for (past any run of holidays and closures). */
const NEXT_BATCH_LOOKAHEAD_DAYS = 60;

/**
 * What the owner's next batch is expected to be (the dashboard's balance page): the next cutoff on a
 * business day after now, each skipped date said, and, were `pending` released then, the reserve it
 * would hold back and the reserves due by that date it would release; and its batches held for a rate.
 */
export async function nextBatch(run: BatchContext, owner: Owner, pending: string): Promise<NextBatchView> {
  const { db, calendar, cutoffOf } = run;
  const now = run.clock.now();
  const today = utcDateOf(now);
  const closures = new Map(
    (await settlement.listClosures(db, today, addDays(today, NEXT_BATCH_LOOKAHEAD_DAYS))).map((row) => [
      row.business_date,
      row.reason,
    ]),
  );
  const skipped: SkippedDate[] = [];
  let date = today;
  for (let i = 0; i <= NEXT_BATCH_LOOKAHEAD_DAYS; i++, date = addDays(date, 1)) {
    const weekday = parseBusinessDate(date).getUTCDay();
    const holiday = calendar.holidayOn(date);
    const closure = closures.get(date);
    const closed: SkippedDate | undefined =
      weekday === 0 || weekday === 6
        ? { date, kind: 'weekend', name: '' }
        : holiday !== undefined
          ? { date, kind: 'holiday', name: holiday }
          : closure !== undefined
            ? { date, kind: 'closure', name: closure }
            : undefined;
    if (closed) skipped.push(closed);
    else if (cutoffOf(date).getTime() > now.getTime()) break;
  }
  const settings = await settlement.findSettings(db, owner.organizationId);
  const reserveBps = settings?.reserve_bps ?? 0;
  const net = BigInt(pending) > 0n ? BigInt(pending) : 0n;
  const held = (net * BigInt(reserveBps)) / 10_000n;
  const released = (await settlement.dueReserves(db, owner, date)).reduce(
    (total, row) => total + row.remaining,
    0n,
  );
  const heldRows = await settlement.listBatches(db, { ...owner, status: 'held' }, undefined, 10);
  return {
    businessDate: date,
    cutoff: cutoffOf(date).toISOString(),
    skipped,
    schedule: settings?.payout_schedule ?? 'daily',
    expected: {
      net: net.toString(),
      held: held.toString(),
      released: released.toString(),
      toAvailable: (net - held + released).toString(),
    },
    reserve: { reserveBps, days: settings?.reserve_days ?? 0 },
    heldBatches: heldRows.map(batchView),
  };
}
