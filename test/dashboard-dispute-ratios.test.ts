/**
 * The chargeback-ratio page of the merchant dashboard (issue 37 item 7, flag `disputes`,
 * docs/dispute-ratios.md): for the session's organization and environment, per scheme, the Visa-style and
 * Mastercard-style ratios of the month so far, their projection, the levels with how close the month is,
 * and six months of history as a server-drawn SVG chart. The data are real: card payments through the
 * sandbox acquirer in October and November, with its dispute and fraud-warning test cards; every number
 * on the page is then the one `GET /v1/dispute-ratios` gives the same merchant. Signed out, the login
 * page; without the flag, no link and 404; another merchant sees only its own; everything escaped; TR
 * and EN.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../src/db/schema.js';
import { createActiveUser, csrfIn, textOf, WebClient } from './helpers/accounts.js';
import { apiRequest } from './helpers/client.js';
import { paidWithEach, RATIO_TEST_ENV } from './helpers/dispute-ratio-data.js';
import { expectLoginFirst } from './helpers/http-checks.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';

const HOSTILE_NAME = 'Oran <script>alert(1)</script> & Ödeme A.Ş.';
const PATH = '/dashboard/dispute-ratios';

const base = accountGateway('api,sandbox-acquirer');
useTestGateway({ ...base, env: { ...base.env, ...RATIO_TEST_ENV } });

let merchant: Merchant;
let other: Merchant;
let unflagged: Merchant;

beforeAll(async () => {
  // October (the clock set back): card sales only, the Mastercard-style ratio's divisor of November.
  const november = t.clock.now();
  t.clock.set(new Date('2026-10-28T10:00:00.000Z'));
  merchant = await createMerchant(t, { name: HOSTILE_NAME, featureFlags: ['disputes'] });
  other = await createMerchant(t, { featureFlags: ['disputes'] });
  unflagged = await createMerchant(t);
  await paidWithEach(t, merchant, { mastercard: 2, visa: 1 });
  t.clock.set(november);
  // November so far: two Visa sales, a Visa dispute, a Visa fraud warning; a Mastercard sale and a
  // Mastercard dispute. The other merchant: one Visa sale.
  await paidWithEach(t, merchant, {
    visa: 2,
    disputeFraudulent: 1,
    earlyFraudWarning: 1,
    mastercard: 1,
    disputeMastercard: 1,
  });
  await paidWithEach(t, other, { visa: 1 });
}, 60_000);

async function signedIn(organizationId: string, role: 'owner' | 'viewer' = 'owner') {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  return client;
}

interface Fraction {
  count: number;
  sales: number;
  percent: string | null;
}
interface Level {
  level: string;
  thresholdPercent: string;
  minimumCount: number;
  crossed: boolean;
  projectedCrossed: boolean;
  proximityPercent: string;
}
interface Current {
  counted?: number;
  sales?: number;
  chargebacks?: number;
  previousMonthSales?: number;
  fraudWarnings?: number;
  disputes?: number;
  percent: string | null;
  projected: Fraction;
  levels: Level[];
}
interface Past {
  month: string;
  visaStyle: { counted: number; sales: number; percent: string | null };
  mastercardStyle: { chargebacks: number; previousMonthSales: number; percent: string | null };
}
interface Ratios {
  month: string;
  asOf: string;
  schemes: Array<{ scheme: string; visaStyle: Current; mastercardStyle: Current; history: Past[] }>;
}

async function apiRatios(of: Merchant, environment: Environment = 'sandbox'): Promise<Ratios> {
  const res = await apiRequest<Ratios>(t.urls, '/v1/dispute-ratios', {
    key: of.keys[environment].secret,
    environment,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The attributes of the first element whose opening tag matches `opening` (`data-x="…"` → `{ x: '…' }`). */
function attributesOf(html: string, opening: RegExp): Record<string, string> {
  const tag = new RegExp(`<[a-z]+ ${opening.source}[^>]*>`).exec(html)?.[0];
  if (tag === undefined) throw new Error(`no element ${opening.source}`);
  return Object.fromEntries([...tag.matchAll(/data-([a-z-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

/** The block of a ratio on the page (`<div class="ratio" id="visa-visa-style" …>` to its end). */
function ratioBlock(html: string, id: string): string {
  const start = html.indexOf(`<div class="ratio" id="${id}"`);
  if (start < 0) throw new Error(`no ratio ${id}`);
  const end = html.indexOf('</figure>', start);
  return html.slice(start, end);
}

const fractionOf = (current: Current, ratio: 'visaStyle' | 'mastercardStyle') =>
  ratio === 'visaStyle'
    ? { count: current.counted, sales: current.sales }
    : { count: current.chargebacks, sales: current.previousMonthSales };

/** Every figure the page shows equals the API's: the month so far, the projection, each level, the history. */
function expectPageMatches(html: string, api: Ratios): void {
  expect(attributesOf(html, /class="intro" id="ratios-intro"/)).toMatchObject({
    month: api.month,
    'as-of': api.asOf,
  });
  for (const scheme of api.schemes) {
    const section = attributesOf(
      html,
      new RegExp(`class="panel wide ratio-scheme" id="scheme-${scheme.scheme}"`),
    );
    if (section.active === 'false') {
      expect(scheme.visaStyle.sales, scheme.scheme).toBe(0);
      expect(scheme.history.every((past) => past.visaStyle.sales === 0)).toBe(true);
      continue;
    }
    for (const ratio of ['visaStyle', 'mastercardStyle'] as const) {
      const id = `${scheme.scheme}-${ratio === 'visaStyle' ? 'visa-style' : 'mastercard-style'}`;
      const current = scheme[ratio];
      const { count, sales } = fractionOf(current, ratio);
      const block = ratioBlock(html, id);
      expect(attributesOf(block, /class="ratio"/), id).toEqual({
        ratio,
        count: String(count),
        sales: String(sales),
        percent: current.percent ?? '',
        'projected-count': String(current.projected.count),
        'projected-sales': String(current.projected.sales),
        'projected-percent': current.projected.percent ?? '',
      });
      const levels = [...block.matchAll(/<tr data-level="[^>]*>/g)].map((m) =>
        attributesOf(m[0], /data-level/),
      );
      expect(levels, id).toEqual(
        current.levels.map((level) => ({
          level: level.level,
          threshold: level.thresholdPercent,
          'minimum-count': String(level.minimumCount),
          proximity: level.proximityPercent,
          crossed: String(level.crossed),
          'projected-crossed': String(level.projectedCrossed),
        })),
      );
      // The chart: a line per level, this month's bar, and the projection drawn apart (dashed, its own class).
      expect(block.match(/<line class="ratio-threshold/g)?.length ?? 0, id).toBe(current.levels.length);
      if (current.percent !== null && current.percent !== '0.0000') {
        expect(block, id).toContain(`class="ratio-bar ratio-current"`);
        expect(block, id).toContain(`data-month="${api.month}" data-percent="${current.percent}"`);
      }
      if (current.projected.percent !== null && current.projected.percent !== '0.0000')
        expect(block, id).toMatch(
          new RegExp(`<rect class="ratio-projection"[^>]*data-percent="${current.projected.percent}"`),
        );
    }
    const history = [...html.matchAll(new RegExp(`<tr data-month="[^"]+" data-visa-count[^>]*>`, 'g'))];
    const ofScheme = history
      .filter((m) => m.index > html.indexOf(`id="scheme-${scheme.scheme}"`))
      .slice(0, 6);
    expect(ofScheme.map((m) => attributesOf(m[0], /data-month/))).toEqual(
      scheme.history.map((past) => ({
        month: past.month,
        'visa-count': String(past.visaStyle.counted),
        'visa-sales': String(past.visaStyle.sales),
        'visa-percent': past.visaStyle.percent ?? '',
        'mastercard-count': String(past.mastercardStyle.chargebacks),
        'mastercard-sales': String(past.mastercardStyle.previousMonthSales),
        'mastercard-percent': past.mastercardStyle.percent ?? '',
      })),
    );
  }
}

describe('the chargeback-ratio page', () => {
  it('needs a session', async () => {
    await expectLoginFirst(t.urls.web, [PATH, `${PATH}?lang=tr`]);
  });

  it('without the flag: no link, and 404', async () => {
    const owner = await signedIn(unflagged.organizationId);
    const home = await owner.get('/dashboard?lang=en');
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('id="dispute-ratios-link"');
    expect((await owner.get(`${PATH}?lang=en`)).status).toBe(404);
  });

  it('shows the merchant the same figures as GET /v1/dispute-ratios, escaped, in English', async () => {
    const viewer = await signedIn(merchant.organizationId, 'viewer');
    const page = await viewer.get(`${PATH}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self'");
    expect(page.text).not.toMatch(/<script|style=|<img/);
    expect(page.text).toContain('Oran &lt;script&gt;alert(1)&lt;/script&gt; &amp; Ödeme A.Ş.');
    expect(page.text).toMatch(
      /<a href="\/dashboard\/dispute-ratios\?lang=en" id="dispute-ratios-link"[^>]*aria-current="page"[^>]*>Chargeback ratios<\/a>/,
    );
    const api = await apiRatios(merchant);
    expectPageMatches(page.text, api);

    // What the data make: Visa 2 counted (the dispute and the fraud warning, on two charges) over 4
    // sales; Mastercard 1 chargeback over October's 2 sales; Troy nothing at all.
    const visa = ratioBlock(page.text, 'visa-visa-style');
    expect(attributesOf(visa, /class="ratio"/)).toMatchObject({ count: '2', sales: '4', percent: '50.0000' });
    expect(visa).toContain('<dd class="ratio-percent">50.0000%</dd>');
    expect(page.text).toContain('1 fraud report and 1 dispute; 0 fraud reports are on a disputed payment.');
    const mastercard = ratioBlock(page.text, 'mastercard-mastercard-style');
    expect(attributesOf(mastercard, /class="ratio"/)).toMatchObject({
      count: '1',
      sales: '2',
      percent: '50.0000',
    });
    expect(mastercard).toContain('<th scope="row">Excessive</th>');
    expect(mastercard).toContain('<td class="num level-threshold">1.5%</td>');
    expect(mastercard).toContain('<svg class="ratio-chart"');
    expect(attributesOf(page.text, /class="panel wide ratio-scheme" id="scheme-troy"/).active).toBe('false');
    expect(textOf(page.text, 'count-rule')).toBe(
      'A payment with both a fraud report and a dispute counts once.',
    );
    // October's Visa sale is history, with its ratio of 0 over 1.
    expect(page.text).toMatch(/<tr data-month="2026-10" data-visa-count="0" data-visa-sales="1"/);
  });

  it('in Turkish', async () => {
    const owner = await signedIn(merchant.organizationId);
    const page = await owner.get(`${PATH}?lang=tr`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-language')).toBe('tr');
    expect(page.text).toContain('<html lang="tr">');
    expect(page.text).toContain('<h1>İtiraz oranları</h1>');
    expect(page.text).toContain('<h3 id="visa-visa-style-heading">Visa tipi oran</h3>');
    expect(ratioBlock(page.text, 'visa-visa-style')).toContain('<dd class="ratio-percent">%50,0000</dd>');
    expect(ratioBlock(page.text, 'mastercard-mastercard-style')).toContain(
      '<td class="num level-threshold">%1,5</td>',
    );
    expect(page.text).toContain('Kasım 2026');
    expectPageMatches(page.text, await apiRatios(merchant));
  });

  it('another merchant sees only its own figures, and each environment its own', async () => {
    const owner = await signedIn(other.organizationId);
    const page = await owner.get(`${PATH}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Oran &lt;script&gt;');
    expectPageMatches(page.text, await apiRatios(other));
    expect(attributesOf(ratioBlock(page.text, 'visa-visa-style'), /class="ratio"/)).toMatchObject({
      count: '0',
      sales: '1',
      percent: '0.0000',
    });
    expect(attributesOf(page.text, /class="panel wide ratio-scheme" id="scheme-mastercard"/).active).toBe(
      'false',
    );

    // Switched to live: nothing was paid there.
    const switched = await owner.postForm('/dashboard/environment?lang=en', {
      _csrf: csrfIn(page.text),
      environment: 'live',
      return: PATH,
    });
    expect(switched.status).toBe(303);
    const live = await owner.get(`${PATH}?lang=en`);
    expect(attributesOf(live.text, /class="intro" id="ratios-intro"/).environment).toBe('live');
    expectPageMatches(live.text, await apiRatios(other, 'live'));
    expect(live.text.match(/data-active="false"/g)?.length).toBe(3);
  });
});
