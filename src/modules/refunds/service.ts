import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { sql } from 'kysely';
import { refundOutcomes } from '../../observability/metrics.js';
import { keyReuseOf, requestFingerprint } from '../../http/idempotency.js';
import type { RequestFingerprint, RequestFingerprints } from '../../http/idempotency-store.js';
import { DAY, HOUR, MINUTE, type Clock } from '../../shared/clock.js';
import type { JobKit } from '../../worker/kit.js';
import type { BatchReport, Claimed, RetryPolicy } from '../../worker/queue.js';
import { newId } from '../../shared/ids.js';
import { toPage, type CreatedWindow, type Cursor, type CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import {
  AcquirerRejectedError,
  AcquirerUnavailableError,
  type Acquirer,
  type AcquirerRefund,
} from '../acquirer/types.js';
import type { ChargeRow } from '../charges/model.js';
import { chargeView, type ChargeOwner, type ChargeRefunds } from '../charges/service.js';
import type { AuditLog } from '../audit/service.js';
import type { EventRecorder } from '../events/service.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { HeldRefundError, RefundError, RefundListError } from './errors.js';
import type { RefundRow } from './model.js';
import * as refunds from './repository.js';
import {
  refundView,
  type RefundCreate,
  type RefundList,
  type RefundListQuery,
  type RefundView,
} from './schemas.js';

/** What refunds need of the ledger (src/modules/ledger): the entry of a refund, in its transaction. */
export interface RefundLedger {
  postRefund(
    trx: Trx,
    refund: {
      id: string;
      chargeId: string;
      organizationId: string;
      environment: Environment;
      amount: string;
      /** The refunded charge's, recorded on the entry with `chargeId` for the settlement item. */
      merchantReference: string | null;
    },
  ): Promise<{ created: boolean; pendingAfter: string }>;
}

export interface RefundService {
  create(
    owner: ChargeOwner,
    chargeId: string,
    input: RefundCreate,
    options: { idempotencyKey: string | undefined },
  ): Promise<Result<RefundView, RefundError>>;
  /** One page of the charge's refunds, newest first; its cursors are bound to the charge. */
  list(
    owner: ChargeOwner,
    chargeId: string,
    query: RefundListQuery,
  ): Promise<Result<RefundList, RefundListError>>;
  /** What the owner's charge's pending refunds hold back (decimal text of minor units). */
  pendingTotal(owner: ChargeOwner, chargeId: string): Promise<string>;
  /**
   * An operator's settlement of a held refund (ADR 0063): a pending refund out of the retry queue (held
   * for an answer that disagreed, or parked after its retries), once the operator has asked the acquirer.
   * Audited as `refund.settled`, in its transaction.
   */
  settleHeld(
    refundId: string,
    decision: HeldRefundDecision,
    by: RefundActor,
  ): Promise<Result<RefundView, HeldRefundError>>;
  /**
   * One page of an export (issue 15 item 4): the refunds made in `window`, oldest first, after the
   * (createdAt, id) of the previous page's last one; at most `limit`.
   */
  pageCreatedIn(
    owner: ChargeOwner,
    window: CreatedWindow,
    after: Cursor | undefined,
    limit: number,
  ): Promise<RefundView[]>;
  /** Asks the acquirer again, with the same idempotency key, for refunds a failure left pending. */
  retryPending(limit?: number): Promise<number>;
  /** One batch of the retry job: claims due pending refunds, and reports what became of them. */
  retryPendingBatch(limit?: number): Promise<BatchReport>;
}

/** What the operator found at the acquirer about a held refund, and why (ADR 0063). */
export type HeldRefundDecision =
  /** The acquirer refunded `amount` (the refund's own when absent) under its refund id `providerRefundId`. */
  | { outcome: 'succeeded'; providerRefundId: string; amount?: string; reason: string }
  /** The acquirer refunded nothing: the refund fails and its amount is refundable again. */
  | { outcome: 'failed'; reason: string };

/**
 * The decision of an operator's request (the operator API's body, the CLI's options): `providerRefundId`
 * and `amount` count with `succeeded` only; a missing acquirer refund id is refused by `settleHeld`.
 */
export function heldRefundDecision(input: {
  outcome: 'succeeded' | 'failed';
  reason: string;
  providerRefundId?: string | undefined;
  amount?: string | undefined;
}): HeldRefundDecision {
  if (input.outcome === 'failed') return { outcome: 'failed', reason: input.reason };
  return {
    outcome: 'succeeded',
    reason: input.reason,
    providerRefundId: input.providerRefundId ?? '',
    ...(input.amount === undefined ? {} : { amount: input.amount }),
  };
}

/** Who settles a held refund (the audit entry's actor). */
export interface RefundActor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** The charge of each refund, by refund id, read in the caller's transaction (settlement items). */
export function refundChargeIds(trx: Trx, refundIds: readonly string[]): Promise<Map<string, string>> {
  return refunds.chargeIdsOf(trx, refundIds);
}

/** Refund retry's backoff: a refund the acquirer cannot take for about 8 hours is parked. */
export const REFUND_RETRY: RetryPolicy = { baseMs: MINUTE, capMs: HOUR, maxAttempts: 12, jitter: 0.2 };

/** How long a key names its refund: as long as the idempotency store remembers the key (spec section 4). */
const IDEMPOTENCY_WINDOW_MS = DAY;

export interface RefundServiceDeps {
  db: Kdb;
  /** Stale-tolerant reads, lists and exports: `DATABASE_READ_URL`'s pool (ADR 0040); `db` when unset. */
  readDb?: Kdb;
  clock: Clock;
  logger: Logger;
  /** The keyed hash a refund records of the request that made it (ADR 0054). */
  fingerprints: RequestFingerprints;
  /** Signs and checks list cursors. */
  cursors: CursorCodec;
  /** The operator's settlements of held refunds are audited. */
  audit: AuditLog;
  acquirerFor: (environment: Environment) => Acquirer | undefined;
  /** The charge a refund is for: the charges module owns that table. */
  charges: ChargeRefunds;
  ledger: RefundLedger;
  events: EventRecorder;
  /** Told when a refund leaves the merchant's pending balance below zero (docs/decisions/0014). */
  alerts: AlertRaiser;
  checkoutUrl: () => string;
  /** A pending refund younger than this may still have its request in flight. */
  retryAfterMs: number;
  jobs: JobKit;
}

/**
 * Refunds (product decision 13): all or part of a succeeded charge, through the acquirer with the refund
 * id as its idempotency key. The amount is reserved under the charge's row lock before the acquirer is
 * asked, so concurrent refunds can never exceed the charge; the ledger entry and `charge.refunded` are
 * written in the transaction that records the acquirer's answer.
 */
export function createRefundService(deps: RefundServiceDeps): RefundService {
  const { db, clock, logger } = deps;
  const readDb = deps.readDb ?? db;

  /**
   * What of the acquirer's success disagrees with the refund it was asked for (ADR 0055): its amount, and
   * its currency and payment when it names them. Read as the protocol states them (decimal text of minor
   * units): an answer in another shape is a difference, never a guess.
   */
  function answerDifferences(refund: RefundRow, paymentId: string | null, answer: AcquirerRefund): string[] {
    const differences: string[] = [];
    const amount: unknown = answer.amount;
    if (typeof amount !== 'string' || !/^\d{1,30}$/.test(amount) || BigInt(amount) !== BigInt(refund.amount))
      differences.push('amount');
    const currency: unknown = answer.currency;
    if (
      currency !== undefined &&
      (typeof currency !== 'string' || currency.toUpperCase() !== refund.currency)
    )
      differences.push('currency');
    const answeredPayment: unknown = answer.paymentId;
    if (answeredPayment !== undefined && answeredPayment !== paymentId) differences.push('paymentId');
    return differences;
  }

  /**
   * A success the refund cannot be booked on (ADR 0055): the acquirer may have moved money, but not what
   * was asked, or for a refund already recorded failed. Nothing is booked; the operator is alerted once. A
   * pending refund stays pending, its amount still reserved on the charge, and leaves the retry queue
   * (parked): asking again with the same idempotency key would only repeat the answer.
   */
  async function holdForOperator(
    trx: Trx,
    refund: RefundRow,
    paymentId: string | null,
    answer: AcquirerRefund,
    differences: readonly string[],
  ): Promise<void> {
    const shown = (value: unknown) =>
      value === undefined ? null : (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 64);
    const message = `The acquirer answered refund ${refund.id} (${refund.status}) with another ${differences.join(', ')}; nothing was booked`;
    await deps.alerts.raise(trx, {
      kind: 'refund_mismatch',
      organizationId: refund.organization_id,
      environment: refund.environment,
      subjectId: refund.id,
      chargeId: refund.charge_id,
      message,
      details: {
        refundId: refund.id,
        status: refund.status,
        differences,
        asked: { amount: refund.amount, currency: refund.currency, paymentId },
        answered: {
          id: shown(answer.id),
          amount: shown(answer.amount),
          currency: shown(answer.currency),
          paymentId: shown(answer.paymentId),
        },
      },
    });
    if (refund.status === 'pending') await refunds.park(trx, refund.id, clock.now(), message);
  }

  async function finish(refundId: string, answer: AcquirerRefund, claimed?: Claimed): Promise<RefundRow> {
    return db.transaction().execute(async (trx) => {
      const refund = await refunds.lockById(trx, refundId);
      if (claimed) await retry.succeed(trx, claimed);
      if (refund.status === 'succeeded') return refund;
      // The charge's lock after the refund's, as every path that records a refund takes them.
      const charge = await deps.charges.lock(trx, refund.charge_id);
      const differences = answerDifferences(refund, charge.provider_payment_id, answer);
      if (refund.status === 'failed') differences.unshift('status');
      if (differences.length > 0) {
        await holdForOperator(trx, refund, charge.provider_payment_id, answer, differences);
        return refund;
      }
      return book(trx, refund, charge, { providerRefundId: answer.id, amount: refund.amount });
    });
  }

  /**
   * Books a pending refund as succeeded for `amount`, under the refund's and the charge's row locks (in
   * that order): the charge's refunded amount, the refund's row, the ledger entry, the alert of a pending
   * balance left below zero, and `charge.refunded`.
   */
  async function book(
    trx: Trx,
    refund: RefundRow,
    charge: ChargeRow,
    booked: { providerRefundId: string; amount: string },
  ): Promise<RefundRow> {
    const now = clock.now();
    const updatedCharge = await deps.charges.recordRefund(trx, charge, booked.amount, now);
    const done = await refunds.transition(trx, refund.id, ['pending'], 'succeeded', {
      provider_refund_id: booked.providerRefundId,
      ...(booked.amount === refund.amount ? {} : { amount: booked.amount }),
      updated_at: now,
    });
    if (!done) throw new Error(`refund ${refund.id} left pending under its row lock`);
    refundOutcomes.inc({ environment: done.environment, outcome: 'succeeded' });
    const posted = await deps.ledger.postRefund(trx, {
      id: done.id,
      chargeId: charge.id,
      organizationId: charge.organization_id,
      environment: charge.environment,
      amount: done.amount,
      merchantReference: charge.merchant_reference,
    });
    // A refund is never refused for want of balance (the customer is owed it and the acquirer debits
    // us anyway): the pending balance may go below zero, as a debt the next settlement recovers, and the
    // operator is told (docs/decisions/0014-refund-debt.md).
    if (posted.created && BigInt(posted.pendingAfter) < 0n) {
      const debt = (-BigInt(posted.pendingAfter)).toString();
      await deps.alerts.raise(trx, {
        kind: 'negative_pending_balance',
        organizationId: charge.organization_id,
        environment: charge.environment,
        subjectId: done.id,
        chargeId: charge.id,
        message: `Refund ${done.id} left the pending balance of ${charge.organization_id} (${charge.environment}) at ${posted.pendingAfter} TRY minor units`,
        details: {
          refundId: done.id,
          amount: done.amount,
          currency: done.currency,
          pendingAfter: posted.pendingAfter,
          debt,
        },
      });
    }
    await deps.events.record(trx, {
      organizationId: charge.organization_id,
      environment: charge.environment,
      type: 'charge.refunded',
      resourceId: charge.id,
      data: { ...chargeView(updatedCharge, deps.checkoutUrl()), refund: refundView(done) },
      payment: {
        id: charge.id,
        paymentId: charge.provider_payment_id ?? '',
        merchantReference: charge.merchant_reference,
      },
    });
    return done;
  }

  async function fail(refundId: string, error: AcquirerRejectedError, claimed?: Claimed): Promise<RefundRow> {
    return db.transaction().execute(async (trx) => {
      if (claimed) await retry.succeed(trx, claimed);
      const failed = await refunds.transition(trx, refundId, ['pending'], 'failed', {
        failure_code: error.providerCode,
        failure_message: error.sanitizedMessage,
        updated_at: clock.now(),
      });
      if (failed) {
        refundOutcomes.inc({ environment: failed.environment, outcome: 'failed' });
        return failed;
      }
      // Another path (the retry job, or a retried request) recorded an answer for this refund first (the
      // update waited for its row lock): that answer stands, and this refusal answers the refund as it is.
      const current = await refunds.findById(trx, refundId);
      if (!current) throw new Error(`refund ${refundId} is gone`);
      return current;
    });
  }

  /**
   * One acquirer round for a pending refund: succeeded, failed, or still pending (thrown). A round of the
   * retry job ends its claim in the transaction that records the answer.
   */
  async function ask(
    refund: RefundRow,
    paymentId: string,
    acquirer: Acquirer,
    claimed?: Claimed,
  ): Promise<RefundRow> {
    try {
      const answer = await acquirer.refund(paymentId, { idempotencyKey: refund.id, amount: refund.amount });
      return await finish(refund.id, answer, claimed);
    } catch (error) {
      // A "not now" 4xx (408, 425, 429 on every attempt) refused nothing: the refund stays pending.
      if (error instanceof AcquirerRejectedError && !error.transient) {
        const current = await fail(refund.id, error, claimed);
        // The acquirer's success, recorded by another path first, is the refund's answer.
        if (current.status === 'succeeded') return current;
        throw error;
      }
      throw error;
    }
  }

  // Claimed in due order with SKIP LOCKED and leased while the acquirer is asked: a refund that keeps
  // failing backs off and finally parks, and two workers never ask for the same refund at once.
  const retry = deps.jobs.queue({
    job: 'refund-retry',
    table: 'refunds',
    eligible: sql`status = 'pending'`,
    firstDueAt: sql`updated_at`,
    firstDelayMs: deps.retryAfterMs,
    leaseMs: 5 * MINUTE,
    retry: REFUND_RETRY,
  });

  /** Asks the acquirer again for one claimed refund; its answer moves the refund out of `pending`. */
  async function retryOne(claimed: Claimed): Promise<'settled' | 'failed'> {
    const row = await refunds.findById(db, claimed.id);
    try {
      if (!row) throw new Error(`refund ${claimed.id} is gone`);
      const paymentId = await deps.charges.providerPaymentId(row.charge_id);
      const acquirer = deps.acquirerFor(row.environment);
      if (!acquirer || paymentId === null) {
        throw new Error(`no acquirer payment to refund (${row.environment})`);
      }
      try {
        await ask(row, paymentId, acquirer, claimed);
      } catch (error) {
        // A refusal is recorded (the refund failed); anything else, a "not now" 4xx included, defers it.
        if (!(error instanceof AcquirerRejectedError) || error.transient) throw error;
      }
      return 'settled';
    } catch (error) {
      logger.warn({ err: error, refundId: claimed.id }, 'refund retry deferred: the acquirer is unavailable');
      await db.transaction().execute((trx) => retry.fail(trx, claimed, error));
      return 'failed';
    }
  }

  async function retryPendingBatch(limit = 20): Promise<BatchReport> {
    const claimed = await retry.claim(limit);
    const report: BatchReport = { claimed: claimed.length, done: 0, failed: 0 };
    for (const refund of claimed) {
      if ((await retryOne(refund)) === 'settled') report.done++;
      else report.failed++;
    }
    return report;
  }

  return {
    async create(owner, chargeId, input, { idempotencyKey }) {
      type Reserved = {
        refund: RefundRow;
        charge: { environment: Environment; provider_payment_id: string | null };
      };
      const fingerprint =
        idempotencyKey === undefined ? undefined : requestFingerprint(deps.fingerprints, input);
      const reserved = await db.transaction().execute(async (trx): Promise<Result<Reserved, RefundError>> => {
        const charge = await deps.charges.lockVisible(trx, owner, chargeId);
        if (!charge) return err({ code: 'charge_not_found' });
        // A refund made more than 24 hours ago under the key: the key is forgotten (spec section 4), and
        // the request is a new refund; the old one lets go of the key as the new one takes it (ADR 0054).
        let forgotten: RefundRow | undefined;
        if (idempotencyKey !== undefined) {
          // A retry of a request whose refund is still pending (the acquirer was unavailable) asks again
          // for that same refund instead of reserving a second one. Only a retry: the idempotency store
          // forgets a key whose request ended without a final answer, so another body or another API key
          // under the key is told apart here (ADR 0052). The charge's row lock orders requests under a key.
          const earlier = await refunds.findByIdempotencyKey(trx, charge.id, idempotencyKey);
          const rememberedSince = new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);
          if (earlier && earlier.created_at > rememberedSince) {
            const reuse = keyReuse(earlier, owner, input, fingerprint);
            return reuse === undefined ? ok({ refund: earlier, charge }) : err(reuse);
          }
          forgotten = earlier;
        }
        if (charge.status !== 'succeeded') {
          return err({ code: 'charge_not_refundable', status: charge.status });
        }
        const pending = await refunds.pendingTotal(trx, charge.id);
        const remaining = BigInt(charge.amount) - BigInt(charge.refunded_amount) - BigInt(pending);
        const amount = input.amount === undefined ? remaining : BigInt(input.amount);
        if (remaining <= 0n) return err({ code: 'nothing_to_refund' });
        if (amount > remaining) return err({ code: 'exceeds_refundable', remaining: remaining.toString() });
        if (forgotten) await refunds.releaseIdempotencyKey(trx, forgotten.id);
        const now = clock.now();
        const refund = await refunds.insert(trx, {
          id: newId('re', now),
          charge_id: charge.id,
          organization_id: charge.organization_id,
          environment: charge.environment,
          amount: amount.toString(),
          currency: 'TRY',
          status: 'pending',
          reason: input.reason ?? null,
          idempotency_key: idempotencyKey ?? null,
          request_fingerprint: fingerprint?.value ?? null,
          created_by_key_id: owner.keyId ?? null,
          provider_refund_id: null,
          failure_code: null,
          failure_message: null,
          created_at: now,
          updated_at: now,
        });
        return ok({ refund, charge });
      });
      if (!reserved.ok) return reserved;
      const { refund, charge } = reserved.value;
      const acquirer = deps.acquirerFor(charge.environment);
      if (!acquirer || charge.provider_payment_id === null) return err({ code: 'acquirer_not_configured' });
      if (refund.status !== 'pending') return ok(refundView(refund));
      try {
        return ok(refundView(await ask(refund, charge.provider_payment_id, acquirer)));
      } catch (error) {
        // The refund stays pending and is retried in the background, as after an outage.
        if (
          error instanceof AcquirerUnavailableError ||
          (error instanceof AcquirerRejectedError && error.transient)
        ) {
          return err({ code: 'provider_unavailable', refundId: refund.id });
        }
        if (error instanceof AcquirerRejectedError) {
          return err({
            code: 'provider_rejected',
            refundId: refund.id,
            providerCode: error.providerCode,
            providerStatus: error.providerHttpStatus,
            message: error.sanitizedMessage,
          });
        }
        throw error;
      }
    },

    async list(owner, chargeId, query) {
      const charge = await deps.charges.findVisible(owner, chargeId);
      if (!charge) return err({ code: 'charge_not_found' });
      const pages = deps.cursors.for({
        list: 'refunds',
        organizationId: owner.organizationId,
        environment: owner.environment,
        filter: charge.id,
      });
      const after = query.cursor === undefined ? undefined : pages.decode(query.cursor);
      if (after && !after.ok) return after;
      const rows = await refunds.pageByCharge(readDb, charge.id, after?.value, query.limit + 1);
      const page = toPage(rows, query.limit, (row) => pages.encode(row.created_at, row.id));
      return ok({ data: page.data.map(refundView), nextCursor: page.nextCursor });
    },

    async settleHeld(refundId, decision, by) {
      const reason = decision.reason.trim();
      if (reason === '' || reason.length > 500) return err({ code: 'reason_required' });
      if (decision.outcome === 'succeeded') {
        if (decision.amount !== undefined && !/^[1-9][0-9]{0,17}$/.test(decision.amount))
          return err({ code: 'invalid_amount' });
        if (!/^[\x21-\x7e]{1,255}$/.test(decision.providerRefundId))
          return err({ code: 'invalid_provider_refund_id' });
      }
      return db.transaction().execute(async (trx): Promise<Result<RefundView, HeldRefundError>> => {
        const refund = await refunds.lockIfExists(trx, refundId);
        if (!refund) return err({ code: 'refund_not_found' });
        // Held: pending and out of the retry queue (parked), so the job is not asking for it. A retried
        // request with its idempotency key may still ask: its answer waits for this row lock and then
        // meets the settled refund (a success after `failed` is held for the operator, ADR 0055).
        if (refund.status !== 'pending' || refund.parked_at === null)
          return err({ code: 'refund_not_held', status: refund.status });
        const charge = await deps.charges.lock(trx, refund.charge_id);
        const now = clock.now();
        let settled: RefundRow;
        if (decision.outcome === 'failed') {
          const failed = await refunds.transition(trx, refund.id, ['pending'], 'failed', {
            failure_code: 'operator_failed',
            failure_message: reason,
            updated_at: now,
          });
          if (!failed) throw new Error(`refund ${refund.id} left pending under its row lock`);
          refundOutcomes.inc({ environment: failed.environment, outcome: 'failed' });
          settled = failed;
        } else {
          const amount = decision.amount ?? refund.amount;
          // What the charge can still give: its amount, less what is refunded and what the other pending
          // refunds hold (this one's reserve is the operator's to replace).
          const othersPending = BigInt(await refunds.pendingTotal(trx, charge.id)) - BigInt(refund.amount);
          const room = BigInt(charge.amount) - BigInt(charge.refunded_amount) - othersPending;
          if (BigInt(amount) > room) return err({ code: 'exceeds_refundable', remaining: room.toString() });
          const taken = await refunds.findByProviderRefundId(trx, decision.providerRefundId);
          if (taken) return err({ code: 'provider_refund_id_in_use', refundId: taken.id });
          settled = await book(trx, refund, charge, { providerRefundId: decision.providerRefundId, amount });
        }
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'refund.settled',
          targetType: 'refund',
          targetId: refund.id,
          organizationId: refund.organization_id,
          before: { status: refund.status, amount: refund.amount },
          after: {
            status: settled.status,
            amount: settled.amount,
            providerRefundId: settled.provider_refund_id,
            reason,
          },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        logger.warn(
          { refundId: refund.id, outcome: settled.status, amount: settled.amount, actor: by.actor },
          'held refund settled by an operator',
        );
        return ok(refundView(settled));
      });
    },

    async pendingTotal(owner, chargeId) {
      const charge = await deps.charges.findVisible(owner, chargeId);
      return charge ? refunds.pendingTotal(db, charge.id) : '0';
    },

    async pageCreatedIn(owner, window, after, limit) {
      return (await refunds.pageCreatedIn(readDb, owner, window, after, limit)).map(refundView);
    },

    async retryPending(limit = 20) {
      return (await retryPendingBatch(limit)).done;
    },

    retryPendingBatch,
  };
}

/**
 * Why a request may not continue or see the refund that holds its idempotency key (spec section 4 rule 3,
 * ADR 0052), or undefined when it is a retry of the request that made it: the same API key and the same
 * body. A refund written without a fingerprint (before migration 0033, or by a process of the previous
 * release during a deploy) is compared on what it recorded: the reason, and the amount when the retry
 * names one (a refund of everything that remained recorded the amount it came to, not its absence).
 */
function keyReuse(
  holder: RefundRow,
  owner: ChargeOwner,
  input: RefundCreate,
  fingerprint: RequestFingerprint | undefined,
): Extract<RefundError, { code: 'idempotency_key_reuse' }> | undefined {
  const reason = keyReuseOf(
    { createdBy: holder.created_by_key_id, fingerprint: holder.request_fingerprint },
    { caller: owner.keyId ?? null, fingerprint },
    () =>
      holder.reason === (input.reason ?? null) &&
      (input.amount === undefined || holder.amount === String(input.amount)),
  );
  return reason === undefined ? undefined : { code: 'idempotency_key_reuse', reason };
}
