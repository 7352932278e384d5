import type { Kdb } from '../../db/database.js';
import type { DisputeStatus, Environment } from '../../db/schema.js';
import { OPEN_STATUSES, type DisputeRow } from './model.js';

/** What the operator's queue is filtered by. */
export interface DisputeQueueFilter {
  /** Default: the statuses in which the merchant can still answer. */
  status?: DisputeStatus;
  organizationId?: string;
  environment?: Environment;
  limit: number;
}

/** A dispute as the operator's queue lists it: whose, how much, and how long the merchant has left. */
export interface QueuedDispute {
  id: string;
  organizationId: string;
  environment: Environment;
  chargeId: string;
  amount: string;
  currency: 'TRY';
  reason: DisputeRow['reason'];
  reasonCode: string;
  network: DisputeRow['network'];
  status: DisputeStatus;
  stage: DisputeRow['stage'];
  evidenceDueBy: string | null;
  evidenceSubmittedAt: string | null;
  amountWithdrawn: string;
  createdAt: string;
}

/**
 * The disputes of every merchant, the nearest deadline first (those without one last), at most
 * `limit`: the operator's queue (migration 0039's `disputes_due_idx` serves the open ones).
 */
export async function disputeQueue(db: Kdb, filter: DisputeQueueFilter): Promise<QueuedDispute[]> {
  let query = db.selectFrom('disputes').selectAll();
  query =
    filter.status === undefined
      ? query.where('status', 'in', OPEN_STATUSES)
      : query.where('status', '=', filter.status);
  if (filter.organizationId !== undefined) query = query.where('organization_id', '=', filter.organizationId);
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
  const rows = await query
    .orderBy('evidence_due_by', (order) => order.asc().nullsLast())
    .orderBy('id')
    .limit(filter.limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    chargeId: row.charge_id,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    reasonCode: row.reason_code,
    network: row.network,
    status: row.status,
    stage: row.stage,
    evidenceDueBy: row.evidence_due_by?.toISOString() ?? null,
    evidenceSubmittedAt: row.evidence_submitted_at?.toISOString() ?? null,
    amountWithdrawn: row.amount_withdrawn,
    createdAt: row.created_at.toISOString(),
  }));
}
