import { MINUTE } from '../shared/clock.js';
import type { Services } from '../services.js';
import type { Job } from './worker.js';

/** Retention purges. Each deletes in bounded batches, so several workers may run them at once. */
export function retentionJobs(services: Services): Job[] {
  return [
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
