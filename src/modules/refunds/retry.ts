import type { BatchReport, Claimed, DueQueue } from '../../worker/queue.js';
import { AcquirerRejectedError } from '../acquirer/types.js';
import { ask } from './acquirer-answers.js';
import type { RefundServiceDeps } from './deps.js';
import * as refunds from './repository.js';

/** Asks the acquirer again for one claimed refund; its answer moves the refund out of `pending`. */
async function retryOne(
  deps: RefundServiceDeps,
  retry: DueQueue,
  claimed: Claimed,
): Promise<'settled' | 'failed'> {
  const { db, logger } = deps;
  const row = await refunds.findById(db, claimed.id);
  try {
    if (!row) throw new Error(`refund ${claimed.id} is gone`);
    const paymentId = await deps.charges.providerPaymentId(row.charge_id);
    const acquirer = deps.acquirerFor(row.environment);
    if (!acquirer || paymentId === null) {
      throw new Error(`no acquirer payment to refund (${row.environment})`);
    }
    try {
      await ask(deps, retry, row, paymentId, acquirer, claimed);
    } catch (error) {
      // A refusal is recorded (the refund failed); anything else, a "not now" 4xx included, defers it.
      if (!(error instanceof AcquirerRejectedError) || error.transient) throw error;
    }
    return 'settled';
  } catch (error) {
    logger.warn({ err: error, refundId: claimed.id }, 'refund retry deferred: the acquirer is unavailable');
    await db.transaction().execute((trx) => retry.fail(trx, claimed, error));
    return 'failed';
  }
}

/** One batch of the retry job: claims due pending refunds, and reports what became of them. */
export async function retryPendingBatch(
  deps: RefundServiceDeps,
  retry: DueQueue,
  limit = 20,
): Promise<BatchReport> {
  const claimed = await retry.claim(limit);
  const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
  for (const refund of claimed) {
    if ((await retryOne(deps, retry, refund)) === 'settled') report.done++;
    else report.failed++;
  }
  return report;
}
