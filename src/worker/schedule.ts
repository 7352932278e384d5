import { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Kdb } from '../db/database.js';
import type { AlertRaiser } from '../shared/alerts.js';
import { MINUTE, type Clock } from '../shared/clock.js';
import { errorText, newLeaseToken, retryDelay, type RetryPolicy } from './queue.js';
import type { RunReport } from './run-log.js';
import type { Job } from './worker.js';

export interface CalendarJobSpec {
  name: string;
  /** A cron expression (croner syntax), evaluated in UTC: `0 3 * * *` is 03:00 UTC every day. */
  cron: string;
  /** Periods to skip, by their start (e.g. days that are not business days). */
  runsOn?: (periodStart: Date) => boolean;
  /** How often a worker checks whether the current period has run; one minute unless set. */
  checkEveryMs?: number;
  /** How long a run holds its period: past this, another worker takes the period over and runs it again. */
  leaseMs: number;
  /** Backoff between failed runs of one period; after the last, the period is parked and raised. */
  retry: RetryPolicy;
  /** The work of one period; must be safe to run again for the same period (after a crash). */
  run(period: { start: Date; attempt: number }, signal?: AbortSignal): Promise<RunReport | void>;
}

export interface CalendarDeps {
  db: Kdb;
  clock: Clock;
  alerts: AlertRaiser;
  logger: Logger;
  workerId: string;
  random?: () => number;
}

/** The start of the latest period of `cron` at or before `now` (UTC), if there is one. */
export function latestPeriodStart(cron: string, now: Date): Date | undefined {
  // croner counts a run earlier in the reference's second: one millisecond past a start includes it.
  return new Cron(cron, { timezone: 'UTC', paused: true }).previousRuns(1, new Date(now.getTime() + 1))[0];
}

/**
 * A job that runs once per period of a calendar schedule, however many workers check it. The period is
 * claimed by inserting its row in `job_periods` (unique on job and period start); the claim holds a lease,
 * so a run that crashed is taken over by the next worker that checks after the lease, and a run that
 * failed is tried again after a backoff. Only the latest period runs: a schedule that was down for several
 * periods runs once, and that run must cover what the missed periods would have done.
 */
export function calendarJob(deps: CalendarDeps, spec: CalendarJobSpec): Job {
  const { db, clock, logger } = deps;
  new Cron(spec.cron, { timezone: 'UTC', paused: true }); // refuses a bad expression at startup

  async function claim(periodStart: Date): Promise<{ token: string; attempt: number } | undefined> {
    const now = clock.now();
    const token = newLeaseToken();
    const leaseExpiresAt = new Date(now.getTime() + spec.leaseMs);
    const claimed = await db
      .insertInto('job_periods')
      .values({
        job: spec.name,
        period_start: periodStart,
        state: 'running',
        attempts: 1,
        lease_token: token,
        lease_expires_at: leaseExpiresAt,
        worker_id: deps.workerId,
        started_at: now,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['job', 'period_start'])
          .doUpdateSet((eb) => ({
            attempts: eb('job_periods.attempts', '+', 1),
            lease_token: token,
            lease_expires_at: leaseExpiresAt,
            worker_id: deps.workerId,
            started_at: now,
          }))
          .where('job_periods.state', '=', 'running')
          .where('job_periods.lease_expires_at', '<=', now),
      )
      .returning('attempts')
      .executeTakeFirst();
    return claimed ? { token, attempt: claimed.attempts } : undefined;
  }

  async function finish(periodStart: Date, token: string): Promise<void> {
    await db
      .updateTable('job_periods')
      .set({
        state: 'done',
        finished_at: clock.now(),
        lease_token: null,
        lease_expires_at: null,
        last_error: null,
      })
      .where('job', '=', spec.name)
      .where('period_start', '=', periodStart)
      .where('lease_token', '=', token)
      .execute();
  }

  async function fail(periodStart: Date, token: string, attempt: number, error: unknown): Promise<void> {
    const now = clock.now();
    const message = errorText(error);
    const park = attempt >= spec.retry.maxAttempts;
    await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('job_periods')
        .set({
          last_error: message,
          lease_token: null,
          ...(park
            ? { state: 'parked', finished_at: now, lease_expires_at: null }
            : { lease_expires_at: new Date(now.getTime() + retryDelay(spec.retry, attempt, deps.random)) }),
        })
        .where('job', '=', spec.name)
        .where('period_start', '=', periodStart)
        .where('lease_token', '=', token)
        .executeTakeFirst();
      if (!park || Number(updated.numUpdatedRows) === 0) return;
      await deps.alerts.raise(trx, {
        kind: 'job_parked',
        organizationId: null,
        environment: null,
        subjectId: `${spec.name}:${periodStart.toISOString()}`,
        message: `${spec.name} gave up on the period of ${periodStart.toISOString()} after ${attempt} failed runs: ${message}`,
        details: {
          job: spec.name,
          periodStart: periodStart.toISOString(),
          attempts: attempt,
          lastError: message,
        },
      });
    });
  }

  return {
    name: spec.name,
    intervalMs: spec.checkEveryMs ?? MINUTE,
    async run(signal) {
      const start = latestPeriodStart(spec.cron, clock.now());
      if (start === undefined || (spec.runsOn && !spec.runsOn(start))) return;
      const claimed = await claim(start);
      if (!claimed) return;
      logger.info({ job: spec.name, periodStart: start, attempt: claimed.attempt }, 'scheduled run started');
      let report: RunReport | void;
      try {
        report = await spec.run({ start, attempt: claimed.attempt }, signal);
      } catch (error) {
        await fail(start, claimed.token, claimed.attempt, error);
        throw error;
      }
      await finish(start, claimed.token);
      return { rows: report?.rows ?? 0, errors: report?.errors ?? 0, periodStart: start };
    },
  };
}
