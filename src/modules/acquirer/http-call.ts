import type { Logger } from 'pino';
import { upstreamCalls } from '../../metrics/registry.js';
import { backoffCeiling } from '../../shared/backoff.js';
import { httpCall, HttpTransportError, type HttpAnswer } from '../../shared/http-client.js';
import { msLeft, outboundDeadline } from '../../shared/request-budget.js';
import { sanitizeProviderMessage } from './sanitize.js';
import { AcquirerRejectedError, AcquirerUnavailableError } from './types.js';

export interface HttpAcquirerOptions {
  name: string;
  /** Read at each call: an in-process sandbox acquirer on port 0 knows its address only once it listens. */
  baseUrl: () => string;
  apiKey: () => string;
  /** Per attempt; within a request, never past the request's outbound deadline. */
  timeoutMs: number;
  /** Attempts per call, the first included; only 5xx, timeouts and network failures are retried. */
  maxAttempts: number;
  /** First backoff; each retry doubles it, with full jitter. */
  backoffMs?: number;
  logger: Logger;
}

export interface CallOptions {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  /** False for calls that are not idempotent at the acquirer (none of the creation path). */
  retry?: boolean;
}

/**
 * An attempt is started only with this much of the request's outbound time left (the smallest
 * ACQUIRER_TIMEOUT_MS): one with less could only time out.
 */
const MIN_ATTEMPT_MS = 100;

/**
 * 4xx answers that say "not now" rather than "no": a request timeout (408), too early (425) and too many
 * requests (429). Like a 5xx they are asked again within the call's attempts (a request without retries,
 * `retry: false`, gets one); if the last attempt hears one too, the call throws it as a transient
 * `AcquirerRejectedError`: a charge answers `provider_rejected` (a 4xx, spec section 7), while a refund,
 * a read-back or a cancel is asked again later instead of being recorded as refused.
 */
const TRANSIENT_REFUSALS = new Set([408, 425, 429]);

export async function callAcquirer<T>(
  options: HttpAcquirerOptions,
  operation: string,
  request: CallOptions,
): Promise<T> {
  const { logger } = options;
  const attempts = request.retry === false ? 1 : options.maxAttempts;
  // Within a request, every attempt and backoff ends by its outbound deadline, so that the request
  // answers (502 provider_unavailable at worst) before the server's own timeout; a job has none.
  const deadline = outboundDeadline();
  let made = 0;
  let lastProblem = 'no attempt made';
  /** The last attempt's "not now" 4xx, thrown if it was the last attempt's answer. */
  let lastRefusal: AcquirerRejectedError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) {
      const delay = Math.round(Math.random() * backoffCeiling(options.backoffMs, attempt - 1));
      if (msLeft(deadline) - delay < MIN_ATTEMPT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    const left = msLeft(deadline);
    if (left < MIN_ATTEMPT_MS) break;
    const timeoutMs = Math.floor(Math.min(options.timeoutMs, left));
    made = attempt;
    lastRefusal = undefined;
    const started = performance.now();
    const observe = (outcome: 'ok' | 'rejected' | 'unavailable') =>
      upstreamCalls.observe(
        { peer: `acquirer:${options.name}`, operation, outcome },
        (performance.now() - started) / 1000,
      );
    let response: HttpAnswer;
    try {
      response = await send(options, request, timeoutMs);
    } catch (error) {
      observe('unavailable');
      lastProblem = describeNetworkFailure(error, timeoutMs);
      logger.warn(
        { acquirer: options.name, operation, attempt, problem: lastProblem },
        'acquirer call failed',
      );
      continue;
    }
    const text = response.text;
    const latencyMs = Math.round(performance.now() - started);
    const parsed = parseJson(text);
    if (response.status >= 500) {
      observe('unavailable');
      lastProblem = `HTTP ${response.status}`;
      logger.warn(
        { acquirer: options.name, operation, attempt, status: response.status, latencyMs },
        'acquirer answered 5xx',
      );
      continue;
    }
    if (response.status >= 400) {
      const transient = TRANSIENT_REFUSALS.has(response.status);
      observe(transient ? 'unavailable' : 'rejected');
      const { code, refusal } = refusalOf(response.status, parsed, transient);
      if (transient) {
        // "Not now": asked again like a 5xx; if every attempt hears it, the call ends with it.
        lastProblem = `HTTP ${response.status}`;
        lastRefusal = refusal;
        logger.warn(
          {
            acquirer: options.name,
            operation,
            attempt,
            status: response.status,
            providerCode: code,
            latencyMs,
          },
          'acquirer asked to try again later',
        );
        continue;
      }
      logger.info(
        { acquirer: options.name, operation, status: response.status, providerCode: code, latencyMs },
        'acquirer refused the request',
      );
      throw refusal;
    }
    if (parsed === undefined) {
      observe('unavailable');
      lastProblem = `unreadable ${response.status} answer`;
      logger.warn({ acquirer: options.name, operation, attempt, latencyMs }, 'acquirer answer is not JSON');
      continue;
    }
    observe('ok');
    logger.debug({ acquirer: options.name, operation, status: response.status, latencyMs }, 'acquirer call');
    return parsed as T;
  }
  // A 4xx is the provider's answer (spec section 7: 502 `provider_rejected`), even a "not now" one.
  if (lastRefusal) throw lastRefusal;
  if (made < attempts) {
    logger.warn(
      { acquirer: options.name, operation, attempts: made, problem: lastProblem },
      "acquirer call ended by the request's time budget",
    );
  }
  throw new AcquirerUnavailableError(
    made < attempts
      ? `The acquirer did not answer usefully after ${made} attempt(s) within the request's time budget: ${lastProblem}.`
      : `The acquirer did not answer usefully after ${attempts} attempt(s): ${lastProblem}.`,
    made,
  );
}
/** One attempt's HTTP exchange with the acquirer. */
function send(options: HttpAcquirerOptions, request: CallOptions, timeoutMs: number): Promise<HttpAnswer> {
  return httpCall(`${options.baseUrl()}${request.path}`, {
    method: request.method,
    headers: {
      authorization: `Bearer ${options.apiKey()}`,
      accept: 'application/json',
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(request.idempotencyKey !== undefined ? { 'idempotency-key': request.idempotencyKey } : {}),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    timeoutMs,
  });
}

/** A 4xx answer as the error the call throws: the acquirer's code when it is a readable one. */
function refusalOf(
  status: number,
  parsed: unknown,
  transient: boolean,
): { code: string; refusal: AcquirerRejectedError } {
  const error = (parsed as { error?: { code?: unknown; message?: unknown; status?: unknown } } | undefined)
    ?.error;
  const code =
    typeof error?.code === 'string' && /^[\w.-]{1,64}$/.test(error.code) ? error.code : `http_${status}`;
  const refusal = new AcquirerRejectedError(
    code,
    status,
    sanitizeProviderMessage(error?.message),
    typeof error?.status === 'string' ? error.status : null,
    transient,
  );
  return { code, refusal };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeNetworkFailure(error: unknown, timeoutMs: number): string {
  if (!(error instanceof HttpTransportError)) return 'network failure';
  if (error.code === 'timeout') return `no answer within ${timeoutMs} ms`;
  return `network failure (${error.code})`;
}
