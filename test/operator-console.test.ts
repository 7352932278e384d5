import type { BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/shared/crypto.js';
import { openTestBrowser, watchedPage, type PageProblem, type TestBrowser } from './helpers/browser.js';
import { ACCOUNT_TEST_ENV, WebClient } from './helpers/accounts.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createStaffUser, submitApplication, uniqueEmail, type StaffAccount } from './helpers/operator.js';

// The operator console (server-rendered pages on the operator listener), driven through a real Chromium.

const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
const HOSTILE_TEXT = '"></dd><script>window.__pwned = 1; alert(2)</script><b>bold</b>';
const LOGIN_ERROR = 'The e-mail address or password is wrong.';

let t: TestGateway;
let browser: TestBrowser;
let op: string;
let admin: StaffAccount;

const ids = { main: '', rejected: '', hostile: '' };
const contacts = { main: uniqueEmail('anatolia'), hostile: uniqueEmail('hostile') };

interface Tab {
  context: BrowserContext;
  page: Page;
  problems: PageProblem[];
  /** The Content-Security-Policy of every document the tab loaded. */
  documents: Array<{ url: string; status: number; csp: string | null }>;
}

/** Tabs opened by the current test, closed after it; `console` lives across the flow's tests. */
const opened: Tab[] = [];
let consoleTab: Tab;
/** Requests that reached the fake evil.example (they must never happen). */
const evilVisits: string[] = [];

const isEvil = (url: URL) => url.hostname === 'evil.example' || url.hostname.endsWith('.evil.example');

async function openTab(): Promise<Tab> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(15_000);
  // Nothing leaves the machine: a redirect to the attacker's site would land here and be recorded.
  await context.route(isEvil, async (route) => {
    evilVisits.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>evil</p>' });
  });
  const { page, problems } = await watchedPage(context);
  const tab: Tab = { context, page, problems, documents: [] };
  page.on('response', (response: Response) => {
    if (response.request().resourceType() !== 'document') return;
    tab.documents.push({
      url: response.url(),
      status: response.status(),
      csp: response.headers()['content-security-policy'] ?? null,
    });
  });
  return tab;
}

beforeAll(async () => {
  // TRUSTED_PROXIES: the login CSRF test posts from an address of its own (X-Forwarded-For), so its
  // refused posts do not count against the per-address login limit of the browser flow.
  [t, browser] = await Promise.all([startTestGateway({ env: ACCOUNT_TEST_ENV }), openTestBrowser()]);
  op = t.urls.operator;
  admin = await createStaffUser(t, 'admin', { name: 'Console Admin' });
  ids.main = await submitApplication(t, { companyName: 'Anatolia Trading Ltd', contactEmail: contacts.main });
  ids.rejected = await submitApplication(t, { companyName: 'Rejectable Payments' });
  t.clock.advance(1000);
  ids.hostile = await submitApplication(t, {
    companyName: HOSTILE_NAME,
    contactName: `${HOSTILE_NAME} Person`,
    contactEmail: contacts.hostile,
    whySwitching: HOSTILE_TEXT,
  });
  consoleTab = await openTab();
});

afterAll(async () => {
  await consoleTab?.context.close();
  await browser?.close();
  await t?.close();
});

/** Chromium's own console line for a document answered 401: the wrong-password login page. */
function isRefusedLogin(problem: PageProblem): boolean {
  return (
    problem.kind === 'console' &&
    problem.url === `${op}/login` &&
    problem.text === 'Failed to load resource: the server responded with a status of 401 (Unauthorized)'
  );
}

// Every page stays clean: no script error, no dialog (an injected alert), no CSP violation, no console
// error; every document carries a CSP that allows no inline script or style.
afterEach(async () => {
  const tabs = [consoleTab, ...opened.splice(0)];
  const problems = tabs.flatMap((tab) => tab.problems.splice(0)).filter((p) => !isRefusedLogin(p));
  const documents = tabs.flatMap((tab) => tab.documents.splice(0));
  await Promise.all(tabs.filter((tab) => tab !== consoleTab).map((tab) => tab.context.close()));
  expect(problems).toEqual([]);
  expect(evilVisits).toEqual([]);
  for (const document of documents.filter((d) => d.url.startsWith(op))) {
    expect(document.csp, document.url).toEqual(expect.stringContaining("script-src 'self'"));
    expect(document.csp, document.url).toEqual(expect.stringContaining("default-src 'none'"));
    expect(document.csp, document.url).not.toContain('unsafe-inline');
    expect(document.csp, document.url).not.toContain('unsafe-eval');
  }
});

async function newTab(): Promise<Tab> {
  const tab = await openTab();
  opened.push(tab);
  return tab;
}

async function fillLogin(page: Page, email: string, password: string): Promise<void> {
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('#operator-login button[type="submit"]')]);
}

/** Clicks a button that submits a form and waits for the page the POST redirects to. */
async function submitWith(page: Page, button: ReturnType<Page['locator']>): Promise<void> {
  await Promise.all([page.waitForNavigation(), button.click()]);
}

const path = (page: Page) => page.url().slice(op.length);
const notice = (page: Page) => page.locator('p.notice[role="status"]');

describe('without a session', { timeout: 60_000 }, () => {
  it('sends every page to /login?next=<the page>', async () => {
    const { page } = await newTab();
    for (const [target, next] of [
      ['/applications?status=NEW', '%2Fapplications%3Fstatus%3DNEW'],
      ['/organizations/org_whatever', '%2Forganizations%2Forg_whatever'],
      ['/mailbox', '%2Fmailbox'],
      ['/audit', '%2Faudit'],
      ['/', '%2F'],
    ] as const) {
      const response = await page.goto(`${op}${target}`);
      expect(response?.status()).toBe(200);
      expect(path(page), target).toBe(`/login?next=${next}`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Operator login');
      expect(await page.locator('nav.op-nav').count()).toBe(0);
    }
  });

  it('refuses a console form posted without a session (redirect to login, nothing changes)', async () => {
    const res = await fetch(`${op}/applications/${ids.main}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=whatever',
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      `/login?next=${encodeURIComponent(`/applications/${ids.main}/approve`)}`,
    );
    const row = await t.testDb.database.db
      .selectFrom('applications')
      .select('status')
      .where('id', '=', ids.main)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('NEW');
  });
});

describe('login CSRF: the login form carries a double-submit token (gw_form cookie, _csrf field)', () => {
  const postLoginForm = (form: Record<string, string>, cookie?: string) =>
    fetch(`${op}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'x-forwarded-for': '10.66.0.1',
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams({
        email: admin.email,
        password: admin.password,
        next: '/applications',
        ...form,
      }),
    });
  const formOf = async () => {
    const page = await fetch(`${op}/login`);
    expect(page.status).toBe(200);
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('gw_form=')) ?? '';
    expect(cookie.toLowerCase()).toContain('httponly');
    expect(cookie.toLowerCase()).toContain('samesite=strict');
    const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return { cookie: cookie.split(';')[0] ?? '', token };
  };
  const loginsOfAdmin = async () =>
    (
      await t.testDb.database.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'staff.login')
        .where('target_id', '=', admin.id)
        .execute()
    ).length;

  it('refuses a login posted without the token, with a wrong one or without its cookie: 403, no session', async () => {
    const logins = await loginsOfAdmin();
    const { cookie, token } = await formOf();
    const other = await formOf();
    for (const [form, sentCookie] of [
      [{}, undefined],
      [{ _csrf: token }, undefined],
      [{}, cookie],
      [{ _csrf: 'x'.repeat(43) }, cookie],
      [{ _csrf: other.token }, cookie],
    ] as const) {
      const res = await postLoginForm(form, sentCookie);
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie().filter((c) => /^gw_operator=[^;]/.test(c))).toEqual([]);
      expect(await res.text()).toContain('The form has expired or did not come from this site');
    }
    expect(await loginsOfAdmin()).toBe(logins);

    // The same post with the page's token and its cookie signs in.
    const accepted = await postLoginForm({ _csrf: token }, cookie);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/applications');
    expect(accepted.headers.getSetCookie().some((c) => /^gw_operator=[A-Za-z0-9_-]{43};/.test(c))).toBe(true);
    expect(await loginsOfAdmin()).toBe(logins + 1);
  });
});

describe('the console flow of one staff member', { timeout: 60_000 }, () => {
  it('shows the error on a wrong password, and lands on /applications with the right one', async () => {
    const { page, context } = consoleTab;
    await page.goto(`${op}/login`);
    await fillLogin(page, admin.email, `${admin.password}-wrong`);
    expect(path(page)).toBe('/login');
    await expect(page.locator('p.form-error[role="alert"]').textContent()).resolves.toBe(LOGIN_ERROR);
    expect(await page.inputValue('#email')).toBe(admin.email);
    expect(await page.inputValue('#password')).toBe('');
    // No session: only the login form's double-submit cookie.
    expect(await context.cookies()).toEqual([
      expect.objectContaining({ name: 'gw_form', httpOnly: true, sameSite: 'Strict', path: '/' }),
    ]);

    await fillLogin(page, admin.email, admin.password);
    expect(path(page)).toBe('/applications');
    await expect(page.locator('h1').textContent()).resolves.toBe('Applications');
    await expect(page.locator('header').textContent()).resolves.toContain(`Log out ${admin.email}`);

    const cookies = await context.cookies();
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(['gw_form', 'gw_operator']);
    expect(cookies.find((cookie) => cookie.name === 'gw_operator')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
    });
    // HttpOnly: script on the page cannot read it.
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('lists the submitted applications, a hostile company name shown as text', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications`);
    const main = page.locator(`a[href="/applications/${ids.main}"]`);
    await expect(main.textContent()).resolves.toBe('Anatolia Trading Ltd');
    const hostile = page.locator(`a[href="/applications/${ids.hostile}"]`);
    await expect(hostile.textContent()).resolves.toBe(HOSTILE_NAME);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await hostile.innerHTML()).toBe('&lt;img src=x onerror=alert(1)&gt;');
    await expect(page.locator('tbody tr').count()).resolves.toBe(3);

    await page.click('nav.filters a:text-is("NEW")');
    expect(path(page)).toBe('/applications?status=NEW');
    await expect(page.locator('tbody tr').count()).resolves.toBe(3);
    await page.click('nav.filters a:text-is("APPROVED")');
    await expect(page.locator('tbody td').textContent()).resolves.toBe('No applications.');
  });

  it('opens an application and approves it with the button', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications`);
    await Promise.all([page.waitForNavigation(), page.click('a:text-is("Anatolia Trading Ltd")')]);
    expect(path(page)).toBe(`/applications/${ids.main}`);
    await expect(page.locator('h1').textContent()).resolves.toContain('Anatolia Trading Ltd');
    await expect(page.locator('h1 .status').textContent()).resolves.toBe('NEW');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain(contacts.main);

    await submitWith(page, page.locator('#approve-form button'));
    expect(path(page)).toBe(`/applications/${ids.main}?notice=approved`);
    await expect(notice(page).textContent()).resolves.toContain('Approved');
    await expect(page.locator('h1 .status').textContent()).resolves.toBe('APPROVED');
    expect(await page.locator('#approve-form').count()).toBe(0);
    expect(await page.locator('#reject-form').count()).toBe(0);

    const row = await t.testDb.database.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', ids.main)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'APPROVED', reviewed_by: `staff:${admin.id}` });
    await expect(page.locator(`a[href="/organizations/${row.organization_id}"]`).count()).resolves.toBe(1);
  });

  it('rejects another application with a reason (the reason is required)', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications/${ids.rejected}`);
    // The browser does not send the form without a reason.
    await page.click('#reject-form button');
    expect(path(page)).toBe(`/applications/${ids.rejected}`);
    expect(await page.evaluate("document.querySelector('#reason').validity.valueMissing")).toBe(true);

    await page.fill('#reason', 'Incomplete company documents');
    await submitWith(page, page.locator('#reject-form button'));
    expect(path(page)).toBe(`/applications/${ids.rejected}?notice=rejected`);
    await expect(notice(page).textContent()).resolves.toContain('Rejected');
    await expect(page.locator('h1 .status').textContent()).resolves.toBe('REJECTED');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('Incomplete company documents');
  });

  it('refuses a reason of spaces posted by hand, on a page of its own, and changes nothing', async () => {
    const id = await submitApplication(t);
    const { page } = consoleTab;
    await page.goto(`${op}/applications/${id}`);
    await page.fill('#reason', '    ');
    await submitWith(page, page.locator('#reject-form button'));
    await expect(page.locator('h1').textContent()).resolves.toBe('The action was refused');
    await expect(page.locator('[role="alert"]').textContent()).resolves.toContain('reason');
    // Chromium logs the 400 of this document (the refusal is the point); nothing else may have happened.
    const refused = `Failed to load resource: the server responded with a status of 400 (Bad Request)`;
    const logged = consoleTab.problems.splice(0);
    expect(
      logged.filter(
        (p) => !(p.kind === 'console' && p.text === refused && p.url === `${op}/applications/${id}/reject`),
      ),
    ).toEqual([]);
    expect(logged).toHaveLength(1);
    const row = await t.testDb.database.db
      .selectFrom('applications')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('NEW');
  });

  it('freezes and unfreezes the organization, toggles a flag, sets KYC and a fee', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications/${ids.main}`);
    await Promise.all([page.waitForNavigation(), page.click('a[href^="/organizations/org_"]')]);
    const organizationPath = path(page);
    expect(organizationPath).toMatch(/^\/organizations\/org_[0-9a-z]{29}$/);
    const organizationId = organizationPath.split('/')[2] ?? '';
    await expect(page.locator('h1').textContent()).resolves.toBe('Anatolia Trading Ltd');

    await page.fill('#freeze-reason', 'Chargeback spike');
    await submitWith(page, page.locator('button:has-text("Freeze")'));
    expect(path(page)).toBe(`${organizationPath}?notice=frozen`);
    await expect(notice(page).textContent()).resolves.toContain('Organization frozen');
    await expect(page.locator('h1').textContent()).resolves.toContain('FROZEN');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('Chargeback spike');

    await submitWith(page, page.locator('button:text-is("Unfreeze")'));
    await expect(notice(page).textContent()).resolves.toBe('Organization unfrozen.');
    await expect(page.locator('h1').textContent()).resolves.toBe('Anatolia Trading Ltd');

    const payouts = page.locator('form', { has: page.locator('span.flag:text("payouts")') });
    await expect(payouts.locator('span.flag').textContent()).resolves.toBe('payouts: off');
    await submitWith(page, payouts.locator('button'));
    await expect(notice(page).textContent()).resolves.toBe('Feature flag saved.');
    await expect(payouts.locator('span.flag').textContent()).resolves.toBe('payouts: on');
    await expect(payouts.locator('button').textContent()).resolves.toBe('Turn off');

    await page.selectOption('select[name="kycStatus"]', 'APPROVED');
    await submitWith(page, page.locator('button:text-is("Set KYC status")'));
    await expect(notice(page).textContent()).resolves.toBe('KYC status saved.');

    const fee = page.locator(`form[action="${organizationPath}/fees/credit_card_tr"]`);
    await fee.locator('input[name="basisPoints"]').fill('275');
    await fee.locator('input[name="fixedMinor"]').fill('50');
    await submitWith(page, fee.locator('button'));
    await expect(notice(page).textContent()).resolves.toBe('Fee saved.');
    expect(await fee.locator('input[name="basisPoints"]').inputValue()).toBe('275');

    const db = t.testDb.database.db;
    const organization = await db
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    expect(organization).toMatchObject({
      feature_flags: ['payouts'],
      frozen_at: null,
      frozen_reason: null,
      kyc_status: 'APPROVED',
    });
    const fees = await db
      .selectFrom('fee_schedules')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('payment_method', '=', 'credit_card_tr')
      .executeTakeFirstOrThrow();
    expect(fees).toMatchObject({ basis_points: 275, fixed_minor: '50' });
  });

  it('shows the audit log with who did what', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications`);
    await Promise.all([page.waitForNavigation(), page.click('nav.op-nav a:text-is("Audit log")')]);
    expect(path(page)).toBe('/audit');
    const rows = page.locator('table.audit tbody tr');
    const text = (await rows.allTextContents()).join('\n');
    for (const action of [
      'staff.login',
      'application.approved',
      'application.rejected',
      'organization.frozen',
      'organization.unfrozen',
      'organization.flag_enabled',
      'organization.kyc_status_set',
      'organization.fee_set',
    ]) {
      expect(text, action).toContain(action);
    }
    const frozen = rows.filter({ hasText: 'organization.frozen' });
    // Who: the staff member's name, the actor id beside it for the record.
    await expect(frozen.locator('td').nth(1).textContent()).resolves.toBe('Console Admin');
    await expect(frozen.locator('td').nth(1).getAttribute('title')).resolves.toBe(`staff:${admin.id}`);
    await expect(frozen.locator('td').nth(5).textContent()).resolves.toBe(
      '{"frozen":true,"frozenReason":"Chargeback spike"}',
    );
  });

  it('shows the mailbox and the approval message, with the sandbox key (it is the dev mailbox)', async () => {
    const { page } = consoleTab;
    await Promise.all([page.waitForNavigation(), page.click('nav.op-nav a:text-is("Mailbox")')]);
    expect(path(page)).toBe('/mailbox');
    await expect(page.locator('p.intro').textContent()).resolves.toContain('development mailbox');
    const row = page.locator('tbody tr', { hasText: contacts.main });
    await expect(row.count()).resolves.toBe(1);
    await Promise.all([page.waitForNavigation(), row.locator('a').click()]);
    expect(path(page)).toMatch(/^\/mailbox\/eml_/);
    await expect(page.locator('h1').textContent()).resolves.toBe(
      'Başvurunuz onaylandı / Your application is approved',
    );
    const body = (await page.locator('#email-text').textContent()) ?? '';
    const key = /sk_test_[0-9A-Za-z]{38}/.exec(body)?.[0] ?? '';
    expect(key).not.toBe('');
    const stored = await t.testDb.database.db
      .selectFrom('api_keys')
      .select('secret_hash')
      .where('secret_hash', '=', sha256Hex(key))
      .executeTakeFirst();
    expect(stored).toBeDefined();
    expect(body).toContain(`${t.urls.web}/activate/`);
    expect(body).toContain('Anatolia Trading Ltd');
  });

  it('shows hostile text escaped on every page and never runs it', async () => {
    const { page } = consoleTab;
    await page.goto(`${op}/applications/${ids.hostile}`);
    await expect(page.locator('h1').textContent()).resolves.toContain(HOSTILE_NAME);
    await expect(page.locator('dd.prose').textContent()).resolves.toBe(HOSTILE_TEXT);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.title()).toBe(`${HOSTILE_NAME} · Operator`);

    await submitWith(page, page.locator('#approve-form button'));
    await expect(page.locator('h1 .status').textContent()).resolves.toBe('APPROVED');
    await Promise.all([page.waitForNavigation(), page.click('a[href^="/organizations/org_"]')]);
    await expect(page.locator('h1').textContent()).resolves.toBe(HOSTILE_NAME);

    await page.goto(`${op}/organizations`);
    await expect(page.locator('tbody a', { hasText: 'onerror' }).textContent()).resolves.toBe(HOSTILE_NAME);
    await page.goto(`${op}/mailbox`);
    await Promise.all([
      page.waitForNavigation(),
      page.locator('tbody tr', { hasText: contacts.hostile }).locator('a').click(),
    ]);
    await expect(page.locator('#email-text').textContent()).resolves.toContain(HOSTILE_NAME);

    for (const target of [
      '/applications',
      `/applications/${ids.hostile}`,
      '/organizations',
      '/audit',
      '/mailbox',
    ]) {
      await page.goto(`${op}${target}`);
      expect(await page.locator('main img, main script').count(), target).toBe(0);
      expect(await page.evaluate('window.__pwned'), target).toBeUndefined();
    }
  });

  it('logs out: back to /login, and the pages ask for a login again', async () => {
    const { page, context } = consoleTab;
    await page.goto(`${op}/applications`);
    await submitWith(page, page.locator('header button:has-text("Log out")'));
    expect(path(page)).toBe('/login');
    // The session cookie is gone; the login page's form cookie stays.
    expect((await context.cookies()).map((cookie) => cookie.name)).toEqual(['gw_form']);
    await page.goto(`${op}/organizations`);
    expect(path(page)).toBe('/login?next=%2Forganizations');
  });
});

describe('the next parameter of the login', { timeout: 60_000 }, () => {
  it('returns to the page that asked for the login', async () => {
    const { page } = await newTab();
    await page.goto(`${op}/mailbox?cursor=`);
    expect(path(page)).toBe('/login?next=%2Fmailbox%3Fcursor%3D');
    await fillLogin(page, admin.email, admin.password);
    expect(path(page)).toBe('/mailbox?cursor=');
  });

  it.each([
    '//evil.example',
    '//evil.example/applications',
    '/\\evil.example',
    'https://evil.example/',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    ' //evil.example',
    'javascript:alert(1)',
  ])('does not follow next=%j off the console', async (next) => {
    const { page } = await newTab();
    await page.goto(`${op}/login?next=${encodeURIComponent(next)}`);
    await fillLogin(page, admin.email, admin.password);
    expect(new URL(page.url()).origin).toBe(op);
    expect(path(page)).toBe('/applications');
  });

  it.each([
    '//evil.example',
    '/\\evil.example',
    '/\t/evil.example',
    '/\t\\evil.example',
    'https://evil.example',
  ])('answers a login form posted with next=%j with a same-site Location', async (next) => {
    const form = new WebClient(op, '127.0.0.1');
    const res = await form.submit('/login', { email: admin.email, password: admin.password, next });
    expect(res.status).toBe(303);
    const location = res.location ?? '';
    expect(new URL(location, op).origin).toBe(op);
    expect(location).toMatch(/^\/[^/\\]/);
  });
});
