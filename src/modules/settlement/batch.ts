import type { PayoutSchedule } from '../../db/schema.js';
import type { CursorError } from '../../shared/pagination.js';
import type { Result } from '../../shared/result.js';
import { batchOfPayout, listBatches, operatorListBatches, retrieveBatch } from './batch-lists.js';
import type {
  Actor,
  BatchDeps,
  ClosureView,
  DayReport,
  NextBatchView,
  OwnerOutcome,
  SettlementCommandError,
  StatementVerification,
} from './batch-types.js';
import { createBusinessCalendar, type BusinessDate } from '../../shared/business-calendar.js';
import { settlementCutoffOn } from '../../config.js';
import { createChunkSettler } from './chunk.js';
import { businessDay, closures, declareClosure, onTypedDate, removeClosure } from './closures.js';
import type { BatchContext } from './context.js';
import { nextBatch } from './next-batch.js';
import type { ReleaseOptions } from './release-types.js';
import type { BatchFilter } from './repository.js';
import { runDate, runDay } from './run-day.js';
import { reserveOf, scheduleOf, setReserve, setSchedule } from './schedules.js';
import { resumeReleased, settleNow, settleOwner } from './settle-owner.js';
import type { Statement } from './statement.js';
import { batchStatement, verifyStatements } from './statements.js';
import type { BatchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The daily settlement batch (docs/decisions/0030-settlement-batch.md): at 03:00 UTC on each business
 * day, each owner's pending credits are released to `available` (`release` of release.ts), then the
 * batch's payout phase (pay-out.ts) pays the available balance out to the default wallet at a rate
 * quoted for it, or carries it (the reason on the batch), or holds it while there is no usable rate.
 * Every step is idempotent: the batch is unique per owner and business date, the payout phase moves the
 * batch row under its lock in the transaction that creates the payout, so a run repeated after a crash at
 * any point resumes where it stopped and never pays twice. A run (run-day.ts) settles the plain case first
 * in set-based chunks of owners (chunk.ts, docs/decisions/0041-settlement-chunks.md), one transaction
 * each, and every other owner through the per-owner steps (settle-owner.ts).
 *
 * This file holds the batch's interface and `createSettlementBatchService`, which binds the use cases:
 * statements and their verification (statements.ts), schedules and reserves (schedules.ts), business days
 * and closures (closures.ts), the next batch (next-batch.ts) and the lists (batch-lists.ts). The batch's
 * ports, deps and views are in batch-types.ts, its deps with their defaults resolved in context.ts.
 */

export interface SettlementBatchService {
  /** Whether a batch runs on this date: Monday to Friday, not a Turkish public holiday, not closed. */
  businessDay(date: BusinessDate): Promise<{ open: true } | { open: false; why: string }>;
  /**
   * The run of one business date with its cutoff (the 03:00 UTC period start): every owner with credits
   * since the previous run, and every batch of the date whose payout phase is open; then every batch of
   * an earlier date whose payout phase is still open (held or released), each paid out or carried as it
   * can be now. A batch held for a rate or a failed owner is counted in the report (`held`, `failed`);
   * the daily job then runs the period again.
   */
  runDay(cutoff: Date, signal?: AbortSignal): Promise<DayReport>;
  /**
   * The operator's run of a due or missed business date (`npm run operator -- settle`, the console, the
   * operator API): the same run as the 03:00 job, audited; exactly once still holds.
   */
  runDate(businessDate: string, by: Actor): Promise<Result<DayReport, SettlementCommandError>>;
  /** Every organization's batches, newest business date first, filtered; cursor paged. */
  operatorList(
    filter: BatchFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<
    Result<
      { data: Array<BatchView & { organizationId: string }>; nextCursor: string | null },
      { code: 'invalid_cursor' }
    >
  >;
  /** The owner's batches, newest business date first; cursor paged (`GET /v1/settlements`). */
  list(
    owner: Owner,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<{ data: BatchView[]; nextCursor: string | null }, CursorError>>;
  retrieve(owner: Owner, id: string): Promise<BatchView | undefined>;
  /** The owner's batch whose automatic payout is `payoutId`; undefined for a manual payout. */
  batchOfPayout(owner: Owner, payoutId: string): Promise<BatchView | undefined>;
  /**
   * What the owner's next batch is expected to be (the dashboard's balance page): the
   * next cutoff on a business day after now (weekends, Turkish public holidays and declared closures
   * skipped, each skipped date said), and, were `pending` released then, the reserve it would hold back
   * and the reserves due by that date it would release. Batches still held for a rate are listed.
   */
  nextBatch(owner: Owner, pending: string): Promise<NextBatchView>;
  /**
   * The statement of an ended batch, rebuilt from its stored release and items with the hash recorded
   * when it ended; `not_ready` while its payout phase is open.
   */
  statement(owner: Owner, id: string): Promise<Result<Statement, { code: 'not_found' | 'not_ready' }>>;
  /**
   * Recomputes every statement of the owner's chain from the stored rows and checks each against the hash
   * recorded when its batch ended and against the previous link.
   */
  verifyStatements(owner: Owner): Promise<StatementVerification>;
  /** One owner's batch of a business date: the release, then the payout phase. Safe to repeat. */
  settleOwner(owner: Owner, options: ReleaseOptions): Promise<OwnerOutcome>;
  /**
   * The sandbox test helper: the owner's batch now, through the same steps as the daily run, as a batch
   * of today's UTC date (one per call that releases something; `origin: test_helper`). Any batch of the
   * owner left released without its payout phase (a process killed in between) is paid out first; when
   * nothing new is released, that batch is the answer.
   */
  settleNow(owner: Owner): Promise<OwnerOutcome>;
  /**
   * The worker's pass over batches released at or before `before` whose payout phase never ran (their
   * process was killed between the two steps), of any date and origin, sandbox and live: each goes
   * through the payout phase as a run would take it up (paid out, carried or held), at most `limit`.
   */
  resumeReleased(before: Date, limit?: number): Promise<{ resumed: number; failed: number }>;

  schedule(organizationId: string): Promise<PayoutSchedule>;
  setSchedule(
    organizationId: string,
    schedule: PayoutSchedule,
    by: Actor,
  ): Promise<Result<PayoutSchedule, SettlementCommandError>>;

  /** The organization's rolling reserve: basis points of each batch's net, held for `days` days. */
  reserve(organizationId: string): Promise<{ reserveBps: number; days: number }>;
  setReserve(
    organizationId: string,
    reserve: { reserveBps: number; days: number },
    by: Actor,
  ): Promise<Result<{ reserveBps: number; days: number }, SettlementCommandError>>;

  closures(range: { from: BusinessDate; to: BusinessDate }): Promise<ClosureView[]>;
  declareClosure(
    businessDate: string,
    reason: string,
    by: Actor,
  ): Promise<Result<ClosureView, SettlementCommandError>>;
  removeClosure(businessDate: string, by: Actor): Promise<Result<ClosureView, SettlementCommandError>>;
}

export function createSettlementBatchService(deps: BatchDeps): SettlementBatchService {
  const run: BatchContext = {
    ...deps,
    calendar: deps.calendar ?? createBusinessCalendar(),
    cutoffOf: deps.cutoffOf ?? ((date: BusinessDate) => settlementCutoffOn(date)),
    concurrency: Math.max(1, deps.concurrency ?? 4),
    chunks: createChunkSettler(deps),
  };
  return {
    businessDay: (date) => businessDay(run, date),
    runDay: (cutoff, signal) => runDay(run, cutoff, signal),
    runDate: (businessDate, by) => onTypedDate(businessDate, (date) => runDate(run, date, by)),
    list: (owner, page) => listBatches(run, owner, page),
    retrieve: (owner, id) => retrieveBatch(run, owner, id),
    batchOfPayout: (owner, payoutId) => batchOfPayout(run, owner, payoutId),
    nextBatch: (owner, pending) => nextBatch(run, owner, pending),
    statement: (owner, id) => batchStatement(run, owner, id),
    verifyStatements: (owner) => verifyStatements(run, owner),
    operatorList: (filter, page) => operatorListBatches(run, filter, page),
    settleOwner: (owner, options) => settleOwner(run, owner, options),
    settleNow: (owner) => settleNow(run, owner),
    resumeReleased: (before, limit) => resumeReleased(run, before, limit),
    schedule: (organizationId) => scheduleOf(run, organizationId),
    setSchedule: (organizationId, schedule, by) => setSchedule(run, organizationId, schedule, by),
    reserve: (organizationId) => reserveOf(run, organizationId),
    setReserve: (organizationId, reserve, by) => setReserve(run, organizationId, reserve, by),
    closures: (range) => closures(run, range),
    declareClosure: (businessDate, reason, by) =>
      onTypedDate(businessDate, (date) => declareClosure(run, date, reason, by)),
    removeClosure: (businessDate, by) => onTypedDate(businessDate, (date) => removeClosure(run, date, by)),
  };
}
