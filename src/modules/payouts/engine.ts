import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { MINUTE, SECOND } from '../../shared/clock.js';
import type { JobKit } from '../../worker/kit.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import { sameAddress } from '../../shared/chain-address.js';
import type { BatchReport, Claimed, DueQueue, RetryPolicy } from '../../worker/queue.js';
import * as payouts from './repository.js';
import type { PayoutService } from './service.js';
import { RailRejectedError, type ChainWatcher, type SendingRail } from './rails/types.js';

/** Submission: a rail that cannot be reached is asked again with backoff for about a day, then parked. */
export const PAYOUT_SUBMIT_RETRY: RetryPolicy = {
  baseMs: 10 * SECOND,
  capMs: 30 * MINUTE,
  maxAttempts: 60,
  jitter: 0.2,
};
/**
 * Confirmation: a transaction is looked at again every few seconds, then minutes, for days (slow
 * confirmations are normal); only a transaction that never confirms in that time is parked for the operator.
 */
export const PAYOUT_CONFIRM_RETRY: RetryPolicy = {
  baseMs: 5 * SECOND,
  capMs: 5 * MINUTE,
  maxAttempts: 1000,
  jitter: 0.2,
};

/** Payouts in transit looked at per round of the confirmation job (the lease covers the round). */
const CONFIRM_ROUND = 10;

export interface PayoutEngine {
  /**
   * One round of the submission job: claims one due sandbox payout and sends it exactly once (one at a
   * time, so that the claim's lease covers the work it guards: a lookup and a send).
   */
  submitBatch(): Promise<BatchReport>;
  /** One round of the confirmation job: completes or fails payouts in transit from what the chain says. */
  confirmBatch(): Promise<BatchReport>;
}

export interface PayoutEngineDeps {
  db: Kdb;
  logger: Logger;
  jobs: JobKit;
  payouts: PayoutService;
  /** The rail the gateway asks to send: the sandbox chain (live money goes through the treasury). */
  rail: SendingRail;
  /** The bound of one call to the rail (PAYOUT_RAIL_TIMEOUT_MS); the submission lease derives from it. */
  railTimeoutMs: number;
  /** The chain watcher of an environment; undefined: its payouts wait in transit. */
  watcher: (environment: Environment) => ChainWatcher | undefined;
  /** Told of a transfer the rail made for a payout that is no longer pending (ADR 0055). */
  alerts: AlertRaiser;
}

/**
 * The payout engine (docs/decisions/0028-payouts.md, docs/payouts.md). Submission sets `submitted_at`
 * before the rail is first asked; a payout that has it is recovered by asking the rail what it did with the
 * payout id (the rail's idempotency key), never by sending blind, so a crash between sending and recording
 * cannot pay twice. Both jobs claim rows with SKIP LOCKED and a lease (the job kit), so two workers never
 * work on one payout at once.
 */
export function createPayoutEngine(deps: PayoutEngineDeps): PayoutEngine {
  const submitQueue = deps.jobs.queue({
    job: 'payout-submit',
    table: 'payouts',
    eligible: sql`status = 'pending' and rail = 'sandbox_chain'`,
    // One payout's work: at most a lookup and a send, each bounded by the rail timeout, and the database
    // around them. A worker killed mid-send holds its payout this long; the next one then asks the rail.
    leaseMs: 2 * deps.railTimeoutMs + 5 * SECOND,
    retry: PAYOUT_SUBMIT_RETRY,
  });
  const confirmQueue = deps.jobs.queue({
    job: 'payout-confirm',
    table: 'payouts',
    eligible: sql`status = 'in_transit'`,
    // A round's explorer calls, each bounded by the rail timeout.
    leaseMs: CONFIRM_ROUND * deps.railTimeoutMs + 5 * SECOND,
    retry: PAYOUT_CONFIRM_RETRY,
  });

  return {
    submitBatch: () => batch(submitQueue, (claimed) => submitOne(deps, submitQueue, claimed), 1),
    confirmBatch: () =>
      batch(confirmQueue, (claimed) => confirmOne(deps, confirmQueue, claimed), CONFIRM_ROUND),
  };
}

function release(db: Kdb, queue: DueQueue, claimed: Claimed) {
  return db.transaction().execute((trx) => queue.succeed(trx, claimed));
}

function retryLater(db: Kdb, queue: DueQueue, claimed: Claimed, error: unknown) {
  return db.transaction().execute((trx) => queue.fail(trx, claimed, error));
}

/** Sends one claimed sandbox payout, or asks the rail what it did with it; false: asked again later. */
async function submitOne(deps: PayoutEngineDeps, queue: DueQueue, claimed: Claimed): Promise<boolean> {
  const { db, logger } = deps;
  const row = await payouts.findById(db, claimed.id);
  if (!row || row.status !== 'pending') {
    await release(db, queue, claimed);
    return true;
  }
  try {
    let txHash: string | undefined;
    if (row.submitted_at !== null) {
      // A previous attempt may have reached the rail: ask it, never send blind.
      const known = await deps.rail.lookup(row.id);
      if (known.state === 'failed' || known.state === 'dropped') {
        await deps.payouts.fail(row.id, {
          code: known.state === 'dropped' ? 'transaction_dropped' : known.code,
          message: known.state === 'dropped' ? 'The transaction was dropped and never mined.' : known.message,
        });
        return true;
      }
      if (known.state !== 'unknown') txHash = known.txHash;
    } else if (!(await deps.payouts.markSubmitting(row.id))) {
      // The row changed since it was read (an operator canceled it, or another worker marked it): only
      // the run that marks a payout submitting may send it. What it is now decides.
      const current = await payouts.findById(db, row.id);
      logger.warn(
        { payoutId: row.id, status: current?.status, submittedAt: current?.submitted_at },
        'payout changed before it was marked submitting; not sent',
      );
      if (current?.status === 'pending') {
        // Marked by another run: asked again later, by the lookup path (never sent blind).
        throw new Error(`payout ${row.id} was marked submitting by another run`);
      }
      await release(db, queue, claimed);
      return true;
    }
    txHash ??= (
      await deps.rail.submit({
        payoutId: row.id,
        network: row.network,
        address: row.address,
        amount: row.payout_amount,
      })
    ).txHash;
    const outcome = await deps.payouts.recordSent(row.id, txHash);
    if (outcome === 'hash_in_use') {
      // The rail told this payout a hash another payout holds: nothing is recorded or completed, and
      // the payout is retried (the rail is asked again) until it parks for the operator.
      throw new Error(`the rail reported ${txHash}, which another payout holds`);
    }
    if (outcome === 'not_pending') {
      // The rail holds a transfer for a payout that left `pending` without it (failed or canceled: its
      // funds went back to available; or in transit with another hash): money may have left twice.
      // Nothing is recorded over its state; the operator is alerted, once per payout (ADR 0055).
      const current = await payouts.findById(db, row.id);
      logger.error(
        { payoutId: row.id, txHash, status: current?.status, txHashRecorded: current?.tx_hash },
        'the rail sent a payout that is no longer pending; nothing recorded',
      );
      await db.transaction().execute(async (trx) => {
        await deps.alerts.raise(trx, {
          kind: 'payout_sent_not_pending',
          organizationId: row.organization_id,
          environment: row.environment,
          subjectId: row.id,
          message: `The rail sent payout ${row.id} (${txHash}) although it is ${current?.status ?? 'gone'}: the funds may have left twice`,
          details: {
            payoutId: row.id,
            txHash,
            status: current?.status ?? null,
            txHashRecorded: current?.tx_hash ?? null,
            network: row.network,
            address: row.address,
            payoutAmount: row.payout_amount,
          },
        });
        await queue.succeed(trx, claimed);
      });
    }
    return true;
  } catch (error) {
    if (error instanceof RailRejectedError) {
      await deps.payouts.fail(row.id, { code: error.code, message: error.message });
      return true;
    }
    logger.warn({ err: error, payoutId: row.id }, 'payout submission deferred');
    await retryLater(db, queue, claimed, error);
    return false;
  }
}

/** Completes or fails one claimed payout in transit from what the chain says; false: asked again later. */
async function confirmOne(deps: PayoutEngineDeps, queue: DueQueue, claimed: Claimed): Promise<boolean> {
  const { db } = deps;
  const row = await payouts.findById(db, claimed.id);
  if (!row || row.status !== 'in_transit' || row.tx_hash === null) {
    await release(db, queue, claimed);
    return true;
  }
  try {
    const watcher = deps.watcher(row.environment);
    if (!watcher) throw new Error(`no chain watcher is configured for ${row.environment} payouts`);
    const transaction = await watcher.transaction(row.network, row.tx_hash);
    if (transaction.state === 'confirmed') {
      if (
        !sameAddress(row.network, transaction.to, row.address) ||
        transaction.amount !== row.payout_amount
      ) {
        throw new Error(
          `transaction ${row.tx_hash} pays ${transaction.amount} to ${transaction.to}, not ${row.payout_amount} to ${row.address}`,
        );
      }
      await deps.payouts.complete(row.id, {
        confirmedAt: transaction.confirmedAt ? new Date(transaction.confirmedAt) : new Date(),
      });
      return true;
    }
    if (transaction.state === 'failed') {
      await deps.payouts.fail(row.id, {
        code: 'transaction_failed',
        message: 'The transaction failed or was dropped on chain; the funds are available again.',
      });
      return true;
    }
    throw new Error(
      transaction.state === 'not_found'
        ? `transaction ${row.tx_hash} is not on chain yet`
        : `awaiting confirmations (${transaction.confirmations})`,
    );
  } catch (error) {
    await retryLater(db, queue, claimed, error);
    return false;
  }
}

async function batch(
  queue: DueQueue,
  work: (claimed: Claimed) => Promise<boolean>,
  limit: number,
): Promise<BatchReport> {
  const claimed = await queue.claim(limit);
  const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
  for (const row of claimed) {
    if (await work(row)) report.done++;
    else report.failed++;
  }
  return report;
}
