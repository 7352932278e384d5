import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE, SECOND } from '../shared/clock.js';
import { retryDelay, type RetryPolicy } from './queue.js';

describe('retryDelay', () => {
  const exponential: RetryPolicy = { baseMs: MINUTE, capMs: HOUR, maxAttempts: 12, jitter: 0.2 };

  it('doubles from the base up to the cap', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((attempt) => retryDelay(exponential, attempt, middle))).toEqual([
      MINUTE,
      2 * MINUTE,
      4 * MINUTE,
      8 * MINUTE,
      16 * MINUTE,
      32 * MINUTE,
      HOUR,
      HOUR,
      HOUR,
    ]);
  });

  it('moves each wait by at most the jitter either way', () => {
    for (const attempt of [1, 3, 9]) {
      const base = retryDelay(exponential, attempt, () => 0.5);
      expect(retryDelay(exponential, attempt, () => 0)).toBe(Math.round(base * 0.8));
      expect(retryDelay(exponential, attempt, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.2));
      expect(retryDelay(exponential, attempt, () => 0.999999)).toBeGreaterThan(Math.round(base * 1.19));
    }
  });

  it('follows a fixed schedule and repeats its last wait', () => {
    const schedule: RetryPolicy = { schedule: [10 * SECOND, MINUTE], maxAttempts: 5, jitter: 0 };
    expect([1, 2, 3, 4].map((attempt) => retryDelay(schedule, attempt))).toEqual([
      10 * SECOND,
      MINUTE,
      MINUTE,
      MINUTE,
    ]);
  });
});
