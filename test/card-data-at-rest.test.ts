/**
 * Card numbers never reach what the gateway stores or hands out (product decision 16, ADR 0056): the CSV
 * exports, the audit log and the e-mails of the dev mailbox. Each case sends a card number, written the
 * ways the filter once let through, into a field that ends up in one of them, through the real stack;
 * then the export, the audit entries and the mailbox are searched for its digits.
 */
import { describe, expect, it } from 'vitest';
import { createActiveUser, createOrganization, csrfIn, mailsTo, WebClient } from './helpers/accounts.js';
import { apiRequest } from './helpers/client.js';
import { accountGateway, db, t, useTestGateway } from './helpers/suite.js';
import { validCharge, type ErrorBody } from './helpers/http.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, submitApplication, uniqueEmail } from './helpers/operator.js';

let merchant: Merchant;

useTestGateway(accountGateway(), async () => {
  merchant = await createMerchant(t);
});

/** 4242 4242 4242 4242 as a merchant's system may write it: each passed the filter before ADR 0056. */
const DISGUISED_CARDS = [
  '4242.4242.4242.4242',
  '４２４２４２４２４２４２４２４２', // full-width digits
  '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢', // Arabic-Indic digits
  '۴۲۴۲-۴۲۴۲-۴۲۴۲-۴۲۴۲', // Extended Arabic-Indic digits
  '４２４２．４２４２．４２４２．４２４２',
  '4242%204242%204242%204242', // pasted from a URL
  '4242+4242+4242+4242',
];

/** Every way of writing the test card's digits, to search stored text for. */
function holdsTheCard(text: string): boolean {
  const ascii = text
    .normalize('NFKC')
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/%20|%2E|[^0-9]/gi, '');
  return ascii.includes('4242424242424242');
}

async function auditTexts(): Promise<string[]> {
  const rows = await db().selectFrom('audit_log').select(['before', 'after', 'target_id']).execute();
  return rows.map((row) => JSON.stringify(row));
}

async function signedIn(organizationId: string) {
  const user = await createActiveUser(t, { organizationId, role: 'owner' });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  return client;
}

describe('the charges export', () => {
  it('never carries a card number sent as a reference, metadata or an e-mail address', async () => {
    for (const card of DISGUISED_CARDS) {
      for (const body of [
        validCharge({ merchantReference: `order ${card}` }),
        validCharge({ metadata: { note: `paid with ${card}` } }),
        validCharge({ customer: { name: `Ayşe ${card}`, email: 'ayse@example.com' } }),
      ]) {
        const res = await apiRequest<ErrorBody>(t.urls, '/v1/charges', {
          body,
          key: merchant.keys.sandbox.secret,
        });
        expect(res.status, `${card}: ${res.text}`).toBe(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(holdsTheCard(res.text)).toBe(false);
      }
    }
    const today = t.clock.now().toISOString().slice(0, 10);
    const csv = await apiRequest(t.urls, `/v1/exports/charges.csv?from=${today}&to=${today}`, {
      key: merchant.keys.sandbox.secret,
    });
    expect(csv.status).toBe(200);
    expect(holdsTheCard(csv.text)).toBe(false);
  });

  it('keeps dotted and non-ASCII legitimate values: decimals, IPs, versions, timestamps, phones', async () => {
    const legitimate = {
      amount: '1234567.89',
      ip: '192.168.100.200 192.168.100.201',
      version: 'v10.4.2-beta.3',
      epoch: '1764237600.123456',
      phone: '+90.532.123.45.67',
      arabicPhone: '٠٥٣٢ ١٢٣ ٤٥ ٦٧',
      fullWidthDate: '２０２６．１１．２３',
      wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    };
    const res = await apiRequest<{ id: string } & ErrorBody>(t.urls, '/v1/charges', {
      body: validCharge({ merchantReference: `INV.2026.000123.${Date.now()}`, metadata: legitimate }),
      key: merchant.keys.sandbox.secret,
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('the dashboard', () => {
  it('refuses a card number in the branding name: nothing stored, nothing audited', async () => {
    const organizationId = (await createOrganization(t)).id;
    const client = await signedIn(organizationId);
    for (const card of DISGUISED_CARDS.slice(0, 3)) {
      const page = await client.get('/dashboard/branding?lang=en');
      const res = await client.postForm('/dashboard/branding?lang=en', {
        _csrf: csrfIn(page.text),
        displayName: `Shop ${card}`,
        brandColor: '',
      });
      expect(res.status, card).toBe(400);
      expect(res.text).toContain('looks like a card number');
      expect(holdsTheCard(res.text)).toBe(false);
    }
    const row = await db()
      .selectFrom('organizations')
      .select('display_name')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    expect(holdsTheCard(row.display_name ?? '')).toBe(false);
    expect((await auditTexts()).filter(holdsTheCard)).toEqual([]);
  });

  it('refuses a card number in a webhook endpoint, an API key name or an invitation', async () => {
    const organizationId = (await createOrganization(t)).id;
    const client = await signedIn(organizationId);
    const csrf = await client.sessionCsrf();
    const card = '4242.4242.4242.4242';
    const posts: Array<[string, Record<string, string>]> = [
      [
        '/dashboard/webhooks?lang=tr',
        {
          url: `https://merchant.example/hooks/${card}`,
          description: 'orders',
          enabledEvents: 'charge.succeeded',
        },
      ],
      [
        '/dashboard/webhooks?lang=tr',
        { url: 'https://merchant.example/hooks', description: `card ${card}`, enabledEvents: '*' },
      ],
      ['/dashboard/api-keys?lang=en', { name: `key ${card}`, scopes: 'read' }],
      ['/dashboard/team/invitations?lang=en', { email: uniqueEmail('invitee'), name: card, role: 'viewer' }],
      ['/dashboard/team/invitations?lang=en', { email: `${card}@example.com`, role: 'viewer' }],
    ];
    for (const [path, form] of posts) {
      const res = await client.postForm(path, { _csrf: csrf, ...form });
      expect(res.status, `${path} ${JSON.stringify(form)}`).toBe(400);
      expect(holdsTheCard(res.text)).toBe(false);
    }
    const stored = [
      ...(await db().selectFrom('webhook_endpoints').selectAll().execute()),
      ...(await db().selectFrom('users').select(['email', 'name']).execute()),
      ...(await db().selectFrom('emails').select(['to_address', 'subject']).execute()),
      ...(await db().selectFrom('api_keys').selectAll().execute()),
    ].map((row) => JSON.stringify(row));
    expect(stored.filter(holdsTheCard)).toEqual([]);
    expect((await auditTexts()).filter(holdsTheCard)).toEqual([]);
  });

  it('still signs in with a password that happens to hold a card-shaped run (passwords are not scanned)', async () => {
    const organizationId = (await createOrganization(t)).id;
    const password = 'my card was 4242 4242 4242 4242';
    const user = await createActiveUser(t, { organizationId, password });
    const client = new WebClient(t.urls.web);
    expect((await client.login(user.email, password)).status).toBe(303);
  });
});

describe('the operator listener', () => {
  it('refuses a card number in a rejection reason: no e-mail and no audit entry holds it', async () => {
    const staff = await loginStaff(t, await createStaffUser(t, 'admin'));
    const contactEmail = uniqueEmail('applicant');
    const id = await submitApplication(t, { contactEmail });
    for (const card of DISGUISED_CARDS.slice(0, 4)) {
      const res = await staff.post(`/operator/v1/applications/${id}/reject`, {
        reason: `the card ${card} was declined`,
      });
      expect(res.status, res.text).toBe(400);
      expect(holdsTheCard(res.text)).toBe(false);
    }
    const mails = (await mailsTo(t, contactEmail)).map((mail) => `${mail.subject} ${mail.text} ${mail.html}`);
    expect(mails.filter(holdsTheCard)).toEqual([]);
    expect((await auditTexts()).filter(holdsTheCard)).toEqual([]);
    const rejected = await staff.post(`/operator/v1/applications/${id}/reject`, {
      reason: 'volume 1234567.89 TRY, site v2.4.1 on 192.168.100.200',
    });
    expect(rejected.status, rejected.text).toBe(200);
  });

  it('refuses to search payments by a card number, so the search text is never audited', async () => {
    const staff = await loginStaff(t, await createStaffUser(t, 'admin'));
    for (const card of ['4242424242424242', ...DISGUISED_CARDS.slice(0, 3)]) {
      const res = await staff.get(`/payments?q=${encodeURIComponent(card)}`);
      expect(res.status, card).toBe(400);
      expect(res.text).toContain('card number');
    }
    expect((await auditTexts()).filter(holdsTheCard)).toEqual([]);
  });
});
