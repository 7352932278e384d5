/**
 * Issue 37 item 7: the operator's disputes queue across merchants, `GET /operator/v1/disputes` and the
 * console page `/disputes`: the nearest `evidenceDueBy` first, those without one last, then by id, cursor
 * paged through every boundary (a shared deadline, the step into the group without a deadline, inside
 * that group), filtered by status, organization and environment, each row with its organization's name
 * (escaped on the page, linking to the merchant view); who may read it; and the merchant view's section
 * of the organization's open disputes. The disputes are raised by the sandbox acquirers (sandbox and
 * live) on paid charges; the sandbox always sets a deadline, so the test clears it on the rows that stand
 * for disputes an acquirer reported without one.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../src/db/schema.js';
import { accessibilityProblems } from './helpers/browser.js';
import { cardPaidCharge, payByCard, postCharge } from './helpers/charges.js';
import { apiRequest } from './helpers/client.js';
import { admin, support, t, useConsoleSuite } from './helpers/console-suite.js';
import { request, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import {
  anonymousClient,
  bearerClient,
  createStaffUser,
  loginStaff,
  sessionClient,
  type OperatorClient,
} from './helpers/operator.js';
import { eventually } from './helpers/process.js';

interface QueuedBody {
  id: string;
  organizationId: string;
  organizationName: string;
  environment: Environment;
  chargeId: string;
  amount: string;
  status: string;
  stage: string;
  evidenceDueBy: string | null;
}
interface QueuePage {
  data: QueuedBody[];
  nextCursor: string | null;
}

/** A name that means markup if a page forgot to escape it. */
const NAMED = `Kapadokya <b>Crafts</b> & "Sons" <script>x</script>`;
/** The disputes one charge carries: 1,000 of its 10,000 each. */
const PER_CHARGE = 9;

let named: Merchant;
let other: Merchant;
let crowded: Merchant;
/** `named`'s open disputes, in queue order: 1 h, 1.5 h (live), 2 h twice, 5 h, and two without a deadline. */
let namedOpen: string[] = [];
let namedLost = '';
let otherOpen = '';
/** `crowded`'s 52: 50 with a deadline (one an hour), then 2 without. */
let crowdedOpen: string[] = [];

const db = () => t.gateway.database.db;
const hoursFromNow = (hours: number) => new Date(t.clock.now().getTime() + hours * 3_600_000).toISOString();

async function paidCharge(merchant: Merchant, environment: Environment) {
  if (environment === 'sandbox')
    return cardPaidCharge<{ id: string; providerPaymentId: string }>(t, merchant, 10_000, 'Queue Test');
  const charge = await postCharge<{ id: string; providerPaymentId: string }>(
    t,
    merchant,
    { amount: 10_000 },
    'live',
  );
  await payByCard(t.gateway.services, charge, 'Queue Test', { environment: 'live' });
  return charge;
}

/**
 * Disputes of 1,000 raised by the acquirer of `environment`, one per deadline of `dues` (in hours from
 * now; null: none), PER_CHARGE to a paid charge; their gateway ids in the same order once all are applied.
 */
async function raised(merchant: Merchant, environment: Environment, dues: Array<number | null>) {
  const acquirer = environment === 'sandbox' ? t.sandboxAcquirer : t.liveAcquirer;
  const groups = Array.from({ length: Math.ceil(dues.length / PER_CHARGE) }, (_, index) =>
    dues.slice(index * PER_CHARGE, (index + 1) * PER_CHARGE),
  );
  // One charge per group, the groups at once; a charge's disputes one after the other.
  const raisedGroups = await Promise.all(
    groups.map(async (group) => {
      const charge = await paidCharge(merchant, environment);
      const ids: string[] = [];
      for (const due of group) {
        const res = await request<{ id: string }>(`${acquirer.url}/_control/disputes`, {
          body: {
            paymentId: charge.providerPaymentId,
            kind: 'dispute',
            reason: 'fraudulent',
            amount: '1000',
            dueBy: hoursFromNow(due ?? 1_000),
          },
          headers: { authorization: `Bearer ${acquirer.apiKey}` },
        });
        expect(res.status, res.text).toBe(201);
        ids.push(res.body.id);
      }
      return ids;
    }),
  );
  const providerIds = raisedGroups.flat();
  let rows: Array<{ id: string; provider_dispute_id: string }> = [];
  await eventually(
    async () => {
      rows = await db()
        .selectFrom('disputes')
        .select(['id', 'provider_dispute_id'])
        .where('provider_dispute_id', 'in', providerIds)
        .where('amount_withdrawn', '>', '0')
        .execute();
      return rows.length === providerIds.length;
    },
    30_000,
    `${providerIds.length} disputes applied`,
  );
  const idOf = new Map(rows.map((row) => [row.provider_dispute_id, row.id]));
  const ids = providerIds.map((providerId) => idOf.get(providerId)!);
  const undated = ids.filter((_, index) => dues[index] === null);
  if (undated.length > 0)
    await db().updateTable('disputes').set({ evidence_due_by: null }).where('id', 'in', undated).execute();
  return ids;
}

const suite = useConsoleSuite({
  allowed: [],
  async setUp() {
    named = await createMerchant(t, { name: NAMED, featureFlags: ['apiKeys', 'disputes'] });
    other = await createMerchant(t, { name: 'Ege Olive Oil' });
    crowded = await createMerchant(t, { name: 'Bosphorus Streams' });
    const [sandbox, [live], [lost], [first], dated, undated] = await Promise.all([
      raised(named, 'sandbox', [2, 1, null, 5, 2, null]),
      raised(named, 'live', [1.5]),
      raised(named, 'sandbox', [6]),
      raised(other, 'sandbox', [0.5]),
      raised(
        crowded,
        'sandbox',
        Array.from({ length: 50 }, (_, hour) => hour + 1),
      ),
      raised(crowded, 'sandbox', [null, null]),
    ]);
    const [twoA, one, noneA, five, twoB, noneB] = sandbox as [string, string, string, string, string, string];
    const [earlierTwo, laterTwo] = [twoA, twoB].sort();
    const [firstNone, secondNone] = [noneA, noneB].sort();
    namedOpen = [one, live!, earlierTwo!, laterTwo!, five, firstNone!, secondNone!];
    namedLost = lost!;
    otherOpen = first!;
    const accepted = await apiRequest(t.urls, `/v1/disputes/${namedLost}/accept`, {
      key: named.keys.sandbox.secret,
      body: {},
    });
    expect(accepted.status, accepted.text).toBe(200);
    crowdedOpen = [...dated!, ...undated!.sort()];
  },
});

const queue = (client: OperatorClient, query = '') =>
  client.get<QueuePage>(`/operator/v1/disputes${query === '' ? '' : `?${query}`}`);

/** Every page of the queue at `limit`, following `nextCursor`: the ids, and the pages' sizes. */
async function walk(client: OperatorClient, filter: string, limit: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof queue>> = await queue(
      client,
      `${filter}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expect(page.status, page.text).toBe(200);
    ids.push(...page.body.data.map((row) => row.id));
    sizes.push(page.body.data.length);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return { ids, sizes };
}

function expectRefusedAt(res: { status: number; text: string; body: ErrorBody }, path: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.details?.issues?.map((issue) => issue.path)).toContain(path);
}

describe('GET /operator/v1/disputes', () => {
  it('lists the open disputes of every merchant, nearest deadline first, with the organization’s name', async () => {
    const staff = await loginStaff(t, support);
    const all = await queue(staff);
    expect(all.status, all.text).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    const ids = all.body.data.map((row) => row.id);
    expect(ids[0]).toBe(otherOpen);
    expect(ids).not.toContain(namedLost);
    expect(ids.filter((id) => namedOpen.includes(id))).toEqual(namedOpen);
    expect(ids.slice(-4)).toEqual([namedOpen[5], namedOpen[6], crowdedOpen[50], crowdedOpen[51]].sort());
    const dues = all.body.data.map((row) => row.evidenceDueBy);
    expect(dues.slice(0, dues.indexOf(null))).toEqual(dues.slice(0, dues.indexOf(null)).sort());
    expect(dues.slice(dues.indexOf(null)).every((due) => due === null)).toBe(true);

    expect(all.body.data.find((row) => row.id === namedOpen[1])).toEqual({
      id: namedOpen[1],
      organizationId: named.organizationId,
      organizationName: NAMED,
      environment: 'live',
      chargeId: expect.stringMatching(/^ch_/),
      amount: '1000',
      currency: 'TRY',
      reason: 'fraudulent',
      reasonCode: '10.4',
      network: 'visa',
      status: 'needs_response',
      stage: 'chargeback',
      evidenceDueBy: hoursFromNow(1.5),
      evidenceSubmittedAt: null,
      amountWithdrawn: '1000',
      createdAt: expect.any(String),
    });
    expect(all.body.data.find((row) => row.id === otherOpen)?.organizationName).toBe('Ege Olive Oil');
  });

  it('pages through every boundary with cursors bound to their filters', async () => {
    const staff = await loginStaff(t, support);
    const filter = `organizationId=${named.organizationId}`;
    for (const limit of [1, 2, 3]) {
      const { ids, sizes } = await walk(staff, filter, limit);
      expect(ids, `limit ${limit}`).toEqual(namedOpen);
      expect(sizes.slice(0, -1).every((size) => size === limit)).toBe(true);
    }
    const crowdedWalk = await walk(staff, `organizationId=${crowded.organizationId}`, 20);
    expect(crowdedWalk).toEqual({ ids: crowdedOpen, sizes: [20, 20, 12] });

    // A cursor comes back only with the filters it was issued for, unedited, and from this list.
    const first = await queue(staff, `${filter}&limit=3`);
    const cursor = encodeURIComponent(first.body.nextCursor!);
    expectRefusedAt(await queue(staff, `limit=3&cursor=${cursor}`), 'cursor');
    expectRefusedAt(await queue(staff, `${filter}&status=needs_response&limit=3&cursor=${cursor}`), 'cursor');
    expectRefusedAt(await queue(staff, `${filter}&limit=3&cursor=${cursor}x`), 'cursor');
    const merchantList = await apiRequest<QueuePage>(t.urls, '/v1/disputes?limit=1', {
      key: named.keys.sandbox.secret,
    });
    expect(merchantList.body.nextCursor).not.toBeNull();
    const foreign = encodeURIComponent(merchantList.body.nextCursor!);
    expectRefusedAt(await queue(staff, `${filter}&limit=3&cursor=${foreign}`), 'cursor');
  });

  it('filters by status, organization and environment', async () => {
    const staff = await loginStaff(t, support);
    const ids = async (query: string) => {
      const res = await queue(staff, query);
      expect(res.status, res.text).toBe(200);
      return res.body.data.map((row) => row.id);
    };
    const org = `organizationId=${named.organizationId}`;
    expect(await ids(`${org}&status=lost`)).toEqual([namedLost]);
    expect(await ids(`${org}&environment=live`)).toEqual([namedOpen[1]]);
    expect(await ids(`${org}&environment=sandbox`)).toEqual(namedOpen.filter((_, index) => index !== 1));
    expect(await ids(`${org}&environment=live&status=lost`)).toEqual([]);
    expect(await ids(`organizationId=${other.organizationId}`)).toEqual([otherOpen]);
    expect(await ids('organizationId=org_unknown')).toEqual([]);
    expect(await ids('status=lost')).toEqual([namedLost]);
    expect((await ids('environment=live')).length).toBe(1);

    expectRefusedAt(await queue(staff, 'status=open'), 'status');
    expectRefusedAt(await queue(staff, 'environment=test'), 'environment');
    expectRefusedAt(await queue(staff, 'limit=0'), 'limit');
    expectRefusedAt(await queue(staff, 'limit=201'), 'limit');
    expect((await queue(staff, 'organization=x')).status).toBe(400);
  });

  it('answers staff of every role, and nobody else', async () => {
    for (const account of [admin, support, await createStaffUser(t, 'underwriter')]) {
      const res = await queue(await loginStaff(t, account), 'limit=1');
      expect(res.status, `${account.role}: ${res.text}`).toBe(200);
    }
    expect((await queue(bearerClient(t, t.gateway.operatorCliToken!), 'limit=1')).status).toBe(200);

    // A staff member disabled since signing in is signed out by it.
    const leaving = await loginStaff(t, await createStaffUser(t, 'support'));
    expect((await queue(leaving, 'limit=1')).status).toBe(200);
    await db()
      .updateTable('staff_users')
      .set({ disabled_at: t.clock.now() })
      .where('id', '=', leaving.account.id)
      .execute();

    for (const client of [
      leaving,
      anonymousClient(t),
      bearerClient(t, 'not-the-cli-token'),
      sessionClient(t, { cookie: 'gw_operator=forged', csrfToken: 'x' }),
    ]) {
      const res = await queue(client);
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.text).not.toContain(named.organizationId);
    }
  });

  it('is documented in the operator OpenAPI document', async () => {
    const res = await request<{
      paths: Record<string, { get?: { parameters?: Array<{ name: string }>; responses: object } }>;
    }>(`${t.urls.operator}/operator/v1/openapi.json`);
    const operation = res.body.paths['/operator/v1/disputes']?.get;
    expect(operation?.parameters?.map((parameter) => parameter.name).sort()).toEqual(
      ['cursor', 'environment', 'limit', 'organizationId', 'status'].sort(),
    );
    expect(JSON.stringify(operation?.responses)).toContain('organizationName');
    expect(JSON.stringify(operation?.responses)).toContain('nextCursor');
  });
});

/** The ids of the queue page's rows, in order. */
const rowIds = (page: Page) =>
  page
    .locator('#disputes-queue tbody tr[data-dispute-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dispute-id')));

describe('the console page /disputes', () => {
  it('shows the queue with escaped names linking to the merchant view, filtered by a GET form', async () => {
    const { page } = await suite.newPage({ viewport: { width: 1280, height: 900 } });
    await suite.signInOperator(page, support, '/disputes');
    expect(await page.locator('h1').textContent()).toBe('Disputes');
    // Fifty to a page: the whole queue's nearest deadlines, those of `named` among them.
    const ids = await rowIds(page);
    expect(ids).toHaveLength(50);
    expect(ids[0]).toBe(otherOpen);
    expect(ids.filter((id) => namedOpen.includes(id!))).toEqual(namedOpen.slice(0, 5));
    expect(await page.locator('#next-page').count()).toBe(1);
    expect(await page.locator('#previous-page').count()).toBe(0);

    const row = page.locator(`#disputes-queue tr[data-dispute-id="${namedOpen[0]}"]`);
    const link = row.locator('td.dispute-organization a');
    expect(await link.textContent()).toBe(NAMED);
    expect(await link.innerHTML()).toContain('&lt;b&gt;Crafts&lt;/b&gt; &amp; "Sons" &lt;script&gt;');
    expect(await link.getAttribute('href')).toBe(`/organizations/${named.organizationId}`);
    expect(await row.locator('td.dispute-due').textContent()).toBe(`${hoursFromNow(1)} (1 h left)`);
    expect(await row.textContent()).toContain('TRY 10.00');
    expect(await accessibilityProblems(page)).toEqual([]);

    // The filters are a GET form: the choice is in the address and the form shows it again.
    await page.fill('#disputes-organization', named.organizationId);
    await suite.submit(page, '#disputes-filter button[type="submit"]');
    expect(await rowIds(page)).toEqual(namedOpen);
    const undated = page.locator(`#disputes-queue tr[data-dispute-id="${namedOpen[5]}"] td.dispute-due`);
    expect(await undated.textContent()).toBe('none');
    expect(await page.locator('#next-page, #previous-page').count()).toBe(0);
    await page.selectOption('#disputes-status', 'lost');
    await suite.submit(page, '#disputes-filter button[type="submit"]');
    expect(new URL(page.url()).searchParams.get('status')).toBe('lost');
    expect(await rowIds(page)).toEqual([namedLost]);
    expect(await page.locator('#disputes-status').inputValue()).toBe('lost');
    expect(await page.locator('#disputes-organization').inputValue()).toBe(named.organizationId);
    await page.selectOption('#disputes-status', '');
    await page.selectOption('#disputes-environment', 'live');
    await suite.submit(page, '#disputes-filter button[type="submit"]');
    expect(await rowIds(page)).toEqual([namedOpen[1]]);

    // The organization's link leads to its merchant view.
    await Promise.all([
      page.waitForURL(new RegExp(`/organizations/${named.organizationId}$`)),
      page.locator('td.dispute-organization a').first().click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe(NAMED);
  });

  it('pages forwards and back with next and previous links that keep the filters', async () => {
    const { page } = await suite.newPage({ viewport: { width: 1280, height: 900 } });
    await suite.signInOperator(page, support, `/disputes?organizationId=${crowded.organizationId}`);
    expect(await rowIds(page)).toEqual(crowdedOpen.slice(0, 50));
    expect(await page.locator('#previous-page').count()).toBe(0);
    await suite.submit(page, '#next-page');
    expect(new URL(page.url()).searchParams.get('organizationId')).toBe(crowded.organizationId);
    expect(await rowIds(page)).toEqual(crowdedOpen.slice(50));
    expect(await page.locator('#next-page').count()).toBe(0);
    await suite.submit(page, '#previous-page');
    expect(await rowIds(page)).toEqual(crowdedOpen.slice(0, 50));
    expect(await page.locator('#previous-page').count()).toBe(0);
    expect(await page.locator('#next-page').count()).toBe(1);
  });

  it('refuses an edited cursor on a page that says so (400)', async () => {
    const staff = await loginStaff(t, support);
    const crowdedPage = await staff.get<string>(`/disputes?organizationId=${crowded.organizationId}`);
    const next = /id="next-page"/.test(crowdedPage.text)
      ? new URLSearchParams(
          /href="\/disputes\?([^"]+)" id="next-page"/.exec(crowdedPage.text)![1]!.replace(/&amp;/g, '&'),
        )
      : undefined;
    const issued = encodeURIComponent(next!.get('cursor')!);
    for (const query of [
      'cursor=forged',
      'before=forged',
      `cursor=${issued}`,
      `organizationId=${named.organizationId}&before=${issued}`,
    ]) {
      const res = await staff.get<string>(`/disputes?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.text).toContain('This page of the disputes queue was refused');
      expect(res.text).toContain('is not a cursor this API issued for this list');
    }
    expect((await staff.get<string>(`/disputes?cursor=${'a'.repeat(501)}`)).status).toBe(400);
    expect((await staff.get<string>('/disputes?limit=5')).status).toBe(400);
    const anonymous = await fetch(`${t.urls.operator}/disputes`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/login?next=%2Fdisputes');
  });

  it('shows the organization’s open disputes on its merchant view, with the filtered queue a click away', async () => {
    const { page } = await suite.newPage({ viewport: { width: 1280, height: 900 } });
    await suite.signInOperator(page, support, `/organizations/${named.organizationId}`);
    const section = page.locator('#merchant-disputes');
    expect(await section.locator('h2').textContent()).toBe('Open disputes');
    expect(
      await section
        .locator('tr[data-dispute-id]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-dispute-id'))),
    ).toEqual(namedOpen);
    expect(await section.textContent()).not.toContain(namedLost);
    await Promise.all([page.waitForURL(/\/disputes\?/), section.locator('#merchant-disputes-link').click()]);
    expect(new URL(page.url()).searchParams.get('organizationId')).toBe(named.organizationId);
    expect(await rowIds(page)).toEqual(namedOpen);

    await page.goto(`${t.urls.operator}/organizations/${other.organizationId}`);
    expect(
      await page.locator('#merchant-disputes tr[data-dispute-id]').evaluateAll((rows) => rows.length),
    ).toBe(1);
    await page.goto(`${t.urls.operator}/organizations/${crowded.organizationId}`);
    expect(await page.locator('#merchant-disputes tr[data-dispute-id]').count()).toBe(10);
    expect(await page.locator('#merchant-disputes .hint').textContent()).toContain('the queue has the rest');
  });
});
