import type { Logger } from 'pino';
import type { Kdb } from '../db/database.js';
import type { BatchReport, Claimed, DueQueue } from './queue.js';

// The sweep of a due-row job (the charge expiry, the refund retry): claim a batch, work each row in turn.

/** What became of a claimed row: done, failed (due again after the backoff), or neither (ended otherwise). */
export type DueOutcome = 'done' | 'failed' | 'neither';

/** One batch of a due-row job: claims up to `limit` rows of `queue`, works each, and reports the outcomes. */
export async function workDueBatch(
  queue: DueQueue,
  limit: number,
  work: (claimed: Claimed) => Promise<DueOutcome>,
): Promise<BatchReport> {
  const claimed = await queue.claim(limit);
  const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
  for (const row of claimed) {
    const outcome = await work(row);
    if (outcome !== 'neither') report[outcome]++;
  }
  return report;
}

/** Logs why a claimed row's work was deferred and records the failed attempt, in its own transaction. */
export async function deferClaimed(
  deps: { db: Kdb; logger: Logger },
  queue: DueQueue,
  claimed: Claimed,
  error: unknown,
  log: { context: Record<string, unknown>; message: string },
): Promise<'failed'> {
  deps.logger.warn({ err: error, ...log.context }, log.message);
  await deps.db.transaction().execute((trx) => queue.fail(trx, claimed, error));
  return 'failed';
}
