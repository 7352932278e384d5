import type { Logger } from 'pino';
import { jobRowsCounter as jobRows, jobRunDuration, jobRuns } from '../metrics/registry.js';
import type { Tracing } from '../observability/tracing.js';
import type { RunReport } from './run-log.js';

export interface Job {
  name: string;
  intervalMs: number;
  /**
   * One unit of work; must be safe to run on several workers at once and to re-run after a crash.
   * `signal` is aborted when the worker stops: a job that loops checks it between batches and returns.
   * What it did goes to the run log (src/worker/run-log.ts).
   */
  run(signal?: AbortSignal): Promise<RunReport | void>;
  /**
   * Called once when the worker stops, before it waits for the runs in flight: a job releases work it
   * claimed but has not started, so another worker takes it over at once instead of after a lease.
   */
  stop?(deadline: number): Promise<void>;
}

export interface Worker {
  /** Stops scheduling, tells the jobs, and waits for the runs in flight (at most until `deadline`). */
  stop(deadline?: number): Promise<void>;
}

/**
 * Runs each job on its interval, never overlapping itself, until stopped. With `tracing`, each run is a
 * root span of its own (ADR 0043).
 */
export function startWorker(jobs: Job[], logger: Logger, tracing?: Tracing): Worker {
  let stopping = false;
  const abort = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();

  const schedule = (job: Job, delayMs: number) => {
    if (stopping) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const started = performance.now();
      const observe = (outcome: 'ok' | 'failed') => {
        jobRuns.inc({ job: job.name, outcome });
        jobRunDuration.observe({ job: job.name }, (performance.now() - started) / 1000);
      };
      const runJob = () => job.run(abort.signal);
      const run: Promise<void> = (tracing ? tracing.jobRun(job.name, runJob) : runJob())
        .then((report) => {
          observe('ok');
          if (report?.rows) jobRows.inc({ job: job.name, outcome: 'ok' }, report.rows);
          if (report?.errors) jobRows.inc({ job: job.name, outcome: 'failed' }, report.errors);
        })
        .catch((error: unknown) => {
          observe('failed');
          logger.error({ err: error, job: job.name }, 'job failed');
        })
        .finally(() => {
          running.delete(run);
          schedule(job, job.intervalMs);
        });
      running.add(run);
    }, delayMs);
    timer.unref();
    timers.add(timer);
  };

  for (const job of jobs) schedule(job, Math.min(job.intervalMs, 1000));
  logger.info({ jobs: jobs.map((job) => job.name) }, 'worker started');

  return {
    async stop(deadline = Number.POSITIVE_INFINITY) {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      abort.abort();
      const stopped = Promise.allSettled([
        ...jobs.map((job) =>
          job
            .stop?.(deadline)
            .catch((error: unknown) =>
              logger.error({ err: error, job: job.name }, 'job did not stop cleanly'),
            ),
        ),
        ...running,
      ]);
      await stopped;
    },
  };
}
