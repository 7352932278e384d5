import { createLoginThrottle } from '../http/login-throttle.js';
import { apiKeyRetentionJob } from '../modules/api-keys/retention.js';
import { DAY, MINUTE, SECOND } from '../shared/clock.js';
import type { Services } from '../services.js';
import type { Job } from './worker.js';

/** Every background job. Each is safe on several workers at once and resumes after a crash. */
export function backgroundJobs(services: Services): Job[] {
  return [
    {
      name: 'email-delivery',
      intervalMs: 5 * SECOND,
      run: async (signal) => {
        while (!signal?.aborted && (await services.mailer.deliverDue()) > 0) {
          // keep going while a full batch went out
        }
      },
    },
    {
      name: 'idempotency-keys-purge',
      intervalMs: 10 * MINUTE,
      run: async (signal) => {
        while (!signal?.aborted && (await services.idempotencyStore.purgeExpired(services.clock.now())) > 0) {
          // keep deleting in batches until nothing expired is left
        }
      },
    },
    apiKeyRetentionJob(services),
    {
      // Product decision 13: unpaid checkouts expire (canceled at the acquirer first).
      name: 'charge-expiry',
      intervalMs: 30 * SECOND,
      run: async (signal) => {
        while (!signal?.aborted && (await services.completion.expireDue()) > 0) {
          // keep going while a batch expired charges
        }
      },
    },
    {
      name: 'refund-retry',
      intervalMs: 30 * SECOND,
      run: async () => {
        await services.refunds.retryPending();
      },
    },
    {
      // Product decision 15: creations interrupted between the acquirer call and the response.
      name: 'charge-creation-recovery',
      intervalMs: 15 * SECOND,
      run: async (signal) => {
        while (!signal?.aborted && (await services.charges.recoverInterruptedCreations()).finished > 0) {
          // keep going while creations were finished; abandoned and deferred ones end the pass
        }
      },
    },
    {
      // Sessions a day past their end, single-use tokens 30 days after they were used or expired, and
      // login-throttle counters nobody failed on for a day.
      name: 'sessions-and-tokens-purge',
      intervalMs: 60 * MINUTE,
      run: async () => {
        const now = services.clock.now().getTime();
        await services.db
          .deleteFrom('sessions')
          .where('expires_at', '<', new Date(now - DAY))
          .execute();
        await services.db
          .deleteFrom('account_tokens')
          .where((eb) =>
            eb.or([
              eb('expires_at', '<', new Date(now - 30 * DAY)),
              eb('used_at', '<', new Date(now - 30 * DAY)),
            ]),
          )
          .execute();
        await createLoginThrottle(services).purge();
      },
    },
    {
      // Issue 7: signed at-least-once delivery of merchant webhooks; slots refill as attempts end.
      name: 'webhook-delivery',
      intervalMs: SECOND,
      run: (signal) => services.webhooks.dispatcher.pump(undefined, signal),
      // Issue 17: a stop waits for attempts already sent and releases claimed, unsent ones at once.
      stop: (deadline) => services.webhooks.dispatcher.stop(deadline),
    },
    {
      // Product decision 29: endpoints failing for 5 days are disabled and their owners e-mailed.
      name: 'webhook-endpoint-disable',
      intervalMs: 10 * MINUTE,
      run: async (signal) => {
        while (!signal?.aborted && (await services.webhooks.dispatcher.disableFailing()) > 0) {
          // keep going while a batch was disabled
        }
      },
    },
    {
      // Product decision 30: attempts are kept 30 days.
      name: 'webhook-attempts-purge',
      intervalMs: 60 * MINUTE,
      run: async (signal) => {
        while (!signal?.aborted && (await services.webhooks.dispatcher.purgeExpired()) > 0) {
          // keep deleting in batches
        }
      },
    },
  ];
}
