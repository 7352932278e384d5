import { MINUTE, SECOND } from '../shared/clock.js';
import type { Services } from '../services.js';
import type { Job } from './worker.js';

/** Every background job. Each is safe on several workers at once and resumes after a crash. */
export function backgroundJobs(services: Services): Job[] {
  return [
    {
      name: 'email-delivery',
      intervalMs: 5 * SECOND,
      run: async () => {
        while ((await services.mailer.deliverDue()) > 0) {
          // keep going while a full batch went out
        }
      },
    },
    {
      name: 'idempotency-keys-purge',
      intervalMs: 10 * MINUTE,
      run: async () => {
        while ((await services.idempotencyStore.purgeExpired(services.clock.now())) > 0) {
          // keep deleting in batches until nothing expired is left
        }
      },
    },
  ];
}
