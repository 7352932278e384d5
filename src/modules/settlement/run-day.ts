import pMap from 'p-map';
import type { Environment } from '../../db/schema.js';
import { settlementOutcomes } from '../../metrics/registry.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { Actor, DayReport, SettlementCommandError } from './batch-types.js';
import { utcDateOf, type BusinessDate } from '../../shared/business-calendar.js';
import { CHUNK_OWNERS } from './chunk.js';
import type { BatchContext } from './context.js';
import { businessDay, dateEntry } from './closures.js';
import { FROZEN_HOLD, type BatchRow } from './model.js';
import { payOut, runQuotes, type QuoteOf, type Quoted } from './pay-out.js';
import { LATE_COMMIT_WINDOW_MS } from './release.js';
import * as settlement from './repository.js';
import { settleOwner } from './settle-owner.js';
import { batchView, type BatchView } from './views.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The run of one business date: the set-based chunks first (chunk.ts), then every owner they left one by
 * one (settle-owner.ts), then the open batches of earlier dates (pay-out.ts). Each step is safe to
 * repeat, so a run stopped or failed anywhere is run again with its period.
 */

/** The cutoff and business date of the run. */
interface Period {
  cutoff: Date;
  businessDate: BusinessDate;
}

/**
 * The run of one business date with its cutoff (the 03:00 UTC period start): every owner with credits
 * since the previous run, and every batch of the date whose payout phase is open; then every batch of an
 * earlier date whose payout phase is still open (held or released), each paid out or carried as it can
 * be now.
 */
export async function runDay(run: BatchContext, cutoff: Date, signal?: AbortSignal): Promise<DayReport> {
  const { logger } = run;
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
  const day = await businessDay(run, businessDate);
  if (!day.open) {
    logger.info({ businessDate, why: day.why }, 'no settlement: not a business day');
    return { ...report, skipped: true };
  }
  const { owners, earlier } = await ownersOfDay(run, cutoff, businessDate);
  const quoteOf = runQuotes(run);
  const rest = await settleChunks(run, owners, { cutoff, businessDate }, quoteOf, report, signal);
  await settleOneByOne(run, rest, { cutoff, businessDate }, quoteOf, report, signal);
  await settleEarlier(run, earlier, quoteOf, report, signal);
  logger.info(report, 'settlement run finished');
  return report;
}

/**
 * The operator's run of a due or missed business date (`npm run operator -- settle`, the console, the
 * operator API): the same run as the 03:00 job, audited; exactly once still holds. The caller checked
 * `date` (`onTypedDate`).
 */
export async function runDate(
  run: BatchContext,
  date: BusinessDate,
  by: Actor,
): Promise<Result<DayReport, SettlementCommandError>> {
  const day = await businessDay(run, date);
  if (!day.open) return err({ code: 'not_a_business_day', businessDate: date, why: day.why });
  const cutoff = run.cutoffOf(date);
  if (cutoff.getTime() > run.clock.now().getTime())
    return err({ code: 'not_due', businessDate: date, cutoff: cutoff.toISOString() });
  await run.audit.record(run.db, dateEntry(by, 'settlement.run_requested', date));
  return ok(await runDay(run, cutoff));
}

/** The owners the run settles (key `organizationId:environment`), and the open batches it takes up after. */
async function ownersOfDay(
  run: BatchContext,
  cutoff: Date,
  businessDate: BusinessDate,
): Promise<{ owners: Map<string, Owner>; earlier: BatchRow[] }> {
  const previous = await settlement.latestCutoffBefore(run.db, businessDate);
  // How far before the previous run's cutoff a run looks again for owners (see `release.ts`).
  const after = previous ? new Date(previous.getTime() - LATE_COMMIT_WINDOW_MS) : new Date(0);
  const owners = new Map<string, Owner>();
  for (const owner of await run.ledger.ownersWithCredits(after, cutoff))
    owners.set(`${owner.organizationId}:${owner.environment}`, owner);
  for (const owner of await settlement.ownersWithDueReserves(run.db, businessDate))
    owners.set(`${owner.organizationId}:${owner.environment}`, owner);
  // Open batches (released, or held) of the date's schedule are settled with their owners; the daily
  // schedule's batches of an earlier date (held when their period ended, or released before a crash)
  // are taken up after them. A sandbox settle-now batch (`test_helper`, cut at any moment, made on
  // demand, several a day) is taken up after them by the runs of its own date only, as before.
  const earlier: BatchRow[] = [];
  for (const open of await settlement.openBatchesUpTo(run.db, businessDate)) {
    if (open.business_date < businessDate) {
      if (open.origin === 'schedule') earlier.push(open);
    } else if (open.origin === 'test_helper') earlier.push(open);
    else
      owners.set(`${open.organization_id}:${open.environment}`, {
        organizationId: open.organization_id,
        environment: open.environment,
      });
  }
  return { owners, earlier };
}

/**
 * The set-based path first (chunk.ts): chunks of owners in key order, each in one transaction; the
 * owners a chunk leaves (held, carried, reserves, refund debt, a batch already made) or a failed
 * chunk's go through the per-owner path. Answers those owners.
 */
async function settleChunks(
  run: BatchContext,
  owners: ReadonlyMap<string, Owner>,
  { cutoff, businessDate }: Period,
  quoteOf: QuoteOf,
  report: DayReport,
  signal: AbortSignal | undefined,
): Promise<Owner[]> {
  const sorted = [...owners.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  const pieces: Owner[][] = [];
  for (let start = 0; start < sorted.length; start += CHUNK_OWNERS)
    pieces.push(sorted.slice(start, start + CHUNK_OWNERS));
  const rest: Owner[] = [];
  await eachUntilStopped(run, pieces, signal, async (piece) => {
    try {
      const quotes = new Map<Environment, Quoted>();
      for (const environment of new Set(piece.map((owner) => owner.environment)))
        quotes.set(environment, await quoteOf(environment));
      const outcome = await run.chunks.settleChunk(piece, { cutoff, businessDate }, quotes);
      report.owners += outcome.settled.size;
      report.paidOut += outcome.settled.size;
      report.chunked += outcome.settled.size;
      for (let i = 0; i < outcome.settled.size; i++) settlementOutcomes.inc({ outcome: 'paid_out' });
      rest.push(...outcome.rest);
    } catch (error) {
      report.chunksFailed += 1;
      run.logger.error(
        { err: error, owners: piece.length, businessDate },
        'a settlement chunk failed; its owners are settled one by one',
      );
      rest.push(...piece);
    }
  });
  return rest;
}

/** The owners the chunks left, each through the per-owner steps (`settleOwner`). */
async function settleOneByOne(
  run: BatchContext,
  rest: readonly Owner[],
  { cutoff, businessDate }: Period,
  quoteOf: QuoteOf,
  report: DayReport,
  signal: AbortSignal | undefined,
): Promise<void> {
  await eachUntilStopped(run, rest, signal, async (owner) => {
    report.owners += 1;
    try {
      const outcome = await settleOwner(run, owner, { cutoff, businessDate }, quoteOf);
      if (outcome.batch !== null) count(report, outcome.batch, outcome.settled);
    } catch (error) {
      failed(run, report, { err: error, ...owner, businessDate }, 'settlement of an owner failed');
    }
  });
}

/**
 * After the date's batches: an owner with new credits was paid its whole available balance by the batch
 * of the date, so its earlier batch finds nothing available and is carried (`nothing_available`); an
 * owner without new credits is paid its earlier batch's funds now. Each under the owner's lock and the
 * batch's row lock (`payOut`): once, however many runs meet here.
 */
async function settleEarlier(
  run: BatchContext,
  earlier: readonly BatchRow[],
  quoteOf: QuoteOf,
  report: DayReport,
  signal: AbortSignal | undefined,
): Promise<void> {
  await eachUntilStopped(run, earlier, signal, async (open) => {
    const owner = { organizationId: open.organization_id, environment: open.environment };
    try {
      const { batch, settled } = await payOut(run, open.id, owner, quoteOf);
      if (settled && batch.status !== 'held') run.mailer.nudge();
      count(report, batchView(batch), settled);
    } catch (error) {
      failed(
        run,
        report,
        { err: error, ...owner, batchId: open.id, businessDate: open.business_date },
        'the payout phase of an earlier open batch failed',
      );
    }
  });
}

/**
 * `step` of each item, `run.concurrency` at once; once the run is stopped (`signal`), the next item throws
 * and the run ends (the period runs again).
 */
async function eachUntilStopped<T>(
  run: BatchContext,
  items: readonly T[],
  signal: AbortSignal | undefined,
  step: (item: T) => Promise<void>,
): Promise<void> {
  await pMap(
    items,
    async (item) => {
      if (signal?.aborted) throw new Error('the settlement run was stopped; the period runs again');
      await step(item);
    },
    { concurrency: run.concurrency, stopOnError: true },
  );
}

/** An owner's step that failed (`what`): counted, logged with `context`, and retried with the period. */
function failed(run: BatchContext, report: DayReport, context: object, what: string): void {
  settlementOutcomes.inc({ outcome: 'failed' });
  report.failed += 1;
  run.logger.error(context, `${what}; retried with the period`);
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
