// Checks that every resource of the merchant API makes the same way: the refusals of a missing, bad or
// under-scoped key, of a merchant without the resource's flag, and environments kept apart.
import { expect } from 'vitest';
import { apiRequest, type ApiInit, type ApiUrls } from './client.js';
import type { ErrorBody, HttpResult } from './http.js';
import type { Merchant } from './merchants.js';

/** A test file's `api`: a call with its merchant's sandbox key unless `init` names another. */
export type ApiCall = (path: string, init?: ApiInit) => Promise<HttpResult<ErrorBody>>;

/** One request of a table: path, method and JSON body (none when undefined). */
export type ResourceRequest = readonly [path: string, method: string, body: unknown];

/** Each request, sent with `key`, is refused with `status` and the error `code`. */
export async function expectEachRefused(
  api: ApiCall,
  key: string,
  requests: readonly ResourceRequest[],
  status: number,
  code: string,
): Promise<void> {
  for (const [path, method, body] of requests) {
    const res = await api(path, { key, method, ...(body ? { body } : {}) });
    expect(res.status, `${method} ${path}`).toBe(status);
    expect(res.body.error.code).toBe(code);
  }
}

/** `path` without a key is 401 `missing_api_key`, with a key that is none 401. */
export async function expectKeyRequired(urls: ApiUrls, api: ApiCall, path: string): Promise<void> {
  const missing = await apiRequest<ErrorBody>(urls, path);
  expect(missing.status).toBe(401);
  expect(missing.body.error.code).toBe('missing_api_key');
  const bad = await api(path, { key: 'sk_test_notakey' });
  expect(bad.status).toBe(401);
}

/**
 * The sandbox key is refused on the live listener (401, at `listPath`), and the merchant's live key does
 * not find the sandbox resource at `itemPath` (404 `not_found`).
 */
export async function expectLiveApart(
  api: ApiCall,
  merchant: Merchant,
  listPath: string,
  itemPath: string,
): Promise<void> {
  const wrongListener = await api(listPath, { environment: 'live' });
  expect(wrongListener.status).toBe(401);
  const live = await api(itemPath, { environment: 'live', key: merchant.keys.live.secret });
  expect(live.status).toBe(404);
  expect(live.body.error.code).toBe('not_found');
}
