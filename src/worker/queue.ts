import { randomBytes } from 'node:crypto';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Logger } from 'pino';
import type { Kdb, Trx } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import type { AlertRaiser } from '../shared/alerts.js';
import type { RunReport } from './run-log.js';

/**
 * How long a failed attempt waits: a fixed schedule (the wait after the 1st, 2nd, … failure, the last
 * repeated), or capped exponential growth from a base. Each wait moves by up to `jitter` either way.
 */
export type RetryPolicy = { maxAttempts: number; jitter: number } & (
  { schedule: readonly number[] } | { baseMs: number; capMs: number }
);

/** The wait after failed attempt number `attempt` (1 for the first), in [0, cap * (1 + jitter)]. */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const index = Math.max(0, attempt - 1);
  const base =
    'schedule' in policy
      ? (policy.schedule[Math.min(index, policy.schedule.length - 1)] ?? 0)
      : Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(index, 40));
  return Math.round(base * (1 + policy.jitter * (2 * random() - 1)));
}

/** The token of one claim: only its holder records the outcome of the work it claimed. */
export function newLeaseToken(): string {
  return randomBytes(12).toString('base64url');
}

export interface QueueSpec {
  /** The job's name: in the run log, in parked-row alerts (`<job>:<row id>`) and in the parked list. */
  job: string;
  table: 'charges' | 'refunds' | 'emails' | 'payouts' | 'dispute_auto_refunds';
  /** Prefix of the queue columns, for a table that is not a queue of its own (`expiry_` on charges). */
  prefix?: string;
  /**
   * The rows this job works on, whether due or not (`status = 'pending'`), without the park: the kit adds
   * the due time and `parked_at IS NULL`.
   */
  eligible: RawBuilder<SqlBool>;
  /**
   * When a row is due while it has no `next_attempt_at` of its own (never attempted): a column or an
   * expression, such as `expires_at`. Absent: such a row is due at once.
   */
  firstDueAt?: RawBuilder<Date>;
  /** The first attempt waits this long after `firstDueAt` (a request that may still be in flight). */
  firstDelayMs?: number;
  /** How long a claim holds the row: longer than the work's own deadline (acquirer timeouts included). */
  leaseMs: number;
  retry: RetryPolicy;
}

export interface Claimed {
  id: string;
  leaseToken: string;
  /** The number of this attempt (1 for the first). */
  attempt: number;
}

export type FailOutcome = 'retry' | 'parked' | 'lost';

/** What one batch of a queue job did: rows claimed, rows that reached the job's goal, failed attempts. */
export interface BatchReport {
  claimed: number;
  done: number;
  failed: number;
}

/**
 * Runs batches until one claims nothing (or `signal` is aborted). It ends: a failed row backs off and a
 * finished one leaves the queue, so no row is claimed twice in one drain.
 */
export async function drain(batch: () => Promise<BatchReport>, signal?: AbortSignal): Promise<RunReport> {
  const report: RunReport = { rows: 0, errors: 0 };
  while (!signal?.aborted) {
    const done = await batch();
    report.rows += done.claimed - done.failed;
    report.errors += done.failed;
    if (done.claimed === 0) break;
  }
  return report;
}

export interface ParkedRow {
  job: string;
  id: string;
  attempts: number;
  lastError: string | null;
  parkedAt: string;
}

/**
 * A table's due rows as a work queue. `claim` takes due rows in due order in one short statement (FOR
 * UPDATE SKIP LOCKED, so workers never take the same row) and leases them: the due time moves forward by
 * the lease and the attempt is counted, so a worker that dies mid-work leaves the row due again after the
 * lease, and a row that keeps killing workers still parks. The work itself, a call to another system, runs
 * outside any transaction; its outcome is recorded with `succeed` or `fail` in the caller's transaction,
 * next to the state change, and only while the claim is still held.
 */
export interface DueQueue {
  readonly job: string;
  claim(limit: number): Promise<Claimed[]>;
  /** Ends the claim after work that succeeded (or ended the row's part in this job). False: claim lost. */
  succeed(trx: Trx, claimed: Claimed): Promise<boolean>;
  /**
   * Records a failed attempt: due again after the backoff, or parked after the last attempt and raised to
   * the operator (in the same transaction). `lost` when another worker holds the row now.
   */
  fail(trx: Trx, claimed: Claimed, error: unknown): Promise<FailOutcome>;
  /** The parked rows, newest first. */
  parked(limit: number): Promise<ParkedRow[]>;
  /** How many rows are due now and how long the oldest has been due (0 when none): read at a scrape. */
  dueStats(): Promise<DueStats>;
}

export interface DueStats {
  job: string;
  due: number;
  oldestDueSeconds: number;
}

export interface QueueDeps {
  db: Kdb;
  clock: Clock;
  alerts: AlertRaiser;
  logger: Logger;
  /** In [0, 1); injectable for tests of the jitter. */
  random?: () => number;
}

export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 500);
}

export function createDueQueue(deps: QueueDeps, spec: QueueSpec): DueQueue {
  const { db, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const prefix = spec.prefix ?? '';
  const table = sql.table(spec.table);
  const col = (name: 'attempts' | 'next_attempt_at' | 'lease_token' | 'parked_at' | 'last_error') =>
    sql.ref(`${prefix}${name}`);
  const nextAt = col('next_attempt_at');

  function dueCondition(now: Date): RawBuilder<SqlBool> {
    if (spec.firstDueAt === undefined) return sql<SqlBool>`${nextAt} <= ${now}`;
    // Spelled as the coalesce of the partial index when there is no first delay, so the index serves it.
    if (spec.firstDelayMs === undefined)
      return sql<SqlBool>`coalesce(${nextAt}, ${spec.firstDueAt}) <= ${now}`;
    const firstCutoff = new Date(now.getTime() - spec.firstDelayMs);
    return sql<SqlBool>`(${nextAt} <= ${now} or (${nextAt} is null and ${spec.firstDueAt} <= ${firstCutoff}))`;
  }
  const dueOrder = spec.firstDueAt === undefined ? nextAt : sql`coalesce(${nextAt}, ${spec.firstDueAt})`;

  return {
    job: spec.job,

    async claim(limit) {
      if (limit <= 0) return [];
      const now = clock.now();
      const leaseToken = newLeaseToken();
      const leaseUntil = new Date(now.getTime() + spec.leaseMs);
      // Materialized: the due rows are chosen and locked once, never re-run by the plan of the update.
      const result = await sql<{ id: string; attempts: number }>`
        with due as materialized (
          select id from ${table}
          where ${spec.eligible} and ${col('parked_at')} is null and ${dueCondition(now)}
          order by ${dueOrder}, id
          limit ${limit}
          for update skip locked
        )
        update ${table} set
          ${col('lease_token')} = ${leaseToken},
          ${nextAt} = ${leaseUntil},
          ${col('attempts')} = ${col('attempts')} + 1
        from due
        where ${table}.id = due.id
        returning ${table}.id, ${col('attempts')} as attempts`.execute(db);
      return result.rows.map((row) => ({ id: row.id, leaseToken, attempt: Number(row.attempts) }));
    },

    async succeed(trx, claimed) {
      const result = await sql`
        update ${table} set ${col('lease_token')} = null, ${col('last_error')} = null
        where id = ${claimed.id} and ${col('lease_token')} = ${claimed.leaseToken}`.execute(trx);
      return Number(result.numAffectedRows ?? 0n) > 0;
    },

    async fail(trx, claimed, error) {
      const now = clock.now();
      const message = errorText(error);
      const park = claimed.attempt >= spec.retry.maxAttempts;
      const result = await sql`
        update ${table} set
          ${col('lease_token')} = null,
          ${col('last_error')} = ${message},
          ${park ? sql`${col('parked_at')} = ${now}` : sql`${nextAt} = ${new Date(now.getTime() + retryDelay(spec.retry, claimed.attempt, random))}`}
        where id = ${claimed.id} and ${col('lease_token')} = ${claimed.leaseToken}`.execute(trx);
      if (Number(result.numAffectedRows ?? 0n) === 0) return 'lost';
      if (!park) return 'retry';
      await deps.alerts.raise(trx, {
        kind: 'job_parked',
        organizationId: null,
        environment: null,
        subjectId: `${spec.job}:${claimed.id}`,
        message: `${spec.job} parked ${claimed.id} after ${claimed.attempt} failed attempts: ${message}`,
        details: { job: spec.job, id: claimed.id, attempts: claimed.attempt, lastError: message },
      });
      logger.warn({ job: spec.job, id: claimed.id, attempts: claimed.attempt }, 'job parked a row');
      return 'parked';
    },

    async parked(limit) {
      const result = await sql<{ id: string; attempts: number; last_error: string | null; parked_at: Date }>`
        select id, ${col('attempts')} as attempts, ${col('last_error')} as last_error,
          ${col('parked_at')} as parked_at
        from ${table}
        where ${col('parked_at')} is not null
        order by ${col('parked_at')} desc, id desc
        limit ${limit}`.execute(db);
      return result.rows.map((row) => ({
        job: spec.job,
        id: row.id,
        attempts: Number(row.attempts),
        lastError: row.last_error,
        parkedAt: new Date(row.parked_at).toISOString(),
      }));
    },

    async dueStats() {
      const now = clock.now();
      // The due order's bound repeats the claim's condition in the spelling of the queue's partial index
      // (`coalesce(next, first)` or `next`), so the count is a range read of that index.
      const result = await sql<{ due: number | string; next_min: Date | null; first_min: Date | null }>`
        select count(*) as due,
          min(${nextAt}) filter (where ${nextAt} is not null) as next_min,
          ${spec.firstDueAt === undefined ? sql`null` : sql`min(${spec.firstDueAt}) filter (where ${nextAt} is null)`} as first_min
        from ${table}
        where ${spec.eligible} and ${col('parked_at')} is null and ${dueOrder} <= ${now} and ${dueCondition(now)}`.execute(
        db,
      );
      const row = result.rows[0];
      const dueAt = [
        row?.next_min == null ? undefined : new Date(row.next_min).getTime(),
        row?.first_min == null ? undefined : new Date(row.first_min).getTime() + (spec.firstDelayMs ?? 0),
      ].filter((time): time is number => time !== undefined);
      return {
        job: spec.job,
        due: Number(row?.due ?? 0),
        oldestDueSeconds: dueAt.length === 0 ? 0 : Math.max(0, (now.getTime() - Math.min(...dueAt)) / 1000),
      };
    },
  };
}
