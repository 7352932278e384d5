import type { Trx } from '../../db/database.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutRow } from './model.js';
import type { PayoutActor } from './ports.js';
import * as payouts from './repository.js';
import { announce, audit, ledgerPayout } from './views.js';

/**
 * A payout's life after it is made (docs/decisions/0028-payouts.md): marked submitting before a rail is
 * first asked, in transit with its transaction hash, then completed or failed; or canceled while pending
 * and never handed to a rail. Each step in one transaction under the payout's row lock.
 */

export type RecordSentOutcome = 'recorded' | 'already_recorded' | 'hash_in_use' | 'not_pending';

/** pending -> in_transit with the hash, under the caller's row lock; one payout per hash. */
export async function recordSentIn(
  deps: PayoutServiceDeps,
  trx: Trx,
  row: PayoutRow,
  txHash: string,
): Promise<{ outcome: 'recorded'; row: PayoutRow } | { outcome: 'hash_in_use'; heldBy: string }> {
  const holder = await payouts.findByTxHash(trx, txHash);
  if (holder) {
    deps.logger.error(
      { payoutId: row.id, txHash, heldBy: holder.id },
      'a transaction hash reported for a payout already belongs to another payout; nothing recorded',
    );
    return { outcome: 'hash_in_use', heldBy: holder.id };
  }
  const now = deps.clock.now();
  const moved = await payouts.transition(trx, row.id, ['pending'], 'in_transit', {
    tx_hash: txHash,
    in_transit_at: now,
    updated_at: now,
    submitted_at: row.submitted_at ?? now,
    // Due at once for the confirmation job; a fresh count of its attempts.
    next_attempt_at: now,
    attempts: 0,
    lease_token: null,
    last_error: null,
    parked_at: null,
  });
  if (!moved) throw new Error(`payout ${row.id} left pending under its row lock`);
  return { outcome: 'recorded', row: moved };
}

/** pending | in_transit -> failed in the caller's transaction: the funds return, and `payout.failed`. */
export async function failIn(
  deps: PayoutServiceDeps,
  trx: Trx,
  payoutId: string,
  failure: { code: string; message: string },
): Promise<'failed' | 'already' | 'final'> {
  const row = await payouts.lockById(trx, payoutId);
  if (!row) throw new Error(`payout ${payoutId} does not exist`);
  if (row.status === 'failed') return 'already';
  if (row.status !== 'pending' && row.status !== 'in_transit') return 'final';
  const now = deps.clock.now();
  const failed = await payouts.transition(trx, payoutId, ['pending', 'in_transit'], 'failed', {
    failure_code: failure.code.slice(0, 100),
    failure_message: failure.message.slice(0, 500),
    failed_at: now,
    updated_at: now,
  });
  if (!failed) throw new Error(`payout ${payoutId} changed under its row lock`);
  await deps.ledger.postPayoutReturned(trx, ledgerPayout(failed));
  await deps.contents.detach(trx, failed.id);
  await announce(deps, trx, failed, 'payout.failed');
  return 'failed';
}

/** A pending payout never handed to a rail -> canceled, under the caller's row lock; audited. */
export async function cancelIn(
  deps: PayoutServiceDeps,
  trx: Trx,
  row: PayoutRow,
  reason: string,
  by: PayoutActor,
): Promise<'canceled' | 'already' | 'not_cancelable'> {
  if (row.status === 'canceled') return 'already';
  if (row.status !== 'pending' || row.submitted_at !== null) return 'not_cancelable';
  const now = deps.clock.now();
  const canceled = await payouts.transition(trx, row.id, ['pending'], 'canceled', {
    canceled_at: now,
    updated_at: now,
  });
  if (!canceled) throw new Error(`payout ${row.id} left pending under its row lock`);
  await deps.ledger.postPayoutReturned(trx, ledgerPayout(canceled));
  await deps.contents.detach(trx, canceled.id);
  await announce(deps, trx, canceled, 'payout.canceled');
  await audit(deps, trx, by, canceled, 'payout.canceled', { reason });
  deps.logger.info({ payoutId: row.id, by: by.actor }, 'payout canceled');
  return 'canceled';
}

/** Sets `submitted_at` once, before a rail is first asked to send; undefined when not pending or already set. */
export async function markSubmitting(
  deps: PayoutServiceDeps,
  payoutId: string,
): Promise<PayoutRow | undefined> {
  return deps.db.transaction().execute((trx) => payouts.markSubmitting(trx, payoutId, deps.clock.now()));
}

/**
 * pending -> in_transit with the transaction hash. The same hash again changes nothing; a hash another
 * payout holds changes nothing and is `hash_in_use` (one payout per hash).
 */
export async function recordSent(
  deps: PayoutServiceDeps,
  payoutId: string,
  txHash: string,
): Promise<RecordSentOutcome> {
  return deps.db.transaction().execute(async (trx): Promise<RecordSentOutcome> => {
    const row = await payouts.lockById(trx, payoutId);
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    if (row.tx_hash === txHash) return 'already_recorded';
    if (row.status !== 'pending') return 'not_pending';
    return (await recordSentIn(deps, trx, row, txHash)).outcome;
  });
}

/** in_transit -> completed: the ledger's `payout_paid` and `payout.completed`. */
export async function complete(
  deps: PayoutServiceDeps,
  payoutId: string,
  { confirmedAt }: { confirmedAt: Date },
): Promise<'completed' | 'already' | 'not_in_transit'> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await payouts.lockById(trx, payoutId);
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    if (row.status === 'completed') return 'already' as const;
    if (row.status !== 'in_transit') return 'not_in_transit' as const;
    const done = await payouts.transition(trx, payoutId, ['in_transit'], 'completed', {
      completed_at: confirmedAt,
      updated_at: deps.clock.now(),
    });
    if (!done) throw new Error(`payout ${payoutId} left in_transit under its row lock`);
    await deps.ledger.postPayoutPaid(trx, ledgerPayout(done));
    await announce(deps, trx, done, 'payout.completed');
    return 'completed' as const;
  });
}

/** pending | in_transit -> failed: the funds return to available, and `payout.failed`. */
export async function fail(
  deps: PayoutServiceDeps,
  payoutId: string,
  failure: { code: string; message: string },
): Promise<'failed' | 'already' | 'final'> {
  return deps.db.transaction().execute((trx) => failIn(deps, trx, payoutId, failure));
}

/**
 * A pending payout never handed to a rail -> canceled: the funds return, and `payout.canceled`; audited
 * with `by` and the reason.
 */
export async function cancel(
  deps: PayoutServiceDeps,
  payoutId: string,
  options: { by: string; reason: string; requestId?: string | null; ip?: string | null },
): Promise<'canceled' | 'already' | 'not_cancelable'> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await payouts.lockById(trx, payoutId);
    if (!row) throw new Error(`payout ${payoutId} does not exist`);
    return cancelIn(deps, trx, row, options.reason, {
      actor: options.by,
      requestId: options.requestId ?? null,
      ip: options.ip ?? null,
    });
  });
}
