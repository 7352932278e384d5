import type { BrowserContextOptions, Page, Response } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { VERTICALS } from '../../src/modules/applications/schemas.js';
import { expectPage, type PageProblem } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';

// The public application form (/apply on the web listener), driven through a real Chromium.

let t: TestGateway;
let web: string;

// Every page of a test must stay clean: no uncaught exception, no dialog, no CSP violation and no
// console error, except the line Chromium itself logs for a fetch answered 400 (a refused form).
const { newPage } = useBrowserSuite({
  setUp(started) {
    t = started;
    web = t.urls.web;
  },
  allowed: [isRefusedSubmission],
});

interface Session {
  page: Page;
  problems: PageProblem[];
  response: Response;
}

function isRefusedSubmission(problem: PageProblem): boolean {
  return (
    problem.kind === 'console' &&
    problem.url === `${web}/v1/applications` &&
    problem.text === 'Failed to load resource: the server responded with a status of 400 (Bad Request)'
  );
}

/** A fresh browser context (no cookies, no storage) with one watched page opened at `path`. */
async function open(path = '/apply', options: BrowserContextOptions = {}): Promise<Session> {
  const { page, problems } = await newPage(options);
  const response = await page.goto(`${web}${path}`);
  if (response === null) throw new Error(`no response for ${path}`);
  expect(response.status()).toBe(200);
  return { page, problems, response };
}

const REQUIRED = [
  'companyName',
  'jurisdiction',
  'vertical',
  'monthlyVolumeUSD',
  'contactName',
  'contactEmail',
];
const ALL_FIELDS = [
  'companyName',
  'jurisdiction',
  'vertical',
  'verticalOther',
  'monthlyVolumeUSD',
  'currentAcquirer',
  'whySwitching',
  'contactName',
  'contactEmail',
  'telegram',
];

const VALID: Record<string, string> = {
  companyName: 'Anatolia Trading Ltd',
  jurisdiction: 'Türkiye',
  vertical: 'forex',
  monthlyVolumeUSD: '250000',
  contactName: 'Ayşe Yılmaz',
  contactEmail: 'ayse@anatolia.example',
};

/** Fills fields in the given order (`vertical` must come before `verticalOther`, which it reveals). */
async function fill(page: Page, values: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    if (name === 'vertical') await page.selectOption('#vertical', value);
    else await page.fill(`#${name}`, value);
  }
}

/** Submits the form and waits until the page has finished handling the answer; returns its status. */
async function submit(page: Page, how: 'click' | 'tap' = 'click'): Promise<number> {
  const answered = page.waitForResponse(
    (response) => response.url() === `${web}/v1/applications` && response.request().method() === 'POST',
  );
  if (how === 'tap') await page.tap('button[type="submit"]');
  else await page.click('button[type="submit"]');
  const status = (await answered).status();
  // The button is enabled again in the last step of the submit handler, after the page was updated.
  await page.locator('button[type="submit"]:not([disabled])').waitFor({ state: 'attached' });
  return status;
}

interface FieldState {
  name: string;
  shown: boolean;
  text: string;
  invalid: string | null;
  besideInput: boolean;
  describesInput: boolean;
}

// In-page code is passed as text: the project compiles without the DOM library.
const FIELD_STATES = `Array.from(document.querySelectorAll('[data-error-for]')).map(function (slot) {
  var name = slot.getAttribute('data-error-for');
  var input = document.getElementById(name);
  var field = slot.closest('.field');
  return {
    name: name,
    shown: slot.checkVisibility(),
    text: slot.textContent,
    invalid: input.getAttribute('aria-invalid'),
    besideInput: field !== null && field.contains(input),
    describesInput: (input.getAttribute('aria-describedby') || '').split(' ').indexOf(slot.id) !== -1,
  };
})`;

/** Exactly the fields of `errors` show their message next to their input, marked invalid; no other field does. */
async function expectFieldErrors(page: Page, errors: Record<string, string>): Promise<void> {
  const states = (await page.evaluate(FIELD_STATES)) as FieldState[];
  expect(states.map((state) => state.name)).toEqual(ALL_FIELDS);
  const expected = ALL_FIELDS.map((name) => {
    const text = errors[name];
    return text === undefined
      ? { name, shown: false, text: '', invalid: null, besideInput: true, describesInput: true }
      : { name, shown: true, text, invalid: 'true', besideInput: true, describesInput: true };
  });
  expect(states).toEqual(expected);
}

async function focusedId(page: Page): Promise<string> {
  return (await page.evaluate('document.activeElement ? document.activeElement.id : ""')) as string;
}

async function applicationCount(): Promise<number> {
  const row = await t.testDb.database.db
    .selectFrom('applications')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function storedApplication(id: string) {
  return t.testDb.database.db
    .selectFrom('applications')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function expectConfirmation(page: Page, texts: { title: string; promise: string }): Promise<string> {
  await page.locator('#application-success').waitFor({ state: 'visible' });
  expect(await page.locator('#application-form').isHidden()).toBe(true);
  expect(await page.locator('#application-success h2').textContent()).toBe(texts.title);
  expect(await page.locator('#application-success').textContent()).toContain(texts.promise);
  const id = (await page.locator('#application-id').textContent()) ?? '';
  expect(id).toMatch(/^app_[0-9a-z]{29}$/);
  return id;
}

const EN_CONFIRMATION = { title: 'Application received', promise: 'within 48 hours' };
const TR_CONFIRMATION = { title: 'Başvurunuz alındı', promise: '48 saat içinde' };

describe('the application form: refused submissions', () => {
  it('an empty form shows "required" next to each required field, focuses the first, and stores nothing', async () => {
    const { page } = await open();
    const before = await applicationCount();

    expect(await submit(page)).toBe(400);
    await expectFieldErrors(
      page,
      Object.fromEntries(REQUIRED.map((name) => [name, 'This field is required.'])),
    );
    expect(await page.locator('#form-error').textContent()).toBe('Please correct the highlighted fields.');
    expect(await page.locator('#form-error').isVisible()).toBe(true);
    expect(await focusedId(page)).toBe('companyName');
    expect(await page.locator('[data-field="verticalOther"]').isHidden()).toBe(true);
    expect(await applicationCount()).toBe(before);
  });

  it('specific bad values get their own messages, and fixed fields lose theirs', async () => {
    const { page } = await open();
    const before = await applicationCount();
    expect(await submit(page)).toBe(400);

    await fill(page, {
      ...VALID,
      contactEmail: 'ayse@',
      monthlyVolumeUSD: '500',
      vertical: 'other',
    });
    expect(await submit(page)).toBe(400);
    await expectFieldErrors(page, {
      verticalOther: 'This field is required.',
      monthlyVolumeUSD: 'The minimum is 1,000 USD.',
      contactEmail: 'Enter a valid e-mail address.',
    });
    expect(await page.locator('#form-error').textContent()).toBe('Please correct the highlighted fields.');
    expect(await focusedId(page)).toBe('verticalOther');

    await fill(page, {
      verticalOther: 'Skill gaming',
      monthlyVolumeUSD: '1000.5',
      contactEmail: 'ayse@anatolia.example',
    });
    expect(await submit(page)).toBe(400);
    await expectFieldErrors(page, { monthlyVolumeUSD: 'Enter a whole number of US dollars.' });
    expect(await focusedId(page)).toBe('monthlyVolumeUSD');

    expect(await applicationCount()).toBe(before);
  });
});

describe('the application form: accepted submissions', () => {
  it('confirms a complete application with its id and the 48-hour promise, and stores the trimmed values', async () => {
    const { page } = await open();
    await fill(page, {
      companyName: '  Bosphorus Media A.Ş.  ',
      jurisdiction: ' Türkiye ',
      vertical: 'other',
      verticalOther: '  Skill gaming  ',
      monthlyVolumeUSD: '250000',
      currentAcquirer: ' Acme Pay ',
      whySwitching: '  Fees are too high.\nSettlement takes a week.  ',
      contactName: ' Ayşe Yılmaz ',
      contactEmail: ' ayse@bosphorus.example ',
      telegram: ' @ayse ',
    });

    expect(await submit(page)).toBe(201);
    const id = await expectConfirmation(page, EN_CONFIRMATION);
    // Focus follows the confirmation, since the form (and its focused button) is gone.
    expect(await page.evaluate('document.activeElement.tagName')).toBe('H2');

    expect(await storedApplication(id)).toMatchObject({
      id,
      status: 'NEW',
      company_name: 'Bosphorus Media A.Ş.',
      jurisdiction: 'Türkiye',
      vertical: 'other',
      vertical_other: 'Skill gaming',
      monthly_volume_usd: '250000',
      current_acquirer: 'Acme Pay',
      why_switching: 'Fees are too high.\nSettlement takes a week.',
      contact_name: 'Ayşe Yılmaz',
      contact_email: 'ayse@bosphorus.example',
      telegram: '@ayse',
      submitted_ip: '127.0.0.1',
    });
  });

  it('reveals the description only for the "other" vertical, and never sends a hidden description', async () => {
    const { page } = await open();
    const other = page.locator('[data-field="verticalOther"]');
    expect(await other.isHidden()).toBe(true);
    for (const vertical of VERTICALS) {
      await page.selectOption('#vertical', vertical);
      expect(await other.isVisible(), vertical).toBe(vertical === 'other');
    }
    expect(await page.locator('label[for="verticalOther"]').textContent()).toBe('Describe your vertical');
    await page.selectOption('#vertical', '');
    expect(await other.isHidden()).toBe(true);

    await fill(page, {
      ...VALID,
      companyName: 'Changed Mind Ltd',
      vertical: 'other',
      verticalOther: 'Skill gaming',
    });
    await page.selectOption('#vertical', 'betting');
    expect(await other.isHidden()).toBe(true);
    expect(await submit(page)).toBe(201);
    const id = await expectConfirmation(page, EN_CONFIRMATION);
    expect(await storedApplication(id)).toMatchObject({ vertical: 'betting', vertical_other: null });
  });

  it('files one application when Enter is pressed again while the first submission is in flight', async () => {
    const { page } = await open();
    let posts = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST') posts += 1;
    });
    await page.route(`${web}/v1/applications`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await fill(page, { ...VALID, companyName: 'Double Enter Ltd' });

    await page.press('#companyName', 'Enter');
    expect(await page.locator('button[type="submit"]').isDisabled()).toBe(true);
    expect(await page.locator('button[type="submit"]').textContent()).toBe('Submitting…');
    await page.press('#companyName', 'Enter');
    await expectConfirmation(page, EN_CONFIRMATION);

    expect(posts).toBe(1);
    const rows = await t.testDb.database.db
      .selectFrom('applications')
      .select('id')
      .where('company_name', '=', 'Double Enter Ltd')
      .execute();
    expect(rows).toHaveLength(1);
  });
});

describe('the application form in Turkish', () => {
  it('?lang=tr shows Turkish labels, Turkish error messages and a Turkish confirmation', async () => {
    const { page, response } = await open('/apply?lang=tr');
    expect(response.headers()['content-language']).toBe('tr');
    expect(await page.getAttribute('html', 'lang')).toBe('tr');
    expect(await page.title()).toBe('Üye işyeri başvurusu');
    expect(await page.locator('h1').textContent()).toBe('Üye işyeri başvurusu');
    expect(await page.locator('label[for="companyName"]').textContent()).toBe('Şirket adı');
    expect(await page.locator('label[for="contactEmail"]').textContent()).toBe('İletişim e-postası');
    expect(await page.locator('label[for="telegram"]').textContent()).toBe(
      'Telegram kullanıcı adı (isteğe bağlı)',
    );
    expect(await page.locator('#vertical option[value="other"]').textContent()).toBe('Diğer');
    expect(await page.locator('button[type="submit"]').textContent()).toBe('Başvuruyu gönder');
    expect(await page.locator('a.lang').textContent()).toBe('English');

    expect(await submit(page)).toBe(400);
    await expectFieldErrors(page, Object.fromEntries(REQUIRED.map((name) => [name, 'Bu alan zorunludur.'])));
    expect(await page.locator('#form-error').textContent()).toBe('Lütfen işaretli alanları düzeltin.');

    await fill(page, { ...VALID, contactEmail: 'ayse@', monthlyVolumeUSD: '500', vertical: 'other' });
    expect(await submit(page)).toBe(400);
    await expectFieldErrors(page, {
      verticalOther: 'Bu alan zorunludur.',
      monthlyVolumeUSD: 'En az 1.000 USD olmalıdır.',
      contactEmail: 'Geçerli bir e-posta adresi girin.',
    });

    await fill(page, {
      verticalOther: 'Beceri oyunları',
      monthlyVolumeUSD: '1000',
      contactEmail: 'ayse@anatolia.example',
    });
    expect(await submit(page)).toBe(201);
    const id = await expectConfirmation(page, TR_CONFIRMATION);
    expect(await page.locator('#application-success').textContent()).toContain('Başvuru numaranız');
    expect(await storedApplication(id)).toMatchObject({
      vertical_other: 'Beceri oyunları',
      monthly_volume_usd: '1000',
    });
  });

  it('Accept-Language: tr and a Turkish browser pick Turkish; the language link switches both ways', async () => {
    const { page } = await open('/apply', { extraHTTPHeaders: { 'Accept-Language': 'tr' } });
    expect(await page.getAttribute('html', 'lang')).toBe('tr');
    expect(await page.locator('h1').textContent()).toBe('Üye işyeri başvurusu');

    // ?lang= wins over Accept-Language.
    await Promise.all([page.waitForURL(`${web}/apply?lang=en`), page.click('a.lang')]);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.locator('h1').textContent()).toBe('Apply for a merchant account');
    expect(await page.locator('a.lang').textContent()).toBe('Türkçe');

    await Promise.all([page.waitForURL(`${web}/apply?lang=tr`), page.click('a.lang')]);
    expect(await page.locator('label[for="companyName"]').textContent()).toBe('Şirket adı');

    const turkishBrowser = await open('/apply', { locale: 'tr-TR' });
    expect(await turkishBrowser.response.request().headerValue('accept-language')).toMatch(/^tr/);
    expect(await turkishBrowser.page.locator('h1').textContent()).toBe('Üye işyeri başvurusu');

    const english = await open('/apply', { locale: 'en-US' });
    expect(await english.page.locator('h1').textContent()).toBe('Apply for a merchant account');

    // The bare root redirects to the form and keeps the language.
    const root = await open('/?lang=tr');
    expect(root.page.url()).toBe(`${web}/apply?lang=tr`);
    expect(await root.page.locator('h1').textContent()).toBe('Üye işyeri başvurusu');
  });
});

describe('the application form: security', () => {
  it('is served with a strict Content-Security-Policy and loads no inline script or style', async () => {
    const { page, response } = await open();
    const headers = response.headers();
    const csp = headers['content-security-policy'] ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...values]) => [name, values]),
    );
    expect(csp).not.toMatch(/unsafe-|\*|https?:|blob:/);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('form-action')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.has('report-only')).toBe(false);
    expect(headers['content-security-policy-report-only']).toBeUndefined();
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['content-type']).toBe('text/html; charset=utf-8');

    // The only inline script element is inert JSON; the code comes from our own origin.
    expect(await page.locator('script:not([src])').count()).toBe(1);
    expect(await page.getAttribute('script:not([src])', 'type')).toBe('application/json');
    expect(await page.getAttribute('script[src]', 'src')).toBe('/assets/apply.js');
    expect(await page.locator('style, [style], [onclick], [onerror], [onload], [onsubmit]').count()).toBe(0);
  });

  it('the browser enforces it: script injected into the page is refused and reported', async () => {
    const { page, problems } = await open();
    await page.evaluate(`(function () {
      var script = document.createElement('script');
      script.textContent = "document.title = 'pwned by script'";
      document.body.appendChild(script);
      document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="document.title = \\'pwned by handler\\'">');
    })()`);
    await expect.poll(() => problems.filter((problem) => problem.kind === 'csp').length).toBe(2);
    expect(await page.title()).toBe('Apply for a merchant account');
    expect(
      problems.filter((problem) => problem.kind === 'csp').map((problem) => problem.text.split(' ')[0]),
    ).toEqual(['script-src-elem', 'script-src-attr']);
    // These violations were provoked on purpose (Chromium logs each one too); nothing else may happen.
    const provoked = (problem: PageProblem) =>
      problem.kind === 'csp' ||
      (problem.kind === 'console' && problem.text.includes('Content Security Policy'));
    expect(problems.filter(provoked)).toHaveLength(4);
    problems.splice(0, problems.length, ...problems.filter((problem) => !provoked(problem)));
  });

  it('markup typed into any field never executes, before or after submission, and is stored verbatim', async () => {
    const { page } = await open();
    const img = '<img src=x onerror=alert(1)>';
    const script = '"><script>alert(2)</script>';
    await fill(page, {
      ...VALID,
      companyName: img,
      jurisdiction: `${script}${img}`,
      vertical: 'other',
      verticalOther: img,
      currentAcquirer: '</textarea><svg onload=alert(3)>',
      whySwitching: `${script}\n${img}`,
      contactName: script,
      contactEmail: `x@"${img}"`,
      telegram: 'javascript:alert(4)',
    });

    // Refused first (the e-mail address), with our own message and nothing of the value echoed.
    expect(await submit(page)).toBe(400);
    await expectFieldErrors(page, { contactEmail: 'Enter a valid e-mail address.' });

    await page.fill('#contactEmail', 'ayse@anatolia.example');
    expect(await submit(page)).toBe(201);
    const id = await expectConfirmation(page, EN_CONFIRMATION);

    expect(await page.locator('img, svg').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    expect(await storedApplication(id)).toMatchObject({
      company_name: img,
      jurisdiction: `${script}${img}`,
      vertical_other: img,
      current_acquirer: '</textarea><svg onload=alert(3)>',
      why_switching: `${script}\n${img}`,
      contact_name: script,
      telegram: 'javascript:alert(4)',
    });
  });

  it('reflects nothing of a hostile query string or Accept-Language header', async () => {
    const hostile = '"><img src=x onerror=alert(5)>';
    const { page, response } = await open(
      `/apply?lang=${encodeURIComponent(hostile)}&x=${encodeURIComponent(hostile)}`,
      {
        extraHTTPHeaders: { 'Accept-Language': hostile },
      },
    );
    expect(response.headers()['content-language']).toBe('en');
    expect(await page.locator('img').count()).toBe(0);
    const html = await response.text();
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('alert(5)');
    expect(await page.getAttribute('a.lang', 'href')).toBe('?lang=tr');
  });
});

describe('the application form on a phone', () => {
  const phone: BrowserContextOptions = {
    viewport: { width: 375, height: 667 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  };

  async function expectNoHorizontalScroll(page: Page, when: string): Promise<void> {
    await expectPage(page, when, { fits: 375 });
    // Every control lies inside the viewport, and a form control inside the form's own box.
    const form = await page.locator('#application-form').boundingBox();
    const areas = [
      { selector: 'header a, #application-success *', left: 0, right: 375 },
      {
        selector: '#application-form :is(input, select, textarea, button)',
        left: form?.x ?? 0,
        right: form ? form.x + form.width : 375,
      },
    ];
    for (const { selector, left, right } of areas) {
      for (const control of await page.locator(selector).all()) {
        const box = await control.boundingBox();
        if (box === null) continue; // not rendered (a hidden field, or the form after success)
        expect(box.x, `${when}: ${selector}`).toBeGreaterThanOrEqual(left);
        expect(box.x + box.width, `${when}: ${selector}`).toBeLessThanOrEqual(right + 0.5);
      }
    }
  }

  it('fits 375x667 without horizontal scrolling, in both languages, and is submitted by touch', async () => {
    const { page } = await open('/apply?lang=tr', phone);
    await expectNoHorizontalScroll(page, 'Turkish form');
    await page.tap('#vertical');
    await page.selectOption('#vertical', 'other');
    expect(await submit(page, 'tap')).toBe(400);
    await expectNoHorizontalScroll(page, 'Turkish form with errors');

    await page.goto(`${web}/apply`);
    await expectNoHorizontalScroll(page, 'English form');
    expect(await submit(page, 'tap')).toBe(400);
    await expectNoHorizontalScroll(page, 'English form with errors');

    await fill(page, {
      ...VALID,
      companyName: 'Pocket Payments Ltd',
      contactEmail: 'a.very.long.contact.address.for.underwriting@pocket-payments.example',
      whySwitching: 'x'.repeat(300),
    });
    expect(await submit(page, 'tap')).toBe(201);
    const id = await expectConfirmation(page, EN_CONFIRMATION);
    await expectNoHorizontalScroll(page, 'confirmation');
    expect(await storedApplication(id)).toMatchObject({ company_name: 'Pocket Payments Ltd' });
  });
});
