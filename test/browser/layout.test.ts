import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../sandbox-acquirer/cards.js';
import { createActiveUser, createInvitedOwner, linkIn, mailsTo, totpCode } from '../helpers/accounts.js';
import type { PageProblem } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { createMerchant, type Merchant } from '../helpers/merchants.js';
import {
  approvedOrganization,
  createStaffUser,
  loginStaff,
  submitApplication,
  type StaffAccount,
  type StaffSession,
} from '../helpers/operator.js';
import { merchantApi, paidCharge, TRON_ADDRESS } from '../helpers/payouts.js';
import { payByCard, postCharge } from '../helpers/charges.js';
import { eventually } from '../helpers/process.js';

// Every page a person sees (the dashboard, the sign-in and activation pages, the apply form, the hosted
// checkout, the sandbox acquirer's 3-D Secure page and the operator console) at a laptop's 1366 px and a
// phone's 390 px, in English and Turkish where the page has both: nothing scrolls the page sideways, no
// element is cut off by a container that does not scroll, and only a data table or a code block may
// scroll inside its own frame, and only on the phone (at 1366 px every table fits). The dashboard's
// sidebar reaches the bottom of every page, each navigation link is on screen without scrolling, and
// the header's sign-out shares its line. With SCREENSHOTS_DIR set (`npm run screenshots`,
// scripts/screenshots.ts), each page is also written there as `<page>-<width>.png` (English).

const WIDTHS = [
  { name: '1366', viewport: { width: 1366, height: 768 }, isMobile: false },
  { name: '390', viewport: { width: 390, height: 844 }, isMobile: true },
] as const;
type Width = (typeof WIDTHS)[number];

let t: TestGateway;
let merchant: Merchant;
let owner: { email: string; password: string };
/** A member with two-factor sign-in on: the password step leads to the second-factor page. */
let twoFactor: { userId: string; email: string; password: string };
let staff: StaffAccount;
let desk: StaffSession;
const ids: Record<string, string> = {};

const { newContext, watch, signIn } = useBrowserSuite({
  gateway: { env: { ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' } },
  async setUp(started) {
    t = started;
    staff = await createStaffUser(t, 'admin', { name: 'Deniz Yıldırım' });
    desk = await loginStaff(t, staff);
    merchant = await createMerchant(t, {
      name: 'Boğaziçi Dijital Hizmetler Ticaret Anonim Şirketi',
      featureFlags: ['customers', 'wallets', 'payouts', 'events', 'disputes'],
    });
    owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
    const wallet = await merchantApi<{ id: string }>(t, merchant, 'sandbox', '/v1/wallets', {
      network: 'tron',
      address: TRON_ADDRESS,
    });
    expect(wallet.status, wallet.text).toBe(201);
    // Payments of several sizes, settled and paid out; then one refunded.
    for (const amount of [1_250_050, 99_990, 7_500, 88_800])
      ids.charge = (await paidCharge(t, merchant, 'sandbox', amount)).id;
    const settled = await merchantApi<{ batch: { id: string; payoutId: string } }>(
      t,
      merchant,
      'sandbox',
      '/v1/test-helpers/settle',
      {},
    );
    expect(settled.status, settled.text).toBe(200);
    ids.batch = settled.body.batch.id;
    ids.payout = settled.body.batch.payoutId;
    ids.refunded = (await paidCharge(t, merchant, 'sandbox', 125_050)).id;
    const refund = await merchantApi(t, merchant, 'sandbox', `/v1/charges/${ids.refunded}/refunds`, {
      amount: 5_000,
    });
    expect(refund.status, refund.text).toBe(201);
    const customer = await merchantApi<{ id: string }>(t, merchant, 'sandbox', '/v1/customers', {
      name: 'Ayşe Yılmaz',
      email: 'ayse.yilmaz.uzun-bir-adres@example.com',
    });
    expect(customer.status, customer.text).toBe(201);
    ids.customer = customer.body.id;
    // A disputed payment: the Disputes pages have a dispute that needs a response.
    const disputed = await postCharge<{ id: string; providerPaymentId: string }>(t, merchant, {
      amount: 45_000,
    });
    await payByCard(t.gateway.services, disputed, 'Ayşe Yılmaz', {
      number: TEST_CARDS.disputeFraudulent.number,
    });
    await eventually(
      async () => {
        const row = await t.gateway.database.db
          .selectFrom('disputes')
          .select('id')
          .where('charge_id', '=', disputed.id)
          .executeTakeFirst();
        if (row) ids.dispute = row.id;
        return row !== undefined;
      },
      15_000,
      'the dispute',
    );
    // Funds available again after the settlement's payout: the payout confirmation page has an amount.
    await paidCharge(t, merchant, 'sandbox', 2_000_000);
    const released = await t.gateway.services.settlement.releaseNow({
      organizationId: merchant.organizationId,
      environment: 'sandbox',
    });
    expect(released).toMatchObject({ released: true });

    // A valid password-reset link (through the service: the form's address limit is the test's own) and
    // a member with two-factor sign-in on.
    const users = t.gateway.services.users;
    const context = { ip: null, requestId: null };
    const forgetful = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'viewer' });
    await users.requestPasswordReset(forgetful.email, context);
    await users.passwordResetsSettled();
    const resetMail = (await mailsTo(t, forgetful.email)).find((mail) => mail.template === 'password_reset');
    ids.reset = linkIn(resetMail?.text ?? '', '/reset-password').url;
    twoFactor = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'developer' });
    const enrollment = await users.startTotpEnrollment(twoFactor.userId, context);
    if (!enrollment.ok) throw new Error('no 2FA enrollment');
    const enabled = await users.confirmTotpEnrollment(
      twoFactor.userId,
      totpCode(enrollment.value.secret, t.clock.now()),
      { ...context, keepSessionTokenHash: '' },
    );
    expect(enabled.ok).toBe(true);
    const events = await merchantApi<{ data: Array<{ id: string }> }>(t, merchant, 'sandbox', '/v1/events');
    ids.event = events.body.data[0]?.id ?? '';
    const endpoint = await merchantApi<{ id: string }>(t, merchant, 'sandbox', '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/gateway/events/with/a/rather/long/path',
      enabledEvents: ['charge.succeeded'],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    ids.endpoint = endpoint.body.id;
    ids.apiKey = merchant.keys.sandbox.id;

    // The operator's side: an application reviewed by the staff member, a rejected one, an open one.
    const approval = await approvedOrganization(t, desk, { companyName: 'Anadolu Oyun Teknolojileri A.Ş.' });
    ids.application = approval.application.id;
    ids.email = approval.emailId;
    ids.openApplication = await submitApplication(t);
    const run = await desk.post<{ id: string }>('/operator/v1/reconciliations', {
      environment: 'sandbox',
      reportDate: '2026-11-22',
    });
    expect(run.status, run.text).toBe(201);
    ids.reconciliation = run.body.id;
  },
  setUpTimeout: 180_000, // a gateway, Chromium and a dozen payments through the sandbox on a busy machine
  timeout: 15_000,
  allowed: [isErrorPage],
});

interface Visit {
  name: string;
  /** A URL, or a function that brings the page to the state to check and returns nothing. */
  url?: () => string;
  arrive?: (page: Page, language: 'en' | 'tr') => Promise<void>;
  /** What else the page must show: a line for each thing it does not. */
  expect?: (page: Page) => Promise<string[]>;
  /** The page's HTTP status when it is not 200 (a page about a bad link, a 404). */
  status?: number;
  languages: readonly ('en' | 'tr')[];
}

const BOTH = ['en', 'tr'] as const;
const ENGLISH = ['en'] as const;

function withLanguage(url: string, language: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${language}`;
}

/** Pages of someone signed out: sign-in, activation, the apply form, the checkout and the bank's page. */
function publicPages(): Visit[] {
  const web = () => t.urls.web;
  return [
    { name: 'apply', url: () => `${web()}/apply`, languages: BOTH },
    { name: 'login', url: () => `${web()}/login`, languages: BOTH },
    { name: 'forgot-password', url: () => `${web()}/forgot-password`, languages: BOTH },
    {
      name: 'reset-password-invalid',
      url: () => `${web()}/reset-password/${'x'.repeat(43)}`,
      status: 404,
      languages: BOTH,
    },
    {
      name: 'activation',
      arrive: async (page) => {
        const invited = await createInvitedOwner(t, {
          organizationName: 'İstanbul Elektronik Ödeme ve Dijital Hizmetler Limited Şirketi',
        });
        await page.goto(invited.url);
      },
      languages: ENGLISH,
    },
    {
      name: 'reset-password',
      url: () => ids.reset ?? '',
      languages: BOTH,
    },
    {
      name: 'login-2fa',
      arrive: async (page, language) => {
        await page.goto(`${web()}/login?lang=${language}`);
        await page.fill('#email', twoFactor.email);
        await page.fill('#password', twoFactor.password);
        await Promise.all([
          page.waitForURL((url) => url.pathname === '/login/2fa'),
          page.click('#login-form button[type="submit"]'),
        ]);
      },
      languages: BOTH,
    },
    { name: 'checkout-card', arrive: (page, language) => openCheckout(page, {}, language), languages: BOTH },
    {
      name: 'checkout-declined',
      arrive: async (page, language) => {
        await openCheckout(page, {}, language);
        await payWith(page, TEST_CARDS.insufficientFunds.number);
      },
      languages: BOTH,
    },
    {
      name: 'checkout-bank-transfer',
      arrive: (page, language) => openCheckout(page, { paymentMethod: 'bank_transfer' }, language),
      languages: BOTH,
    },
    {
      name: 'sandbox-3ds',
      arrive: async (page) => {
        await openCheckout(page, {});
        await page.fill('#holderName', 'Ayşe Yılmaz');
        await page.fill('#cardNumber', TEST_CARDS.challenge.number);
        await page.fill('#expiry', '12/30');
        await page.fill('#cvc', '123');
        await page.click('#pay');
        await page.waitForURL((url) => url.href.startsWith(`${t.sandboxAcquirer.url}/3ds/`));
      },
      // The reference the gateway gives the acquirer is its charge id: the page calls it that.
      expect: async (page) => {
        const labels = await page.locator('dt').allTextContents();
        const values = await page.locator('dd').allTextContents();
        const charge = values[labels.indexOf('Charge ID')] ?? '';
        return /^ch_[0-9a-z]+$/.test(charge) && !labels.includes('Merchant reference')
          ? []
          : [`the charge id is not labelled "Charge ID": ${JSON.stringify(labels)}`];
      },
      languages: ENGLISH,
    },
    {
      name: 'checkout-paid',
      arrive: async (page) => {
        // Straight after the bank's page of the visit before: its code sends the payer back.
        await page.fill('#code', '123456');
        await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
      },
      languages: ENGLISH,
    },
  ];
}

async function openCheckout(page: Page, overrides: Record<string, unknown>, language = 'en'): Promise<void> {
  const charge = await postCharge<{ paymentPageUrl: string }>(t, merchant, {
    amount: 1_249_990,
    ...overrides,
  });
  await page.goto(withLanguage(charge.paymentPageUrl, language));
}

async function payWith(page: Page, number: string): Promise<void> {
  await page.fill('#holderName', 'Ayşe Yılmaz');
  await page.fill('#cardNumber', number);
  await page.fill('#expiry', '12/30');
  await page.fill('#cvc', '123');
  await Promise.all([page.waitForNavigation(), page.click('#pay')]);
}

function dashboardPages(): Visit[] {
  const at = (p: string) => () => `${t.urls.web}${p}`;
  return [
    ['home', '/dashboard'],
    ['payments', '/dashboard/payments'],
    ['payment', `/dashboard/payments/${ids.refunded}`],
    ['refund', `/dashboard/payments/${ids.charge}/refund`],
    ['customers', '/dashboard/customers'],
    ['customer', `/dashboard/customers/${ids.customer}`],
    ['disputes', '/dashboard/disputes'],
    ['dispute', `/dashboard/disputes/${ids.dispute}`],
    ['dispute-submit', `/dashboard/disputes/${ids.dispute}/submit`],
    ['dispute-accept', `/dashboard/disputes/${ids.dispute}/accept`],
    ['fraud-warnings', '/dashboard/disputes/fraud-warnings'],
    ['dispute-ratios', '/dashboard/dispute-ratios'],
    ['exports', '/dashboard/exports'],
    ['balance', '/dashboard/balance'],
    ['payout', `/dashboard/payouts/${ids.payout}`],
    ['payout-new', '/dashboard/payouts/new'],
    ['settlements', '/dashboard/settlements'],
    ['settlement', `/dashboard/settlements/${ids.batch}`],
    ['wallets', '/dashboard/wallets'],
    ['api-keys', '/dashboard/api-keys'],
    ['api-key', `/dashboard/api-keys/${ids.apiKey}`],
    ['webhooks', '/dashboard/webhooks'],
    ['webhook', `/dashboard/webhooks/${ids.endpoint}`],
    ['events', '/dashboard/events'],
    ['event', `/dashboard/events/${ids.event}`],
    ['security', '/dashboard/security'],
    ['branding', '/dashboard/branding'],
    ['not-found', '/dashboard/payments/ch_unknown'],
  ].map(([name, p]) => ({
    name: `dashboard-${name}`,
    url: at(p ?? ''),
    languages: BOTH,
    ...(name === 'not-found' ? { status: 404 } : {}),
  }));
}

function operatorPages(): Visit[] {
  const at = (p: string) => () => `${t.urls.operator}${p}`;
  return [
    ['applications', '/applications'],
    ['application', `/applications/${ids.application}`],
    ['application-open', `/applications/${ids.openApplication}`],
    ['organizations', '/organizations'],
    ['organization', `/organizations/${merchant.organizationId}`],
    ['api-key', `/api-keys/${ids.apiKey}`],
    ['payments', `/payments?q=${encodeURIComponent(ids.refunded ?? '')}`],
    ['alerts', '/alerts'],
    ['jobs', '/jobs'],
    ['payouts', '/payouts'],
    ['payout', `/payouts/${ids.payout}`],
    ['payout-minimums', '/payout-minimums'],
    ['fx-rates', '/fx-rates'],
    ['settlement', '/settlement'],
    ['settlement-closures', '/settlement/closures'],
    ['settlement-organization', `/settlement/organizations/${merchant.organizationId}`],
    ['reconciliation', '/reconciliation'],
    ['reconciliation-run', `/reconciliation/${ids.reconciliation}`],
    ['dispute-ratios', '/dispute-ratios'],
    ['wallet-changes', '/wallet-changes'],
    ['audit', '/audit'],
    ['mailbox', '/mailbox'],
    ['email', `/mailbox/${ids.email}`],
  ].map(([name, p]) => ({
    name: `operator-${name}`,
    url: at(p ?? ''),
    languages: ENGLISH,
    ...(name === 'application' || name === 'audit' ? { expect: namesTheStaff } : {}),
  }));
}

/** The reviewer of the application and the actor of the audit entries are named, not given by id. */
async function namesTheStaff(page: Page): Promise<string[]> {
  const named = await page.locator('.reviewed-by, .audit-actor').allTextContents();
  return named.some((text) => text.includes(staff.name))
    ? []
    : [`no staff member named ${staff.name} among ${JSON.stringify(named.slice(0, 5))}`];
}

/**
 * What is wrong with the layout of the page shown, one line each (run in the page). `phone`: a data table
 * (`.table-wrap`) or a code block (`pre`) may scroll inside its own frame; at 1366 px nothing may.
 */
const LAYOUT_PROBLEMS = `((phone) => {
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const root = document.scrollingElement;
  if (root.scrollWidth > window.innerWidth)
    problems.push('the page scrolls sideways: ' + root.scrollWidth + ' px wide at ' + window.innerWidth);
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.display === 'contents' || style.visibility === 'hidden') continue;
    if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue;
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) continue;
    const overflow = style.overflowX;
    if (overflow === 'hidden' || overflow === 'clip') {
      problems.push(name(el) + ' cuts off ' + (el.scrollWidth - el.clientWidth) + ' px of its content');
    } else if (overflow === 'auto' || overflow === 'scroll') {
      const mayScroll = phone && (el.matches('.table-wrap') || el.tagName === 'PRE');
      if (!mayScroll) problems.push(name(el) + ' scrolls sideways by ' + (el.scrollWidth - el.clientWidth) + ' px');
    } else if (el !== document.body && el !== document.documentElement) {
      // Content spilling out of a box that neither scrolls nor clips: over its neighbours or off screen.
      const box = el.getBoundingClientRect();
      const spill = [...el.children].some((child) => child.getBoundingClientRect().right > box.right + 1);
      if (spill) problems.push(name(el) + ' lets ' + (el.scrollWidth - el.clientWidth) + ' px of its content spill out');
    }
  }
  // Every link of a navigation can be seen without scrolling anything sideways.
  for (const link of document.querySelectorAll('nav a')) {
    const box = link.getBoundingClientRect();
    if (box.width === 0) continue;
    let hidden = box.left < 0 || box.right > window.innerWidth + 1;
    for (let up = link.parentElement; up && !hidden; up = up.parentElement) {
      if (getComputedStyle(up).overflowX === 'visible') continue;
      const frame = up.getBoundingClientRect();
      hidden = box.left < frame.left - 1 || box.right > frame.right + 1;
    }
    if (hidden) problems.push('the navigation link "' + link.textContent.trim() + '" is off screen');
  }
  return problems;
})`;

/** The dashboard shell's own promises: the sidebar as long as the page, sign-out never alone on a line. */
const SHELL_PROBLEMS = `((phone) => {
  const problems = [];
  const nav = document.querySelector('.app-nav');
  const main = document.querySelector('main');
  if (!nav || !main) return ['no dashboard shell'];
  if (!phone && nav.getBoundingClientRect().bottom < main.getBoundingClientRect().bottom - 1)
    problems.push('the sidebar stops ' + Math.round(main.getBoundingClientRect().bottom - nav.getBoundingClientRect().bottom) + ' px above the end of the page');
  const logout = document.querySelector('#logout-form').getBoundingClientRect();
  const others = [...document.querySelectorAll('.app-header > *')].filter((el) => el.id !== 'logout-form' && !el.matches('.skip-link'));
  const middle = (logout.top + logout.bottom) / 2;
  if (!others.some((el) => { const b = el.getBoundingClientRect(); return b.top <= middle && middle <= b.bottom; }))
    problems.push('the sign-out button is alone on its line');
  return problems;
})`;

/**
 * What a page says wrong, wherever it is: a count with the wrong form of its noun ("1 attempts"), and a
 * staff id where the console names the staff member (run in the page).
 */
const TEXT_PROBLEMS = `(() => {
  const problems = [];
  const text = document.body.innerText;
  for (const match of text.matchAll(/(?:^|[^\\d.,])(1 [a-z]+s)\\b/g))
    if (/^1 (attempts|refunds|payments|charges|days|batches|endpoints|lines|items|codes|keys|members|events)$/.test(match[1]))
      problems.push('says "' + match[1] + '"');
  for (const match of text.matchAll(/\\bstaff:stf_[0-9a-z]+/g)) problems.push('shows the staff id ' + match[0]);
  return problems;
})()`;

async function checkPage(
  page: Page,
  visit: Visit,
  width: Width,
  language: string,
  problems: string[],
): Promise<void> {
  const when = `${visit.name} at ${width.name} px (${language})`;
  const phone = width.isMobile;
  const found = (await page.evaluate(`${LAYOUT_PROBLEMS}(${phone})`)) as string[];
  found.push(...((await page.evaluate(TEXT_PROBLEMS)) as string[]));
  if (visit.expect) found.push(...(await visit.expect(page)));
  if (page.url().startsWith(`${t.urls.web}/dashboard`))
    found.push(...((await page.evaluate(`${SHELL_PROBLEMS}(${phone})`)) as string[]));
  problems.push(...found.map((problem) => `${when}: ${problem}`));
  const dir = process.env.SCREENSHOTS_DIR;
  if (dir && language === 'en') {
    await mkdir(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, `${visit.name}-${width.name}.png`), fullPage: true });
  }
}

async function tour(context: BrowserContext, visits: Visit[], width: Width): Promise<string[]> {
  const { page, problems: pageProblems } = await watch(context);
  const problems: string[] = [];
  // Turkish on the phone, where its longer words are likeliest to break a line; English at both widths.
  const languages = width.isMobile ? BOTH : ENGLISH;
  for (const language of languages) {
    for (const visit of visits) {
      if (!visit.languages.includes(language)) continue;
      if (visit.url) {
        const url = visit.url();
        const response = await page.goto(visit.languages.length > 1 ? withLanguage(url, language) : url);
        const status = response?.status();
        if (status !== (visit.status ?? 200))
          problems.push(`${visit.name} (${language}): answered ${status}`);
      } else if (visit.arrive) {
        await visit.arrive(page, language);
      }
      await checkPage(page, visit, width, language, problems);
    }
  }
  problems.push(
    ...unexpected(pageProblems).map((p) => `${width.name} px: ${p.kind} ${p.text} ${p.url ?? ''}`),
  );
  return problems;
}

/** Chromium's line for a page answered with an error status (the 404 and link pages visited on purpose). */
function isErrorPage(p: PageProblem): boolean {
  return p.kind === 'console' && /the server responded with a status of 4\d\d/.test(p.text);
}

function unexpected(problems: PageProblem[]): PageProblem[] {
  return problems.filter((p) => !isErrorPage(p));
}

describe('every page fits 1366 px and 390 px', () => {
  for (const width of WIDTHS) {
    it(`at ${width.name} px: no sideways scroll, nothing cut off`, { timeout: 300_000 }, async () => {
      const context = await newContext({ viewport: width.viewport, isMobile: width.isMobile });
      const problems = await tour(context, publicPages(), width);

      // The dashboard, signed in as the owner.
      const { page } = await watch(context);
      await signIn(page, owner);
      expect(new URL(page.url()).pathname).toBe('/dashboard');
      await page.close();
      problems.push(...(await tour(context, dashboardPages(), width)));

      // The operator console: its login, then every page as an admin.
      const console_ = await watch(context);
      await console_.page.goto(`${t.urls.operator}/login`);
      await checkPage(console_.page, { name: 'operator-login', languages: ENGLISH }, width, 'en', problems);
      await console_.page.fill('#email', staff.email);
      await console_.page.fill('#password', staff.password);
      await console_.page.click('#operator-login button[type="submit"]');
      await console_.page.waitForURL(/\/applications$/);
      await console_.page.close();
      problems.push(...(await tour(context, operatorPages(), width)));

      expect(problems).toEqual([]);
    });
  }
});
