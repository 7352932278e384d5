import type { Journal, JournalEntry } from './journal.js';
import type {
  Challenge,
  IdempotencyRecord,
  IdempotencyScope,
  NotificationRecord,
  PlannedDispute,
  Refund,
  StoredDispute,
  StoredPayment,
} from './model.js';

/**
 * The state of one acquirer instance. Every save is synchronous and journaled, so that a read that
 * follows a save in the same tick (an idempotency lookup, then the insert) can never interleave.
 */
export class AcquirerStore {
  private readonly payments = new Map<string, StoredPayment>();
  private readonly byReference = new Map<string, string[]>();
  private readonly refunds = new Map<string, Refund>();
  private readonly challenges = new Map<string, Challenge>();
  private readonly idempotency = new Map<string, IdempotencyRecord>();
  private readonly notifications = new Map<string, NotificationRecord>();
  private readonly disputes = new Map<string, StoredDispute>();
  private readonly plannedDisputes = new Map<string, PlannedDispute>();

  constructor(private readonly journal: Journal) {}

  /** Replays journal entries (the last state of each record wins) without writing them again. */
  load(entries: readonly JournalEntry[]): void {
    for (const entry of entries) this.apply(entry);
  }

  payment(id: string): StoredPayment | undefined {
    return this.payments.get(id);
  }

  /** The payments with this reference, oldest first. */
  paymentsByReference(reference: string): StoredPayment[] {
    const ids = this.byReference.get(reference) ?? [];
    return ids.flatMap((id) => this.payments.get(id) ?? []);
  }

  refund(id: string): Refund | undefined {
    return this.refunds.get(id);
  }

  challenge(id: string): Challenge | undefined {
    return this.challenges.get(id);
  }

  idempotencyRecord(scope: IdempotencyScope, key: string): IdempotencyRecord | undefined {
    return this.idempotency.get(idempotencyKey(scope, key));
  }

  notification(id: string): NotificationRecord | undefined {
    return this.notifications.get(id);
  }

  dispute(id: string): StoredDispute | undefined {
    return this.disputes.get(id);
  }

  /** Every dispute resource (of every kind), in the order they were raised. */
  allDisputes(): StoredDispute[] {
    return [...this.disputes.values()];
  }

  plannedDispute(paymentId: string): PlannedDispute | undefined {
    return this.plannedDisputes.get(paymentId);
  }

  /** The test-card disputes still waiting for their delay, and those already raised. */
  allPlannedDisputes(): PlannedDispute[] {
    return [...this.plannedDisputes.values()];
  }

  /** Every payment, in the order they were made. */
  allPayments(): StoredPayment[] {
    return [...this.payments.values()];
  }

  /** Every refund, in the order they were made. */
  allRefunds(): Refund[] {
    return [...this.refunds.values()];
  }

  /** Every notification, in the order they were made. */
  allNotifications(): NotificationRecord[] {
    return [...this.notifications.values()];
  }

  savePayment(data: StoredPayment): void {
    this.write({ kind: 'payment', data });
  }

  saveRefund(data: Refund): void {
    this.write({ kind: 'refund', data });
  }

  saveChallenge(data: Challenge): void {
    this.write({ kind: 'challenge', data });
  }

  saveIdempotency(data: IdempotencyRecord): void {
    this.write({ kind: 'idempotency', data });
  }

  saveNotification(data: NotificationRecord): void {
    this.write({ kind: 'notification', data });
  }

  saveDispute(data: StoredDispute): void {
    this.write({ kind: 'dispute', data });
  }

  savePlannedDispute(data: PlannedDispute): void {
    this.write({ kind: 'planned_dispute', data });
  }

  private write(entry: JournalEntry): void {
    this.apply(entry);
    this.journal.append(entry);
  }

  private apply(entry: JournalEntry): void {
    switch (entry.kind) {
      case 'payment':
        this.indexReference(entry.data);
        this.payments.set(entry.data.id, entry.data);
        break;
      case 'refund':
        this.refunds.set(entry.data.id, entry.data);
        break;
      case 'challenge':
        this.challenges.set(entry.data.id, entry.data);
        break;
      case 'idempotency':
        this.idempotency.set(idempotencyKey(entry.data.scope, entry.data.key), entry.data);
        break;
      case 'notification':
        this.notifications.set(entry.data.id, entry.data);
        break;
      case 'dispute':
        this.disputes.set(entry.data.id, entry.data);
        break;
      case 'planned_dispute':
        this.plannedDisputes.set(entry.data.paymentId, entry.data);
        break;
    }
  }

  private indexReference(payment: StoredPayment): void {
    if (this.payments.has(payment.id)) return;
    const ids = this.byReference.get(payment.reference);
    if (ids) ids.push(payment.id);
    else this.byReference.set(payment.reference, [payment.id]);
  }
}

function idempotencyKey(scope: IdempotencyScope, key: string): string {
  return `${scope}\u0000${key}`;
}
