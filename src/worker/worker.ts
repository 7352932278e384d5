import type { Logger } from 'pino';

export interface Job {
  name: string;
  intervalMs: number;
  /** One unit of work; must be safe to run on several workers at once and to re-run after a crash. */
  run(): Promise<void>;
}

export interface Worker {
  stop(): Promise<void>;
}

/** Runs each job on its interval, never overlapping itself, until stopped. */
export function startWorker(jobs: Job[], logger: Logger): Worker {
  let stopping = false;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();

  const schedule = (job: Job, delayMs: number) => {
    if (stopping) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const run = job
        .run()
        .catch((error: unknown) => logger.error({ err: error, job: job.name }, 'job failed'))
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
    async stop() {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
