// The gateway of a test file: started before its tests, closed after them. Files share their worker's
// module cache (`isolate: false` in vitest.config.ts) and run one after the other in it, so these
// bindings always name the gateway of the file that is running.
import { afterAll, beforeAll } from 'vitest';
import type { Kdb } from '../../src/db/database.js';
import { ACCOUNT_TEST_ENV } from './accounts.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

/** The gateway of the test file that called `useTestGateway`, and its web listener (live bindings). */
export let t: TestGateway;
export let web: string;
/** The gateway's database, as the test reads it behind the API. */
export const db = (): Kdb => t.testDb.database.db;
/** The kinds of the events recorded about a resource (a charge, a refund, a payout), read by the gateway's handle. */
export const eventsOf = (resourceId: string) =>
  t.gateway.database.db.selectFrom('events').select('type').where('resource_id', '=', resourceId).execute();

/**
 * Starts a gateway before the calling file's tests (then runs `setUp`, the file's own fixtures) and closes
 * it after them.
 */
export function useTestGateway(
  options: TestGatewayOptions = {},
  setUp: (gateway: TestGateway) => Promise<void> = async () => {},
): void {
  let started: TestGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(options);
    t = started;
    web = started.urls.web;
    await setUp(started);
  });
  afterAll(async () => started?.close());
}

/** A gateway whose listeners trust X-Forwarded-For from loopback (each test its own client address). */
export function accountGateway(roles?: string): TestGatewayOptions {
  return { env: roles === undefined ? ACCOUNT_TEST_ENV : { ...ACCOUNT_TEST_ENV, ROLES: roles } };
}
