import type { ChargeRow } from '../charges/model.js';
import type { DisputeAlertRow, DisputeRow, FraudWarningRow } from './model.js';

/** What a dispute's view says of its charge: enough to find the order without another call. */
export interface DisputeCharge {
  id: string;
  merchantReference: string;
  metadata: Record<string, unknown> | null;
}

export const disputeChargeOf = (charge: ChargeRow): DisputeCharge => ({
  id: charge.id,
  merchantReference: charge.merchant_reference,
  metadata: charge.metadata,
});

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** A dispute as the API, the events and the pages show it. */
export function disputeView(row: DisputeRow, charge: DisputeCharge) {
  return {
    id: row.id,
    object: 'dispute' as const,
    chargeId: row.charge_id,
    charge,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    reasonCode: row.reason_code,
    network: row.network,
    status: row.status,
    stage: row.stage,
    isInquiry: row.stage === 'inquiry',
    evidenceDueBy: iso(row.evidence_due_by),
    evidence: row.evidence,
    evidenceSubmittedAt: iso(row.evidence_submitted_at),
    submissions: row.submissions,
    amountWithdrawn: row.amount_withdrawn,
    amountReinstated: row.amount_reinstated,
    creditProcessed: row.credit_processed,
    alertId: row.alert_id,
    closedBy: row.closed_by,
    closedAt: iso(row.closed_at),
    escalatedAt: iso(row.escalated_at),
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type DisputeView = ReturnType<typeof disputeView>;

export function fraudWarningView(row: FraudWarningRow, charge: DisputeCharge) {
  return {
    id: row.id,
    object: 'fraud_warning' as const,
    chargeId: row.charge_id,
    charge,
    reason: row.reason,
    reasonCode: row.reason_code,
    network: row.network,
    refundId: row.refund_id,
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
  };
}
export type FraudWarningView = ReturnType<typeof fraudWarningView>;

export function disputeAlertView(row: DisputeAlertRow, charge: DisputeCharge) {
  return {
    id: row.id,
    object: 'dispute_alert' as const,
    chargeId: row.charge_id,
    charge,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    reasonCode: row.reason_code,
    network: row.network,
    status: row.status,
    refundBy: row.refund_by.toISOString(),
    refundId: row.refund_id,
    closedAt: iso(row.closed_at),
    livemode: row.environment === 'live',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type DisputeAlertView = ReturnType<typeof disputeAlertView>;
