import axe from 'axe-core';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';

/**
 * What a test file gets from `openTestBrowser`: contexts of the worker's Chromium. A context's `close`, and
 * `close` here for every context the file still holds, close its pages and give it back to the worker's
 * pool, cleared; Chromium and its pooled contexts stay for the worker's next file.
 */
export interface TestBrowser {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** The worker process's Chromium: started by its first browser test file, ended with the process. */
let chromiumOfWorker: Promise<Browser> | undefined;

/** Debian's Chromium (or CHROMIUM_PATH), headless; the tests never download a browser. */
function startChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Playwright's default timeouts, which a file may have changed on a context it had. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** A context of the pool: its blank page, never handed out, keeps its renderer process alive. */
interface PooledContext {
  context: BrowserContext;
  keeper: Page;
  /** Playwright's own `close`, for a context the pool must really end. */
  end: () => Promise<void>;
}

/** Cleared contexts of the worker's Chromium, by the options they were made with (ADR 0048). */
const idleContexts = new Map<string, PooledContext[]>();

/** An idle context made with `options` (their JSON is `key`), or a new one with its keeper page. */
async function pooledContext(
  browser: Browser,
  options: BrowserContextOptions,
  key: string,
): Promise<PooledContext> {
  const idle = idleContexts.get(key)?.pop();
  if (idle !== undefined) return idle;
  const context = await browser.newContext(options);
  const end = context.close.bind(context);
  const keeper = await context.newPage();
  return { context, keeper, end };
}

/**
 * What a context carries from one file to the next, undone: its pages (but the keeper), cookies,
 * permissions, routes and timeouts. Nothing else is changed on a context by a test file here (no init
 * script, binding, header or offline mode at context level); storage is per origin, and every file's
 * gateway listens on ports of its own, so no origin of one file is another's.
 */
async function clear(pooled: PooledContext): Promise<void> {
  const { context, keeper } = pooled;
  await Promise.all(
    context
      .pages()
      .filter((page) => page !== keeper)
      .map((page) => page.close()),
  );
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  await context.clearCookies();
  await context.clearPermissions();
  context.setDefaultTimeout(DEFAULT_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(DEFAULT_TIMEOUT_MS);
}

/**
 * Contexts of one Chromium per test worker (a worker runs many files, ADR 0042): starting Chromium cost
 * about 1.8 s of CPU, once per browser file before. A context is what isolates a test (cookies, storage,
 * cache). A new context and its first page cost about 0.45 s more of Chromium's CPU than a new page of a
 * context that already has one (a renderer process started), so a closed context goes back to the pool,
 * cleared, with a blank page that keeps its renderer, and the next file asking for the same options gets
 * it. A context whose clearing fails is ended instead. A Chromium that crashed or was closed is started
 * again, with an empty pool. Playwright ends it when the worker process exits.
 */
export async function openTestBrowser(): Promise<TestBrowser> {
  const running = await chromiumOfWorker?.catch(() => undefined);
  let browser: Browser;
  if (running?.isConnected()) {
    browser = running;
  } else {
    idleContexts.clear();
    chromiumOfWorker = startChromium();
    browser = await chromiumOfWorker;
  }
  const held = new Set<PooledContext>();
  const release = async (pooled: PooledContext, key: string) => {
    if (!held.delete(pooled)) return;
    try {
      await clear(pooled);
    } catch {
      await pooled.end().catch(() => undefined);
      return;
    }
    if (browser.isConnected()) idleContexts.set(key, [...(idleContexts.get(key) ?? []), pooled]);
  };
  return {
    async newContext(options = {}) {
      const key = JSON.stringify(options);
      const pooled = await pooledContext(browser, options, key);
      held.add(pooled);
      // The file's `close` gives it back; the pool ends it for real.
      pooled.context.close = () => release(pooled, key);
      return pooled.context;
    },
    async close() {
      await Promise.all([...held].map((pooled) => pooled.context.close()));
    },
  };
}

export interface PageProblem {
  kind: 'console' | 'pageerror' | 'dialog' | 'csp';
  text: string;
  url?: string;
}

export interface WatchedPage {
  page: Page;
  /** Console errors and warnings, uncaught exceptions, dialogs and CSP violations, in order. */
  problems: PageProblem[];
}

// Runs before any script of every document; the page's CSP does not apply to it.
const REPORT_CSP_VIOLATIONS = `document.addEventListener('securitypolicyviolation', function (event) {
  window.__reportCspViolation({
    directive: event.effectiveDirective,
    blocked: event.blockedURI,
    sample: event.sample,
    source: event.sourceFile,
  });
});`;

/**
 * A new page of `context` that records everything that should never happen on a healthy page. A dialog
 * (alert, confirm, prompt) is recorded and dismissed at once, so injected script cannot hang a test.
 */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: PageProblem[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push({ kind: 'console', text: message.text(), url: message.location().url });
    }
  });
  page.on('pageerror', (error) => problems.push({ kind: 'pageerror', text: String(error) }));
  page.on('dialog', (dialog) => {
    problems.push({ kind: 'dialog', text: `${dialog.type()}: ${dialog.message()}` });
    void dialog.dismiss().catch(() => undefined);
  });
  await page.exposeBinding('__reportCspViolation', (_source, violation: Record<string, string>) => {
    problems.push({
      kind: 'csp',
      text: `${violation.directive} blocked ${violation.blocked} ${violation.sample}`.trim(),
      url: violation.source,
    });
  });
  await page.addInitScript({ content: REPORT_CSP_VIOLATIONS });
  return { page, problems };
}

/** The WCAG 2.1 A and AA rules, the level product pages are held to. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** How many times each page was checked: from its second check on, its new documents load axe-core. */
const checksOf = new WeakMap<Page, number>();

/**
 * The page's serious and critical accessibility violations (axe-core run inside the page, issue 15 item
 * 8), one line each with the elements concerned; a test expects none. `axe.run` on the page's document
 * (the product's pages have no frames, so the frame-by-frame partial runs of `@axe-core/playwright`, which
 * this replaced, each finished in a blank page of its own, add nothing but time). axe-core's half a
 * megabyte crosses the DevTools protocol into each document checked (about 140 ms each time on this
 * machine), so the second check of a page also adds it as an init script: the page's later documents load
 * it by themselves, and a page checked once pays for one crossing only.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const checks = (checksOf.get(page) ?? 0) + 1;
  checksOf.set(page, checks);
  if (checks === 2) await page.addInitScript({ content: axe.source });
  if (!(await page.evaluate('typeof window.axe?.run === "function"'))) await page.evaluate(axe.source);
  const violations = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} }, resultTypes: ['violations'] })
       .then((results) => results.violations)`,
  )) as axe.Result[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
}

/**
 * What a page may carry under the strict CSP: `scripts: 'none'`, no script element at all; `'files'`, JSON
 * data blocks and scripts loaded from a file; a path, JSON data blocks and that one file (the page's own
 * script). Either way no inline style or event handler.
 */
export type PageScripts = 'none' | 'files' | `/${string}`;

export interface PageRules {
  /** Without it, the page's markup is not checked. */
  scripts?: PageScripts;
  /**
   * Nothing scrolls the page sideways: a number, the width the window must be as well; `'window'`, the
   * window's width whatever it is. Without it, the width is not checked.
   */
  fits?: number | 'window';
}

const INLINE = '[style], [onclick], [onerror], [onload]';

async function expectNoInlineCode(page: Page, scripts: PageScripts, when: string): Promise<void> {
  if (scripts === 'none') {
    expect(await page.locator(`style, ${INLINE}, script`).count(), when).toBe(0);
  } else if (scripts === 'files') {
    const inlineScript = 'script:not([src]):not([type="application/json"])';
    expect(await page.locator(`style, ${INLINE}, ${inlineScript}`).count(), when).toBe(0);
  } else {
    expect(await page.locator(`style, ${INLINE}, [onsubmit]`).count(), when).toBe(0);
    for (const script of await page.locator('script').all()) {
      const src = await script.getAttribute('src');
      if (src === null) expect(await script.getAttribute('type'), when).toBe('application/json');
      else expect(src, when).toBe(scripts);
    }
  }
}

async function expectFits(page: Page, width: number | 'window', when: string): Promise<void> {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as [number, number];
  if (width !== 'window') expect(innerWidth, when).toBe(width);
  expect(scrollWidth, when).toBeLessThanOrEqual(innerWidth);
}

/**
 * The page as `rules` say (its markup under the strict CSP, its width) and, always, no serious or critical
 * accessibility violation.
 */
export async function expectPage(page: Page, when: string, rules: PageRules = {}): Promise<void> {
  if (rules.scripts !== undefined) await expectNoInlineCode(page, rules.scripts, when);
  if (rules.fits !== undefined) await expectFits(page, rules.fits, when);
  expect(await accessibilityProblems(page), when).toEqual([]);
}

/**
 * A page under the strict CSP as a phone shows it: no inline style, script or handler, nothing that
 * scrolls the page sideways at 375 px, and no serious or critical accessibility violation.
 */
export async function expectStrictPhonePage(page: Page, when: string): Promise<void> {
  await expectPage(page, when, { scripts: 'none', fits: 375 });
}

/** Clicks (or taps) `selector` and waits for the navigation it starts: a form's submit, a link. */
export async function submit(
  page: Page,
  selector = 'button[type="submit"]',
  how: 'click' | 'tap' = 'click',
): Promise<void> {
  await Promise.all([page.waitForNavigation(), how === 'tap' ? page.tap(selector) : page.click(selector)]);
}
