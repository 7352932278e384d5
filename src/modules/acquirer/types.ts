import type { ChargeProviderStatus } from '../../db/schema.js';

/**
 * The provider adapter interface (product decision 19): what the gateway needs from an upstream acquirer.
 * The sandbox acquirer (`sandbox-acquirer/`, docs/sandbox-acquirer.md) speaks the HTTP protocol that
 * `createHttpAcquirer` implements; a live acquirer gets an adapter of its own behind this interface.
 */
export type AcquirerMethod = 'card' | 'bank_transfer';

/** The payment's state at the acquirer: what `providerStatus` shows. */
export type ProviderStatus = ChargeProviderStatus;

export interface AcquirerPayment {
  id: string;
  reference: string;
  amount: string;
  currency: string;
  method: AcquirerMethod;
  status: ProviderStatus;
  card: { brand: string; last4: string; expMonth: number; expYear: number } | null;
  bankTransfer: { iban: string; accountHolder: string; paymentReference: string } | null;
  challenge: { id: string; url: string } | null;
  failure: { code: string; message: string } | null;
  attempts: number;
  maxAttempts: number;
  refundedAmount: string;
  createdAt: string;
  updatedAt: string;
}

export interface CreatePaymentInput {
  /** The gateway's charge id: a retry of the same creation never makes a second payment. */
  idempotencyKey: string;
  /** Decimal string of minor units. */
  amount: string;
  currency: 'TRY';
  method: AcquirerMethod;
  reference: string;
  description?: string;
  notificationUrl?: string;
  maxAttempts?: number;
}

/** What the checkout forwards from the customer's card form; never stored or logged by the gateway. */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  holderName: string | null;
}

/**
 * What an authorization asks of 3-D Secure: `automatic` (the acquirer and issuer decide, the default) or
 * `required` (every card that would be approved goes through the challenge first): the organization's
 * setting (docs/sandbox-acquirer.md, "POST /v1/payments/{id}/authorize").
 */
export type ThreeDSecure = 'automatic' | 'required';

export interface AuthorizeOptions {
  /** Absent: `automatic`. */
  threeDSecure?: ThreeDSecure;
}

export interface CardAttempt {
  outcome: 'succeeded' | 'declined' | 'challenge';
  failure: { code: string; message: string } | null;
}

export interface AcquirerRefund {
  id: string;
  paymentId: string;
  amount: string;
  /** When the acquirer names it (the sandbox acquirer does not): checked against the refund's (ADR 0055). */
  currency?: string;
  status: 'succeeded';
  createdAt: string;
}

/** One day's settlement report (UTC) from the acquirer: what it settles, and what it takes back. */
export interface AcquirerSettlementReport {
  date: string;
  currency: 'TRY';
  payments: Array<{ id: string; reference: string; amount: string; succeededAt: string }>;
  refunds: Array<{ id: string; paymentId: string; reference: string; amount: string; createdAt: string }>;
  /**
   * The funds disputes withdrew and gave back that day (absent on a day without any): each line a
   * movement of a dispute (`dmv_…`), booked once by the gateway under that id.
   */
  disputeDebits?: DisputeFundsLine[];
  disputeReversals?: DisputeFundsLine[];
}

export interface DisputeFundsLine {
  id: string;
  disputeId: string;
  paymentId: string;
  reference: string;
  amount: string;
  createdAt: string;
}

export interface Acquirer {
  /** A stable name recorded on each charge (`sandbox`, or the live acquirer's). */
  readonly name: string;
  createPayment(input: CreatePaymentInput): Promise<AcquirerPayment>;
  getPayment(id: string): Promise<AcquirerPayment>;
  /** Payments created for a reference, oldest first: how recovery learns whether a creation got through. */
  findPayments(reference: string): Promise<AcquirerPayment[]>;
  /** One card attempt (not retried: an authorisation is not idempotent at the acquirer). */
  authorize(
    paymentId: string,
    card: CardDetails,
    returnUrl: string,
    options?: AuthorizeOptions,
  ): Promise<AcquirerPayment & { attempt: CardAttempt }>;
  /** Sandbox only: the customer's bank transfer arrives. */
  simulateTransfer(paymentId: string, amount?: string): Promise<AcquirerPayment>;
  /** An unpaid payment can no longer be paid (the checkout expired). */
  cancel(paymentId: string): Promise<AcquirerPayment>;
  /** The gateway's refund id is the idempotency key. */
  refund(paymentId: string, input: { idempotencyKey: string; amount: string }): Promise<AcquirerRefund>;
  /** The payments that succeeded and the refunds made on a UTC date (`YYYY-MM-DD`): reconciliation's input. */
  settlementReport(date: string): Promise<AcquirerSettlementReport>;
  /** A dispute resource as it is now (docs/sandbox-acquirer.md, "Disputes"): what the gateway applies. */
  getDispute(id: string): Promise<AcquirerDispute>;
  /** Sends a stage's evidence; the dispute answers `under_review`. Not retried blindly: one per stage. */
  submitDisputeEvidence(id: string, text: string): Promise<AcquirerDispute>;
  /** Accepts a dispute (closed `lost`); accepting again answers it unchanged, so a retry is safe. */
  acceptDispute(id: string): Promise<AcquirerDispute>;
}

/** One case an issuer opened on a payment, as the acquirer shows it (docs/sandbox-acquirer.md, "Disputes"). */
export interface AcquirerDispute {
  id: string;
  kind: 'dispute' | 'inquiry' | 'early_fraud_warning' | 'pre_dispute_alert';
  paymentId: string;
  reference: string;
  amount: string;
  currency: string;
  reason: string;
  reasonCode: string;
  network: string;
  status: string;
  stage: 'chargeback' | 'pre_arbitration' | null;
  evidenceDueBy: string | null;
  refundBy: string | null;
  fundsWithdrawn: boolean;
  amountWithdrawn: string;
  amountReinstated: string;
  movements: Array<{
    id: string;
    type: 'funds_withdrawn' | 'funds_reinstated';
    amount: string;
    createdAt: string;
  }>;
  evidence: Array<{ stage: string; text: string; submittedAt: string }>;
  alertId: string | null;
  escalatedAt: string | null;
  closedBy: string | null;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The acquirer answered 4xx (spec section 7, 502 `provider_rejected`). The message is already sanitised.
 * `transient`: the 4xx said "not now" (408, 425, 429) on every attempt of the call, not "no": nothing
 * was refused on its merits, so what can be asked again later (a refund, a read-back, a cancel) is asked
 * again instead of being recorded as refused.
 */
export class AcquirerRejectedError extends Error {
  constructor(
    readonly providerCode: string,
    readonly providerHttpStatus: number,
    readonly sanitizedMessage: string,
    readonly providerPaymentStatus: string | null,
    readonly transient = false,
  ) {
    super(`acquirer refused the request (${providerHttpStatus} ${providerCode})`);
    this.name = 'AcquirerRejectedError';
  }
}

/** 5xx, timeouts, refused connections or unreadable answers, after the internal retries. */
export class AcquirerUnavailableError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'AcquirerUnavailableError';
  }
}

/** The acquirer of each environment and the secret its notifications are signed with. */
export interface Acquirers {
  sandbox: { acquirer: Acquirer; notificationSecret: string };
  live: { acquirer: Acquirer; notificationSecret: string } | undefined;
}
