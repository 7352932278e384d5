/**
 * Calendar schedules of the job kit (docs/decisions/0021-job-kit.md): "03:00 UTC each business day" runs
 * once per period however many kits check it, skips weekends and Turkish public holidays, is taken over
 * after a crash once its lease lapses, backs off after a failure and parks after the last attempt. Two
 * kits share the gateway's database (PGlite or PostgreSQL) as two workers would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusinessCalendar, utcDateOf } from '../src/shared/business-calendar.js';
import { createManualClock, MINUTE, type ManualClock } from '../src/shared/clock.js';
import { createJobKit, type JobKit } from '../src/worker/kit.js';
import { latestPeriodStart, type CalendarJobSpec } from '../src/worker/schedule.js';
import type { Job } from '../src/worker/worker.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ env: { ROLES: 'api,operator,sandbox-acquirer' } });
});
afterAll(async () => t?.close());

const calendar = createBusinessCalendar();
const businessDays = (start: Date) => calendar.isBusinessDay(utcDateOf(start));

function kits(clock: ManualClock): [JobKit, JobKit] {
  const s = t.gateway.services;
  const kit = (workerId: string) =>
    createJobKit({ db: s.db, clock, alerts: s.alerts, logger: s.logger, workerId, random: () => 0.5 });
  return [kit('worker-a'), kit('worker-b')];
}

interface Ran {
  worker: string;
  start: string;
  attempt: number;
}

/** The same schedule on both kits, each run noted in `ran` and then handed to `work`. */
function scheduled(
  clock: ManualClock,
  name: string,
  work: (worker: string) => Promise<void> = async () => undefined,
  overrides: Partial<CalendarJobSpec> = {},
): { jobs: [Job, Job]; ran: Ran[]; periods: () => Promise<Array<Record<string, unknown>>> } {
  const ran: Ran[] = [];
  const jobs = kits(clock).map((kit) =>
    kit.recorded(
      kit.calendar({
        name,
        cron: '0 3 * * *',
        runsOn: businessDays,
        leaseMs: 10 * MINUTE,
        retry: { schedule: [5 * MINUTE], jitter: 0, maxAttempts: 3 },
        run: async (period) => {
          ran.push({ worker: kit.workerId, start: period.start.toISOString(), attempt: period.attempt });
          await work(kit.workerId);
          return { rows: 1, errors: 0 };
        },
        ...overrides,
      }),
    ),
  ) as [Job, Job];
  const periods = async () =>
    (
      await t.gateway.database.db
        .selectFrom('job_periods')
        .selectAll()
        .where('job', '=', name)
        .orderBy('period_start')
        .execute()
    ).map((row) => ({
      start: row.period_start.toISOString(),
      state: row.state,
      attempts: row.attempts,
      worker: row.worker_id,
    }));
  return { jobs, ran, periods };
}

const both = async ([a, b]: [Job, Job]) => {
  await Promise.all([a.run(), b.run()]);
};

describe('calendar schedules', () => {
  it('finds the latest period start in UTC, the start itself included', () => {
    expect(latestPeriodStart('0 3 * * *', new Date('2026-11-24T03:00:00.000Z'))?.toISOString()).toBe(
      '2026-11-24T03:00:00.000Z',
    );
    expect(latestPeriodStart('0 3 * * *', new Date('2026-11-24T02:59:59.999Z'))?.toISOString()).toBe(
      '2026-11-23T03:00:00.000Z',
    );
    expect(latestPeriodStart('*/15 * * * *', new Date('2026-11-24T10:44:00.000Z'))?.toISOString()).toBe(
      '2026-11-24T10:30:00.000Z',
    );
  });

  it('runs 03:00 UTC each business day once, whatever the number of kits and checks', async () => {
    const clock = createManualClock(new Date('2026-11-24T03:00:30.000Z')); // a Tuesday
    const { jobs, ran, periods } = scheduled(clock, 'test-daily');
    await both(jobs);
    await both(jobs);
    clock.advance(60 * MINUTE);
    await both(jobs);
    expect(ran.map((run) => run.start)).toEqual(['2026-11-24T03:00:00.000Z']);

    clock.set(new Date('2026-11-25T03:00:01.000Z'));
    await both(jobs);
    // The weekend, and 29 October (Republic Day, a Thursday), are not business days.
    for (const at of ['2026-11-28T03:30:00.000Z', '2026-11-29T23:00:00.000Z', '2026-10-29T09:00:00.000Z']) {
      clock.set(new Date(at));
      await both(jobs);
    }
    clock.set(new Date('2026-11-30T03:10:00.000Z')); // Monday
    await both(jobs);
    await both(jobs);
    expect(ran.map((run) => run.start)).toEqual([
      '2026-11-24T03:00:00.000Z',
      '2026-11-25T03:00:00.000Z',
      '2026-11-30T03:00:00.000Z',
    ]);
    expect((await periods()).map((period) => [period.state, period.attempts])).toEqual([
      ['done', 1],
      ['done', 1],
      ['done', 1],
    ]);

    // Each run is in the run log with its period.
    const logged = await t.gateway.services.jobs.runs.list({ limit: 10, job: 'test-daily' });
    expect(logged.data.map((run) => [run.periodStart, run.outcome, run.rowsProcessed])).toEqual([
      ['2026-11-30T03:00:00.000Z', 'succeeded', 1],
      ['2026-11-25T03:00:00.000Z', 'succeeded', 1],
      ['2026-11-24T03:00:00.000Z', 'succeeded', 1],
    ]);
  });

  it('runs a period whose run crashed again on the next kit once the lease has lapsed', async () => {
    const clock = createManualClock(new Date('2026-12-01T03:00:05.000Z'));
    let crashed!: () => void;
    const hung = new Promise<void>((resolve) => (crashed = resolve));
    const { jobs, ran, periods } = scheduled(clock, 'test-crash', async (worker) => {
      if (worker === 'worker-a') await hung; // the worker dies here: it never finishes the period
    });
    const [a, b] = jobs;
    const first = a.run();
    await expect.poll(() => ran.length).toBe(1);
    await b.run(); // the period is held
    clock.advance(9 * MINUTE);
    await b.run();
    expect(ran).toHaveLength(1);

    clock.advance(2 * MINUTE); // past the 10 minute lease
    await b.run();
    expect(ran).toEqual([
      { worker: 'worker-a', start: '2026-12-01T03:00:00.000Z', attempt: 1 },
      { worker: 'worker-b', start: '2026-12-01T03:00:00.000Z', attempt: 2 },
    ]);
    expect(await periods()).toEqual([
      { start: '2026-12-01T03:00:00.000Z', state: 'done', attempts: 2, worker: 'worker-b' },
    ]);
    // The first worker coming back late changes nothing: its claim is gone.
    crashed();
    await first;
    expect(await periods()).toEqual([
      { start: '2026-12-01T03:00:00.000Z', state: 'done', attempts: 2, worker: 'worker-b' },
    ]);
    await both(jobs);
    expect(ran).toHaveLength(2);
  });

  it('tries a failed period again after the backoff and parks it after the last attempt', async () => {
    const clock = createManualClock(new Date('2026-12-02T03:00:05.000Z'));
    const { jobs, ran, periods } = scheduled(clock, 'test-failing', async () => {
      throw new Error('the bank file is missing');
    });
    const [a, b] = jobs;
    await expect(a.run()).rejects.toThrow('the bank file is missing');
    await b.run(); // backing off: not due
    expect(ran).toHaveLength(1);
    clock.advance(5 * MINUTE);
    await expect(b.run()).rejects.toThrow('the bank file is missing');
    clock.advance(5 * MINUTE);
    await expect(a.run()).rejects.toThrow('the bank file is missing');
    clock.advance(60 * MINUTE);
    await both(jobs);
    expect(ran.map((run) => run.attempt)).toEqual([1, 2, 3]);
    expect(await periods()).toEqual([
      { start: '2026-12-02T03:00:00.000Z', state: 'parked', attempts: 3, worker: 'worker-a' },
    ]);
    const alert = await t.gateway.database.db
      .selectFrom('operator_alerts')
      .selectAll()
      .where('kind', '=', 'job_parked')
      .where('subject_id', '=', 'test-failing:2026-12-02T03:00:00.000Z')
      .executeTakeFirst();
    expect(alert?.message).toContain('the bank file is missing');
    const logged = await t.gateway.services.jobs.runs.list({ limit: 10, job: 'test-failing' });
    expect(logged.data.map((run) => [run.outcome, run.errors, run.error])).toEqual(
      Array(3).fill(['failed', 1, 'Error: the bank file is missing']),
    );
    // The next day is a new period.
    clock.set(new Date('2026-12-03T03:00:05.000Z'));
    await expect(a.run()).rejects.toThrow();
    expect(ran.map((run) => run.start)).toContain('2026-12-03T03:00:00.000Z');
  });

  it('refuses an expression that is not a schedule', () => {
    const [kit] = kits(createManualClock());
    expect(() =>
      kit.calendar({
        name: 'bad',
        cron: '0 25 * * *',
        leaseMs: MINUTE,
        retry: { schedule: [MINUTE], jitter: 0, maxAttempts: 1 },
        run: async () => undefined,
      }),
    ).toThrow();
  });
});
