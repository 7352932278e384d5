import type { DisputeAutoRefundRow } from '../../../db/schema.js';
import type { Owner } from '../../../shared/owner.js';
import { deferClaimed, workDueBatch, type DueOutcome } from '../../../worker/due-batch.js';
import type { BatchReport, Claimed, DueQueue } from '../../../worker/queue.js';
import * as disputes from '../repository.js';
import type { RefundRuleDeps } from './deps.js';
import * as rules from './repository.js';

/**
 * The automation of the rules (issue 37 item 5, docs/disputes.md "Auto-refund rules"). A poll queues what
 * a rule covers (`queueCovered`), then each queued alert or warning is refunded through the refund path,
 * outside any transaction, under an idempotency key derived from its id: a retry after a crash or an
 * unavailable acquirer finds the refund it made. The refund then resolves the alert at the acquirer,
 * whose `dispute_alert.resolved` the inbox applies like any other.
 */

/** What the rule did: a refund (made or refused by the acquirer), or nothing, and why. */
type Decision = { outcome: 'refunded' | 'failed'; refundId: string } | { outcome: 'skipped'; reason: string };

/** One refund request: a key and the body it is always sent with (the refund path checks both). */
interface Ask {
  key: string;
  input: { amount?: number; reason: string };
}

/** The refund path's refusals after which the next ask is tried (a smaller refund), or the row skipped. */
const TOO_LITTLE_LEFT = new Set(['exceeds_refundable', 'nothing_to_refund']);
/** The refusals that end the row without a refund: nothing a retry could change. */
const NOT_REFUNDABLE = new Set(['charge_disputed', 'charge_not_refundable', 'charge_not_found']);

const ownerOf = (row: DisputeAutoRefundRow): Owner => ({
  organizationId: row.organization_id,
  environment: row.environment,
});

/** One batch of the `dispute-auto-refund` job: queues what the rules cover, then works due rows. */
export async function autoRefundBatch(
  deps: RefundRuleDeps,
  queue: DueQueue,
  limit: number,
): Promise<BatchReport> {
  await rules.queueCovered(deps.db, deps.clock.now());
  return workDueBatch(queue, limit, (claimed) => refundClaimed(deps, queue, claimed));
}

async function refundClaimed(deps: RefundRuleDeps, queue: DueQueue, claimed: Claimed): Promise<DueOutcome> {
  try {
    const row = await rules.findQueued(deps.db, claimed.id);
    if (!row) throw new Error(`auto-refund ${claimed.id} is gone`);
    const asks = await asksOf(deps, row);
    const decision = Array.isArray(asks) ? await refundBy(deps, row, asks) : asks;
    return await record(deps, queue, claimed, row, decision);
  } catch (error) {
    return deferClaimed(deps, queue, claimed, error, {
      context: { subjectId: claimed.id, attempt: claimed.attempt },
      message: 'auto-refund deferred',
    });
  }
}

/** The refund requests for the row's alert or warning, or why there is none. */
async function asksOf(deps: RefundRuleDeps, row: DisputeAutoRefundRow): Promise<Ask[] | Decision> {
  const owner = ownerOf(row);
  // Switched off since the row was queued: the merchant no longer wants it.
  if (!(await rules.findRule(deps.db, owner, row.kind))?.enabled)
    return { outcome: 'skipped', reason: 'rule_off' };
  if (row.kind === 'dispute_alert') {
    const alert = await disputes.findAlert(deps.db, owner, row.id);
    if (!alert) return { outcome: 'skipped', reason: 'not_found' };
    const reason = `Pre-dispute alert ${alert.id}: refunded by the auto-refund rule.`;
    // An alert closed meanwhile or past its deadline gets no refund now; one closed by the refund an
    // earlier attempt made before it could record it (a crash) gets that refund recorded.
    const late =
      alert.status !== 'open'
        ? `alert_${alert.status}`
        : alert.refund_by <= deps.clock.now()
          ? 'past_refund_by'
          : undefined;
    if (late !== undefined) {
      const earlier = await refundWithReason(deps, row, reason);
      return earlier ? { outcome: 'refunded', refundId: earlier } : { outcome: 'skipped', reason: late };
    }
    // The alert's amount; when less remains (refunded in part before), all of it, which resolves it too.
    return [
      { key: `auto-refund:${alert.id}`, input: { amount: Number(alert.amount), reason } },
      { key: `auto-refund:${alert.id}:remaining`, input: { reason } },
    ];
  }
  const warning = await disputes.findFraudWarning(deps.db, owner, row.id);
  if (!warning) return { outcome: 'skipped', reason: 'not_found' };
  if (warning.refund_id !== null) return { outcome: 'skipped', reason: 'already_refunded' };
  if (row.max_amount !== null) {
    const charge = await deps.charges.findVisible(owner, warning.charge_id);
    if (!charge) return { outcome: 'skipped', reason: 'not_found' };
    if (BigInt(charge.amount) > BigInt(row.max_amount)) return { outcome: 'skipped', reason: 'above_limit' };
  }
  const reason = `Early fraud warning ${warning.id}: refunded by the auto-refund rule.`;
  return [{ key: `auto-refund:${warning.id}`, input: { reason } }];
}

/** The refund of the charge that an earlier attempt made for the row (its reason names the row). */
async function refundWithReason(
  deps: RefundRuleDeps,
  row: DisputeAutoRefundRow,
  reason: string,
): Promise<string | undefined> {
  const page = await deps.refunds.list(ownerOf(row), row.charge_id, { limit: 100 });
  if (!page.ok) throw new Error(`refunds of ${row.charge_id} not listed: ${page.error.code}`);
  return page.value.data.find((refund) => refund.reason === reason && refund.status !== 'failed')?.id;
}

/**
 * Asks the refund path, in order, until one ask refunds or refuses for good. An unavailable acquirer
 * throws: the row is due again after the backoff, and the same key finds the pending refund.
 */
async function refundBy(deps: RefundRuleDeps, row: DisputeAutoRefundRow, asks: Ask[]): Promise<Decision> {
  let refused = 'nothing_to_refund';
  for (const ask of asks) {
    const made = await deps.refunds.create(ownerOf(row), row.charge_id, ask.input, {
      idempotencyKey: ask.key,
    });
    if (made.ok)
      return { outcome: made.value.status === 'failed' ? 'failed' : 'refunded', refundId: made.value.id };
    const { code, refundId } = made.error;
    if (code === 'provider_rejected' && refundId !== undefined) return { outcome: 'failed', refundId };
    if (NOT_REFUNDABLE.has(code)) return { outcome: 'skipped', reason: code };
    if (!TOO_LITTLE_LEFT.has(code)) throw new Error(`refund of ${row.id} not made: ${code}`);
    refused = code;
  }
  return { outcome: 'skipped', reason: refused };
}

async function record(
  deps: RefundRuleDeps,
  queue: DueQueue,
  claimed: Claimed,
  row: DisputeAutoRefundRow,
  decision: Decision,
): Promise<DueOutcome> {
  const now = deps.clock.now();
  const kept = await deps.db.transaction().execute(async (trx) => {
    // Only the claim's holder records (another worker took the row after this one's lease ran out).
    if (!(await queue.succeed(trx, claimed))) return false;
    const refundId = decision.outcome === 'skipped' ? null : decision.refundId;
    await rules.recordOutcome(trx, row.id, {
      outcome: decision.outcome,
      refundId,
      skipReason: decision.outcome === 'skipped' ? decision.reason : null,
      now,
    });
    if (refundId !== null) await rules.recordRefundOn(trx, row, refundId, now);
    return true;
  });
  if (!kept) return 'neither';
  deps.logger.info(
    { subjectId: row.id, kind: row.kind, chargeId: row.charge_id, ...decision },
    `auto-refund ${decision.outcome}`,
  );
  return 'done';
}
