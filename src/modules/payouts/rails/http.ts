import { upstreamCalls } from '../../../metrics/registry.js';
import { httpCall, type HttpAnswer } from '../../../shared/http-client.js';
import { RailRejectedError, RailUnavailableError } from './types.js';

/** One JSON call to a rail or an explorer: 5xx, timeouts and network failures are "unavailable". */
export async function callJson(
  url: string,
  init: { method?: string; body?: unknown; apiKey?: string | undefined; timeoutMs: number },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  const observe = (outcome: 'ok' | 'rejected' | 'unavailable') =>
    upstreamCalls.observe(
      { peer: `rail:${new URL(url).host}`, operation: init.method ?? 'GET', outcome },
      (performance.now() - started) / 1000,
    );
  try {
    const answer = await callOnce(url, init);
    observe(answer.status >= 400 ? 'rejected' : 'ok');
    return answer;
  } catch (error) {
    observe('unavailable');
    throw error;
  }
}

async function callOnce(
  url: string,
  init: { method?: string; body?: unknown; apiKey?: string | undefined; timeoutMs: number },
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: HttpAnswer;
  try {
    response = await httpCall(url, {
      method: init.method === 'POST' ? 'POST' : 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.apiKey === undefined ? {} : { authorization: `Bearer ${init.apiKey}` }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      timeoutMs: init.timeoutMs,
    });
  } catch (error) {
    throw new RailUnavailableError(`${new URL(url).host} did not answer: ${(error as Error).message}`);
  }
  const text = response.text;
  if (response.status >= 500)
    throw new RailUnavailableError(`${new URL(url).host} answered ${response.status}`);
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text === '' ? {} : JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    throw new RailUnavailableError(`${new URL(url).host} answered ${response.status} without JSON`);
  }
  return { status: response.status, body };
}

export function rejection(status: number, body: Record<string, unknown>): RailRejectedError {
  const error = (body.error ?? {}) as { code?: unknown; message?: unknown };
  return new RailRejectedError(
    typeof error.code === 'string' ? error.code.slice(0, 100) : `http_${status}`,
    typeof error.message === 'string' ? error.message.slice(0, 300) : `refused with HTTP ${status}`,
  );
}
