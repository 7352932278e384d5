import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Kdb } from '../db/database.js';
import type { AlertRaiser } from '../shared/alerts.js';
import type { Clock } from '../shared/clock.js';
import {
  createDueQueue,
  errorText,
  type DueQueue,
  type DueStats,
  type ParkedRow,
  type QueueSpec,
} from './queue.js';
import { createRunLog, type RunLog, type RunReport } from './run-log.js';
import { calendarJob, type CalendarJobSpec } from './schedule.js';
import type { Job } from './worker.js';

/**
 * The job kit (docs/decisions/0021-job-kit.md): what every background job is made of. Queues of due rows
 * (`queue`), calendar schedules run once per period (`calendar`), and the run log every job writes
 * (`recorded`). Several kits on one database (several workers) share the work through the database alone.
 */
export interface JobKit {
  /** This process's name in the run log and on claimed periods. */
  readonly workerId: string;
  readonly runs: RunLog;
  /** A queue over a table's due rows; its parked rows appear in `parked`. */
  queue(spec: QueueSpec): DueQueue;
  calendar(spec: CalendarJobSpec): Job;
  /** The same job, each run that did something or failed written to the run log. */
  recorded(job: Job): Job;
  /** Parked rows of every queue, newest first. */
  parked(limit: number): Promise<ParkedRow[]>;
  /** Due rows and the oldest's age of every queue (one indexed read each), for the metrics. */
  dueStats(): Promise<DueStats[]>;
}

export interface JobKitDeps {
  db: Kdb;
  clock: Clock;
  alerts: AlertRaiser;
  logger: Logger;
  workerId?: string;
  random?: () => number;
}

export function createJobKit(deps: JobKitDeps): JobKit {
  const workerId = deps.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const runs = createRunLog(deps);
  const queues: DueQueue[] = [];

  return {
    workerId,
    runs,

    queue(spec) {
      const queue = createDueQueue(deps, spec);
      if (!queues.some((known) => known.job === spec.job)) queues.push(queue);
      return queue;
    },

    calendar(spec) {
      return calendarJob({ ...deps, workerId }, spec);
    },

    recorded(job) {
      return {
        ...job,
        run: async (signal) => {
          const startedAt = deps.clock.now();
          let report: RunReport | void;
          try {
            report = await job.run(signal);
          } catch (error) {
            await runs
              .record({
                job: job.name,
                workerId,
                startedAt,
                endedAt: deps.clock.now(),
                rows: 0,
                errors: 1,
                outcome: 'failed',
                error: errorText(error),
              })
              .catch((recordError: unknown) =>
                deps.logger.error({ err: recordError, job: job.name }, 'the run log could not record a run'),
              );
            throw error;
          }
          if (report && (report.rows > 0 || report.errors > 0 || report.periodStart !== undefined)) {
            await runs.record({
              job: job.name,
              workerId,
              startedAt,
              endedAt: deps.clock.now(),
              rows: report.rows,
              errors: report.errors,
              outcome: report.errors > 0 ? 'partial' : 'succeeded',
              periodStart: report.periodStart ?? null,
            });
          }
          return report;
        },
      };
    },

    async parked(limit) {
      const all = (await Promise.all(queues.map((queue) => queue.parked(limit)))).flat();
      return all.sort((a, b) => b.parkedAt.localeCompare(a.parkedAt)).slice(0, limit);
    },

    dueStats() {
      return Promise.all(queues.map((queue) => queue.dueStats()));
    },
  };
}
