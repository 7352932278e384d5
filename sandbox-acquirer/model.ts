import type { CardBrand } from './cards.js';

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

/** One day's settlement report (UTC): what the acquirer settles to the gateway, and what it takes back. */
export interface SettlementReport {
  date: string;
  currency: 'TRY';
  payments: Array<{ id: string; reference: string; amount: string; succeededAt: string }>;
  refunds: Array<{ id: string; paymentId: string; reference: string; amount: string; createdAt: string }>;
  totals: { payments: string; refunds: string; net: string };
}

/** A 3-D Secure challenge; `open` until completed or its payment is canceled. */
export interface Challenge {
  id: string;
  paymentId: string;
  returnUrl: string;
  alwaysFails: boolean;
  card: CardSummary;
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
  'payment.succeeded' | 'payment.failed' | 'payment.canceled' | 'refund.succeeded';

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
