import type { CardBrand, CardDispute } from './cards.js';
import type { DisputeKind, DisputeNetwork, DisputeReason } from './dispute-reasons.js';

/** Where a payment is; see docs/sandbox-acquirer.md. */
export type PaymentStatus =
  | 'awaiting_payment'
  | 'requires_action'
  | 'succeeded'
  | 'failed'
  | 'canceled'
  | 'partially_refunded'
  | 'refunded';

export type PaymentMethod = 'card' | 'bank_transfer';

/** What the acquirer keeps of a card: never the number or the CVC. */
export interface CardSummary {
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface Failure {
  code: string;
  message: string;
}

export interface BankTransferInstructions {
  iban: string;
  accountHolder: string;
  paymentReference: string;
}

export interface Refund {
  id: string;
  paymentId: string;
  amount: string;
  status: 'succeeded';
  createdAt: string;
}

/** A payment as the protocol shows it. */
export interface Payment {
  id: string;
  reference: string;
  amount: string;
  currency: 'TRY';
  method: PaymentMethod;
  status: PaymentStatus;
  description: string | null;
  notificationUrl: string | null;
  card: CardSummary | null;
  bankTransfer: BankTransferInstructions | null;
  challenge: { id: string; url: string } | null;
  failure: Failure | null;
  attempts: number;
  maxAttempts: number;
  refundedAmount: string;
  refunds: Refund[];
  createdAt: string;
  updatedAt: string;
}

/**
 * A payment as the acquirer stores it: the challenge URL depends on where the acquirer is reachable.
 * `succeededAt` dates the payment in the settlement report (absent in journals written before it).
 */
export type StoredPayment = Omit<Payment, 'challenge'> & { challengeId: string | null; succeededAt?: string };

/** A line of the settlement report about a dispute's funds: taken back (debit) or given back (reversal). */
export interface DisputeFundsLine {
  id: string;
  disputeId: string;
  paymentId: string;
  reference: string;
  amount: string;
  createdAt: string;
}

/**
 * One day's settlement report (UTC): what the acquirer settles to the gateway, and what it takes back.
 * The dispute lists and totals are there only on a day that has dispute funds movements, so that a report
 * without disputes keeps the shape it always had.
 */
export interface SettlementReport {
  date: string;
  currency: 'TRY';
  payments: Array<{ id: string; reference: string; amount: string; succeededAt: string }>;
  refunds: Array<{ id: string; paymentId: string; reference: string; amount: string; createdAt: string }>;
  disputeDebits?: DisputeFundsLine[];
  disputeReversals?: DisputeFundsLine[];
  totals: {
    payments: string;
    refunds: string;
    disputeDebits?: string;
    disputeReversals?: string;
    net: string;
  };
}

/** A 3-D Secure challenge; `open` until completed or its payment is canceled. */
export interface Challenge {
  id: string;
  paymentId: string;
  returnUrl: string;
  alwaysFails: boolean;
  card: CardSummary;
  /** What the issuer raises once the challenge succeeded (a dispute card whose 3-D Secure was required). */
  raises?: CardDispute | null;
  state: 'open' | 'succeeded' | 'failed' | 'closed';
  createdAt: string;
  updatedAt: string;
}

export type IdempotencyScope = 'create_payment' | 'refund';

/** An Idempotency-Key seen on a create or refund, and what it created. */
export interface IdempotencyRecord {
  scope: IdempotencyScope;
  key: string;
  fingerprint: string;
  resourceId: string;
  createdAt: string;
}

export type NotificationType =
  'payment.succeeded' | 'payment.failed' | 'payment.canceled' | 'refund.succeeded' | DisputeNotificationType;

export type DisputeNotificationType =
  | 'dispute.created'
  | 'dispute.updated'
  | 'dispute.closed'
  | 'dispute.funds_withdrawn'
  | 'dispute.funds_reinstated'
  | 'fraud_warning.created'
  | 'dispute_alert.created'
  | 'dispute_alert.resolved'
  | 'dispute_alert.expired';

export type NotificationStatus = 'pending' | 'acknowledged' | 'abandoned' | 'dropped';

export interface NotificationAttempt {
  at: string;
  /** The receiver's HTTP status, or null when there was no answer. */
  status: number | null;
  error: string | null;
}

/** A notification and its delivery. `rawBody` is sent byte for byte on every attempt. */
export interface NotificationRecord {
  id: string;
  type: NotificationType;
  paymentId: string;
  refundId: string | null;
  /** Absent in journals written before disputes. */
  disputeId?: string | null;
  url: string | null;
  rawBody: string;
  status: NotificationStatus;
  attempts: NotificationAttempt[];
  lastError: string | null;
  /** Real time (epoch ms) after which a failed attempt abandons the notification. */
  giveUpAt: number;
  createdAt: string;
}

/** The result of a card attempt, as `attempt` in the authorize answer. */
export interface AttemptResult {
  outcome: 'succeeded' | 'declined' | 'challenge';
  failure: Failure | null;
}

/**
 * Where a dispute resource is. Disputes: `needs_response`, `under_review`, `won`, `lost`; inquiries:
 * `needs_response`, `under_review`, `closed` (or they escalate to a dispute); early fraud warnings:
 * `open`; pre-dispute alerts: `open`, `resolved`, `expired`.
 */
export type DisputeStatus =
  'needs_response' | 'under_review' | 'won' | 'lost' | 'closed' | 'open' | 'resolved' | 'expired';

/** The stage of a dispute: the first chargeback, then (through the control endpoint) pre-arbitration. */
export type DisputeStage = 'chargeback' | 'pre_arbitration';

/** What ended a dispute resource. */
export type DisputeClosedBy = 'acceptance' | 'decision' | 'deadline' | 'refund';

/** Money the acquirer took back for a dispute, or gave back after it: one settlement report line each. */
export interface DisputeMovement {
  id: string;
  type: 'funds_withdrawn' | 'funds_reinstated';
  amount: string;
  createdAt: string;
}

/** Evidence submitted for one stage (an inquiry's, the chargeback's or pre-arbitration's). */
export interface DisputeEvidence {
  stage: 'inquiry' | DisputeStage;
  text: string;
  submittedAt: string;
}

/** A dispute, inquiry, early fraud warning or pre-dispute alert, as the protocol shows it. */
export interface Dispute {
  id: string;
  kind: DisputeKind;
  paymentId: string;
  reference: string;
  amount: string;
  currency: 'TRY';
  reason: DisputeReason;
  reasonCode: string;
  network: DisputeNetwork;
  status: DisputeStatus;
  /** Disputes only (null for the other kinds). */
  stage: DisputeStage | null;
  /** Disputes and inquiries waiting for evidence: the deadline of the current stage. */
  evidenceDueBy: string | null;
  /** Pre-dispute alerts: a refund before this time resolves the alert. */
  refundBy: string | null;
  fundsWithdrawn: boolean;
  amountWithdrawn: string;
  amountReinstated: string;
  movements: DisputeMovement[];
  evidence: DisputeEvidence[];
  /** A dispute raised because this pre-dispute alert expired. */
  alertId: string | null;
  /** When an inquiry became this dispute. */
  escalatedAt: string | null;
  closedBy: DisputeClosedBy | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The issuer's answer to evidence, made when the evidence arrives and applied `decisionDelayMs` later. */
export type DisputeDecision = 'won' | 'lost' | 'closed' | 'escalate';

/** A dispute as the acquirer stores it: with the decision it is waiting to apply (real time, epoch ms). */
export type StoredDispute = Dispute & { pendingDecision: { outcome: DisputeDecision; at: number } | null };

/** A test card's dispute, raised `disputeDelayMs` (real time) after its payment succeeded. */
export interface PlannedDispute {
  paymentId: string;
  kind: DisputeKind;
  reason: DisputeReason;
  raiseAt: number;
  raised: boolean;
}
