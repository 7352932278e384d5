import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/modules/api-keys/key-format.js';
import type { PageProblem } from '../helpers/browser.js';
import { useBrowserSuite } from '../helpers/browser-suite.js';
import type { TestGateway } from '../helpers/gateway.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

// Issue 3, "Done when": the whole onboarding, browser and HTTP together, with the e-mail over SMTP.

let t: TestGateway;
let smtp: TestSmtpServer;

const contact = 'founder@bosphorus-play.example';
const staffPassword = 'underwriting-desk-2026!';
const ownerPassword = 'owner-chose-this-passphrase';

/** The browser's own line for a refused fetch (a used link): the only problem a page of the flow may have. */
const isRefusedFetch = (p: PageProblem) => p.kind === 'console' && /status of 4\d\d/.test(p.text);

const { newContext, watch, signIn, signInOperator } = useBrowserSuite({
  async gateway() {
    smtp = await startSmtpServer();
    return { env: { SMTP_URL: smtp.url } };
  },
  async setUp(started) {
    t = started;
    const created = await t.gateway.services.staff.create({
      email: 'underwriter@gateway.test',
      name: 'Deniz Underwriter',
      role: 'underwriter',
      password: staffPassword,
    });
    expect(created.ok).toBe(true);
  },
  tearDown: () => smtp?.close(),
  allowed: [isRefusedFetch],
  timeout: 30_000,
});

describe('merchant onboarding, end to end', () => {
  it('apply -> operator approves -> e-mail over SMTP -> activation shows the live key once -> dashboard login', async () => {
    const problems: PageProblem[] = [];

    // 1. The merchant applies through the public form.
    const applicant = await newContext();
    const form = await watch(applicant);
    await form.page.goto(`${t.urls.web}/apply?lang=en`);
    await form.page.fill('#companyName', 'Bosphorus Play Ltd');
    await form.page.fill('#jurisdiction', 'TR');
    await form.page.selectOption('#vertical', 'betting');
    await form.page.fill('#monthlyVolumeUSD', '400000');
    await form.page.fill('#contactName', 'Elif Kaya');
    await form.page.fill('#contactEmail', contact);
    await form.page.click('button[type="submit"]');
    // The id element exists (empty, hidden) before the answer: wait for the confirmation to show.
    await form.page.locator('#application-success').waitFor({ state: 'visible', timeout: 15_000 });
    const applicationId = (await form.page.locator('#application-id').textContent()) ?? '';
    expect(applicationId).toMatch(/^app_/);
    problems.push(...form.problems);
    await applicant.close();

    // 2. An operator logs into the console and approves it.
    const desk = await newContext();
    const console_ = await watch(desk);
    await signInOperator(
      console_.page,
      { email: 'underwriter@gateway.test', password: staffPassword },
      '/applications',
    );
    await console_.page.click(`a[href="/applications/${applicationId}"]`);
    await console_.page.click('#approve-form button[type="submit"]');
    await console_.page.waitForURL(/notice=approved/);
    expect(await console_.page.locator('h1 .status').textContent()).toBe('APPROVED');
    problems.push(...console_.problems);
    await desk.close();

    // 3. The approval e-mail arrives over SMTP with the sandbox key and the activation link.
    const mail = await smtp.waitFor(contact);
    const text = mail.text ?? '';
    const sandboxKey = /sk_test_[0-9A-Za-z]{38}/.exec(text)?.[0] ?? '';
    const activationUrl = /https?:\/\/\S+\/activate\/[A-Za-z0-9_-]+/.exec(text)?.[0] ?? '';
    expect(sandboxKey).not.toBe('');
    expect(activationUrl.startsWith(`${t.urls.web}/activate/`)).toBe(true);

    // 4. The contact opens the link, sets a password and sees the live key once.
    const owner = await newContext();
    const activation = await watch(owner);
    await activation.page.goto(activationUrl);
    await activation.page.fill('#password', ownerPassword);
    await activation.page.fill('#passwordConfirmation', ownerPassword);
    await activation.page.click('#set-password-form button[type="submit"]');
    const liveKey = (
      (await activation.page.locator('#live-key').textContent({ timeout: 15_000 })) ?? ''
    ).trim();
    expect(liveKey).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);

    const organizationId = (
      await t.testDb.database.db
        .selectFrom('applications')
        .select('organization_id')
        .where('id', '=', applicationId)
        .executeTakeFirstOrThrow()
    ).organization_id;
    const keys = await t.testDb.database.db
      .selectFrom('api_keys')
      .select(['environment', 'secret_hash', 'scopes'])
      .where('organization_id', '=', organizationId ?? '')
      .orderBy('environment')
      .execute();
    expect(keys).toEqual([
      { environment: 'live', secret_hash: hashApiKey(liveKey), scopes: ['all'] },
      { environment: 'sandbox', secret_hash: hashApiKey(sandboxKey), scopes: ['all'] },
    ]);

    // A second visit of the link shows it was used, and no key.
    const again = await activation.page.goto(activationUrl);
    expect(again?.status()).toBe(410);
    expect(await activation.page.content()).not.toContain('sk_live_');

    // 5. The owner logs into the dashboard.
    await signIn(activation.page, { email: contact, password: ownerPassword });
    await activation.page.waitForURL(/\/dashboard/);
    expect(await activation.page.locator('#organization-name').textContent()).toBe('Bosphorus Play Ltd');
    expect(await activation.page.locator('#kyc-status').getAttribute('data-kyc')).toBe('REVIEWING');
    problems.push(...activation.problems);
    await owner.close();

    // Only the browser's own line for a refused fetch may appear; nothing else went wrong on any page.
    expect(problems.filter((p) => !isRefusedFetch(p))).toEqual([]);

    // 6. No secret of the flow is stored in clear anywhere in the database.
    const activationToken = activationUrl.split('/activate/')[1] ?? '';
    const secrets = [sandboxKey, liveKey, activationToken, ownerPassword, staffPassword];
    const dump = await dumpDatabase();
    for (const secret of secrets) expect(dump.includes(secret), `a secret is stored in clear`).toBe(false);
  });
});

/** Every row of every table of the public schema, as JSON text. */
async function dumpDatabase(): Promise<string> {
  const db = t.testDb.database.db;
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(
    db,
  );
  const parts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<{
      row: string;
    }>`select row_to_json(t)::text as row from ${sql.table(table_name)} t`.execute(db);
    parts.push(...rows.rows.map((r) => r.row));
  }
  return parts.join('\n');
}
