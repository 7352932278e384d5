import { DAY, HOUR, MINUTE, SECOND } from '../../shared/clock.js';
import type { RetryPolicy } from '../../worker/queue.js';

/** Product decision 29: the waits after the 1st, 2nd, … failed attempt; after the last, `failed`. */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  24 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Each wait is moved by up to this fraction either way, so failed endpoints do not retry in lockstep. */
export const JITTER = 0.15;
export const DISABLE_AFTER_MS = 5 * DAY;
export const RETRY: RetryPolicy = { schedule: RETRY_SCHEDULE_MS, jitter: JITTER, maxAttempts: MAX_ATTEMPTS };
export const RETENTION_MS = 30 * DAY;
