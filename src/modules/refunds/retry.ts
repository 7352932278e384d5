import type { Claimed, DueQueue } from '../../worker/queue.js';
import { AcquirerRejectedError } from '../acquirer/types.js';
import { deferClaimed, type DueOutcome } from '../../worker/due-batch.js';
import { ask } from './acquirer-answers.js';
import type { RefundServiceDeps } from './deps.js';
import * as refunds from './repository.js';

/**
 * The retry job's work of one claimed refund (`workDueBatch`): asks the acquirer again; its answer moves
 * the refund out of `pending`.
 */
export async function retryClaimed(
  deps: RefundServiceDeps,
  retry: DueQueue,
  claimed: Claimed,
): Promise<DueOutcome> {
  const row = await refunds.findById(deps.db, claimed.id);
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
    return 'done';
  } catch (error) {
    return deferClaimed(deps, retry, claimed, error, {
      context: { refundId: claimed.id },
      message: 'refund retry deferred: the acquirer is unavailable',
    });
  }
}
