import type { Insertable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import type {
  DisputeAlertsTable,
  DisputeAlertStatus,
  DisputeEvidence,
  DisputesTable,
  DisputeStatus,
  DisputeSubmission,
  FraudWarningsTable,
} from '../../db/schema.js';
import { ownedBy } from '../../db/scopes.js';
import type { Owner } from '../../shared/owner.js';
import type { DisputeAlertRow, DisputeRow, FraudWarningRow } from './model.js';

// The rows of the disputes module (migration 0039). Only this module reads or writes them.

export function lockDispute(trx: Trx, provider: string, providerId: string): Promise<DisputeRow | undefined> {
  return trx
    .selectFrom('disputes')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_dispute_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertDispute(trx: Trx, row: Insertable<DisputesTable>): Promise<DisputeRow> {
  return trx.insertInto('disputes').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateDispute(trx: Trx, id: string, patch: Updateable<DisputesTable>): Promise<DisputeRow> {
  return trx.updateTable('disputes').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export function findDispute(db: Kdb, owner: Owner, id: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().$call(ownedBy(owner)).where('id', '=', id).executeTakeFirst();
}

export function lockOwnedDispute(trx: Trx, owner: Owner, id: string): Promise<DisputeRow | undefined> {
  return trx
    .selectFrom('disputes')
    .selectAll()
    .$call(ownedBy(owner))
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function disputesOfCharge(db: Kdb, owner: Owner, chargeId: string): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .$call(ownedBy(owner))
    .where('charge_id', '=', chargeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * What the chargebacks of a charge hold now (withdrawn less reinstated), in the caller's transaction:
 * the part a refund can no longer take. Inquiries never hold anything.
 */
export async function heldOn(trx: Trx, chargeId: string): Promise<bigint> {
  const row = await trx
    .selectFrom('disputes')
    .select(sql<string>`coalesce(sum(amount_withdrawn - amount_reinstated), 0)::text`.as('held'))
    .where('charge_id', '=', chargeId)
    .where('stage', '<>', 'inquiry')
    .executeTakeFirst();
  return BigInt(row?.held ?? '0');
}

export function lockFraudWarning(
  trx: Trx,
  provider: string,
  providerId: string,
): Promise<FraudWarningRow | undefined> {
  return trx
    .selectFrom('fraud_warnings')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_warning_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertFraudWarning(trx: Trx, row: Insertable<FraudWarningsTable>): Promise<FraudWarningRow> {
  return trx.insertInto('fraud_warnings').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateFraudWarning(
  trx: Trx,
  id: string,
  patch: Updateable<FraudWarningsTable>,
): Promise<FraudWarningRow> {
  return trx
    .updateTable('fraud_warnings')
    .set(patch)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findFraudWarning(db: Kdb, owner: Owner, id: string): Promise<FraudWarningRow | undefined> {
  return db
    .selectFrom('fraud_warnings')
    .selectAll()
    .$call(ownedBy(owner))
    .where('id', '=', id)
    .executeTakeFirst();
}

export function lockAlert(
  trx: Trx,
  provider: string,
  providerId: string,
): Promise<DisputeAlertRow | undefined> {
  return trx
    .selectFrom('dispute_alerts')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_alert_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertAlert(trx: Trx, row: Insertable<DisputeAlertsTable>): Promise<DisputeAlertRow> {
  return trx.insertInto('dispute_alerts').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateAlert(
  trx: Trx,
  id: string,
  patch: Updateable<DisputeAlertsTable>,
): Promise<DisputeAlertRow> {
  return trx
    .updateTable('dispute_alerts')
    .set(patch)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findAlert(db: Kdb, owner: Owner, id: string): Promise<DisputeAlertRow | undefined> {
  return db
    .selectFrom('dispute_alerts')
    .selectAll()
    .$call(ownedBy(owner))
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The organization's dispute fee, or undefined for the default. */
export function disputeFeeSchedule(
  trx: Kdb,
  organizationId: string,
): Promise<{ fee_minor: string; fee_returned_on_win: boolean } | undefined> {
  return trx
    .selectFrom('dispute_fee_schedules')
    .select(['fee_minor', 'fee_returned_on_win'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

// The merchant's API (routes.ts): its lists, newest first, and the writes of its answers.

export interface DisputeFilter {
  status?: DisputeStatus | undefined;
  chargeId?: string | undefined;
}

export function listDisputes(
  db: Kdb,
  owner: Owner,
  filter: DisputeFilter,
  after: Cursor | undefined,
  limit: number,
): Promise<DisputeRow[]> {
  let query = db.selectFrom('disputes').selectAll().$call(ownedBy(owner));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.chargeId !== undefined) query = query.where('charge_id', '=', filter.chargeId);
  return query.$call(keysetPage(after, limit)).execute();
}

export function listFraudWarnings(
  db: Kdb,
  owner: Owner,
  filter: { chargeId?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<FraudWarningRow[]> {
  let query = db.selectFrom('fraud_warnings').selectAll().$call(ownedBy(owner));
  if (filter.chargeId !== undefined) query = query.where('charge_id', '=', filter.chargeId);
  return query.$call(keysetPage(after, limit)).execute();
}

export function listAlerts(
  db: Kdb,
  owner: Owner,
  filter: { status?: DisputeAlertStatus | undefined; chargeId?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<DisputeAlertRow[]> {
  let query = db.selectFrom('dispute_alerts').selectAll().$call(ownedBy(owner));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.chargeId !== undefined) query = query.where('charge_id', '=', filter.chargeId);
  return query.$call(keysetPage(after, limit)).execute();
}

/** Replaces the staged evidence of a dispute locked by the caller. */
export function stageEvidence(
  trx: Trx,
  id: string,
  evidence: DisputeEvidence,
  now: Date,
): Promise<DisputeRow> {
  return updateDispute(trx, id, { evidence: JSON.stringify(evidence), updated_at: now });
}

/**
 * Records what was sent for a stage, on a dispute locked by the caller: `current` when the row is still at
 * that stage (its `evidence_submitted_at` is the stage's).
 */
export function recordSubmission(
  trx: Trx,
  row: DisputeRow,
  submission: DisputeSubmission,
  current: boolean,
  now: Date,
): Promise<DisputeRow> {
  return updateDispute(trx, row.id, {
    submissions: JSON.stringify([...row.submissions, submission]),
    ...(current ? { evidence_submitted_at: new Date(submission.submittedAt) } : {}),
    updated_at: now,
  });
}
