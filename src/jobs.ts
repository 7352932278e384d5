import { createLoginThrottle } from './http/login-throttle.js';
import { apiKeyRetentionJob } from './modules/api-keys/retention.js';
import { DAY, MINUTE, SECOND } from './shared/clock.js';
import type { Services } from './services.js';
import { purgeInBatches } from './worker/purge.js';
import { drain, type BatchReport } from './worker/queue.js';
import type { Job } from './worker/worker.js';

/**
 * The composition root of background work: every module's jobs, bound to the services that run them.
 * The job kit (src/worker/) knows no module; this file, beside src/services.ts, is where they meet.
 * Each job is made of the job kit (src/worker/kit.ts) and recorded in its run log; each is safe on
 * several workers at once and resumes after a crash.
 */
export function backgroundJobs(services: Services): Job[] {
  const jobs: Job[] = [
    ...accountJobs(services),
    ...paymentJobs(services),
    ...payoutJobs(services),
    ...webhookJobs(services),
    ...settlementJobs(services),
    {
      // Issue 37 item 6: every merchant's ratios, hourly; a level crossed is raised and e-mailed once a month.
      name: 'dispute-ratios',
      intervalMs: 60 * MINUTE,
      run: async () => {
        const report = await services.disputeRatios.evaluate();
        return { rows: report.owners, errors: report.failed };
      },
    },
    // The job kit's own run log and period records.
    purged('job-runs-purge', 60 * MINUTE, () => services.jobs.runs.prune()),
  ];
  return jobs.map((job) => services.jobs.recorded(job));
}

/** E-mail, idempotency keys, API keys' retention, sessions, single-use tokens and login counters. */
function accountJobs(services: Services): Job[] {
  return [
    drained('email-delivery', 5 * SECOND, () => services.mailer.deliverDueBatch()),
    purged('idempotency-keys-purge', 10 * MINUTE, () =>
      services.idempotencyStore.purgeExpired(services.clock.now()),
    ),
    apiKeyRetentionJob(services),
    {
      // Sessions a day past their end, single-use tokens 30 days after they were used or expired, and
      // login-throttle counters nobody failed on for a day.
      name: 'sessions-and-tokens-purge',
      intervalMs: 60 * MINUTE,
      run: async () => {
        const now = services.clock.now().getTime();
        const sessions = await services.sessions.purgeEnded(new Date(now - DAY));
        const tokens = await services.users.purgeSpentTokens(new Date(now - 30 * DAY));
        await createLoginThrottle(services).purge();
        return { rows: sessions + tokens, errors: 0 };
      },
    },
  ];
}

/** Charges and refunds: checkout expiry, interrupted creations, refunds the acquirer has not answered. */
function paymentJobs(services: Services): Job[] {
  return [
    // Product decision 13: unpaid checkouts expire (canceled at the acquirer first).
    drained('charge-expiry', 30 * SECOND, () => services.completion.expireDueBatch()),
    drained('refund-retry', 30 * SECOND, () => services.refunds.retryPendingBatch()),
    // Issue 37 item 5: alerts and fraud warnings the merchant's rules cover, refunded before their deadline.
    drained('dispute-auto-refund', 5 * SECOND, () => services.disputeRefundRules.autoRefundBatch()),
    {
      // Product decision 15: creations interrupted between the acquirer call and the response.
      name: 'charge-creation-recovery',
      intervalMs: 15 * SECOND,
      // Keeps going while creations were finished; abandoned and deferred ones end the pass.
      run: (signal) =>
        drain(async () => {
          const pass = await services.charges.recoverInterruptedCreations();
          return { claimed: pass.finished, done: pass.finished, failed: 0 };
        }, signal),
    },
    {
      // Balances in constant time: each account's checkpoint follows its postings (ADR 0031).
      name: 'ledger-checkpoints',
      intervalMs: 30 * SECOND,
      run: async () => ({ rows: await services.ledger.advanceCheckpoints(), errors: 0 }),
    },
  ];
}

/** Payouts sent to their rail exactly once and completed or failed from what the chain says; wallets. */
function payoutJobs(services: Services): Job[] {
  return [
    drained('payout-submit', 2 * SECOND, () => services.payoutEngine.submitBatch()),
    drained('payout-confirm', 5 * SECOND, () => services.payoutEngine.confirmBatch()),
    {
      // Wallet changes whose cool-down has passed take effect; unconfirmed ones expire.
      name: 'wallet-changes',
      intervalMs: 30 * SECOND,
      run: (signal) =>
        drain(async () => {
          const round = await services.wallets.applyDue();
          const claimed = round.applied + round.expired;
          return { claimed, done: claimed, failed: 0 };
        }, signal),
    },
  ];
}

/** Signed at-least-once delivery of merchant webhooks, endpoints' auto-disable and attempts' retention. */
function webhookJobs(services: Services): Job[] {
  return [
    {
      // Slots refill as attempts end. Each run polls for 10 s, again at once after a full round and
      // every WEBHOOK_POLL_MS when idle (by polling alone, which works through a transaction pooler;
      // ADR 0036).
      name: 'webhook-delivery',
      intervalMs: 10,
      run: async (signal) => ({
        rows: await services.webhooks.dispatcher.pump(10 * SECOND, signal, services.config.webhooks.pollMs),
        errors: 0,
      }),
      // A stop waits for attempts already sent and releases claimed, unsent ones at once.
      stop: (deadline) => services.webhooks.dispatcher.stop(deadline),
    },
    // Product decision 29: endpoints failing for 5 days are disabled and their owners e-mailed.
    purged('webhook-endpoint-disable', 10 * MINUTE, () => services.webhooks.dispatcher.disableFailing()),
    // Product decision 30: attempts are kept 30 days.
    purged('webhook-attempts-purge', 60 * MINUTE, () => services.webhooks.dispatcher.purgeExpired()),
  ];
}

/** The daily settlement batch and its resumption, and the daily reconciliation (spec section 8). */
function settlementJobs(services: Services): Job[] {
  const { config, jobs } = services;
  return [
    {
      // A batch released whose payout phase never ran (the process was killed between the two steps, in
      // a run or in the sandbox's settle-now) is paid out, carried or held by the next pass, sandbox and
      // live, once it has waited SETTLEMENT_RESUME_AFTER_SECONDS: a run under way pays its own first.
      name: 'settlement-resume',
      intervalMs: 30 * SECOND,
      run: async () => {
        const before = new Date(services.clock.now().getTime() - config.settlement.resumeAfterMs);
        const report = await services.settlementBatches.resumeReleased(before);
        return { rows: report.resumed, errors: report.failed };
      },
    },
    ...(config.settlement.cron === undefined
      ? []
      : [
          jobs.calendar({
            // Each business day at 03:00 UTC, every owner's pending balance is batched and paid out; the
            // run of a period that is not a business day does nothing.
            name: 'settlement-daily',
            cron: config.settlement.cron,
            leaseMs: 30 * MINUTE,
            // A held batch (no usable rate) or a failed owner runs the period again, about every 5 to 30
            // minutes for a day, then parks it and raises it (the held batches are raised at once).
            retry: { maxAttempts: 60, baseMs: 5 * MINUTE, capMs: 30 * MINUTE, jitter: 0.2 },
            run: async (period, signal) => {
              const report = await services.settlementBatches.runDay(period.start, signal);
              if (report.held > 0 || report.failed > 0) {
                throw new Error(
                  `settlement of ${report.businessDate}: ${report.held} batches held, ${report.failed} owners ` +
                    'failed; the period runs again',
                );
              }
              return { rows: report.paidOut + report.carried, errors: 0 };
            },
          }),
        ]),
    ...(config.settlement.reconciliationCron === undefined
      ? []
      : [
          jobs.calendar({
            // Every day, the acquirers' settlement reports of the day before against the ledger;
            // differences are raised to the operator. A report that cannot be read runs again.
            name: 'reconciliation-daily',
            cron: config.settlement.reconciliationCron,
            leaseMs: 30 * MINUTE,
            retry: { maxAttempts: 48, baseMs: 5 * MINUTE, capMs: 30 * MINUTE, jitter: 0.2 },
            run: async (period) => {
              const made = await services.reconciliation.runDay(period.start);
              return { rows: made.length, errors: 0 };
            },
          }),
        ]),
  ];
}

/** A job that runs `batch` again while it finds work (the job kit's `drain`). */
function drained(name: string, intervalMs: number, batch: () => Promise<BatchReport>): Job {
  return { name, intervalMs, run: (signal) => drain(batch, signal) };
}

/** A job that deletes in batches while `purge` removes rows (the job kit's `purgeInBatches`). */
function purged(name: string, intervalMs: number, purge: () => Promise<number>): Job {
  return {
    name,
    intervalMs,
    run: async (signal) => ({ rows: await purgeInBatches(purge, signal), errors: 0 }),
  };
}
