import type { Environment } from '../../src/db/schema.js';
import { request, type ErrorBody, type HttpResult } from './http.js';
import { assertConforms } from './openapi-conformance.js';

/** What one API call may carry besides its path. */
export interface ApiInit {
  method?: string;
  /** JSON body (sent as application/json); `rawBody` sends bytes as they are. */
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** The `X-API-Key`; none is sent without one. */
  key?: string;
  /** The listener: sandbox (default) or live. */
  environment?: Environment;
}

export interface ApiUrls {
  sandboxApi: string;
  liveApi: string;
}

/**
 * The one typed client of the merchant API in tests: builds the request, sends it over a real socket and
 * checks the answer against the OpenAPI document the listener serves (openapi-conformance.ts). A response
 * that does not conform to the document throws, failing the test. Test files wrap it in a one-line `api`
 * that fills in their merchant's key.
 */
export async function apiRequest<T = unknown>(
  urls: ApiUrls,
  path: string,
  init: ApiInit = {},
): Promise<HttpResult<T>> {
  return apiAt<T>((init.environment ?? 'sandbox') === 'sandbox' ? urls.sandboxApi : urls.liveApi, path, init);
}

/** A call with the merchant's key of the call's environment (sandbox unless `init` says live). */
export function merchantRequest<T = unknown>(
  urls: ApiUrls,
  merchant: { keys: Record<Environment, { secret: string }> },
  path: string,
  init: ApiInit = {},
): Promise<HttpResult<T & ErrorBody>> {
  const environment = init.environment ?? 'sandbox';
  return apiRequest<T & ErrorBody>(urls, path, {
    key: merchant.keys[environment].secret,
    ...init,
    environment,
  });
}

/** The same, on the API listener at `base` (a spawned gateway's banner URL). */
export async function apiAt<T = unknown>(
  base: string,
  path: string,
  init: ApiInit = {},
): Promise<HttpResult<T>> {
  const url = `${base}${path}`;
  const method = init.method ?? (init.body === undefined && init.rawBody === undefined ? 'GET' : 'POST');
  const result = await request<T>(url, {
    method,
    ...(init.body !== undefined ? { body: init.body } : {}),
    ...(init.rawBody !== undefined ? { rawBody: init.rawBody } : {}),
    headers: { ...(init.key !== undefined ? { 'x-api-key': init.key } : {}), ...init.headers },
  });
  await assertConforms(method, url, result);
  return result;
}
