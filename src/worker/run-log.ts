import { Type, type Static } from 'typebox';
import type { Kdb } from '../db/database.js';
import type { JobRunOutcome } from '../db/schema.js';
import { DAY, type Clock } from '../shared/clock.js';

/** What one run of a job did: rows it finished and rows (or steps) that failed. */
export interface RunReport {
  rows: number;
  errors: number;
  /** The period a calendar job ran for; such a run is logged even when it had nothing to do. */
  periodStart?: Date;
}

export const RUN_LOG_RETENTION_MS = 30 * DAY;
/** Longer than any schedule's period: a pruned record of a schedule's latest period would run it again. */
export const PERIOD_RETENTION_MS = 800 * DAY;

export const JobRunViewSchema = Type.Object({
  id: Type.String(),
  job: Type.String(),
  workerId: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  endedAt: Type.String({ format: 'date-time' }),
  rowsProcessed: Type.Integer({ minimum: 0 }),
  errors: Type.Integer({ minimum: 0 }),
  outcome: Type.Enum(['succeeded', 'partial', 'failed']),
  error: Type.Union([Type.String(), Type.Null()]),
  periodStart: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type JobRunView = Static<typeof JobRunViewSchema>;

export interface JobRun {
  job: string;
  workerId: string;
  startedAt: Date;
  endedAt: Date;
  rows: number;
  errors: number;
  outcome: JobRunOutcome;
  error?: string | null;
  periodStart?: Date | null;
}

/**
 * Each run of each job that did something or failed (an idle pass, the common case of a job that polls
 * every second, is not logged), kept `RUN_LOG_RETENTION_MS`.
 */
export interface RunLog {
  record(run: JobRun): Promise<void>;
  /** Newest first; `cursor` is the `id` of the last run of the previous page (ids grow with time). */
  list(filter: {
    limit: number;
    cursor?: string | undefined;
    job?: string | undefined;
  }): Promise<{ data: JobRunView[]; nextCursor: string | null }>;
  /** Deletes runs and period records older than their retention (one batch); returns how many. */
  prune(batchSize?: number): Promise<number>;
}

export function createRunLog(deps: { db: Kdb; clock: Clock }): RunLog {
  const { db, clock } = deps;
  return {
    async record(run) {
      await db
        .insertInto('job_runs')
        .values({
          job: run.job,
          worker_id: run.workerId,
          started_at: run.startedAt,
          ended_at: run.endedAt < run.startedAt ? run.startedAt : run.endedAt,
          rows_processed: run.rows,
          errors: run.errors,
          outcome: run.outcome,
          error: run.error ?? null,
          period_start: run.periodStart ?? null,
        })
        .execute();
    },

    async list({ limit, cursor, job }) {
      const rows = await db
        .selectFrom('job_runs')
        .selectAll()
        .$if(job !== undefined, (query) => query.where('job', '=', job ?? ''))
        .$if(cursor !== undefined, (query) => query.where('id', '<', cursor ?? '0'))
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        data: page.map((row) => ({
          id: String(row.id),
          job: row.job,
          workerId: row.worker_id,
          startedAt: row.started_at.toISOString(),
          endedAt: row.ended_at.toISOString(),
          rowsProcessed: row.rows_processed,
          errors: row.errors,
          outcome: row.outcome,
          error: row.error,
          periodStart: row.period_start?.toISOString() ?? null,
        })),
        nextCursor: rows.length > limit && last ? String(last.id) : null,
      };
    },

    async prune(batchSize = 1000) {
      const cutoff = new Date(clock.now().getTime() - RUN_LOG_RETENTION_MS);
      const runs = await db
        .deleteFrom('job_runs')
        .where('id', 'in', (eb) =>
          eb.selectFrom('job_runs').select('id').where('started_at', '<', cutoff).limit(batchSize),
        )
        .executeTakeFirst();
      const periods = await db
        .deleteFrom('job_periods')
        .where('period_start', '<', new Date(clock.now().getTime() - PERIOD_RETENTION_MS))
        .where('state', '<>', 'running')
        .executeTakeFirst();
      return Number(runs.numDeletedRows) + Number(periods.numDeletedRows);
    },
  };
}
