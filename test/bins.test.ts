/**
 * Issue 38 item 1: the gateway's one BIN table (docs/risk.md, "The BIN table"). Every sandbox test card
 * and the instalment cards of issue 40 find their seeded row; a lookup takes the longest prefix (8, then
 * 7, then 6 digits) and, without a row, names the scheme by `credit-card-type` and the Troy rule; the
 * operator lists, reads and loads rows from a CSV file, every bad line refused with its line and nothing
 * loaded; who may read and who may load; the OpenAPI document; and the console page `/bins` in Chromium
 * (rows, prefix search, escaping, the upload form and its refusal).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TEST_CARDS, type TestCard } from '../sandbox-acquirer/cards.js';
import type { BinInfo } from '../src/modules/bins/index.js';
import { expectPage } from './helpers/browser.js';
import { admin, refusedForm, support, t, useConsoleSuite } from './helpers/console-suite.js';
import { request, type ErrorBody } from './helpers/http.js';
import { loginStaff, type StaffSession } from './helpers/operator.js';

const HEADER = 'prefix,scheme,country,issuer,funding,category,programme';

let adminApi: StaffSession;
let supportApi: StaffSession;

const suite = useConsoleSuite({
  allowed: [refusedForm([/\/bins\/import$|\/bins\?prefix=4x$/, '400 (Bad Request)'])],
  async setUp() {
    [adminApi, supportApi] = await Promise.all([loginStaff(t, admin), loginStaff(t, support)]);
  },
});

const lookup = (bin: string) => t.gateway.services.bins.lookup(bin);
const db = () => t.gateway.database.db;

interface ImportBody {
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  sha256: string;
}

/** POST /operator/v1/bins/import with a raw body and these headers. */
function rawLoad(body: string | Buffer, headers: Record<string, string>) {
  return request<ImportBody & ErrorBody>(`${t.urls.operator}/operator/v1/bins/import`, {
    method: 'POST',
    rawBody: body,
    headers: { 'content-type': 'text/csv; charset=utf-8', ...headers },
  });
}

const asSession = (session: StaffSession) => ({ cookie: session.cookie, 'x-csrf-token': session.csrfToken });
const asAdmin = () => asSession(adminApi);

const issuesOf = (body: ErrorBody) => body.error.details?.issues ?? [];

describe('the seeded rows', () => {
  it('give every sandbox test card its row, the scheme the sandbox names', async () => {
    const cards: TestCard[] = Object.values(TEST_CARDS);
    for (const card of cards) {
      const found = await lookup(card.number.slice(0, 8));
      expect(found.source, card.number).toBe('table');
      expect(found.scheme, card.number).toBe(card.brand);
      expect(found.funding, card.number).not.toBe('unknown');
    }
  });

  it('say what the issue names of the cards', async () => {
    const expected: Array<[string, Partial<BinInfo>]> = [
      [
        TEST_CARDS.visa.number,
        { prefix: '424242', scheme: 'visa', country: 'US', funding: 'credit', category: 'consumer' },
      ],
      [TEST_CARDS.mastercard.number, { prefix: '555555', scheme: 'mastercard', country: 'TR' }],
      [TEST_CARDS.troy.number, { prefix: '97920303', scheme: 'troy', country: 'TR', programme: 'Bankkart' }],
      [TEST_CARDS.disputeTroy.number, { prefix: '97920300', scheme: 'troy', country: 'TR' }],
      [TEST_CARDS.challengeFails.number, { prefix: '40000084', country: 'US' }],
      [TEST_CARDS.insufficientFunds.number, { prefix: '40000000', country: 'US' }],
      // Issue 40's instalment cards.
      [
        '5400610000000001',
        {
          prefix: '54006100',
          scheme: 'mastercard',
          country: 'TR',
          funding: 'credit',
          category: 'consumer',
          programme: 'Bonus',
          issuer: 'Garanti BBVA',
        },
      ],
      ['9792030100000009', { prefix: '97920301', scheme: 'troy', country: 'TR', funding: 'credit' }],
      ['4000579000000005', { prefix: '40005790', scheme: 'visa', country: 'TR', funding: 'debit' }],
      [
        '5400620000000000',
        {
          prefix: '54006200',
          scheme: 'mastercard',
          country: 'TR',
          funding: 'credit',
          category: 'commercial',
        },
      ],
      // The sandbox's card-testing range (4000 012…).
      ['4000012000000007', { prefix: '4000012', scheme: 'visa', funding: 'prepaid' }],
    ];
    for (const [number, info] of expected) {
      expect(await lookup(number.slice(0, 8)), number).toMatchObject({ source: 'table', ...info });
    }
    const seeded = await db()
      .selectFrom('card_bins')
      .select('updated_by')
      .where('prefix', '=', '424242')
      .execute();
    expect(seeded).toEqual([{ updated_by: 'migration' }]);
  });
});

describe('a lookup', () => {
  it('takes the longest prefix the digits begin with: 8, then 7, then 6', async () => {
    const csv = [
      HEADER,
      '400001,visa,GB,Six Digit Bank,debit,consumer,',
      '40000123,visa,DE,Eight Digit Bank,credit,commercial,',
    ].join('\n');
    expect((await rawLoad(csv, asAdmin())).status).toBe(200);
    expect(await lookup('40000123')).toMatchObject({ source: 'table', prefix: '40000123', country: 'DE' });
    // 4000 012 (7 digits, seeded) is longer than 400001.
    expect(await lookup('40000124')).toMatchObject({ prefix: '4000012', country: 'US' });
    expect(await lookup('40000199')).toMatchObject({ prefix: '400001', country: 'GB' });
    // Six digits find only a row of six; more than eight are cut to eight.
    expect(await lookup('400001')).toMatchObject({ prefix: '400001', bin: '400001' });
    expect(await lookup('4000012300000001')).toMatchObject({ prefix: '40000123', bin: '40000123' });
  });

  it('without a row, names the scheme by the rules and nothing else', async () => {
    const byRules = async (bin: string) => {
      const found = await lookup(bin);
      expect(found, bin).toMatchObject({
        source: 'scheme_rules',
        prefix: null,
        country: 'unknown',
        issuer: null,
        funding: 'unknown',
        category: 'unknown',
        programme: null,
      });
      return found.scheme;
    };
    expect(await byRules('51000000')).toBe('mastercard');
    expect(await byRules('22210000')).toBe('mastercard');
    expect(await byRules('41111111')).toBe('visa');
    expect(await byRules('37828224')).toBe('amex');
    expect(await byRules('36000000')).toBe('diners');
    expect(await byRules('35280000')).toBe('jcb');
    expect(await byRules('62212600')).toBe('unionpay');
    // Troy: BKM's 9792, and its ranges inside Discover's 65 (credit-card-type's list); Discover otherwise.
    expect(await byRules('97921000')).toBe('troy');
    expect(await byRules('979209')).toBe('troy');
    expect(await byRules('65027400')).toBe('troy');
    expect(await byRules('65083701')).toBe('troy');
    expect(await byRules('65083799')).toBe('discover');
    expect(await byRules('60110000')).toBe('discover');
    // Digits no scheme has, and fewer than six (no row is asked for).
    expect(await lookup('99999999')).toMatchObject({ source: 'none', scheme: 'unknown', country: 'unknown' });
    expect(await lookup('42424')).toMatchObject({ source: 'scheme_rules', scheme: 'visa', prefix: null });
    expect(await lookup('')).toMatchObject({ source: 'none', bin: '' });
  });

  it('is answered to the operator, read permission enough', async () => {
    const res = await supportApi.get<BinInfo>('/operator/v1/bin-lookups/97920303');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ source: 'table', scheme: 'troy', country: 'TR', prefix: '97920303' });
    const whole = await supportApi.get(`/operator/v1/bin-lookups/${TEST_CARDS.visa.number}`);
    expect(whole.status).toBe(400);
    expect(issuesOf(whole.body)[0]).toMatchObject({ path: 'bin', in: 'path' });
  });
});

describe('POST /operator/v1/bins/import', () => {
  it('upserts every row by prefix in one audited load', async () => {
    const csv =
      '\uFEFFcountry,prefix,scheme,issuer,funding,category,programme\r\n' +
      'tr,51234500,MasterCard,"Türkiye ""Örnek"" Bankası, A.Ş.",Credit,consumer,World\r\n' +
      'TR,51234501,mastercard,,debit,commercial,\r\n' +
      '\r\n' +
      'US,412345,visa,Plain Bank,prepaid,consumer,  \r\n';
    const first = await rawLoad(csv, asAdmin());
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      rows: 3,
      inserted: 3,
      updated: 0,
      unchanged: 0,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const row = await supportApi.get('/operator/v1/bins/51234500');
    expect(row.status, row.text).toBe(200);
    expect(row.body).toEqual({
      prefix: '51234500',
      scheme: 'mastercard',
      country: 'TR',
      issuer: 'Türkiye "Örnek" Bankası, A.Ş.',
      funding: 'credit',
      category: 'consumer',
      programme: 'World',
      updatedAt: t.clock.now().toISOString(),
      updatedBy: `staff:${admin.id}`,
    });
    expect((await supportApi.get('/operator/v1/bins/51234501')).body).toMatchObject({
      issuer: null,
      programme: null,
      category: 'commercial',
    });

    // The same file again changes nothing; one changed row is one update, by the CLI this time.
    expect((await rawLoad(csv, asAdmin())).body).toMatchObject({ rows: 3, inserted: 0, unchanged: 3 });
    const changed = csv.replace('Plain Bank,prepaid', 'Plain Bank,debit');
    const cli = await rawLoad(changed, { authorization: `Bearer ${t.gateway.operatorCliToken}` });
    expect(cli.body).toMatchObject({ rows: 3, inserted: 0, updated: 1, unchanged: 2 });
    expect((await lookup('41234599')).funding).toBe('debit');
    expect((await supportApi.get('/operator/v1/bins/412345')).body).toMatchObject({ updatedBy: 'cli' });

    const audits = await db()
      .selectFrom('audit_log')
      .select(['actor', 'after', 'request_id'])
      .where('action', '=', 'bin_table.imported')
      .where('target_id', '=', 'card_bins')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audits.at(-1)).toMatchObject({
      actor: 'cli',
      after: { rows: 3, inserted: 0, updated: 1, unchanged: 2, sha256: cli.body.sha256 },
      request_id: cli.headers.get('x-request-id'),
    });
    expect(audits.some((entry) => entry.actor === `staff:${admin.id}`)).toBe(true);
  });

  it('refuses a file with bad lines, each named with its line and problem, and loads none of it', async () => {
    const csv = [
      HEADER,
      '12345,visa,TR,Bank,credit,consumer,',
      '55000001,visaa,TR,Bank,credit,consumer,',
      '55000002,visa,XX,Bank,credit,consumer,',
      '55000003,visa,TR,Bank,charge,consumer,',
      '55000004,visa,TR,Bank,credit,personal,',
      '55000005,visa,TR,Bank,credit,consumer',
      '55000006,visa,TR,"Bank,credit,consumer,',
      `55000007,visa,TR,${'B'.repeat(121)},credit,consumer,`,
      '55000008,visa,TR,Bank,credit,consumer,Bonus',
      '55000008,visa,TR,Bank,credit,consumer,World',
      ',visa,tr,Bank,,consumer,',
      '55000009,visa,TR,Bank\u0007,credit,consumer,',
    ].join('\n');
    const res = await rawLoad(csv, asAdmin());
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.message).toBe('The BIN file was not loaded: 12 problems; nothing was changed.');
    expect(issuesOf(res.body).map(({ path, code, message }) => ({ path, code, message }))).toEqual([
      {
        path: 'lines.2.prefix',
        code: 'invalid_format',
        message: 'line 2: prefix "12345" is not 6 to 8 digits',
      },
      {
        path: 'lines.3.scheme',
        code: 'invalid_value',
        message: expect.stringMatching(/^line 3: scheme "visaa" is not one of visa, mastercard, amex, troy,/),
      },
      {
        path: 'lines.4.country',
        code: 'invalid_value',
        message: 'line 4: country "XX" is not an ISO 3166-1 alpha-2 code',
      },
      {
        path: 'lines.5.funding',
        code: 'invalid_value',
        message: 'line 5: funding "charge" is not one of credit, debit, prepaid',
      },
      {
        path: 'lines.6.category',
        code: 'invalid_value',
        message: 'line 6: category "personal" is not one of consumer, commercial',
      },
      { path: 'lines.7', code: 'invalid_format', message: 'line 7: 6 fields where the header has 7' },
      {
        path: 'lines.8',
        code: 'invalid_format',
        message: 'line 8: a quoted field is not closed on its line',
      },
      { path: 'lines.9.issuer', code: 'too_long', message: 'line 9: issuer is longer than 120 characters' },
      {
        path: 'lines.11.prefix',
        code: 'invalid_value',
        message: 'line 11: prefix 55000008 is also on line 10',
      },
      { path: 'lines.12.prefix', code: 'required', message: 'line 12: prefix is empty' },
      {
        path: 'lines.12.funding',
        code: 'required',
        message: 'line 12: funding is empty; it is one of credit, debit, prepaid',
      },
      {
        path: 'lines.13.issuer',
        code: 'invalid_value',
        message: 'line 13: issuer holds a control character',
      },
    ]);
    for (const prefix of ['55000008', '55000001', '55000009'])
      expect((await supportApi.get(`/operator/v1/bins/${prefix}`)).status).toBe(404);
  });
});

describe('what a load refuses besides bad rows', () => {
  it('a bad header, an empty file, bytes that are not UTF-8, a card number, more problems than it lists', async () => {
    const header = await rawLoad(
      'prefix,scheme,nation,issuer,funding,category,programme,scheme\n',
      asAdmin(),
    );
    expect(header.status).toBe(400);
    expect(issuesOf(header.body).map(({ path, code, message }) => ({ path, code, message }))).toEqual([
      { path: 'lines.1', code: 'unknown_field', message: 'line 1: unknown column "nation"' },
      { path: 'lines.1.scheme', code: 'invalid_value', message: 'line 1: column "scheme" appears twice' },
      { path: 'lines.1.country', code: 'required', message: 'line 1: the header has no "country" column' },
    ]);

    const empty = await rawLoad(`${HEADER}\n\n`, asAdmin());
    expect(empty.status).toBe(400);
    expect(issuesOf(empty.body)).toEqual([
      { path: 'lines.2', in: 'body', code: 'required', message: 'line 2: the file has no rows' },
    ]);

    const latin1 = Buffer.concat([
      Buffer.from(`${HEADER}\n55100000,visa,TR,`),
      Buffer.from([0xdc, 0x6e, 0x69]), // "Üni" in ISO-8859-9
      Buffer.from(',credit,consumer,\n'),
    ]);
    const notUtf8 = await rawLoad(latin1, asAdmin());
    expect(notUtf8.status).toBe(400);
    expect(notUtf8.body.error.message).toBe('The BIN file must be UTF-8 text.');

    const card = await rawLoad(
      `${HEADER}\n${TEST_CARDS.visa.number},visa,US,Bank,credit,consumer,\n`,
      asAdmin(),
    );
    expect(card.status).toBe(400);
    expect(card.body.error.message).toBe('The request carries what looks like a card number.');
    expect(card.text).not.toContain(TEST_CARDS.visa.number);

    const many = [
      HEADER,
      ...Array.from({ length: 150 }, (_, i) => `${5600000 + i},visa,QQ,Bank,credit,consumer,`),
    ];
    const capped = await rawLoad(many.join('\n'), asAdmin());
    expect(capped.status).toBe(400);
    expect(issuesOf(capped.body)).toHaveLength(100);
    expect(capped.body.error.message).toBe(
      'The BIN file was not loaded: 150 problems (the first 100 listed); nothing was changed.',
    );
    expect((await supportApi.get('/operator/v1/bins/5600000')).status).toBe(404);
  });

  it('a body that is not text/csv (415) or past the size limit (413)', async () => {
    const json = await request<ErrorBody>(`${t.urls.operator}/operator/v1/bins/import`, {
      body: { csv: HEADER },
      headers: asAdmin(),
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('unsupported_media_type');
    const latin = await rawLoad(`${HEADER}\n`, {
      ...asAdmin(),
      'content-type': 'text/csv; charset=iso-8859-9',
    });
    expect(latin.status).toBe(415);
    const line = '55200000,visa,TR,Bank,credit,consumer,\n';
    const huge = `${HEADER}\n${line.repeat(Math.ceil((8 * 1024 * 1024) / line.length) + 1)}`;
    const tooLarge = await rawLoad(huge, asAdmin());
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
  });
});

describe('GET /operator/v1/bins', () => {
  it('lists rows in prefix order, filtered by prefix, country and scheme, a page at a time', async () => {
    const troy = await supportApi.get<{ data: Array<{ prefix: string }>; nextCursor: string | null }>(
      '/operator/v1/bins?prefix=9792&limit=2',
    );
    expect(troy.status, troy.text).toBe(200);
    expect(troy.body.data.map((row) => row.prefix)).toEqual(['97920300', '97920301']);
    const next = await supportApi.get<{ data: Array<{ prefix: string }>; nextCursor: string | null }>(
      `/operator/v1/bins?prefix=9792&limit=2&cursor=${encodeURIComponent(troy.body.nextCursor!)}`,
    );
    expect(next.body.data.map((row) => row.prefix)).toEqual(['97920303']);
    expect(next.body.nextCursor).toBeNull();
    // A cursor is bound to its filter.
    const other = await supportApi.get(
      `/operator/v1/bins?prefix=40&limit=2&cursor=${encodeURIComponent(troy.body.nextCursor!)}`,
    );
    expect(other.status).toBe(400);
    expect(issuesOf(other.body)[0]).toMatchObject({ path: 'cursor', in: 'query' });

    const turkishMastercard = await supportApi.get<{ data: Array<{ prefix: string; country: string }> }>(
      '/operator/v1/bins?country=TR&scheme=mastercard&limit=500',
    );
    const prefixes = turkishMastercard.body.data.map((row) => row.prefix);
    expect(prefixes).toEqual(expect.arrayContaining(['520000', '54006100', '54006200', '555555']));
    expect(prefixes).toEqual([...prefixes].sort());
    expect(turkishMastercard.body.data.every((row) => row.country === 'TR')).toBe(true);

    for (const query of ['prefix=4x', 'country=tr', 'scheme=bank', 'limit=501'])
      expect((await supportApi.get(`/operator/v1/bins?${query}`)).status, query).toBe(400);
    expect((await supportApi.get('/operator/v1/bins/12345678')).status).toBe(404);
    expect((await supportApi.get('/operator/v1/bins/12345')).status).toBe(400);
  });
});

describe('who may', () => {
  it('read: any staff role and the CLI; nobody without credentials', async () => {
    const reads = ['/operator/v1/bins', '/operator/v1/bins/424242', '/operator/v1/bin-lookups/424242'];
    for (const path of reads) {
      expect((await supportApi.get(path)).status, path).toBe(200);
      expect(
        (
          await request(`${t.urls.operator}${path}`, {
            headers: { authorization: `Bearer ${t.gateway.operatorCliToken}` },
          })
        ).status,
      ).toBe(200);
      const refused: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer not-the-cli-token' },
        { cookie: 'gw_operator=forged' },
      ];
      for (const headers of refused) {
        const res = await request<ErrorBody>(`${t.urls.operator}${path}`, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    }
  });

  it('load: administrators and the CLI only, with the session’s CSRF token', async () => {
    const csv = `${HEADER}\n55300000,visa,TR,Bank,credit,consumer,\n`;
    const refusals: Array<[Record<string, string>, number, string]> = [
      [{}, 401, 'unauthorized'],
      [{ authorization: 'Bearer not-the-cli-token' }, 401, 'unauthorized'],
      [{ cookie: 'gw_operator=forged', 'x-csrf-token': 'x' }, 401, 'unauthorized'],
      [asSession(supportApi), 403, 'forbidden'],
      [{ cookie: adminApi.cookie }, 403, 'forbidden'],
      [{ cookie: adminApi.cookie, 'x-csrf-token': 'not-the-token' }, 403, 'forbidden'],
    ];
    for (const [headers, status, code] of refusals) {
      const res = await rawLoad(csv, headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    // Who may call comes before what the body is (a JSON body to the CSV route: 403, not 415).
    expect(
      (await rawLoad('{"csv": "x"}', { ...asSession(supportApi), 'content-type': 'application/json' }))
        .status,
    ).toBe(403);
    expect((await supportApi.get('/operator/v1/bins/55300000')).status).toBe(404);
    expect((await rawLoad(csv, asAdmin())).status).toBe(200);
  });
});

describe('the operator OpenAPI document', () => {
  it('documents the BIN table routes, the load as a text/csv body', async () => {
    const res = await request<{
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> }
        >
      >;
    }>(`${t.urls.operator}/operator/v1/openapi.json`);
    const { paths } = res.body;
    expect(Object.keys(paths['/operator/v1/bins']!)).toEqual(['get']);
    expect(paths['/operator/v1/bins/{prefix}']?.get).toBeDefined();
    expect(paths['/operator/v1/bin-lookups/{bin}']?.get).toBeDefined();
    const load = paths['/operator/v1/bins/import']?.post;
    expect(Object.keys(load?.requestBody?.content ?? {})).toEqual(['text/csv']);
    expect(Object.keys(load?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '413',
      '415',
      '429',
    ]);
  });
});

/** A name that means markup if the page forgot to escape it. */
const MARKUP = 'Kapadokya <b>Bank</b> & "Sons" <script>x</script>';

async function consolePage(account: typeof admin, path: string): Promise<Page> {
  const { page } = await suite.newPage({ viewport: { width: 1280, height: 900 } });
  await suite.signInOperator(page, account, path);
  return page;
}

/** Chooses a file for the upload form and submits it; the status of the form's answer. */
async function upload(page: Page, csv: string): Promise<number> {
  await page.setInputFiles('#bins-file', {
    name: 'bins.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  const [response] = await Promise.all([
    page.waitForResponse((res) => res.request().method() === 'POST' && res.url().endsWith('/bins/import')),
    page.click('#bins-import button[type="submit"]'),
  ]);
  await page.waitForLoadState();
  return response.status();
}

const rowPrefixes = (page: Page) =>
  page
    .locator('#bins tbody tr[data-prefix]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-prefix')));

describe('the console page /bins', () => {
  it('lists the rows with a prefix search; support sees no upload form', async () => {
    const page = await consolePage(support, '/bins');
    expect(await page.locator('h1').textContent()).toBe('BIN table');
    expect(await page.locator('nav.op-nav a[href="/bins"]').textContent()).toBe('BIN table');
    expect(await rowPrefixes(page)).toEqual(expect.arrayContaining(['424242', '555555', '97920303']));
    expect(await page.locator('#bins-import').count()).toBe(0);
    await expectPage(page, 'the BIN table', { scripts: 'none' });

    await page.fill('#bins-prefix', '9792');
    await suite.submit(page, '#bins-search button[type="submit"]');
    expect(await rowPrefixes(page)).toEqual(['97920300', '97920301', '97920303']);
    expect(await page.locator('tr[data-prefix="97920303"] .bin-programme').textContent()).toBe('Bankkart');

    const refused = await page.goto(`${t.urls.operator}/bins?prefix=4x`);
    expect(refused?.status()).toBe(400);
    expect(await page.locator('p.form-error').textContent()).toBe(
      'Search by the first 1 to 8 digits of a prefix.',
    );
  });

  it('loads a file from the upload form, escaping what it shows, and lists a bad file’s problems', async () => {
    const page = await consolePage(admin, '/bins');
    const good = `${HEADER}\n55400000,mastercard,TR,"${MARKUP.replaceAll('"', '""')}",credit,consumer,Axess\n`;
    expect(await upload(page, good)).toBe(303);
    expect(await page.locator('p.notice').textContent()).toBe(
      'BIN file loaded: 1 new, 0 changed, 0 unchanged.',
    );
    await page.fill('#bins-prefix', '554');
    await suite.submit(page, '#bins-search button[type="submit"]');
    const issuer = page.locator('tr[data-prefix="55400000"] .bin-issuer');
    expect(await issuer.textContent()).toBe(MARKUP);
    expect(await issuer.innerHTML()).toContain('&lt;b&gt;Bank&lt;/b&gt; &amp; "Sons" &lt;script&gt;');
    expect(await page.locator('tr[data-prefix="55400000"] td').nth(7).textContent()).toBe(admin.name);

    const bad = `${HEADER}\n55400001,visa,TR,Bank,credit,consumer,\n55400002,visa,TURKEY,Bank,credit,consumer,\n`;
    expect(await upload(page, bad)).toBe(400);
    expect(await page.locator('p.form-error').textContent()).toBe(
      'The BIN file was not loaded: 1 problem; nothing was changed.',
    );
    expect(await page.locator('#bins-problems li').allTextContents()).toEqual([
      'line 3: country "TURKEY" is not an ISO 3166-1 alpha-2 code',
    ]);
    await expectPage(page, 'a refused BIN file', { scripts: 'none' });
    expect((await t.gateway.services.bins.get('55400001')).ok).toBe(false);
  });
});
