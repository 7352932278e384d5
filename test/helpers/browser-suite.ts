import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { openTestBrowser, submit, watchedPage, type PageProblem, type TestBrowser } from './browser.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

/** A problem a test provokes on purpose: a RegExp for its text (Chromium's line for a 400), or a test. */
export type ProblemPattern = RegExp | ((problem: PageProblem) => boolean);

export interface BrowserSuiteOptions {
  /** The file's gateway: `startTestGateway`'s options, or what makes them once the file's servers run. */
  gateway?: TestGatewayOptions | (() => Promise<TestGatewayOptions>);
  /** Once the gateway and Chromium run: the file keeps the gateway and makes its data and accounts. */
  setUp?: (t: TestGateway) => Promise<void> | void;
  /** After the gateway is closed: whatever else the file started. */
  tearDown?: () => Promise<void> | void;
  /** What every test of the file provokes on purpose (a refused form's line); the rest is a failure. */
  allowed?: ProblemPattern[];
  /** Each context's default timeout (ms); 10 s unless given. */
  timeout?: number;
  /** How long starting the gateway and `setUp` may take (ms); the config's hook timeout unless given. */
  setUpTimeout?: number;
}

/** A watched page of a context of its own, closed and checked after the test. */
export interface SuitePage {
  context: BrowserContext;
  page: Page;
  /** What went wrong on the page (see `watchedPage`); a test may remove what it provoked and checked. */
  problems: PageProblem[];
}

export interface BrowserSuite {
  /** The file's gateway, from `beforeAll` on (read it there or later: destructured at load, it throws). */
  readonly gateway: TestGateway;
  /** A fresh context of the worker's Chromium (pooled, ADR 0048), closed after the test. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Another watched page of `context`, checked after the test. */
  watch(context: BrowserContext): Promise<SuitePage>;
  /** A watched page in a fresh context. */
  newPage(options?: BrowserContextOptions): Promise<SuitePage>;
  /** Problems this test provokes on purpose: they do not fail it. */
  expectProblems(...patterns: ProblemPattern[]): void;
  /** Signs a dashboard user in through the login form, in English (two-factor, if on, comes next). */
  signIn(page: Page, user: Account): Promise<void>;
  /**
   * Opens `path` of the operator console, is sent to its login, signs the staff member in and waits to be
   * back on `path`.
   */
  signInOperator(page: Page, account: Account, path: string): Promise<void>;
  /** Clicks and waits for the navigation (see `submit` in browser.ts). */
  submit: typeof submit;
}

interface Account {
  email: string;
  password: string;
}

function matches(pattern: ProblemPattern, problem: PageProblem): boolean {
  return pattern instanceof RegExp ? pattern.test(problem.text) : pattern(problem);
}

/**
 * The set-up every browser test file shares: a test gateway and the worker's Chromium for the file, and
 * after each test its contexts closed and no unexpected problem on any page it watched (a console error
 * or warning, an uncaught exception, a dialog, a CSP violation), but those the file or the test allowed.
 */
export function useBrowserSuite(options: BrowserSuiteOptions = {}): BrowserSuite {
  let gateway: TestGateway | undefined;
  let browser: TestBrowser | undefined;
  const contexts: BrowserContext[] = [];
  const pages: SuitePage[] = [];
  let expected: ProblemPattern[] = [];
  const allowed = options.allowed ?? [];

  beforeAll(async () => {
    const gatewayOptions = typeof options.gateway === 'function' ? await options.gateway() : options.gateway;
    [gateway, browser] = await Promise.all([startTestGateway(gatewayOptions), openTestBrowser()]);
    await options.setUp?.(gateway);
  }, options.setUpTimeout);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await options.tearDown?.();
  });

  afterEach(async () => {
    const watched = pages.splice(0);
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    const patterns = [...allowed, ...expected];
    expected = [];
    const unexpected = watched.flatMap((opened) =>
      opened.problems.filter((problem) => !patterns.some((pattern) => matches(pattern, problem))),
    );
    expect(unexpected).toEqual([]);
  });

  const started = () => {
    if (gateway === undefined || browser === undefined) throw new Error('the browser suite has not started');
    return { gateway, browser };
  };

  const suite: BrowserSuite = {
    get gateway() {
      return started().gateway;
    },
    async newContext(contextOptions = {}) {
      const context = await started().browser.newContext(contextOptions);
      contexts.push(context);
      context.setDefaultTimeout(options.timeout ?? 10_000);
      return context;
    },
    async watch(context) {
      const opened = { context, ...(await watchedPage(context)) };
      pages.push(opened);
      return opened;
    },
    async newPage(contextOptions) {
      return suite.watch(await suite.newContext(contextOptions));
    },
    expectProblems(...patterns) {
      expected.push(...patterns);
    },
    async signIn(page, user) {
      await page.goto(`${started().gateway.urls.web}/login?lang=en`);
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await submit(page, 'button[type="submit"]');
    },
    async signInOperator(page, account, path) {
      await page.goto(`${started().gateway.urls.operator}${path}`);
      await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
      await page.fill('#email', account.email);
      await page.fill('#password', account.password);
      await page.click('#operator-login button[type="submit"]');
      await page.waitForURL((url) => url.href.endsWith(path));
    },
    submit,
  };
  return suite;
}

/** A phone's screen as the files test it. */
export const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true } as const;
