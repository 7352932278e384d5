/**
 * The card schemes' ratios in the operator console (issue 37 item 7, docs/dispute-ratios.md): the ratio
 * watchlist at `/dispute-ratios` (organizations with card activity this month, the closest to a level
 * first, filtered by environment, named and linked to their merchant view) and the ratios section of the
 * merchant view, over HTTP through the operator listener, with data made by card payments through the
 * sandbox acquirer (its dispute test card). Each row is what the operator API says of the same
 * organization; names escaped; the support role reads; a bad filter is a 400 page; signed out, the login.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEST_ENV } from './helpers/accounts.js';
import { paidWithEach, RATIO_TEST_ENV } from './helpers/dispute-ratio-data.js';
import { payByCard, postCharge } from './helpers/charges.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';
import { t, useTestGateway } from './helpers/suite.js';

const HOSTILE_NAME = 'Kara <b>Liste</b> & Co';

useTestGateway({ env: { ...ACCOUNT_TEST_ENV, ...RATIO_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer' } });

let support: StaffSession;
/** Disputed this month (sandbox), calm this month (sandbox), selling in live, and not selling at all. */
let disputed: Merchant;
let calm: Merchant;
let live: Merchant;
let idle: Merchant;

beforeAll(async () => {
  support = await loginStaff(t, await createStaffUser(t, 'support'));
  disputed = await createMerchant(t, { name: HOSTILE_NAME, featureFlags: ['disputes'] });
  calm = await createMerchant(t, { name: 'Sakin Ticaret' });
  live = await createMerchant(t, { name: 'Canlı Mağaza' });
  idle = await createMerchant(t, { name: 'Boş Dükkan' });
  await Promise.all([
    paidWithEach(t, disputed, { visa: 1, disputeFraudulent: 2, disputeMastercard: 1 }),
    paidWithEach(t, calm, { visa: 2 }),
    (async () => {
      const charge = await postCharge<{ id: string; providerPaymentId: string }>(t, live, {}, 'live');
      await payByCard(t.gateway.services, charge, 'Canli Musteri', { environment: 'live' });
    })(),
  ]);
}, 60_000);

/** A console page as `who` sees it (a staff session, or nobody), redirects not followed. */
async function view(who: StaffSession | null, path: string) {
  const response = await fetch(`${t.urls.operator}${path}`, {
    redirect: 'manual',
    headers: who ? { cookie: who.cookie } : {},
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

interface WatchRow {
  organizationId: string;
  environment: string;
  proximityPercent: string;
  scheme: string;
  ratio: string;
  level: string;
  crossed: string[];
  percent: string | null;
  count: number;
  projectedPercent: string | null;
}

async function watchlistApi(query = ''): Promise<WatchRow[]> {
  const res = await support.get<{ data: WatchRow[] }>(
    `/operator/v1/dispute-ratios/watchlist?limit=200${query}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The watchlist's rows on the page: their organization, environment and figures, in order. */
const rowsIn = (html: string) =>
  [
    ...html.matchAll(/<tr data-organization-id="([^"]+)" data-environment="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g),
  ].map((m) => ({ organizationId: m[1], environment: m[2], tag: m[0], html: m[3] ?? '' }));
const cell = (rowHtml: string, name: string) =>
  new RegExp(`class="[^"]*${name}"[^>]*>([\\s\\S]*?)</(?:td|span|a)>`).exec(rowHtml)?.[1]?.trim();

describe('the ratio watchlist', () => {
  it('sends a signed-out visitor to the login page', async () => {
    const res = await view(null, '/dispute-ratios');
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/login?next=${encodeURIComponent('/dispute-ratios')}`);
  });

  it('lists the organizations with card activity, closest first, as the API does, named and escaped', async () => {
    const page = await view(support, '/dispute-ratios');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/dispute-ratios">Ratio watchlist</a>');
    expect(page.html).not.toMatch(/<script|style=/);
    const api = await watchlistApi();
    const rows = rowsIn(page.html);
    expect(rows.map((row) => [row.organizationId, row.environment])).toEqual(
      api.map((row) => [row.organizationId, row.environment]),
    );
    const ours = rows.filter((row) =>
      [disputed, calm, live, idle].some((m) => m.organizationId === row.organizationId),
    );
    expect(ours.map((row) => row.organizationId)).toEqual([
      disputed.organizationId,
      ...[calm.organizationId, live.organizationId].sort(),
    ]);
    for (const row of rows) {
      const expected = api.find(
        (r) => r.organizationId === row.organizationId && r.environment === row.environment,
      )!;
      expect(row.tag).toContain(`data-proximity="${expected.proximityPercent}"`);
      expect(row.tag).toContain(`data-scheme="${expected.scheme}" data-ratio="${expected.ratio}"`);
      expect(row.tag).toContain(`data-level="${expected.level}"`);
      expect(cell(row.html, 'watch-count')).toBe(String(expected.count));
      expect(cell(row.html, 'watch-percent')).toBe(
        expected.percent === null ? 'no sales' : `${expected.percent}%`,
      );
      expect(cell(row.html, 'watch-projected')).toBe(
        expected.projectedPercent === null ? 'no sales' : `${expected.projectedPercent}%`,
      );
      expect(cell(row.html, 'watch-crossed')).toBe(
        expected.crossed.length === 0 ? 'none' : expected.crossed.join(', '),
      );
    }
    // Closest: the Mastercard chargeback over no sales last month, 1 of the watch level's 75 (1.33%),
    // before the two Visa disputes (2 of 1125).
    const first = ours[0]!;
    expect(cell(first.html, 'watch-organization')).toBe('Kara &lt;b&gt;Liste&lt;/b&gt; &amp; Co');
    expect(first.html).toContain(`href="/organizations/${disputed.organizationId}"`);
    expect(cell(first.html, 'watch-level')).toBe('mastercard · Mastercard-style · watch');
    expect(cell(first.html, 'watch-proximity')).toBe('1.33%');
    expect(cell(first.html, 'watch-percent')).toBe('no sales');
    expect(cell(ours[1]!.html, 'watch-proximity')).toBe('0.00%');
  });

  it('filters by environment, and refuses an unknown one', async () => {
    const sandbox = rowsIn((await view(support, '/dispute-ratios?environment=sandbox')).html);
    expect(sandbox.every((row) => row.environment === 'sandbox')).toBe(true);
    expect(sandbox.map((row) => row.organizationId)).toEqual(
      (await watchlistApi('&environment=sandbox')).map((row) => row.organizationId),
    );
    expect(sandbox.some((row) => row.organizationId === disputed.organizationId)).toBe(true);
    const livePage = await view(support, '/dispute-ratios?environment=live');
    const liveRows = rowsIn(livePage.html);
    expect(liveRows.map((row) => row.organizationId)).toContain(live.organizationId);
    expect(liveRows.every((row) => row.environment === 'live')).toBe(true);
    expect(livePage.html).toContain('<option value="live" selected>live</option>');
    expect((await view(support, '/dispute-ratios?environment=%3Cb%3E')).status).toBe(400);
  });
});

describe('the merchant view', () => {
  it('has the month’s ratios of both environments, as the operator API gives them', async () => {
    const page = await view(support, `/organizations/${disputed.organizationId}`);
    expect(page.status).toBe(200);
    const section =
      /<section class="panel" id="dispute-ratios"[\s\S]*?<\/section>/.exec(page.html)?.[0] ?? '';
    expect(section).toContain('Card scheme ratios');
    expect(section).toContain(
      '<p class="no-ratios" data-environment="live">No card sales, disputes or fraud reports this month.</p>',
    );
    const res = await support.get<{
      schemes: Array<{
        scheme: string;
        visaStyle: {
          counted: number;
          sales: number;
          percent: string | null;
          projected: { percent: string | null };
        };
        mastercardStyle: {
          chargebacks: number;
          previousMonthSales: number;
          percent: string | null;
          projected: { percent: string | null };
        };
      }>;
    }>(`/operator/v1/organizations/${disputed.organizationId}/dispute-ratios?environment=sandbox`);
    expect(res.status, res.text).toBe(200);
    const shown = [...section.matchAll(/<tr data-scheme="([^"]+)" data-ratio="([^"]+)"[^>]*>/g)].map(
      (m) => m[0],
    );
    const expected = res.body.schemes.flatMap((scheme) =>
      [
        {
          ratio: 'visa_style',
          count: scheme.visaStyle.counted,
          sales: scheme.visaStyle.sales,
          percent: scheme.visaStyle.percent,
          projected: scheme.visaStyle.projected,
        },
        {
          ratio: 'mastercard_style',
          count: scheme.mastercardStyle.chargebacks,
          sales: scheme.mastercardStyle.previousMonthSales,
          percent: scheme.mastercardStyle.percent,
          projected: scheme.mastercardStyle.projected,
        },
      ]
        .filter((row) => row.count > 0 || row.sales > 0)
        .map(
          (row) =>
            `<tr data-scheme="${scheme.scheme}" data-ratio="${row.ratio}" data-count="${row.count}" ` +
            `data-sales="${row.sales}" data-percent="${row.percent ?? ''}" ` +
            `data-projected-percent="${row.projected.percent ?? ''}">`,
        ),
    );
    expect(shown).toEqual(expected);
    // Visa: 2 disputes over 3 sales; Mastercard: a dispute over a sale this month, none last month.
    expect(shown).toEqual(
      expect.arrayContaining([
        expect.stringContaining('data-scheme="visa" data-ratio="visa_style" data-count="2" data-sales="3"'),
        expect.stringContaining(
          'data-scheme="mastercard" data-ratio="mastercard_style" data-count="1" data-sales="0"',
        ),
      ]),
    );
  });

  it('says so for an organization without card activity', async () => {
    const page = await view(support, `/organizations/${idle.organizationId}`);
    expect(page.status).toBe(200);
    expect(page.html.match(/<p class="no-ratios" data-environment="(live|sandbox)">/g)?.length).toBe(2);
  });
});
