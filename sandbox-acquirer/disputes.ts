import type { Logger } from 'pino';
import { DAY, HOUR, type Clock } from '../src/shared/clock.js';
import type { CardDispute } from './cards.js';
import { DISPUTE_NETWORKS, REASON_CODES, type DisputeKind, type DisputeReason } from './dispute-reasons.js';
import { AcquirerError, disputeNotFound, invalidRequest, invalidState, paymentNotFound } from './errors.js';
import { randomId } from './ids.js';
import type {
  Dispute,
  DisputeDecision,
  DisputeMovement,
  DisputeNotificationType,
  Payment,
  PaymentStatus,
  PlannedDispute,
  Refund,
  StoredDispute,
  StoredPayment,
} from './model.js';
import type { AcquirerStore } from './store.js';

/** The real-time delays of disputes (deadlines, on the other hand, are on the acquirer's clock). */
export interface DisputeTimings {
  /** Between a dispute test card's payment and what the issuer raises on it. */
  raiseDelayMs: number;
  /** Between evidence and the issuer's decision. */
  decisionDelayMs: number;
  /** How often deadlines (`evidenceDueBy`, `refundBy`) are checked against the clock. */
  deadlineCheckMs: number;
}

export const DEFAULT_DISPUTE_TIMINGS: DisputeTimings = Object.freeze({
  raiseDelayMs: 3000,
  decisionDelayMs: 5000,
  deadlineCheckMs: 1000,
});

/** How long the merchant has to answer a dispute, an inquiry or a pre-arbitration (acquirer's clock). */
export const EVIDENCE_WINDOW_MS = 7 * DAY;
/** How long a pre-dispute alert waits for a refund. */
export const ALERT_WINDOW_MS = 72 * HOUR;

/** Evidence containing this text wins the dispute (or closes the inquiry). */
export const WINNING_EVIDENCE = 'winning_evidence';
/** Evidence containing this text loses the dispute (or escalates the inquiry). */
export const LOSING_EVIDENCE = 'losing_evidence';

/** A payment that succeeded (refunded since or not) is what an issuer disputes. */
const DISPUTABLE: ReadonlySet<string> = new Set(['succeeded', 'partially_refunded', 'refunded']);

export interface DisputeServiceDeps {
  store: AcquirerStore;
  clock: Clock;
  logger: Logger;
  timings: DisputeTimings;
  /** The protocol's view of a payment (its challenge URL depends on where the acquirer is reachable). */
  viewPayment: (payment: StoredPayment) => Payment;
  notify: (type: DisputeNotificationType, payment: Payment, dispute: Dispute) => void;
}

/** What the control endpoint (or a test card) raises. */
export interface RaiseInput {
  paymentId: string;
  kind: DisputeKind;
  reason: DisputeReason;
  /** Default: the payment's amount. */
  amount: string | null;
  /** The deadline (`evidenceDueBy`, or `refundBy` for an alert); default: the kind's window from now. */
  dueBy: string | null;
  alertId?: string;
}

/**
 * The disputes of the acquirer: the issuer's side of chargebacks, inquiries, early fraud warnings and
 * pre-dispute alerts. Every method is synchronous, as in PaymentService; delays run on real, unref'd
 * timers and are journaled (a planned dispute, a pending decision) so that a restart resumes them.
 */
export class DisputeService {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private deadlineTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: DisputeServiceDeps) {}

  /** The protocol's view of a stored dispute. */
  view(dispute: StoredDispute): Dispute {
    const { pendingDecision: _pending, ...view } = dispute;
    return view;
  }

  /** A dispute as it is now (deadlines that passed are applied first). */
  get(id: string): StoredDispute {
    this.applyDeadlines();
    return this.find(id);
  }

  /** The dispute resources of a payment, oldest first. */
  ofPayment(paymentId: string): StoredDispute[] {
    if (!this.deps.store.payment(paymentId)) throw paymentNotFound();
    this.applyDeadlines();
    return this.disputesOf(paymentId);
  }

  /** Raises a dispute, inquiry, early fraud warning or pre-dispute alert on a succeeded card payment. */
  raise(input: RaiseInput): StoredDispute {
    const payment = this.deps.store.payment(input.paymentId);
    if (!payment) throw paymentNotFound();
    const network = DISPUTE_NETWORKS.find((candidate) => candidate === payment.card?.brand);
    if (!DISPUTABLE.has(payment.status) || network === undefined) {
      throw invalidState(
        payment.status,
        'Only a succeeded payment by a Visa, Mastercard or Troy card can be disputed.',
      );
    }
    const amount = input.amount ?? payment.amount;
    this.checkAmount(payment, amount, input.kind);
    const now = this.deps.clock.now();
    const due = this.dueBy(input, now);
    const record: StoredDispute = {
      id: randomId('dsp'),
      kind: input.kind,
      paymentId: payment.id,
      reference: payment.reference,
      amount,
      currency: 'TRY',
      reason: input.reason,
      reasonCode: REASON_CODES[network][input.reason],
      network,
      status: input.kind === 'dispute' || input.kind === 'inquiry' ? 'needs_response' : 'open',
      stage: input.kind === 'dispute' ? 'chargeback' : null,
      evidenceDueBy: input.kind === 'dispute' || input.kind === 'inquiry' ? due : null,
      refundBy: input.kind === 'pre_dispute_alert' ? due : null,
      fundsWithdrawn: false,
      amountWithdrawn: '0',
      amountReinstated: '0',
      movements: [],
      evidence: [],
      alertId: input.alertId ?? null,
      escalatedAt: null,
      closedBy: null,
      closedAt: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      pendingDecision: null,
    };
    const saved = this.save(input.kind === 'dispute' ? this.withdraw(record, amount) : record);
    this.deps.logger.info({ disputeId: saved.id, paymentId: payment.id, kind: saved.kind }, 'dispute raised');
    this.notify(CREATED[input.kind], saved);
    if (saved.fundsWithdrawn) this.notify('dispute.funds_withdrawn', saved);
    return saved;
  }

  /** The merchant's evidence: the dispute (or inquiry) goes under review; the decision follows later. */
  submitEvidence(id: string, text: string): StoredDispute {
    const dispute = this.get(id);
    const paymentStatus = this.paymentStatus(dispute);
    if (dispute.kind !== 'dispute' && dispute.kind !== 'inquiry') {
      throw invalidState(paymentStatus, `This is ${KIND_NAMES[dispute.kind]}: it takes no evidence.`);
    }
    const stage = evidenceStage(dispute);
    if (dispute.evidence.some((evidence) => evidence.stage === stage)) {
      throw new AcquirerError(
        409,
        'evidence_already_submitted',
        `Evidence was already submitted for this ${stage === 'inquiry' ? 'inquiry' : `${stage} stage`}.`,
        paymentStatus,
      );
    }
    if (dispute.evidenceDueBy !== null && this.deps.clock.now() >= new Date(dispute.evidenceDueBy)) {
      throw new AcquirerError(
        409,
        'evidence_past_due',
        'The evidence is too late: evidenceDueBy has passed.',
        paymentStatus,
      );
    }
    if (dispute.status !== 'needs_response') {
      throw invalidState(paymentStatus, `The dispute is ${dispute.status}: it takes no evidence now.`);
    }
    const now = this.deps.clock.now().toISOString();
    const outcome = decisionOf(dispute.kind, text);
    const saved = this.save({
      ...dispute,
      status: 'under_review',
      evidence: [...dispute.evidence, { stage, text, submittedAt: now }],
      pendingDecision: { outcome, at: Date.now() + this.deps.timings.decisionDelayMs },
    });
    this.notify('dispute.updated', saved);
    this.scheduleDecision(saved);
    return saved;
  }

  /** The merchant accepts the dispute: it closes as lost (accepting it again answers it unchanged). */
  accept(id: string): StoredDispute {
    const dispute = this.get(id);
    const paymentStatus = this.paymentStatus(dispute);
    if (dispute.kind !== 'dispute') {
      throw invalidState(
        paymentStatus,
        `This is ${KIND_NAMES[dispute.kind]}: only a dispute is accepted (answer an inquiry with evidence).`,
      );
    }
    if (dispute.status === 'lost' && dispute.closedBy === 'acceptance') return dispute;
    if (dispute.status !== 'needs_response') {
      throw invalidState(paymentStatus, `The dispute is ${dispute.status}: it can no longer be accepted.`);
    }
    return this.finish(dispute, 'lost', 'acceptance');
  }

  /**
   * The control endpoint: a decided dispute goes to pre-arbitration and waits for evidence again. A won
   * one has its funds withdrawn again; a lost one never had them back.
   */
  preArbitration(id: string, dueBy: string | null): StoredDispute {
    const dispute = this.get(id);
    if (dispute.kind !== 'dispute' || dispute.stage !== 'chargeback' || !isDecided(dispute)) {
      throw invalidState(
        this.paymentStatus(dispute),
        'Only a won or lost dispute of the chargeback stage goes to pre-arbitration.',
      );
    }
    const now = this.deps.clock.now();
    const reopened: StoredDispute = {
      ...dispute,
      stage: 'pre_arbitration',
      status: 'needs_response',
      evidenceDueBy: this.checkedDueBy(dueBy, now, EVIDENCE_WINDOW_MS),
      closedBy: null,
      closedAt: null,
    };
    const withdrawn = dispute.status === 'won';
    const saved = this.save(withdrawn ? this.withdraw(reopened, dispute.amount) : reopened);
    this.notify('dispute.updated', saved);
    if (withdrawn) this.notify('dispute.funds_withdrawn', saved);
    return saved;
  }

  /** The control endpoint (or a losing answer, or no answer): an inquiry becomes a dispute. */
  escalate(id: string): StoredDispute {
    const dispute = this.get(id);
    if (
      dispute.kind !== 'inquiry' ||
      (dispute.status !== 'needs_response' && dispute.status !== 'under_review')
    ) {
      throw invalidState(this.paymentStatus(dispute), 'Only an open inquiry escalates to a dispute.');
    }
    return this.escalateInquiry(dispute);
  }

  /** A dispute test card's payment succeeded: the issuer raises its dispute after the delay. */
  planCardDispute(payment: StoredPayment, card: CardDispute): void {
    const plan: PlannedDispute = {
      paymentId: payment.id,
      kind: card.kind,
      reason: card.reason,
      raiseAt: Date.now() + this.deps.timings.raiseDelayMs,
      raised: false,
    };
    this.deps.store.savePlannedDispute(plan);
    this.schedulePlan(plan);
  }

  /**
   * Before a refund: deadlines are applied (an alert past its deadline can no longer be refunded in
   * time), then the amount the payment's disputes hold (withdrawn and not reinstated) is answered.
   */
  heldAmount(paymentId: string): number {
    this.applyDeadlines();
    return Number(this.heldBy(paymentId));
  }

  /** After a refund: the payment's open alerts whose amount is now refunded are resolved. */
  refunded(payment: StoredPayment): void {
    for (const alert of this.disputesOf(payment.id)) {
      if (alert.kind !== 'pre_dispute_alert' || alert.status !== 'open') continue;
      const since = payment.refunds
        .filter((refund: Refund) => refund.createdAt >= alert.createdAt)
        .reduce((total, refund) => total + BigInt(refund.amount), 0n);
      if (since >= BigInt(alert.amount) || payment.status === 'refunded') {
        this.finish(alert, 'resolved', 'refund');
      }
    }
  }

  /** Resumes what a journal left waiting, and starts the deadline checks. */
  start(): void {
    for (const plan of this.deps.store.allPlannedDisputes()) if (!plan.raised) this.schedulePlan(plan);
    for (const dispute of this.deps.store.allDisputes()) this.scheduleDecision(dispute);
    const check = () => this.guarded('deadline check', () => this.applyDeadlines());
    this.deadlineTimer = setInterval(check, this.deps.timings.deadlineCheckMs);
    this.deadlineTimer.unref();
  }

  /** Stops every timer. */
  close(): void {
    this.closed = true;
    if (this.deadlineTimer) clearInterval(this.deadlineTimer);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Deadlines on the acquirer's clock: a dispute without evidence is lost, an inquiry without an answer
   * escalates, a pre-dispute alert not refunded in time expires and the issuer raises its dispute.
   */
  applyDeadlines(): void {
    const now = this.deps.clock.now();
    for (const dispute of this.deps.store.allDisputes()) {
      const due = dispute.refundBy ?? dispute.evidenceDueBy;
      if (due === null || now < new Date(due)) continue;
      if (dispute.kind === 'inquiry' && dispute.status === 'needs_response') this.escalateInquiry(dispute);
      else if (dispute.kind === 'dispute' && dispute.status === 'needs_response') {
        this.finish(dispute, 'lost', 'deadline');
      } else if (dispute.kind === 'pre_dispute_alert' && dispute.status === 'open') this.expireAlert(dispute);
    }
  }

  /** The alert was not refunded in time: the issuer goes on with its dispute. */
  private expireAlert(alert: StoredDispute): void {
    this.finish(alert, 'expired', 'deadline');
    const { paymentId, reason, amount } = alert;
    try {
      this.raise({ paymentId, kind: 'dispute', reason, amount, dueBy: null, alertId: alert.id });
    } catch (error) {
      // Other disputes already hold the payment: the alert's case is among them.
      if (!(error instanceof AcquirerError)) throw error;
      this.deps.logger.info({ alertId: alert.id, code: error.code }, 'expired alert raised no dispute');
    }
  }

  private escalateInquiry(inquiry: StoredDispute): StoredDispute {
    const now = this.deps.clock.now();
    const dispute: StoredDispute = {
      ...inquiry,
      kind: 'dispute',
      stage: 'chargeback',
      status: 'needs_response',
      evidenceDueBy: new Date(now.getTime() + EVIDENCE_WINDOW_MS).toISOString(),
      escalatedAt: now.toISOString(),
      pendingDecision: null,
    };
    const saved = this.save(this.withdraw(dispute, inquiry.amount));
    this.notify('dispute.updated', saved);
    this.notify('dispute.funds_withdrawn', saved);
    return saved;
  }

  /** The issuer's decision on evidence, `decisionDelayMs` after it arrived. */
  private decide(id: string): void {
    const dispute = this.deps.store.dispute(id);
    if (!dispute?.pendingDecision || dispute.status !== 'under_review') return;
    const { outcome } = dispute.pendingDecision;
    if (outcome === 'escalate') {
      this.escalateInquiry(dispute);
      return;
    }
    this.finish(dispute, outcome, 'decision');
  }

  /** Closes a dispute resource; a won dispute has what it held reinstated in the same change. */
  private finish(
    dispute: StoredDispute,
    status: 'won' | 'lost' | 'closed' | 'resolved' | 'expired',
    by: NonNullable<Dispute['closedBy']>,
  ): StoredDispute {
    const now = this.deps.clock.now().toISOString();
    const closed: StoredDispute = { ...dispute, status, closedBy: by, closedAt: now, pendingDecision: null };
    const reinstated = status === 'won' && dispute.fundsWithdrawn;
    const saved = this.save(reinstated ? this.movement(closed, 'funds_reinstated', heldOf(dispute)) : closed);
    this.deps.logger.info({ disputeId: saved.id, status, closedBy: by }, 'dispute closed');
    this.notify(closedNotification(dispute.kind, status), saved);
    if (reinstated) this.notify('dispute.funds_reinstated', saved);
    return saved;
  }

  private withdraw(dispute: StoredDispute, amount: string): StoredDispute {
    return this.movement(dispute, 'funds_withdrawn', amount);
  }

  /** The dispute with one more funds movement, its amounts and `fundsWithdrawn` recomputed. */
  private movement(dispute: StoredDispute, type: DisputeMovement['type'], amount: string): StoredDispute {
    const createdAt = this.deps.clock.now().toISOString();
    const movements = [...dispute.movements, { id: randomId('dmv'), type, amount, createdAt }];
    const total = (kind: DisputeMovement['type']) =>
      movements.filter((m) => m.type === kind).reduce((sum, m) => sum + BigInt(m.amount), 0n);
    const withdrawn = total('funds_withdrawn');
    const reinstated = total('funds_reinstated');
    return {
      ...dispute,
      movements,
      amountWithdrawn: withdrawn.toString(),
      amountReinstated: reinstated.toString(),
      fundsWithdrawn: withdrawn > reinstated,
    };
  }

  private checkAmount(payment: StoredPayment, amount: string, kind: DisputeKind): void {
    const others = kind === 'dispute' ? this.heldBy(payment.id) : 0n;
    if (BigInt(amount) > BigInt(payment.amount) - others) {
      throw new AcquirerError(
        400,
        'dispute_exceeds_payment',
        `The amount is more than the part of the payment that its other disputes do not hold (${BigInt(payment.amount) - others} minor units).`,
        payment.status,
      );
    }
  }

  private heldBy(paymentId: string): bigint {
    return this.disputesOf(paymentId).reduce((total, dispute) => total + BigInt(heldOf(dispute)), 0n);
  }

  private dueBy(input: RaiseInput, now: Date): string | null {
    if (input.kind === 'early_fraud_warning') {
      if (input.dueBy !== null) throw invalidRequest('dueBy does not apply to an early fraud warning.');
      return null;
    }
    const window = input.kind === 'pre_dispute_alert' ? ALERT_WINDOW_MS : EVIDENCE_WINDOW_MS;
    return this.checkedDueBy(input.dueBy, now, window);
  }

  private checkedDueBy(dueBy: string | null, now: Date, windowMs: number): string {
    if (dueBy === null) return new Date(now.getTime() + windowMs).toISOString();
    const at = new Date(dueBy);
    if (at <= now) throw invalidRequest("dueBy must be after the acquirer's current time.");
    return at.toISOString();
  }

  private find(id: string): StoredDispute {
    const dispute = this.deps.store.dispute(id);
    if (!dispute) throw disputeNotFound();
    return dispute;
  }

  private disputesOf(paymentId: string): StoredDispute[] {
    return this.deps.store.allDisputes().filter((dispute) => dispute.paymentId === paymentId);
  }

  private paymentStatus(dispute: StoredDispute): PaymentStatus {
    const payment = this.deps.store.payment(dispute.paymentId);
    if (!payment) throw new AcquirerError(500, 'internal_error', 'The payment of this dispute is missing.');
    return payment.status;
  }

  private save(dispute: StoredDispute): StoredDispute {
    const saved = { ...dispute, updatedAt: this.deps.clock.now().toISOString() };
    this.deps.store.saveDispute(saved);
    return saved;
  }

  private notify(type: DisputeNotificationType, dispute: StoredDispute): void {
    const payment = this.deps.store.payment(dispute.paymentId);
    if (payment) this.deps.notify(type, this.deps.viewPayment(payment), this.view(dispute));
  }

  private schedulePlan(plan: PlannedDispute): void {
    this.schedule(`plan:${plan.paymentId}`, plan.raiseAt, () => {
      const current = this.deps.store.plannedDispute(plan.paymentId);
      if (!current || current.raised) return;
      this.deps.store.savePlannedDispute({ ...current, raised: true });
      this.raise({
        paymentId: plan.paymentId,
        kind: plan.kind,
        reason: plan.reason,
        amount: null,
        dueBy: null,
      });
    });
  }

  private scheduleDecision(dispute: StoredDispute): void {
    if (dispute.pendingDecision === null || dispute.status !== 'under_review') return;
    this.schedule(`decision:${dispute.id}`, dispute.pendingDecision.at, () => this.decide(dispute.id));
  }

  /** Runs `work` at `at` (epoch ms, real time), or at once when that is past. */
  private schedule(key: string, at: number, work: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        if (!this.closed) this.guarded(key, work);
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.timers.set(key, timer);
  }

  private guarded(what: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.deps.logger.error({ err: error, what }, 'sandbox acquirer: dispute timer failed');
    }
  }
}

const KIND_NAMES: Record<DisputeKind, string> = {
  dispute: 'a dispute',
  inquiry: 'an inquiry',
  early_fraud_warning: 'an early fraud warning',
  pre_dispute_alert: 'a pre-dispute alert',
};

const CREATED: Record<DisputeKind, DisputeNotificationType> = {
  dispute: 'dispute.created',
  inquiry: 'dispute.created',
  early_fraud_warning: 'fraud_warning.created',
  pre_dispute_alert: 'dispute_alert.created',
};

function closedNotification(kind: DisputeKind, status: Dispute['status']): DisputeNotificationType {
  if (kind !== 'pre_dispute_alert') return 'dispute.closed';
  return status === 'expired' ? 'dispute_alert.expired' : 'dispute_alert.resolved';
}

/** The stage evidence is for now: an inquiry's, or the dispute's current stage. */
function evidenceStage(dispute: StoredDispute): 'inquiry' | 'chargeback' | 'pre_arbitration' {
  return dispute.kind === 'inquiry' ? 'inquiry' : (dispute.stage ?? 'chargeback');
}

/**
 * The sandbox issuer's decision. Disputes: `winning_evidence` wins, anything else loses (the issuer sides
 * with its cardholder unless the evidence is compelling). Inquiries: `losing_evidence` escalates to a
 * dispute, anything else answers the retrieval request and closes it.
 */
function decisionOf(kind: DisputeKind, text: string): DisputeDecision {
  if (kind === 'inquiry') return text.includes(LOSING_EVIDENCE) ? 'escalate' : 'closed';
  return text.includes(WINNING_EVIDENCE) ? 'won' : 'lost';
}

function isDecided(dispute: StoredDispute): boolean {
  return dispute.status === 'won' || dispute.status === 'lost';
}

/** What a dispute holds of its payment: withdrawn and not reinstated. */
function heldOf(dispute: StoredDispute): string {
  return (BigInt(dispute.amountWithdrawn) - BigInt(dispute.amountReinstated)).toString();
}
