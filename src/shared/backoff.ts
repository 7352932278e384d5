/** The first backoff of a retried call to another system, when its caller sets none. */
export const DEFAULT_BACKOFF_MS = 100;

/** The longest wait before retry `retry` (1 for the first): `base` doubled per retry (full jitter below it). */
export function backoffCeiling(base = DEFAULT_BACKOFF_MS, retry: number): number {
  return base * 2 ** (retry - 1);
}

/** The worst time one call can take: every attempt timing out, plus the longest backoffs between them. */
export function worstCaseCallMs(options: {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs?: number | undefined;
}) {
  let total = options.timeoutMs * options.maxAttempts;
  for (let retry = 1; retry < options.maxAttempts; retry++) total += backoffCeiling(options.backoffMs, retry);
  return total;
}
