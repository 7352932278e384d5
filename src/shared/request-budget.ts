import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time budget of the request being answered, for its calls to other systems (docs/decisions/0064).
 *
 * A listener closes a connection that stays silent for `REQUEST_TIMEOUT_MS`; whatever a request asks of
 * the acquirer, the rate ticker or a merchant's name servers must therefore end early enough for the
 * answer to be written first. Each request runs in a scope that carries its outbound deadline, so every
 * outbound client (src/shared/http-client.ts, the acquirer adapter, the webhook URL check) bounds itself
 * by it, however many calls the request chains. Outside a request (the worker's jobs, the operator CLI)
 * there is no such deadline and each client keeps its own timeouts and attempts.
 */
const scope = new AsyncLocalStorage<number>();

/** The smallest reply margin: time to record what happened and write the answer. */
const MIN_REPLY_MARGIN_MS = 1000;

/**
 * What a request keeps for itself after its outbound calls (recording the outcome, writing the answer):
 * a quarter of the request timeout, at least a second.
 */
export function replyMarginMs(requestTimeoutMs: number): number {
  return Math.max(MIN_REPLY_MARGIN_MS, Math.ceil(requestTimeoutMs / 4));
}

/** How long, from its arrival, a request may spend on calls to other systems. */
export function outboundBudgetMs(requestTimeoutMs: number): number {
  return requestTimeoutMs - replyMarginMs(requestTimeoutMs);
}

/**
 * Runs `work`, and everything it starts, with calls to other systems bounded by `deadline` (a
 * `performance.now()` time).
 */
export function withOutboundDeadline<T>(deadline: number, work: () => T): T {
  return scope.run(deadline, work);
}

/**
 * Runs `work` as background work, outside the current request's deadline: an operator's command that
 * runs what a job runs (a settlement run of a date, which asks for a rate again as its minutes pass),
 * whose calls keep the timeouts and attempts the job's have.
 */
export function withoutOutboundDeadline<T>(work: () => T): T {
  return scope.exit(work);
}

/** The deadline of the request being answered; undefined outside a request. */
export function outboundDeadline(): number | undefined {
  return scope.getStore();
}

/** Milliseconds left before `deadline` (never negative); Infinity without a deadline. */
export function msLeft(deadline: number | undefined): number {
  return deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadline - performance.now());
}

/** `timeoutMs` shortened to what the current request has left; undefined when neither bounds the call. */
export function withinRequestBudget(timeoutMs: number | undefined): number | undefined {
  const left = msLeft(outboundDeadline());
  if (timeoutMs === undefined) return Number.isFinite(left) ? left : undefined;
  return Math.min(timeoutMs, left);
}
