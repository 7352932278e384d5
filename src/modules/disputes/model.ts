import type {
  CardNetwork,
  DisputeAlertRow,
  DisputeAlertStatus,
  DisputeReason,
  DisputeRow,
  DisputeStage,
  DisputeStatus,
  FraudWarningRow,
} from '../../db/schema.js';
import { endStates, type Transitions } from '../../shared/state-machine.js';
import type { AcquirerDispute } from '../acquirer/types.js';

export type { DisputeAlertRow, DisputeAlertStatus, DisputeRow, DisputeStage, DisputeStatus, FraudWarningRow };

/**
 * A dispute's lifecycle (docs/decisions/0076-disputes.md). An inquiry (`warning_*`, stage `inquiry`) is
 * answered and closed, or escalates to a chargeback; a chargeback is answered (`under_review`) or lost
 * (accepted, or past its deadline), and the issuer decides on evidence; a decided chargeback may return
 * to `needs_response` only as the `pre_arbitration` stage. The gateway applies what the acquirer reads
 * back, which may skip steps (a `won` read before its `created`): a row moves to any state of a higher
 * `rank`, never to a lower one, and this table is the one a move of the same rank's stage must respect.
 */
export const TRANSITIONS: Transitions<DisputeStatus> = {
  warning_needs_response: ['warning_under_review', 'warning_closed', 'needs_response'],
  warning_under_review: ['warning_closed', 'needs_response'],
  needs_response: ['under_review', 'lost'],
  under_review: ['won', 'lost'],
  won: ['needs_response'],
  lost: ['needs_response'],
  ...endStates('warning_closed'),
};

/** Statuses in which the merchant can still answer. */
export const OPEN_STATUSES: readonly DisputeStatus[] = [
  'warning_needs_response',
  'warning_under_review',
  'needs_response',
  'under_review',
];

/** Statuses that end a stage: `dispute.closed`. */
export const CLOSED_STATUSES: readonly DisputeStatus[] = ['warning_closed', 'won', 'lost'];

const STAGE_RANK: Record<DisputeStage, number> = { inquiry: 0, chargeback: 1, pre_arbitration: 2 };
const STATUS_RANK: Record<DisputeStatus, number> = {
  warning_needs_response: 0,
  warning_under_review: 1,
  warning_closed: 2,
  needs_response: 0,
  under_review: 1,
  won: 2,
  lost: 2,
};

/** How far along its lifecycle a dispute is: the stage first, then the status within it. */
export function rankOf(stage: DisputeStage, status: DisputeStatus): number {
  return STAGE_RANK[stage] * 10 + STATUS_RANK[status];
}

const ALERT_RANK: Record<DisputeAlertStatus, number> = { open: 0, resolved: 1, expired: 1 };
export const alertRankOf = (status: DisputeAlertStatus): number => ALERT_RANK[status];

export const DISPUTE_REASONS: readonly DisputeReason[] = [
  'fraudulent',
  'unrecognized',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'credit_not_processed',
  'duplicate',
  'general',
];

const NETWORKS: readonly CardNetwork[] = ['visa', 'mastercard', 'troy'];
export const networkOf = (network: string): CardNetwork =>
  NETWORKS.find((known) => known === network) ?? 'unknown';

/** An acquirer resource of kind `dispute` or `inquiry`, as the gateway's stage and status. */
export function disputeStateOf(
  resource: AcquirerDispute,
): { stage: DisputeStage; status: DisputeStatus } | undefined {
  if (resource.kind === 'inquiry') {
    const status = (
      {
        needs_response: 'warning_needs_response',
        under_review: 'warning_under_review',
        closed: 'warning_closed',
      } as const
    )[resource.status as 'needs_response' | 'under_review' | 'closed'];
    return status === undefined ? undefined : { stage: 'inquiry', status };
  }
  if (resource.kind !== 'dispute') return undefined;
  const stage = resource.stage === 'pre_arbitration' ? 'pre_arbitration' : 'chargeback';
  const status = (['needs_response', 'under_review', 'won', 'lost'] as const).find(
    (known) => known === resource.status,
  );
  return status === undefined ? undefined : { stage, status };
}

export const alertStatusOf = (resource: AcquirerDispute): DisputeAlertStatus | undefined =>
  (['open', 'resolved', 'expired'] as const).find((known) => known === resource.status);

/** The fee stages of a dispute: a chargeback's, and the pre-arbitration's when it got there. */
export function feeStagesOf(row: Pick<DisputeRow, 'stage' | 'amount_withdrawn'>): DisputeStage[] {
  const stages: DisputeStage[] = [];
  if (row.stage === 'inquiry') return stages;
  if (BigInt(row.amount_withdrawn) > 0n) stages.push('chargeback');
  if (row.stage === 'pre_arbitration') stages.push('pre_arbitration');
  return stages;
}

/** The source id of a stage's fee entry (and of its return). */
export const feeSourceOf = (disputeId: string, stage: DisputeStage): string => `${disputeId}:${stage}`;
