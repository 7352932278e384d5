// The operator console's browser test files: their gateway, their staff, and the refusals they provoke.
import type { ManualClock } from '../../src/shared/clock.js';
import { ACCOUNT_TEST_ENV } from './accounts.js';
import type { PageProblem } from './browser.js';
import { useBrowserSuite, type BrowserSuite, type ProblemPattern } from './browser-suite.js';
import type { TestGateway } from './gateway.js';
import { createStaffUser, type StaffAccount } from './operator.js';

/**
 * The gateway of the console file that called `useConsoleSuite`, an admin and a support member of it
 * (live bindings, set in its `beforeAll`; files run one after the other in a worker, see suite.ts).
 */
export let t: TestGateway;
export let admin: StaffAccount;
export let support: StaffAccount;

export interface ConsoleSuiteOptions {
  /** The gateway's clock; `startTestGateway`'s default unless given. */
  clock?: ManualClock;
  /** The refusals every test of the file provokes on purpose (see `refusedForm`). */
  allowed: ProblemPattern[];
  /** Once the staff are made: the file's own data. */
  setUp?: () => Promise<void>;
}

/**
 * A browser suite for the operator console: no worker role (the tests run the jobs themselves), an admin
 * and a support member, and contexts that wait 30 s.
 */
export function useConsoleSuite(options: ConsoleSuiteOptions): BrowserSuite {
  return useBrowserSuite({
    gateway: {
      env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' },
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    async setUp(started) {
      t = started;
      admin = await createStaffUser(t, 'admin');
      support = await createStaffUser(t, 'support');
      await options.setUp?.();
    },
    allowed: options.allowed,
    timeout: 30_000,
  });
}

/**
 * Chromium's own console line for a console form (or filter) refused on the page: a request whose URL
 * `url` matches, answered with `status` (as Chromium words it, "400 (Bad Request)").
 */
export function refusedForm(
  ...refusals: Array<[url: RegExp, status: string]>
): (problem: PageProblem) => boolean {
  return (problem) =>
    refusals.some(
      ([url, status]) =>
        problem.kind === 'console' &&
        url.test(problem.url ?? '') &&
        problem.text === `Failed to load resource: the server responded with a status of ${status}`,
    );
}
