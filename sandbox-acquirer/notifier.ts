import type { Logger } from 'pino';
import type { Clock } from '../src/shared/clock.js';
import type { FaultTable, FaultTarget } from './faults.js';
import { randomId } from './ids.js';
import type {
  Dispute,
  NotificationAttempt,
  NotificationRecord,
  NotificationStatus,
  NotificationType,
  Payment,
  Refund,
} from './model.js';
import { signNotification } from './signature.js';
import { sleep } from './sleep.js';
import type { AcquirerStore } from './store.js';

/** The delivery schedule of notifications (real time). */
export interface RetrySchedule {
  initialDelayMs: number;
  maxDelayMs: number;
  giveUpAfterMs: number;
  attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = Object.freeze({
  initialDelayMs: 1000,
  maxDelayMs: 300_000,
  giveUpAfterMs: 86_400_000,
  attemptTimeoutMs: 5000,
});

export interface NotifierDeps {
  store: AcquirerStore;
  clock: Clock;
  faults: FaultTable;
  logger: Logger;
  secret: string;
  retry: RetrySchedule;
  defaultUrl: string | null;
  /** Aborted when the acquirer closes: stops waits and in-flight attempts. */
  lifetime: AbortSignal;
}

/** A notification as `GET /_control/notifications` shows it. */
export interface NotificationView {
  id: string;
  type: NotificationType;
  paymentId: string;
  refundId: string | null;
  disputeId: string | null;
  url: string | null;
  status: NotificationStatus;
  acknowledged: boolean;
  attempts: NotificationAttempt[];
  lastError: string | null;
  createdAt: string;
  body: unknown;
}

export function notificationView(record: NotificationRecord): NotificationView {
  return {
    id: record.id,
    type: record.type,
    paymentId: record.paymentId,
    refundId: record.refundId,
    disputeId: record.disputeId ?? null,
    url: record.url,
    status: record.status,
    acknowledged: record.status === 'acknowledged',
    attempts: record.attempts,
    lastError: record.lastError,
    createdAt: record.createdAt,
    body: JSON.parse(record.rawBody),
  };
}

/**
 * Sends notifications: one payment's in order (a later one waits for the earlier one to be acknowledged,
 * abandoned or dropped), retried with exponential backoff on real, unref'd timers.
 */
export class Notifier {
  /** Per payment, the ids of its pending notifications in order; the first is the one being delivered. */
  private readonly queues = new Map<string, string[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly deps: NotifierDeps) {}

  /**
   * Records a notification about `payment` (and `refund`, or `dispute`) and queues it for delivery. Only a
   * dispute's notifications have a `dispute` member: the others keep the body they always had.
   */
  notify(
    type: NotificationType,
    payment: Payment,
    refund: Refund | null,
    dispute: Dispute | null = null,
  ): NotificationRecord {
    const now = this.deps.clock.now();
    const id = randomId('ntf');
    const body = { id, type, createdAt: now.toISOString(), payment, refund, ...(dispute ? { dispute } : {}) };
    const record: NotificationRecord = {
      id,
      type,
      paymentId: payment.id,
      refundId: refund?.id ?? null,
      disputeId: dispute?.id ?? null,
      url: payment.notificationUrl ?? this.deps.defaultUrl,
      rawBody: JSON.stringify(body),
      status: 'pending',
      attempts: [],
      lastError: null,
      giveUpAt: Date.now() + this.deps.retry.giveUpAfterMs,
      createdAt: now.toISOString(),
    };
    this.deps.store.saveNotification(record);
    this.enqueue(record);
    return record;
  }

  /** Queues the pending notifications of a replayed journal. */
  resume(): void {
    for (const record of this.deps.store.allNotifications()) {
      if (record.status === 'pending') this.enqueue(record);
    }
  }

  /**
   * Attempts the first pending notification of every payment now, without waiting for its backoff, and
   * answers them once those attempts are over. Later notifications of a payment follow on their own.
   */
  async retryPending(): Promise<NotificationRecord[]> {
    const heads = [...this.queues.values()].flatMap((queue) => queue[0] ?? []);
    await Promise.all(
      heads.map((id) => {
        const timer = this.timers.get(id);
        if (timer) {
          clearTimeout(timer);
          this.timers.delete(id);
        }
        return this.launch(id);
      }),
    );
    return heads.flatMap((id) => this.deps.store.notification(id) ?? []);
  }

  /** Stops every timer; attempts in flight end without being recorded (the lifetime signal aborts them). */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private enqueue(record: NotificationRecord): void {
    const queue = this.queues.get(record.paymentId);
    if (queue) {
      queue.push(record.id);
      return;
    }
    this.queues.set(record.paymentId, [record.id]);
    this.schedule(record.id, 0);
  }

  private schedule(id: string, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      void this.launch(id);
    }, delayMs);
    timer.unref();
    this.timers.set(id, timer);
  }

  private launch(id: string): Promise<void> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const attempt = this.attempt(id)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, notificationId: id }, 'notification failed'),
      )
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, attempt);
    return attempt;
  }

  private async attempt(id: string): Promise<void> {
    const record = this.deps.store.notification(id);
    if (!record || record.status !== 'pending' || this.closed) return;
    const rule = this.deps.faults.take('notification', this.targetOf(record.paymentId));
    if (rule?.action === 'drop') {
      this.finish({ ...record, status: 'dropped', lastError: 'Dropped by a fault rule.' });
      return;
    }
    if (rule?.action === 'latency' && !(await sleep(rule.latencyMs ?? 0, this.deps.lifetime))) return;
    if (record.url === null) {
      const lastError = 'No notification URL: the payment has none and the acquirer has no default.';
      this.finish({ ...record, status: 'abandoned', lastError });
      return;
    }
    const outcome = await this.deliver(record, record.url);
    if (this.closed) return;
    const attempts = [...record.attempts, outcome];
    const lastError = outcome.error ?? (isAcknowledged(outcome) ? null : `HTTP ${outcome.status}`);
    if (isAcknowledged(outcome)) {
      this.finish({ ...record, attempts, lastError, status: 'acknowledged' });
    } else if (Date.now() >= record.giveUpAt) {
      this.finish({ ...record, attempts, lastError, status: 'abandoned' });
    } else {
      this.deps.store.saveNotification({ ...record, attempts, lastError });
      this.schedule(id, this.backoff(attempts.length, record.giveUpAt));
    }
  }

  private async deliver(record: NotificationRecord, url: string): Promise<NotificationAttempt> {
    const at = this.deps.clock.now();
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const timeoutMs = this.deps.retry.attemptTimeoutMs;
    const signal = AbortSignal.any([this.deps.lifetime, AbortSignal.timeout(timeoutMs)]);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'acquirer-timestamp': timestamp,
          'acquirer-signature': signNotification(this.deps.secret, timestamp, record.rawBody),
        },
        body: record.rawBody,
        redirect: 'manual',
        signal,
      });
      await response.body?.cancel().catch(() => undefined);
      this.deps.logger.info(
        { notificationId: record.id, paymentId: record.paymentId, status: response.status },
        'notification attempt',
      );
      return { at: at.toISOString(), status: response.status, error: null };
    } catch (error) {
      const message = describeFailure(error, timeoutMs);
      this.deps.logger.info(
        { notificationId: record.id, paymentId: record.paymentId, error: message },
        'notification attempt',
      );
      return { at: at.toISOString(), status: null, error: message };
    }
  }

  private finish(record: NotificationRecord): void {
    this.deps.store.saveNotification(record);
    this.deps.logger.info({ notificationId: record.id, status: record.status }, 'notification settled');
    const queue = this.queues.get(record.paymentId);
    if (!queue) return;
    const index = queue.indexOf(record.id);
    if (index >= 0) queue.splice(index, 1);
    const next = queue[0];
    if (next === undefined) this.queues.delete(record.paymentId);
    else this.schedule(next, 0);
  }

  /** initialDelay × 2^(n-1), capped at maxDelay, and never past the give-up time. */
  private backoff(failedAttempts: number, giveUpAt: number): number {
    const { initialDelayMs, maxDelayMs } = this.deps.retry;
    const exponential = initialDelayMs * 2 ** Math.min(failedAttempts - 1, 40);
    return Math.max(0, Math.min(exponential, maxDelayMs, giveUpAt - Date.now()));
  }

  private targetOf(paymentId: string): FaultTarget {
    const payment = this.deps.store.payment(paymentId);
    return { reference: payment?.reference ?? null, amount: payment?.amount ?? null };
  }
}

function isAcknowledged(attempt: NotificationAttempt): boolean {
  return attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `No answer within ${timeoutMs} ms.`;
  if (error instanceof Error && error.name === 'AbortError') return 'Aborted: the acquirer is closing.';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return `Connection failed: ${cause.code}.`;
  return error instanceof Error ? `Request failed: ${error.message}` : 'Request failed.';
}
