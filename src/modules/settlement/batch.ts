import pMap from 'p-map';
import type { Logger } from 'pino';
import { settlementOutcomes } from '../../observability/metrics.js';
import type { Kdb, Trx } from '../../db/database.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import type { CarryReason, Environment, PayoutSchedule, UserRole } from '../../db/schema.js';
import { HOUR, type Clock } from '../../shared/clock.js';
import type { CursorCodec, CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { settlementFundsWaitingEmail, type RenderedEmail } from '../email/templates.js';
import type { EventRecorder } from '../events/service.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { PayoutOwner } from '../payouts/ports.js';
import type { RateQuote } from '../payouts/rates.js';
import {
  addDays,
  createBusinessCalendar,
  parseBusinessDate,
  utcDateOf,
  type BusinessCalendar,
  type BusinessDate,
} from './calendar.js';
import { CHUNK_OWNERS, createChunkSettler, type ChunkLedger, type ChunkPayouts } from './chunk.js';
import * as settlement from './repository.js';
import { statementContent, statementHash, type Statement } from './statement.js';
import {
  batchView,
  type BatchView,
  type ReleaseOptions,
  type ReleaseOutcome,
  type SettlementService,
} from './service.js';

/**
 * The daily settlement batch (issue 14, docs/decisions/0030-settlement-batch.md): at 03:00 UTC on each
 * business day, each owner's pending credits are released to `available` (the release of
 * `service.ts`), then the batch's payout phase pays the available balance out to the default wallet at a
 * rate quoted for it, or carries it (the reason on the batch), or holds it while there is no usable rate.
 * Every step is idempotent: the batch is unique per owner and business date, the payout phase moves the
 * batch row under its lock in the transaction that creates the payout, so a run repeated after a crash at
 * any point resumes where it stopped and never pays twice. A run settles the plain case first in
 * set-based chunks of owners (chunk.ts, docs/decisions/0041-settlement-chunks.md), one transaction each,
 * and every other owner through these per-owner steps.
 */

/** What the payout phase needs of the payouts module (given in src/services.ts). */
export interface BatchPayouts {
  quote(environment: Environment): Promise<Result<RateQuote, { code: string; reason?: string }>>;
  createAutomatic(
    trx: Trx,
    owner: PayoutOwner,
    options: { quote: RateQuote; description: string },
  ): Promise<
    | {
        ok: true;
        /** `rate.value`: the rate the payout was converted at (the market rate less the FX spread). */
        payout: { id: string; amount: string; payoutAmount: string; rate: { value: string } };
      }
    | { ok: false; reason: 'no_default_wallet' | 'below_minimum' | 'nothing_available'; minimum?: string }
  >;
}

/** What the payout phase needs of the organizations module (given in src/services.ts). */
export interface BatchOrganizations {
  /**
   * The frozen ones of these organizations, read under a share lock on their rows in the caller's
   * transaction (a freeze waits for it; after a freeze, it sees it).
   */
  frozen(trx: Trx, organizationIds: readonly string[]): Promise<Set<string>>;
}

/**
 * The hold reason of a batch whose organization an operator froze: no money leaves it automatically; a
 * later run pays it out once the organization is unfrozen.
 */
export const FROZEN_HOLD = 'organization_frozen';

/** What the batch needs of the ledger. */
export interface BatchLedger {
  ownersWithCredits(after: Date, upTo: Date): Promise<PayoutOwner[]>;
  lockedAvailable(trx: Trx, owner: PayoutOwner): Promise<string>;
}

export interface BatchDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  settlement: Pick<SettlementService, 'release'>;
  payouts: BatchPayouts & ChunkPayouts;
  ledger: BatchLedger & ChunkLedger;
  events: EventRecorder;
  organizations: BatchOrganizations;
  audit: AuditLog;
  alerts: AlertRaiser;
  mailer: { enqueue(db: Kdb, to: string, email: RenderedEmail): Promise<string>; nudge(): void };
  team: {
    activeMemberEmails(trx: Trx, organizationId: string, roles: readonly UserRole[]): Promise<string[]>;
  };
  webUrl: () => string;
  cursors: CursorCodec;
  /** A business date's cutoff: the daily schedule's run on that date (03:00 UTC by default). */
  cutoffOf?: (businessDate: BusinessDate) => Date;
  calendar?: BusinessCalendar;
  /**
   * Chunks of owners (chunk.ts), then single owners, a run settles at once (`SETTLEMENT_CONCURRENCY`,
   * default 4): each takes only its own owners' locks, so they proceed side by side on the pool's
   * connections. 1 settles one after another.
   */
  concurrency?: number;
}

export type OwnerOutcome =
  /** `settled`: this call ended the batch's payout phase (false: it had ended before). */
  | { batch: BatchView; settled: boolean }
  /** Nothing new was credited, or refunds exceed the new credits: no batch. */
  | { batch: null; reason: 'nothing_to_release' | 'net_not_positive' };

export interface DayReport {
  businessDate: BusinessDate;
  /** Not a business day (weekend, Turkish public holiday or a declared closure): nothing ran. */
  skipped: boolean;
  owners: number;
  /** Batches this run paid out or carried. */
  paidOut: number;
  carried: number;
  /**
   * Batches waiting for a usable rate after this run, of the date or of an earlier one (the daily job
   * then runs the period again).
   */
  held: number;
  /**
   * Batches held because their organization is frozen (`organization_frozen`), of the date or of an
   * earlier one: the period is not run again for them; a later run pays them out once it is unfrozen.
   */
  frozen: number;
  /** Batches of the date (or open batches of an earlier one) that an earlier run had already ended. */
  unchanged: number;
  failed: number;
  /** Of `paidOut`, the owners a set-based chunk settled (chunk.ts); the others went one by one. */
  chunked: number;
  /**
   * Chunks that failed and were rolled back, their owners settled one by one instead: 0 on a healthy
   * run. Each is logged at error level; a non-zero figure means the set-based path is broken.
   */
  chunksFailed: number;
}

export interface StatementVerification {
  organizationId: string;
  environment: Environment;
  valid: boolean;
  /** Statements checked. */
  checked: number;
  /** Each statement that no longer matches, or a broken link; empty when valid. */
  problems: Array<{
    batchId: string;
    sequence: number;
    problem: 'content_changed' | 'chain_broken' | 'sequence_gap';
  }>;
}

export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** A date the next batch waits past: a weekend, a Turkish public holiday or an operator's closure. */
export interface SkippedDate {
  date: BusinessDate;
  kind: 'weekend' | 'holiday' | 'closure';
  /** The holiday's name or the closure's reason; empty for a weekend. */
  name: string;
}

export interface NextBatchView {
  businessDate: BusinessDate;
  /** The cutoff of that business date (03:00 UTC by default), ISO 8601. */
  cutoff: string;
  /** The dates from today to `businessDate` (exclusive) on which no batch runs, in order. */
  skipped: SkippedDate[];
  schedule: PayoutSchedule;
  /**
   * `net`: what the batch would release were `pending` (when positive) released at its cutoff; the
   * rolling reserve (`reserveBps` for `days` days) holds back `held` of it, and `released` of earlier
   * reserves falls due by that date; `toAvailable` = net - held + released. TRY minor units.
   */
  expected: { net: string; held: string; released: string; toAvailable: string };
  reserve: { reserveBps: number; days: number };
  /** The owner's batches waiting for a usable TRY to USDT rate (payout phase retried). */
  heldBatches: BatchView[];
}

export interface ClosureView {
  businessDate: string;
  reason: string;
  declaredBy: string;
  createdAt: string;
}

export type SettlementCommandError =
  | { code: 'not_a_business_day'; businessDate: string; why: string }
  | { code: 'not_due'; businessDate: string; cutoff: string }
  | { code: 'invalid_date'; message: string }
  | { code: 'closure_not_found' }
  | { code: 'organization_not_found' }
  | { code: 'closure_exists' }
  | { code: 'reason_required' };

export interface SettlementBatches {
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
    filter: settlement.BatchFilter,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<
    Result<
      { data: Array<BatchView & { organizationId: string }>; nextCursor: string | null },
      { code: 'invalid_cursor' }
    >
  >;
  /** The owner's batches, newest business date first; cursor paged (`GET /v1/settlements`). */
  list(
    owner: PayoutOwner,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<Result<{ data: BatchView[]; nextCursor: string | null }, CursorError>>;
  retrieve(owner: PayoutOwner, id: string): Promise<BatchView | undefined>;
  /** The owner's batch whose automatic payout is `payoutId`; undefined for a manual payout. */
  batchOfPayout(owner: PayoutOwner, payoutId: string): Promise<BatchView | undefined>;
  /**
   * What the owner's next batch is expected to be (the dashboard's balance page, issue 15 item 2): the
   * next cutoff on a business day after now (weekends, Turkish public holidays and declared closures
   * skipped, each skipped date said), and, were `pending` released then, the reserve it would hold back
   * and the reserves due by that date it would release. Batches still held for a rate are listed.
   */
  nextBatch(owner: PayoutOwner, pending: string): Promise<NextBatchView>;
  /**
   * The statement of an ended batch, rebuilt from its stored release and items with the hash recorded
   * when it ended; `not_ready` while its payout phase is open.
   */
  statement(owner: PayoutOwner, id: string): Promise<Result<Statement, { code: 'not_found' | 'not_ready' }>>;
  /**
   * Recomputes every statement of the owner's chain from the stored rows and checks each against the hash
   * recorded when its batch ended and against the previous link.
   */
  verifyStatements(owner: PayoutOwner): Promise<StatementVerification>;
  /** One owner's batch of a business date: the release, then the payout phase. Safe to repeat. */
  settleOwner(owner: PayoutOwner, options: ReleaseOptions): Promise<OwnerOutcome>;
  /**
   * The sandbox test helper: the owner's batch now, through the same steps as the daily run, as a batch
   * of today's UTC date (one per call that releases something; `origin: test_helper`). Any batch of the
   * owner left released without its payout phase (a process killed in between) is paid out first; when
   * nothing new is released, that batch is the answer.
   */
  settleNow(owner: PayoutOwner): Promise<OwnerOutcome>;
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

/** How far ahead the next batch is looked for (past any run of holidays and closures). */
const NEXT_BATCH_LOOKAHEAD_DAYS = 60;
/** How far before the previous run's cutoff a run looks again for owners (see `service.ts`). */
const LATE_COMMIT_WINDOW_MS = HOUR;
/**
 * How long a run converts at the quote it took (per environment) before it asks the source again: the
 * batches of a run share one rate, and 10,000 owners do not ask the ticker 10,000 times. Far below the
 * staleness limit (`FX_MAX_AGE_SECONDS`), which the source checked when it quoted.
 */
const RUN_QUOTE_REUSE_MS = 60_000;

type Quoted = Awaited<ReturnType<BatchPayouts['quote']>>;
type QuoteOf = (environment: Environment) => Promise<Quoted>;
const REASON_MAX_LENGTH = 500;

export function createSettlementBatches(deps: BatchDeps): SettlementBatches {
  const { db, clock, logger } = deps;
  const calendar = deps.calendar ?? createBusinessCalendar();
  const cutoffOf = deps.cutoffOf ?? ((date: BusinessDate) => new Date(`${date}T03:00:00.000Z`));
  const concurrency = Math.max(1, deps.concurrency ?? 4);
  const chunks = createChunkSettler(deps);

  /** A run's quotes: one per environment, asked again after `RUN_QUOTE_REUSE_MS`; a failure is not kept. */
  function runQuotes(): QuoteOf {
    const taken = new Map<Environment, { at: number; quoted: Promise<Quoted> }>();
    return (environment) => {
      const now = clock.now().getTime();
      const kept = taken.get(environment);
      if (kept && now - kept.at < RUN_QUOTE_REUSE_MS) return kept.quoted;
      const quoted = deps.payouts.quote(environment);
      taken.set(environment, { at: now, quoted });
      quoted.then(
        (result) => {
          if (!result.ok && taken.get(environment)?.quoted === quoted) taken.delete(environment);
        },
        () => {
          if (taken.get(environment)?.quoted === quoted) taken.delete(environment);
        },
      );
      return quoted;
    };
  }

  async function businessDay(date: BusinessDate): Promise<{ open: true } | { open: false; why: string }> {
    const weekday = parseBusinessDate(date).getUTCDay();
    if (weekday === 0 || weekday === 6) return { open: false, why: 'weekend' };
    const holiday = calendar.holidayOn(date);
    if (holiday !== undefined) return { open: false, why: `public holiday: ${holiday}` };
    const closure = (await settlement.listClosures(db, date, date))[0];
    if (closure) return { open: false, why: `closure: ${closure.reason}` };
    return { open: true };
  }

  async function scheduleOf(organizationId: string): Promise<PayoutSchedule> {
    return (await settlement.findSettings(db, organizationId))?.payout_schedule ?? 'daily';
  }

  /** Owners and admins hear once that the batch's funds wait, per environment and reason. */
  async function noticeCarried(
    trx: Trx,
    batch: settlement.BatchRow,
    reason: 'no_default_wallet' | 'below_minimum',
    minimum: string | undefined,
  ): Promise<void> {
    const owner = { organizationId: batch.organization_id, environment: batch.environment };
    const settings = await settlement.lockSettings(trx, batch.organization_id);
    const noticed =
      batch.environment === 'live' ? settings?.carry_notice_live : settings?.carry_notice_sandbox;
    if (noticed === reason) return;
    const now = clock.now();
    const column = batch.environment === 'live' ? 'carry_notice_live' : 'carry_notice_sandbox';
    await settlement.upsertSettings(
      trx,
      {
        organization_id: batch.organization_id,
        payout_schedule: settings?.payout_schedule ?? 'daily',
        [column]: reason,
        updated_by: 'system',
        updated_at: now,
      },
      { [column]: reason },
    );
    const email = settlementFundsWaitingEmail({
      reason,
      environment: batch.environment,
      businessDate: batch.business_date,
      available: await deps.ledger.lockedAvailable(trx, owner),
      ...(minimum !== undefined ? { minimum } : {}),
      dashboardUrl: `${deps.webUrl()}/dashboard`,
    });
    const recipients = await deps.team.activeMemberEmails(trx, batch.organization_id, ['owner', 'admin']);
    for (const to of recipients) await deps.mailer.enqueue(trx, to, email);
  }

  async function clearNotice(trx: Trx, batch: settlement.BatchRow): Promise<void> {
    const settings = await settlement.findSettings(trx, batch.organization_id);
    if (!settings) return;
    const column = batch.environment === 'live' ? 'carry_notice_live' : 'carry_notice_sandbox';
    if (settings[column] === null) return;
    await settlement.upsertSettings(trx, { ...settings, [column]: null }, { [column]: null });
  }

  /** The statement of a batch that ends now: the next link of its owner's chain (statement.ts). */
  async function statementOf(
    trx: Trx,
    batch: settlement.BatchRow,
    ending: Omit<Parameters<typeof statementContent>[1], 'sequence'>,
  ) {
    const owner = { organizationId: batch.organization_id, environment: batch.environment };
    const head = await settlement.latestStatement(trx, owner);
    const sequence = (head?.statement_seq ?? 0) + 1;
    const previous = head?.statement_hash ?? null;
    const items = await settlement.itemsOfBatch(trx, batch.id);
    const releases = await settlement.reserveReleasesIn(trx, batch.id);
    const hash = statementHash(previous, statementContent(batch, { ...ending, sequence }, items, releases));
    return { statement_seq: sequence, statement_hash: hash, previous_hash: previous };
  }

  async function carry(
    trx: Trx,
    batch: settlement.BatchRow,
    reason: CarryReason,
  ): Promise<settlement.BatchRow> {
    const statement = await statementOf(trx, batch, {
      status: 'carried',
      carryReason: reason,
      rate: null,
      payout: null,
    });
    const carried = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'carried', {
      carry_reason: reason,
      hold_reason: null,
      ...statement,
      updated_at: clock.now(),
    });
    if (!carried) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
    await announce(trx, carried);
    logger.info({ batchId: batch.id, reason }, 'settlement batch carried: no automatic payout');
    return carried;
  }

  async function announce(trx: Trx, batch: settlement.BatchRow): Promise<void> {
    await deps.events.record(trx, {
      organizationId: batch.organization_id,
      environment: batch.environment,
      type: 'balance.settled',
      resourceId: batch.id,
      data: batchView(batch) as unknown as Record<string, unknown>,
    });
  }

  /** The payout phase of a released or held batch; a batch already paid out or carried is left as it is. */
  async function payOut(
    batchId: string,
    owner: PayoutOwner,
    quoteOf: QuoteOf,
  ): Promise<{ batch: settlement.BatchRow; settled: boolean }> {
    const schedule = await scheduleOf(owner.organizationId);
    // The rate is asked before the transaction: no transaction spans a call to another system.
    const quoted = schedule === 'manual' ? undefined : await quoteOf(owner.environment);
    return db.transaction().execute(async (trx) => {
      // The owner's lock (the release's) orders the statements of its batches: one chain, no fork.
      await settlement.lockOwner(trx, owner);
      const batch = await settlement.lockBatch(trx, batchId);
      if (!batch) throw new Error(`settlement batch ${batchId} does not exist`);
      if (batch.status !== 'released' && batch.status !== 'held') return { batch, settled: false };
      return { batch: await payOutLocked(trx, batch, owner, quoted), settled: true };
    });
  }

  async function hold(trx: Trx, batch: settlement.BatchRow, reason: string): Promise<settlement.BatchRow> {
    const held = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'held', {
      hold_reason: reason,
      payout_attempts: batch.payout_attempts + 1,
      updated_at: clock.now(),
    });
    if (!held) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
    return held;
  }

  async function payOutLocked(
    trx: Trx,
    batch: settlement.BatchRow,
    owner: PayoutOwner,
    quoted: Quoted | undefined,
  ): Promise<settlement.BatchRow> {
    if (quoted === undefined) return carry(trx, batch, 'manual_schedule');
    const now = clock.now();
    // An operator froze the organization to stop money leaving it: nothing is paid out automatically;
    // the batch waits, open, for a run after the organization is unfrozen (no alert: the operator froze it).
    if ((await deps.organizations.frozen(trx, [batch.organization_id])).has(batch.organization_id)) {
      const held = await hold(trx, batch, FROZEN_HOLD);
      logger.info({ batchId: batch.id }, 'settlement batch held: the organization is frozen');
      return held;
    }
    if (!quoted.ok) {
      const reason = `rate_unavailable:${quoted.error.reason ?? quoted.error.code}`;
      const held = await hold(trx, batch, reason);
      await deps.alerts.raise(trx, {
        kind: 'settlement_held',
        organizationId: batch.organization_id,
        environment: batch.environment,
        subjectId: batch.id,
        message:
          `The settlement batch ${batch.id} of ${batch.business_date} is held: no usable TRY to USDT rate ` +
          `(${reason}). It is paid out when a rate is available again; nothing is paid at a guessed rate.`,
        details: { batchId: batch.id, businessDate: batch.business_date, reason },
      });
      logger.warn({ batchId: batch.id, reason }, 'settlement batch held: no usable rate');
      return held;
    }
    const made = await deps.payouts.createAutomatic(trx, owner, {
      quote: quoted.value,
      description: `Settlement of ${batch.business_date}`,
    });
    if (!made.ok) {
      const carried = await carry(trx, batch, made.reason);
      if (made.reason !== 'nothing_available') await noticeCarried(trx, carried, made.reason, made.minimum);
      return carried;
    }
    const rate = { value: made.payout.rate.value, source: quoted.value.source, at: quoted.value.at };
    const payout = {
      id: made.payout.id,
      amount: made.payout.amount,
      payoutAmount: made.payout.payoutAmount,
    };
    const statement = await statementOf(trx, batch, { status: 'paid_out', carryReason: null, rate, payout });
    const paid = await settlement.transitionBatch(trx, batch.id, ['released', 'held'], 'paid_out', {
      payout_id: made.payout.id,
      payout_amount: made.payout.amount,
      payout_usdt: made.payout.payoutAmount,
      ...statement,
      rate: rate.value,
      rate_source: quoted.value.source,
      rate_at: quoted.value.at,
      hold_reason: null,
      payout_attempts: batch.payout_attempts + 1,
      updated_at: now,
    });
    if (!paid) throw new Error(`settlement batch ${batch.id} left its open states under its lock`);
    await clearNotice(trx, paid);
    await announce(trx, paid);
    return paid;
  }

  async function settleOwner(
    owner: PayoutOwner,
    options: ReleaseOptions,
    quoteOf: QuoteOf = deps.payouts.quote,
  ): Promise<OwnerOutcome> {
    const released: ReleaseOutcome = await deps.settlement.release(owner, options);
    if (!released.released) return { batch: null, reason: released.reason };
    const { batch, settled } = await payOut(released.batch.id, owner, quoteOf);
    if (settled && batch.status !== 'held') deps.mailer.nudge();
    return { batch: batchView(batch), settled };
  }

  const batches: SettlementBatches = {
    businessDay,

    async runDay(cutoff, signal) {
      const businessDate = utcDateOf(cutoff);
      const report: DayReport = {
        businessDate,
        skipped: false,
        owners: 0,
        paidOut: 0,
        carried: 0,
        held: 0,
        frozen: 0,
        unchanged: 0,
        failed: 0,
        chunked: 0,
        chunksFailed: 0,
      };
      const day = await businessDay(businessDate);
      if (!day.open) {
        logger.info({ businessDate, why: day.why }, 'no settlement: not a business day');
        return { ...report, skipped: true };
      }
      const previous = await settlement.latestCutoffBefore(db, businessDate);
      const after = previous ? new Date(previous.getTime() - LATE_COMMIT_WINDOW_MS) : new Date(0);
      const owners = new Map<string, PayoutOwner>();
      for (const owner of await deps.ledger.ownersWithCredits(after, cutoff))
        owners.set(`${owner.organizationId}:${owner.environment}`, owner);
      for (const owner of await settlement.ownersWithDueReserves(db, businessDate))
        owners.set(`${owner.organizationId}:${owner.environment}`, owner);
      // Open batches (released, or held) of the date's schedule are settled with their owners; the daily
      // schedule's batches of an earlier date (held when their period ended, or released before a crash)
      // are taken up after them. A sandbox settle-now batch (`test_helper`, cut at any moment, made on
      // demand, several a day) is taken up after them by the runs of its own date only, as before.
      const earlier: settlement.BatchRow[] = [];
      for (const open of await settlement.openBatchesUpTo(db, businessDate)) {
        if (open.business_date < businessDate) {
          if (open.origin === 'schedule') earlier.push(open);
        } else if (open.origin === 'test_helper') earlier.push(open);
        else
          owners.set(`${open.organization_id}:${open.environment}`, {
            organizationId: open.organization_id,
            environment: open.environment,
          });
      }
      const quoteOf = runQuotes();
      // The set-based path first (chunk.ts): chunks of owners in key order, each in one transaction; the
      // owners a chunk leaves (held, carried, reserves, refund debt, a batch already made) or a failed
      // chunk's go through the per-owner path below.
      const sorted = [...owners.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
      const pieces: PayoutOwner[][] = [];
      for (let start = 0; start < sorted.length; start += CHUNK_OWNERS)
        pieces.push(sorted.slice(start, start + CHUNK_OWNERS));
      const rest: PayoutOwner[] = [];
      await pMap(
        pieces,
        async (piece) => {
          if (signal?.aborted) throw new Error('the settlement run was stopped; the period runs again');
          try {
            const quotes = new Map<Environment, Quoted>();
            for (const environment of new Set(piece.map((owner) => owner.environment)))
              quotes.set(environment, await quoteOf(environment));
            const outcome = await chunks.settleChunk(piece, { cutoff, businessDate }, quotes);
            report.owners += outcome.settled.size;
            report.paidOut += outcome.settled.size;
            report.chunked += outcome.settled.size;
            for (let i = 0; i < outcome.settled.size; i++) settlementOutcomes.inc({ outcome: 'paid_out' });
            rest.push(...outcome.rest);
          } catch (error) {
            report.chunksFailed += 1;
            logger.error(
              { err: error, owners: piece.length, businessDate },
              'a settlement chunk failed; its owners are settled one by one',
            );
            rest.push(...piece);
          }
        },
        { concurrency, stopOnError: true },
      );
      await pMap(
        rest,
        async (owner) => {
          if (signal?.aborted) throw new Error('the settlement run was stopped; the period runs again');
          report.owners += 1;
          try {
            const outcome = await settleOwner(owner, { cutoff, businessDate }, quoteOf);
            if (outcome.batch !== null) count(report, outcome.batch, outcome.settled);
          } catch (error) {
            settlementOutcomes.inc({ outcome: 'failed' });
            report.failed += 1;
            logger.error(
              { err: error, ...owner, businessDate },
              'settlement of an owner failed; retried with the period',
            );
          }
        },
        { concurrency, stopOnError: true },
      );
      // After the date's batches: an owner with new credits was paid its whole available balance by the
      // batch of the date, so its earlier batch finds nothing available and is carried
      // (`nothing_available`); an owner without new credits is paid its earlier batch's funds now. Each
      // under the owner's lock and the batch's row lock (`payOut`): once, however many runs meet here.
      await pMap(
        earlier,
        async (open) => {
          if (signal?.aborted) throw new Error('the settlement run was stopped; the period runs again');
          const owner = { organizationId: open.organization_id, environment: open.environment };
          try {
            const { batch, settled } = await payOut(open.id, owner, quoteOf);
            if (settled && batch.status !== 'held') deps.mailer.nudge();
            count(report, batchView(batch), settled);
          } catch (error) {
            settlementOutcomes.inc({ outcome: 'failed' });
            report.failed += 1;
            logger.error(
              { err: error, ...owner, batchId: open.id, businessDate: open.business_date },
              'the payout phase of an earlier open batch failed; retried with the period',
            );
          }
        },
        { concurrency, stopOnError: true },
      );
      logger.info(report, 'settlement run finished');
      return report;
    },

    async runDate(businessDate, by) {
      const date = checkedDate(businessDate);
      if (!date.ok) return date;
      const day = await businessDay(date.value);
      if (!day.open) return err({ code: 'not_a_business_day', businessDate: date.value, why: day.why });
      const cutoff = cutoffOf(date.value);
      if (cutoff.getTime() > clock.now().getTime())
        return err({ code: 'not_due', businessDate: date.value, cutoff: cutoff.toISOString() });
      await deps.audit.record(db, {
        actor: by.actor,
        action: 'settlement.run_requested',
        targetType: 'business_date',
        targetId: date.value,
        organizationId: null,
        requestId: by.requestId ?? null,
        ip: by.ip ?? null,
      });
      return ok(await batches.runDay(cutoff));
    },

    async list(owner, page) {
      const pages = deps.cursors.for({
        list: 'settlement_batches',
        organizationId: owner.organizationId,
        environment: owner.environment,
      });
      const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
      if (after && !after.ok) return after;
      const position = after
        ? { businessDate: utcDateOf(after.value.createdAt), id: after.value.id }
        : undefined;
      const rows = await settlement.listBatches(
        db,
        { organizationId: owner.organizationId, environment: owner.environment },
        position,
        page.limit + 1,
      );
      const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
      return ok({
        data: rows.slice(0, page.limit).map(batchView),
        nextCursor: last ? pages.encode(parseBusinessDate(last.business_date), last.id) : null,
      });
    },

    async retrieve(owner, id) {
      const row = await settlement.findOwnBatch(db, owner, id);
      return row && batchView(row);
    },

    async batchOfPayout(owner, payoutId) {
      const row = await settlement.findBatchOfPayout(db, owner, payoutId);
      return row && batchView(row);
    },

    async nextBatch(owner, pending) {
      const now = clock.now();
      const today = utcDateOf(now);
      const closures = new Map(
        (await settlement.listClosures(db, today, addDays(today, NEXT_BATCH_LOOKAHEAD_DAYS))).map((row) => [
          row.business_date,
          row.reason,
        ]),
      );
      const skipped: SkippedDate[] = [];
      let date = today;
      for (let i = 0; i <= NEXT_BATCH_LOOKAHEAD_DAYS; i++, date = addDays(date, 1)) {
        const weekday = parseBusinessDate(date).getUTCDay();
        const holiday = calendar.holidayOn(date);
        const closure = closures.get(date);
        const closed: SkippedDate | undefined =
          weekday === 0 || weekday === 6
            ? { date, kind: 'weekend', name: '' }
            : holiday !== undefined
              ? { date, kind: 'holiday', name: holiday }
              : closure !== undefined
                ? { date, kind: 'closure', name: closure }
                : undefined;
        if (closed) skipped.push(closed);
        else if (cutoffOf(date).getTime() > now.getTime()) break;
      }
      const settings = await settlement.findSettings(db, owner.organizationId);
      const reserveBps = settings?.reserve_bps ?? 0;
      const net = BigInt(pending) > 0n ? BigInt(pending) : 0n;
      const held = (net * BigInt(reserveBps)) / 10_000n;
      const released = (await settlement.dueReserves(db, owner, date)).reduce(
        (total, row) => total + BigInt(row.reserve_held),
        0n,
      );
      const heldRows = await settlement.listBatches(db, { ...owner, status: 'held' }, undefined, 10);
      return {
        businessDate: date,
        cutoff: cutoffOf(date).toISOString(),
        skipped,
        schedule: settings?.payout_schedule ?? 'daily',
        expected: {
          net: net.toString(),
          held: held.toString(),
          released: released.toString(),
          toAvailable: (net - held + released).toString(),
        },
        reserve: { reserveBps, days: settings?.reserve_days ?? 0 },
        heldBatches: heldRows.map(batchView),
      };
    },

    async statement(owner, id) {
      const row = await settlement.findOwnBatch(db, owner, id);
      if (!row) return err({ code: 'not_found' as const });
      if (row.statement_seq === null || row.statement_hash === null)
        return err({ code: 'not_ready' as const });
      const content = storedContent(
        row,
        await settlement.itemsOfBatch(db, row.id),
        await settlement.reserveReleasesIn(db, row.id),
      );
      return ok({
        object: 'settlement_statement' as const,
        ...content,
        previousHash: row.previous_hash,
        hash: row.statement_hash,
      });
    },

    async verifyStatements(owner) {
      const problems: StatementVerification['problems'] = [];
      let checked = 0;
      let previous: { seq: number; hash: string } | undefined;
      for (;;) {
        const rows = await settlement.endedBatches(db, owner, previous?.seq ?? 0, 200);
        if (rows.length === 0) break;
        for (const row of rows) {
          const sequence = row.statement_seq ?? 0;
          checked += 1;
          if (sequence !== (previous?.seq ?? 0) + 1)
            problems.push({ batchId: row.id, sequence, problem: 'sequence_gap' });
          if ((row.previous_hash ?? null) !== (previous?.hash ?? null))
            problems.push({ batchId: row.id, sequence, problem: 'chain_broken' });
          const content = storedContent(
            row,
            await settlement.itemsOfBatch(db, row.id),
            await settlement.reserveReleasesIn(db, row.id),
          );
          if (statementHash(row.previous_hash, content) !== row.statement_hash)
            problems.push({ batchId: row.id, sequence, problem: 'content_changed' });
          previous = { seq: sequence, hash: row.statement_hash ?? '' };
        }
      }
      return { ...owner, valid: problems.length === 0, checked, problems };
    },

    async operatorList(filter, page) {
      // The cursor's time is the business date's midnight (UTC): the list's order is business date, id.
      // The filter in a fixed member order: a cursor works whatever order the query string had.
      const scope = [filter.organizationId, filter.environment, filter.status, filter.businessDate];
      const pages = deps.cursors.for({ list: 'settlement_batches', filter: JSON.stringify(scope) });
      const after = page.cursor === undefined ? undefined : pages.decode(page.cursor);
      if (after && !after.ok) return err({ code: 'invalid_cursor' as const });
      const position = after
        ? { businessDate: utcDateOf(after.value.createdAt), id: after.value.id }
        : undefined;
      const rows = await settlement.listBatches(db, filter, position, page.limit + 1);
      const data = rows
        .slice(0, page.limit)
        .map((row) => ({ ...batchView(row), organizationId: row.organization_id }));
      const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
      return ok({
        data,
        nextCursor: last ? pages.encode(parseBusinessDate(last.business_date), last.id) : null,
      });
    },

    settleOwner,

    async settleNow(owner) {
      // A batch an earlier call (or run) released but did not pay out, its process killed in between,
      // is paid out first: the call finishes what was left, then releases what came since.
      let resumed: { batch: settlement.BatchRow; settled: boolean } | undefined;
      for (const open of await settlement.releasedOf(db, owner)) {
        resumed = await payOut(open.id, owner, deps.payouts.quote);
        if (resumed.settled && resumed.batch.status !== 'held') deps.mailer.nudge();
      }
      const now = clock.now();
      const outcome = await settleOwner(owner, {
        cutoff: now,
        businessDate: utcDateOf(now),
        origin: 'test_helper',
      });
      if (outcome.batch === null && resumed !== undefined)
        return { batch: batchView(resumed.batch), settled: resumed.settled };
      return outcome;
    },

    async resumeReleased(before, limit = 100) {
      const report = { resumed: 0, failed: 0 };
      const quoteOf = runQuotes();
      await pMap(
        await settlement.releasedSince(db, before, limit),
        async (open) => {
          const owner = { organizationId: open.organization_id, environment: open.environment };
          try {
            const { batch, settled } = await payOut(open.id, owner, quoteOf);
            if (!settled) return;
            report.resumed += 1;
            if (batch.status !== 'held') deps.mailer.nudge();
            settlementOutcomes.inc({ outcome: batch.status });
            logger.info(
              { batchId: batch.id, businessDate: batch.business_date, status: batch.status },
              'settlement batch released before an interruption: payout phase resumed',
            );
          } catch (error) {
            report.failed += 1;
            settlementOutcomes.inc({ outcome: 'failed' });
            logger.error(
              { err: error, ...owner, batchId: open.id, businessDate: open.business_date },
              'resuming the payout phase of a released batch failed; the next pass tries again',
            );
          }
        },
        { concurrency },
      );
      return report;
    },

    schedule: scheduleOf,

    async setSchedule(organizationId, schedule, by) {
      return db
        .transaction()
        .execute(async (trx) => {
          const before = await settlement.lockSettings(trx, organizationId);
          const now = clock.now();
          const row = await settlement.upsertSettings(
            trx,
            {
              organization_id: organizationId,
              payout_schedule: schedule,
              updated_by: by.actor,
              updated_at: now,
            },
            { payout_schedule: schedule, updated_by: by.actor, updated_at: now },
          );
          await deps.audit.record(trx, {
            actor: by.actor,
            action: 'settlement.payout_schedule_set',
            targetType: 'organization',
            targetId: organizationId,
            organizationId,
            before: { payoutSchedule: before?.payout_schedule ?? 'daily' },
            after: { payoutSchedule: row.payout_schedule },
            requestId: by.requestId ?? null,
            ip: by.ip ?? null,
          });
          return ok(row.payout_schedule);
        })
        .catch((error: unknown) => {
          // The settings row references the organization: an unknown one is refused by the database.
          if (isForeignKeyViolation(error)) return err({ code: 'organization_not_found' as const });
          throw error;
        });
    },

    async reserve(organizationId) {
      const settings = await settlement.findSettings(db, organizationId);
      return { reserveBps: settings?.reserve_bps ?? 0, days: settings?.reserve_days ?? 0 };
    },

    async setReserve(organizationId, reserve, by) {
      return db
        .transaction()
        .execute(async (trx) => {
          const before = await settlement.lockSettings(trx, organizationId);
          const now = clock.now();
          const changes = {
            reserve_bps: reserve.reserveBps,
            reserve_days: reserve.days,
            updated_by: by.actor,
            updated_at: now,
          };
          const row = await settlement.upsertSettings(
            trx,
            { organization_id: organizationId, ...changes },
            changes,
          );
          await deps.audit.record(trx, {
            actor: by.actor,
            action: 'settlement.reserve_set',
            targetType: 'organization',
            targetId: organizationId,
            organizationId,
            before: { reserveBps: before?.reserve_bps ?? 0, days: before?.reserve_days ?? 0 },
            after: { reserveBps: row.reserve_bps, days: row.reserve_days },
            requestId: by.requestId ?? null,
            ip: by.ip ?? null,
          });
          return ok({ reserveBps: row.reserve_bps, days: row.reserve_days });
        })
        .catch((error: unknown) => {
          if (isForeignKeyViolation(error)) return err({ code: 'organization_not_found' as const });
          throw error;
        });
    },

    async closures(range) {
      return (await settlement.listClosures(db, range.from, range.to)).map(closureView);
    },

    async declareClosure(businessDate, reason, by) {
      const date = checkedDate(businessDate);
      if (!date.ok) return date;
      const trimmed = reason.trim();
      if (trimmed === '' || trimmed.length > REASON_MAX_LENGTH) return err({ code: 'reason_required' });
      return db.transaction().execute(async (trx) => {
        const now = clock.now();
        const row = { business_date: date.value, reason: trimmed, declared_by: by.actor, created_at: now };
        if (!(await settlement.insertClosure(trx, row))) return err({ code: 'closure_exists' as const });
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'settlement.closure_declared',
          targetType: 'business_date',
          targetId: date.value,
          organizationId: null,
          after: { reason: trimmed },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return ok(closureView(row));
      });
    },

    async removeClosure(businessDate, by) {
      const date = checkedDate(businessDate);
      if (!date.ok) return date;
      return db.transaction().execute(async (trx) => {
        const removed = await settlement.deleteClosure(trx, date.value);
        if (!removed) return err({ code: 'closure_not_found' as const });
        await deps.audit.record(trx, {
          actor: by.actor,
          action: 'settlement.closure_removed',
          targetType: 'business_date',
          targetId: date.value,
          organizationId: null,
          before: { reason: removed.reason },
          requestId: by.requestId ?? null,
          ip: by.ip ?? null,
        });
        return ok(closureView(removed));
      });
    },
  };
  return batches;
}

/** Counts a batch the run took up in its report, by where its payout phase stands now. */
function count(report: DayReport, batch: BatchView, settled: boolean): void {
  if (batch.status === 'held') {
    if (batch.holdReason === FROZEN_HOLD) report.frozen += 1;
    else report.held += 1;
  } else if (!settled) report.unchanged += 1;
  else if (batch.status === 'paid_out') report.paidOut += 1;
  else if (batch.status === 'carried') report.carried += 1;
  else report.held += 1;
  if (settled || batch.status === 'held') settlementOutcomes.inc({ outcome: batch.status });
}

/** The content of an ended batch's statement, rebuilt from what its row and items hold now. */
function storedContent(
  row: settlement.BatchRow,
  items: readonly settlement.ItemRow[],
  releases: ReadonlyArray<{ batch_id: string; amount: string }>,
) {
  return statementContent(
    row,
    {
      status: row.status === 'paid_out' ? 'paid_out' : 'carried',
      carryReason: row.carry_reason,
      rate:
        row.rate !== null && row.rate_source !== null && row.rate_at !== null
          ? { value: row.rate, source: row.rate_source, at: row.rate_at }
          : null,
      payout:
        row.payout_id !== null
          ? { id: row.payout_id, amount: row.payout_amount ?? '', payoutAmount: row.payout_usdt ?? '' }
          : null,
      sequence: row.statement_seq ?? 0,
    },
    items,
    releases,
  );
}

function checkedDate(text: string): Result<BusinessDate, SettlementCommandError> {
  try {
    parseBusinessDate(text);
    return ok(text);
  } catch (error) {
    return err({ code: 'invalid_date', message: (error as Error).message });
  }
}

function closureView(row: settlement.ClosureRow): ClosureView {
  return {
    businessDate: row.business_date,
    reason: row.reason,
    declaredBy: row.declared_by,
    createdAt: row.created_at.toISOString(),
  };
}
