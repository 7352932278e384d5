import type { Trx } from '../../db/database.js';
import type { DisputeEvidence, DisputeMovement } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import type { Owner } from '../../shared/owner.js';
import type { AcquirerDispute } from '../acquirer/types.js';
import type { ChargeRow } from '../charges/model.js';
import type { EventInput, EventType } from '../events/service.js';
import type { DisputeEntryKind } from '../ledger/disputes.js';
import { DEFAULT_DISPUTE_FEE_MINOR, type DisputeServiceDeps } from './deps.js';
import {
  alertRankOf,
  alertStatusOf,
  CLOSED_STATUSES,
  DISPUTE_REASONS,
  disputeStateOf,
  feeSourceOf,
  feeStagesOf,
  networkOf,
  rankOf,
  type DisputeRow,
  type DisputeStage,
} from './model.js';
import * as disputes from './repository.js';
import { disputeAlertView, disputeChargeOf, disputeView, fraudWarningView } from './views.js';

/**
 * Applying the acquirer's word on a dispute resource (docs/decisions/0076-disputes.md), in the transaction
 * that holds the disputed charge's row lock and records the notification that brought it: the row moves
 * forward by rank only, each funds movement is booked once (its id is the ledger entry's source), a
 * stage's fee once, and the events of what changed are recorded with it. A read-back older than the row
 * changes nothing (`stale`); one that repeats it changes nothing either.
 */

export type ApplyDeps = Pick<DisputeServiceDeps, 'clock' | 'ledger' | 'events' | 'logger' | 'db'>;
export type ApplyOutcome = 'applied' | 'stale';

const AMOUNT = /^[1-9][0-9]{0,15}$/;
const AMOUNT_OR_ZERO = /^(0|[1-9][0-9]{0,15})$/;
const isTime = (value: unknown): boolean => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/**
 * The members of a read-back that the gateway cannot apply, by name (empty when it can): the charge's
 * owner checks `paymentId` and `reference` against the charge.
 */
export function problemsOf(resource: AcquirerDispute): string[] {
  const problems: string[] = [];
  if (typeof resource.id !== 'string' || !/^[\w-]{1,100}$/.test(resource.id)) problems.push('id');
  if (typeof resource.amount !== 'string' || !AMOUNT.test(resource.amount)) problems.push('amount');
  if (resource.currency !== 'TRY') problems.push('currency');
  if (!isTime(resource.createdAt)) problems.push('createdAt');
  if (!isTime(resource.updatedAt)) problems.push('updatedAt');
  if (typeof resource.reasonCode !== 'string' || !/^[\w.-]{1,20}$/.test(resource.reasonCode))
    problems.push('reasonCode');
  if (typeof resource.network !== 'string') problems.push('network');
  if (resource.kind === 'dispute' || resource.kind === 'inquiry') {
    if (!DISPUTE_REASONS.includes(resource.reason as never)) problems.push('reason');
    if (!disputeStateOf(resource)) problems.push('status');
    if (resource.evidenceDueBy !== null && !isTime(resource.evidenceDueBy)) problems.push('evidenceDueBy');
    if (!Array.isArray(resource.movements)) problems.push('movements');
    else
      resource.movements.forEach((movement, index) => {
        if (
          typeof movement?.id !== 'string' ||
          !/^[\w-]{1,100}$/.test(movement.id) ||
          !['funds_withdrawn', 'funds_reinstated'].includes(movement.type) ||
          typeof movement.amount !== 'string' ||
          !AMOUNT.test(movement.amount) ||
          !isTime(movement.createdAt)
        )
          problems.push(`movements[${index}]`);
      });
    if (!AMOUNT_OR_ZERO.test(String(resource.amountWithdrawn))) problems.push('amountWithdrawn');
  } else if (resource.kind === 'pre_dispute_alert') {
    if (!alertStatusOf(resource)) problems.push('status');
    if (!isTime(resource.refundBy)) problems.push('refundBy');
  } else if (resource.kind !== 'early_fraud_warning') problems.push('kind');
  if (typeof resource.reason !== 'string' || resource.reason.length > 50) problems.push('reason');
  return [...new Set(problems)];
}

/** Applies `resource`, whose payment is `charge` (checked by the caller), as its kind says. */
export function applyAcquirerDispute(
  deps: ApplyDeps,
  trx: Trx,
  provider: string,
  charge: ChargeRow,
  resource: AcquirerDispute,
): Promise<ApplyOutcome> {
  switch (resource.kind) {
    case 'early_fraud_warning':
      return applyFraudWarning(deps, trx, provider, charge, resource);
    case 'pre_dispute_alert':
      return applyAlert(deps, trx, provider, charge, resource);
    default:
      return applyDispute(deps, trx, provider, charge, resource);
  }
}

const ownerOfCharge = (charge: ChargeRow): Owner => ({
  organizationId: charge.organization_id,
  environment: charge.environment,
});

const paymentOf = (charge: ChargeRow) => ({
  id: charge.id,
  paymentId: charge.provider_payment_id ?? '',
  merchantReference: charge.merchant_reference,
});

/** The movements known before and those of the read-back, each once, oldest first. */
function mergeMovements(
  known: readonly DisputeMovement[],
  read: readonly DisputeMovement[],
): DisputeMovement[] {
  const byId = new Map(known.map((movement) => [movement.id, movement]));
  for (const movement of read)
    if (!byId.has(movement.id))
      byId.set(movement.id, {
        id: movement.id,
        type: movement.type,
        amount: movement.amount,
        createdAt: movement.createdAt,
      });
  return [...byId.values()].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
}

const sumOf = (movements: readonly DisputeMovement[], type: DisputeMovement['type']): bigint =>
  movements.reduce(
    (total, movement) => (movement.type === type ? total + BigInt(movement.amount) : total),
    0n,
  );

/** The evidence a dispute over an already refunded amount starts with (product decision 38). */
function creditProcessedEvidence(charge: ChargeRow): DisputeEvidence {
  return {
    uncategorizedText:
      `The customer was refunded ${charge.refunded_amount} of ${charge.amount} TRY minor units of this ` +
      `payment (charge ${charge.id}) before the dispute was raised: the credit was processed.`,
  };
}

async function applyDispute(
  deps: ApplyDeps,
  trx: Trx,
  provider: string,
  charge: ChargeRow,
  resource: AcquirerDispute,
): Promise<ApplyOutcome> {
  const state = disputeStateOf(resource);
  if (!state) throw new Error(`dispute ${resource.id}: unchecked status ${resource.status}`);
  const now = deps.clock.now();
  const existing = await disputes.lockDispute(trx, provider, resource.id);
  const movements = mergeMovements(existing?.movements ?? [], resource.movements);
  const known = new Set((existing?.movements ?? []).map((movement) => movement.id));
  const fresh = movements.filter((movement) => !known.has(movement.id));
  const rank = rankOf(state.stage, state.status);
  const providerUpdatedAt = new Date(resource.updatedAt);
  const advances =
    !existing ||
    rank > existing.rank ||
    (rank === existing.rank && providerUpdatedAt > existing.provider_updated_at);
  if (!advances && fresh.length === 0) return 'stale';

  const alertId =
    resource.alertId === null
      ? null
      : ((await disputes.lockAlert(trx, provider, resource.alertId))?.id ?? null);
  const money = {
    movements: JSON.stringify(movements),
    amount_withdrawn: sumOf(movements, 'funds_withdrawn').toString(),
    amount_reinstated: sumOf(movements, 'funds_reinstated').toString(),
    updated_at: now,
  };
  const lifecycle = advances
    ? {
        status: state.status,
        stage: state.stage,
        rank,
        amount: resource.amount,
        reason: resource.reason as DisputeRow['reason'],
        reason_code: resource.reasonCode,
        evidence_due_by: resource.evidenceDueBy === null ? null : new Date(resource.evidenceDueBy),
        closed_by: (resource.closedBy ?? null) as DisputeRow['closed_by'],
        closed_at: resource.closedAt === null ? null : new Date(resource.closedAt),
        escalated_at: resource.escalatedAt === null ? null : new Date(resource.escalatedAt),
        provider_updated_at: providerUpdatedAt,
        ...(alertId !== null ? { alert_id: alertId } : {}),
      }
    : {};
  let row: DisputeRow;
  if (!existing) {
    const creditProcessed =
      BigInt(charge.refunded_amount) > 0n &&
      BigInt(resource.amount) > BigInt(charge.amount) - BigInt(charge.refunded_amount);
    row = await disputes.insertDispute(trx, {
      id: newId('dp', now),
      organization_id: charge.organization_id,
      environment: charge.environment,
      charge_id: charge.id,
      provider,
      provider_dispute_id: resource.id,
      currency: 'TRY',
      network: networkOf(resource.network),
      credit_processed: creditProcessed,
      evidence: JSON.stringify(creditProcessed ? creditProcessedEvidence(charge) : {}),
      provider_created_at: new Date(resource.createdAt),
      created_at: now,
      status: state.status,
      stage: state.stage,
      rank,
      amount: resource.amount,
      reason: resource.reason as DisputeRow['reason'],
      reason_code: resource.reasonCode,
      provider_updated_at: providerUpdatedAt,
      ...lifecycle,
      ...money,
    });
  } else {
    // A new stage starts with nothing staged: what was staged answered the previous one.
    const newStage = advances && state.stage !== existing.stage;
    row = await disputes.updateDispute(trx, existing.id, {
      ...lifecycle,
      ...money,
      ...(newStage ? { evidence: '{}', evidence_submitted_at: null } : {}),
    });
  }

  await bookMoney(deps, trx, charge, existing, row, fresh);
  const types: EventType[] = [];
  const statusChanged = !existing || existing.status !== row.status || existing.stage !== row.stage;
  if (!existing) types.push('dispute.created');
  if (statusChanged && CLOSED_STATUSES.includes(row.status)) types.push('dispute.closed');
  else if (statusChanged && existing) types.push('dispute.updated');
  if (fresh.some((movement) => movement.type === 'funds_withdrawn')) types.push('dispute.funds_withdrawn');
  if (fresh.some((movement) => movement.type === 'funds_reinstated')) types.push('dispute.funds_reinstated');
  await recordEvents(deps, trx, charge, row, types, disputeView(row, disputeChargeOf(charge)));
  deps.logger.info(
    { disputeId: row.id, chargeId: charge.id, status: row.status, stage: row.stage, movements: fresh.length },
    'dispute applied',
  );
  return 'applied';
}

/** The fee of a dispute stage and whether a won stage returns it: the organization's, or the default. */
async function feeScheduleOf(
  trx: Trx,
  organizationId: string,
): Promise<{ fee: bigint; returnedOnWin: boolean }> {
  const own = await disputes.disputeFeeSchedule(trx, organizationId);
  return own
    ? { fee: BigInt(own.fee_minor), returnedOnWin: own.fee_returned_on_win }
    : { fee: DEFAULT_DISPUTE_FEE_MINOR, returnedOnWin: false };
}

/** The ledger entries of what the dispute's new movements and its new stage or outcome cost or return. */
async function bookMoney(
  deps: ApplyDeps,
  trx: Trx,
  charge: ChargeRow,
  before: DisputeRow | undefined,
  row: DisputeRow,
  fresh: readonly DisputeMovement[],
): Promise<void> {
  const entry = (kind: DisputeEntryKind, sourceId: string, amount: string) =>
    deps.ledger.postDisputeEntry(trx, {
      ...ownerOfCharge(charge),
      kind,
      sourceId,
      amount,
      chargeId: charge.id,
      merchantReference: charge.merchant_reference,
    });
  for (const movement of fresh)
    await entry(
      movement.type === 'funds_withdrawn' ? 'dispute_funds_withdrawn' : 'dispute_funds_reinstated',
      movement.id,
      movement.amount,
    );
  const charged = new Set<DisputeStage>(before ? feeStagesOf(before) : []);
  const newFeeStages = feeStagesOf(row).filter((stage) => !charged.has(stage));
  const wonNow = row.status === 'won' && (before?.status !== 'won' || before.stage !== row.stage);
  if (newFeeStages.length === 0 && !wonNow) return;
  const schedule = await feeScheduleOf(trx, charge.organization_id);
  for (const stage of newFeeStages)
    if (schedule.fee > 0n) await entry('dispute_fee', feeSourceOf(row.id, stage), schedule.fee.toString());
  if (wonNow && schedule.returnedOnWin) {
    const source = feeSourceOf(row.id, row.stage);
    const fee = await deps.ledger.disputeFeeOf(trx, source);
    if (fee !== undefined && fee > 0n) await entry('dispute_fee_returned', source, fee.toString());
  }
}

async function applyFraudWarning(
  deps: ApplyDeps,
  trx: Trx,
  provider: string,
  charge: ChargeRow,
  resource: AcquirerDispute,
): Promise<ApplyOutcome> {
  // An early fraud warning has no lifecycle: the first read-back creates it, any other is a repeat.
  if (await disputes.lockFraudWarning(trx, provider, resource.id)) return 'stale';
  const now = deps.clock.now();
  const row = await disputes.insertFraudWarning(trx, {
    id: newId('efw', now),
    organization_id: charge.organization_id,
    environment: charge.environment,
    charge_id: charge.id,
    provider,
    provider_warning_id: resource.id,
    reason: resource.reason,
    reason_code: resource.reasonCode,
    network: networkOf(resource.network),
    refund_id: null,
    provider_created_at: new Date(resource.createdAt),
    created_at: now,
    updated_at: now,
  });
  await recordEvents(
    deps,
    trx,
    charge,
    row,
    ['fraud_warning.created'],
    fraudWarningView(row, disputeChargeOf(charge)),
  );
  return 'applied';
}

async function applyAlert(
  deps: ApplyDeps,
  trx: Trx,
  provider: string,
  charge: ChargeRow,
  resource: AcquirerDispute,
): Promise<ApplyOutcome> {
  const status = alertStatusOf(resource);
  if (!status || resource.refundBy === null) throw new Error(`alert ${resource.id}: unchecked read-back`);
  const now = deps.clock.now();
  const existing = await disputes.lockAlert(trx, provider, resource.id);
  const rank = alertRankOf(status);
  if (existing && rank <= existing.rank) return 'stale';
  const lifecycle = {
    status,
    rank,
    closed_at: resource.closedAt === null ? null : new Date(resource.closedAt),
    provider_updated_at: new Date(resource.updatedAt),
    updated_at: now,
  };
  const row = existing
    ? await disputes.updateAlert(trx, existing.id, lifecycle)
    : await disputes.insertAlert(trx, {
        id: newId('dpa', now),
        organization_id: charge.organization_id,
        environment: charge.environment,
        charge_id: charge.id,
        provider,
        provider_alert_id: resource.id,
        amount: resource.amount,
        currency: 'TRY',
        reason: resource.reason,
        reason_code: resource.reasonCode,
        network: networkOf(resource.network),
        refund_by: new Date(resource.refundBy),
        refund_id: null,
        provider_created_at: new Date(resource.createdAt),
        created_at: now,
        ...lifecycle,
      });
  const types: EventType[] = existing ? [] : ['dispute_alert.created'];
  if (status === 'resolved') types.push('dispute_alert.resolved');
  if (status === 'expired') types.push('dispute_alert.expired');
  await recordEvents(deps, trx, charge, row, types, disputeAlertView(row, disputeChargeOf(charge)));
  return 'applied';
}

/** The events of one case's change, in order, each with the case's view and the charge's payment. */
async function recordEvents(
  deps: ApplyDeps,
  trx: Trx,
  charge: ChargeRow,
  row: Owned,
  types: readonly EventType[],
  data: EventInput['data'],
): Promise<void> {
  await deps.events.recordMany(
    trx,
    types.map((type) => ({
      organizationId: row.organization_id,
      environment: row.environment,
      type,
      resourceId: row.id,
      data,
      payment: paymentOf(charge),
    })),
  );
}

/** What an event names of a dispute, an alert or a warning row. */
interface Owned {
  id: string;
  organization_id: string;
  environment: Owner['environment'];
}
