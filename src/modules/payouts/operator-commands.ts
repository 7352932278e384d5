import type { Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { toPage } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutError } from './errors.js';
import { cancelIn, failIn, recordSentIn } from './lifecycle.js';
import type { PayoutRow } from './model.js';
import type { PayoutActor } from './ports.js';
import { reasonOf } from '../../shared/reasons.js';
import * as payouts from './repository.js';
import { payoutView, type PayoutView } from './schemas.js';
import { exportLine, normalizeTxHash, type TreasuryExportLine } from './treasury.js';
import { audit } from './views.js';

/**
 * The operator's commands on payouts (the console, the operator API and the CLI), each audited in its
 * transaction: the queue, the treasury's export and what it reports back, cancelation, the minimums.
 */

/** The operator's view of a payout: the merchant's view plus whose it is and where the queue stands. */
export type OperatorPayoutView = PayoutView & {
  organizationId: string;
  /** When it was first handed to a rail (sent to the sandbox chain, or exported to the treasury). */
  handedOverAt: string | null;
  attempts: number;
  lastError: string | null;
  /** Set when the job gave up asking and the payout waits for the operator. */
  parkedAt: string | null;
};

export interface PayoutMinimumView {
  network: 'tron' | 'ethereum';
  environment: Environment;
  /** TRY minor units, decimal string. */
  amount: string;
  updatedBy: string;
  updatedAt: string;
}

/** The most payouts one treasury export carries; the rest wait for the next export. */
export const TREASURY_EXPORT_LIMIT = 1000;

export async function operatorList(
  deps: PayoutServiceDeps,
  filter: payouts.OperatorPayoutFilter,
  page: { limit: number; cursor?: string | undefined },
): Promise<Result<{ data: OperatorPayoutView[]; nextCursor: string | null }, PayoutError>> {
  const pages = deps.cursors.for({ list: 'operator_payouts', filter: JSON.stringify(filter) });
  const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
  if (after && !after.ok) return after;
  const rows = await payouts.listAll(deps.db, filter, after?.value, page.limit + 1);
  const result = toPage(rows, page.limit, (row) => pages.encode(row.created_at, row.id));
  return ok({ data: result.data.map(operatorView), nextCursor: result.nextCursor });
}

export async function operatorGet(
  deps: PayoutServiceDeps,
  id: string,
): Promise<Result<OperatorPayoutView, PayoutError>> {
  const row = await payouts.findById(deps.db, id);
  return row ? ok(operatorView(row)) : err({ code: 'not_found' });
}

/**
 * The treasury's due payouts (live, pending, oldest first, at most TREASURY_EXPORT_LIMIT), each marked
 * handed over the first time it is exported: from then on it cannot be canceled, only recorded with
 * its transaction or marked not sent.
 */
export async function exportTreasury(
  deps: PayoutServiceDeps,
  filter: { network?: 'tron' | 'ethereum' | undefined },
  by: PayoutActor,
): Promise<TreasuryExportLine[]> {
  return deps.db.transaction().execute(async (trx) => {
    const due = await payouts.lockTreasuryDue(trx, filter, TREASURY_EXPORT_LIMIT);
    const now = deps.clock.now();
    const fresh = due.filter((row) => row.submitted_at === null).map((row) => row.id);
    await payouts.markHandedOver(trx, fresh, now);
    const firstExport = new Set(fresh);
    for (const row of due) {
      await audit(deps, trx, by, row, 'payout.exported', {
        firstExport: firstExport.has(row.id),
        network: row.network,
        address: row.address,
        payoutAmount: row.payout_amount,
      });
    }
    return due.map((row) => exportLine(firstExport.has(row.id) ? { ...row, submitted_at: now } : row));
  });
}

/** The treasury sent a payout: its hash is recorded (pending -> in_transit) and the chain confirms it. */
export async function recordTreasuryTransaction(
  deps: PayoutServiceDeps,
  id: string,
  input: string,
  by: PayoutActor,
): Promise<Result<OperatorPayoutView, PayoutError>> {
  const found = await payouts.findById(deps.db, id);
  if (!found) return err({ code: 'not_found' });
  const hash = normalizeTxHash(found.network, input);
  if (!hash.ok) return err({ code: 'invalid_tx_hash', network: found.network, expected: hash.expected });
  // Two payouts recorded with one hash at the same moment: the unique constraint refuses the second.
  const heldElsewhere = async (): Promise<Result<OperatorPayoutView, PayoutError>> => {
    const holder = await payouts.findByTxHash(deps.db, hash.txHash);
    return err({ code: 'tx_hash_in_use', payoutId: holder?.id ?? 'unknown' });
  };
  return deps.db
    .transaction()
    .execute(async (trx): Promise<Result<OperatorPayoutView, PayoutError>> => {
      const row = await payouts.lockById(trx, id);
      if (!row) return err({ code: 'not_found' });
      if (row.rail !== 'treasury') {
        return err({
          code: 'invalid_state',
          message: 'Only treasury (live) payouts are recorded by hand; the sandbox chain reports its own.',
        });
      }
      if (row.tx_hash === hash.txHash) return ok(operatorView(row));
      if (row.status !== 'pending') {
        return err({
          code: 'invalid_state',
          message: `The payout is ${row.status}${row.tx_hash ? ` with transaction ${row.tx_hash}` : ''}; its hash cannot change.`,
        });
      }
      const outcome = await recordSentIn(deps, trx, row, hash.txHash);
      if (outcome.outcome === 'hash_in_use') return err({ code: 'tx_hash_in_use', payoutId: outcome.heldBy });
      const recorded = outcome.row;
      await audit(deps, trx, by, recorded, 'payout.transaction_recorded', { txHash: hash.txHash });
      return ok(operatorView(recorded));
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, 'payouts_tx_hash_key')) return heldElsewhere();
      throw error;
    });
}

/**
 * An operator's command on one payout that needs a reason: the reason trimmed (refused when empty), then
 * the command on the payout locked in its transaction.
 */
async function withReasonOnLocked(
  deps: PayoutServiceDeps,
  id: string,
  reason: string,
  command: (trx: Trx, row: PayoutRow, reason: string) => Promise<Result<OperatorPayoutView, PayoutError>>,
): Promise<Result<OperatorPayoutView, PayoutError>> {
  const trimmed = reasonOf(reason);
  if (trimmed === undefined) return err({ code: 'reason_required' });
  return deps.db.transaction().execute(async (trx): Promise<Result<OperatorPayoutView, PayoutError>> => {
    const row = await payouts.lockById(trx, id);
    if (!row) return err({ code: 'not_found' });
    return command(trx, row, trimmed);
  });
}

/** An operator's command on one payout with a reason: a cancelation, a payout marked not sent. */
type ReasonCommand = (
  deps: PayoutServiceDeps,
  id: string,
  reason: string,
  by: PayoutActor,
) => Promise<Result<OperatorPayoutView, PayoutError>>;

export const operatorCancel: ReasonCommand = (deps, id, reason, by) =>
  withReasonOnLocked(deps, id, reason, async (trx, row, trimmed) => {
    const outcome = await cancelIn(deps, trx, row, trimmed, by);
    if (outcome === 'not_cancelable') {
      return err({
        code: 'invalid_state',
        message:
          row.status !== 'pending'
            ? `The payout is ${row.status}.`
            : row.rail === 'treasury'
              ? 'The payout was exported to the treasury: record its transaction, or mark it not sent.'
              : 'The payout was handed to the sandbox chain.',
      });
    }
    const after = await payouts.findById(trx, id);
    return ok(operatorView(after ?? row));
  });

/**
 * The treasury did not send an exported payout and will not: pending -> failed (`treasury_not_sent`),
 * the funds return to available.
 */
export const markNotSent: ReasonCommand = (deps, id, reason, by) =>
  withReasonOnLocked(deps, id, reason, async (trx, row, trimmed) => {
    if (row.rail !== 'treasury' || row.status !== 'pending') {
      return err({
        code: 'invalid_state',
        message:
          row.rail !== 'treasury'
            ? 'Only treasury payouts are marked not sent; the sandbox chain reports its own failures.'
            : `The payout is ${row.status}: only a pending payout without a transaction can be marked not sent.`,
      });
    }
    await failIn(deps, trx, id, {
      code: 'treasury_not_sent',
      message: 'The treasury did not send this payout; the funds are available again.',
    });
    const failed = await payouts.findById(trx, id);
    if (!failed) throw new Error(`payout ${id} vanished`);
    await audit(deps, trx, by, failed, 'payout.marked_not_sent', { reason: trimmed });
    return ok(operatorView(failed));
  });

export async function minimums(deps: PayoutServiceDeps): Promise<PayoutMinimumView[]> {
  return (await payouts.listMinimums(deps.db)).map(minimumView);
}

export async function setMinimum(
  deps: PayoutServiceDeps,
  key: { network: 'tron' | 'ethereum'; environment: Environment },
  amount: bigint,
  by: PayoutActor,
): Promise<PayoutMinimumView> {
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const { before } = await payouts.setMinimum(trx, key, amount, by.actor, now);
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'payout_minimum.updated',
      targetType: 'payout_minimum',
      targetId: `${key.environment}:${key.network}`,
      organizationId: null,
      before: { amount: before },
      after: { amount: amount.toString() },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
    return minimumView({ ...key, amount: amount.toString(), updated_by: by.actor, updated_at: now });
  });
}

function operatorView(row: PayoutRow): OperatorPayoutView {
  return {
    ...payoutView(row),
    organizationId: row.organization_id,
    handedOverAt: row.submitted_at?.toISOString() ?? null,
    attempts: row.attempts,
    lastError: row.last_error,
    parkedAt: row.parked_at?.toISOString() ?? null,
  };
}

function minimumView(row: payouts.PayoutMinimumRow): PayoutMinimumView {
  return {
    network: row.network,
    environment: row.environment,
    amount: String(row.amount),
    updatedBy: row.updated_by,
    updatedAt: row.updated_at.toISOString(),
  };
}
