import pMap from 'p-map';
import { settlementOutcomes } from '../../metrics/registry.js';
import type { BatchDeps, OwnerOutcome } from './batch-types.js';
import { utcDateOf } from '../../shared/business-calendar.js';
import type { BatchContext } from './context.js';
import type { BatchRow } from './model.js';
import { payOut, runQuotes, type QuoteOf } from './pay-out.js';
import type { ReleaseOptions, ReleaseOutcome } from './release-types.js';
import * as settlement from './repository.js';
import { batchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * One owner's batch through the per-owner steps: the release, then the payout phase (pay-out.ts); the
 * sandbox's settle-now, and the worker's pass over batches whose payout phase a killed process cut off.
 */

/** One owner's batch of a business date: the release, then the payout phase. Safe to repeat. */
export async function settleOwner(
  deps: BatchDeps,
  owner: Owner,
  options: ReleaseOptions,
  quoteOf: QuoteOf = deps.payouts.quote,
): Promise<OwnerOutcome> {
  const released: ReleaseOutcome = await deps.settlement.release(owner, options);
  if (!released.released) return { batch: null, reason: released.reason };
  const { batch, settled } = await payOut(deps, released.batch.id, owner, quoteOf);
  if (settled && batch.status !== 'held') deps.mailer.nudge();
  return { batch: batchView(batch), settled };
}

/**
 * The sandbox test helper: the owner's batch now, as a batch of today's UTC date (`origin: test_helper`).
 * A batch an earlier call (or run) released but did not pay out, its process killed in between, is paid
 * out first: the call finishes what was left, then releases what came since.
 */
export async function settleNow(deps: BatchDeps, owner: Owner): Promise<OwnerOutcome> {
  let resumed: { batch: BatchRow; settled: boolean } | undefined;
  for (const open of await settlement.releasedOf(deps.db, owner)) {
    resumed = await payOut(deps, open.id, owner, deps.payouts.quote);
    if (resumed.settled && resumed.batch.status !== 'held') deps.mailer.nudge();
  }
  const now = deps.clock.now();
  const outcome = await settleOwner(deps, owner, {
    cutoff: now,
    businessDate: utcDateOf(now),
    origin: 'test_helper',
  });
  if (outcome.batch === null && resumed !== undefined)
    return { batch: batchView(resumed.batch), settled: resumed.settled };
  return outcome;
}

/**
 * The worker's pass over batches released at or before `before` whose payout phase never ran (their
 * process was killed between the two steps), of any date and origin: each goes through the payout phase
 * as a run would take it up, at most `limit`.
 */
export async function resumeReleased(
  run: BatchContext,
  before: Date,
  limit = 100,
): Promise<{ resumed: number; failed: number }> {
  const { logger } = run;
  const report = { resumed: 0, failed: 0 };
  const quoteOf = runQuotes(run);
  await pMap(
    await settlement.releasedSince(run.db, before, limit),
    async (open) => {
      const owner = { organizationId: open.organization_id, environment: open.environment };
      try {
        const { batch, settled } = await payOut(run, open.id, owner, quoteOf);
        if (!settled) return;
        report.resumed += 1;
        if (batch.status !== 'held') run.mailer.nudge();
        settlementOutcomes.inc({ outcome: batch.status });
        logger.info(
          { batchId: batch.id, businessDate: batch.business_date, status: batch.status },
          'settlement batch released before an interruption: payout phase resumed',
        );
      } catch (error) {
        report.failed += 1;
        settlementOutcomes.inc({ outcome: 'failed' });
        logger.error(
          { err: error, ...owner, batchId: open.id, businessDate: open.business_date },
          'resuming the payout phase of a released batch failed; the next pass tries again',
        );
      }
    },
    { concurrency: run.concurrency },
  );
  return report;
}
