import { Type, type Static } from 'typebox';
import type { Environment, OperatorAlertKind } from '../../db/schema.js';

export const OperatorAlertViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.Enum([
    'notification_mismatch',
    'negative_pending_balance',
    'job_parked',
    'settlement_held',
    'reconciliation_differences',
    'refund_mismatch',
    'payout_sent_not_pending',
    'dispute_debt_unrecoverable',
    'dispute_ratio',
  ]),
  organizationId: Type.Union([Type.String(), Type.Null()]),
  environment: Type.Union([Type.Enum(['sandbox', 'live']), Type.Null()]),
  subjectId: Type.String(),
  chargeId: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  details: Type.Unknown(),
  createdAt: Type.String({ format: 'date-time' }),
  acknowledgedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  acknowledgedBy: Type.Union([Type.String(), Type.Null()]),
});
export type OperatorAlertView = Static<typeof OperatorAlertViewSchema>;

/** An alert's row as the operator sees it. */
export const alertView = (row: {
  id: string;
  kind: OperatorAlertKind;
  organization_id: string | null;
  environment: Environment | null;
  subject_id: string;
  charge_id: string | null;
  message: string;
  details: unknown;
  created_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
}): OperatorAlertView => ({
  id: String(row.id),
  kind: row.kind,
  organizationId: row.organization_id,
  environment: row.environment,
  subjectId: row.subject_id,
  chargeId: row.charge_id,
  message: row.message,
  details: row.details,
  createdAt: row.created_at.toISOString(),
  acknowledgedAt: row.acknowledged_at?.toISOString() ?? null,
  acknowledgedBy: row.acknowledged_by,
});
