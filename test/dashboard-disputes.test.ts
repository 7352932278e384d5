/**
 * Disputes in the merchant dashboard (issue 37 item 7, flag `disputes`): the disputes of the session's
 * environment with a status filter and the deadline highlighted within 48 hours, tabs of early fraud
 * warnings and pre-dispute alerts, and a dispute's page with its deadline, money, ledger entries and
 * submissions; owners and admins stage evidence, upload evidence files (checked by their bytes), submit
 * after a confirmation step and accept after one; every other role reads only. CSRF on every post,
 * everything escaped, another organization's dispute 404, and without the flag no link and no page.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import type { UserRole } from '../src/db/schema.js';
import { createActiveUser, csrfIn, textOf, WebClient, type WebResponse } from './helpers/accounts.js';
import { payByCard } from './helpers/charges.js';
import { apiRequest } from './helpers/client.js';
import { expectLoginFirst } from './helpers/http-checks.js';
import { request, validCharge } from './helpers/http.js';
import { solidPng } from './helpers/images.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { eventually } from './helpers/process.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';

const base = accountGateway('api,sandbox-acquirer');
useTestGateway({
  ...base,
  env: { ...base.env, SANDBOX_ACQUIRER_DISPUTE_DELAY_MS: '100', SANDBOX_ACQUIRER_DISPUTE_DECISION_MS: '100' },
});

interface ChargeBody {
  id: string;
  providerPaymentId: string;
}

const HOSTILE_REFERENCE = 'order-<img src=x onerror=alert(1)>';
const IPTV_LOG = '2026-11-20T21:04:11Z 203.0.113.7 login ok\n2026-11-20T21:04:30Z stream <b>channel 12</b>';

const newMerchant = (flags: Array<'disputes'> = ['disputes']) => createMerchant(t, { featureFlags: flags });

/** 100.00 TRY paid with `number`; a dispute card's case follows 100 ms later. */
async function paidWith(merchant: Merchant, number: string, reference = 'order-1'): Promise<ChargeBody> {
  t.clock.advance(1000);
  const res = await apiRequest<ChargeBody>(t.urls, '/v1/charges', {
    body: validCharge({ amount: 10_000, merchantReference: reference }),
    key: merchant.keys.sandbox.secret,
  });
  expect(res.status, res.text).toBe(201);
  await payByCard(t.gateway.services, res.body, 'Dispute Pages', { number });
  return res.body;
}

const disputeRow = (chargeId: string) =>
  t.gateway.database.db
    .selectFrom('disputes')
    .selectAll()
    .where('charge_id', '=', chargeId)
    .executeTakeFirst();

/** The charge's dispute once its funds are withdrawn. */
async function disputeOf(chargeId: string) {
  await eventually(
    async () => BigInt((await disputeRow(chargeId))?.amount_withdrawn ?? '0') > 0n,
    15_000,
    `the dispute of ${chargeId}`,
  );
  return (await disputeRow(chargeId))!;
}

async function signedIn(organizationId: string, role: UserRole) {
  const user = await createActiveUser(t, { organizationId, role });
  const client = new WebClient(t.urls.web);
  expect((await client.login(user.email, user.password)).status).toBe(303);
  return client;
}

const disputesIn = (html: string) => [...html.matchAll(/<tr data-dispute-id="([^"]+)"/g)].map((m) => m[1]);

/** The dispute page's evidence form posted as a browser would: every field, and the button pressed. */
function evidenceForm(csrf: string, action: 'save' | 'submit', fields: Record<string, string>) {
  const empty = {
    productDescription: '',
    customerCommunication: '',
    refundPolicy: '',
    cancellationPolicy: '',
    accessActivityLog: '',
    deliveryProof: '',
    uncategorizedText: '',
  };
  return { _csrf: csrf, ...empty, ...fields, action };
}

/**
 * The evidence file form, multipart as a browser sends it, with the client's cookies: the CSRF field,
 * then the file part (an input left empty sends a part with an empty name and no bytes).
 */
async function uploadFile(
  client: WebClient,
  path: string,
  csrf: string,
  file: { bytes: Buffer; name: string; type?: string } | undefined,
): Promise<WebResponse> {
  const boundary = '----dashboardDisputes7MA4YWxkTrZu0gW';
  const chosen = file ?? { bytes: Buffer.alloc(0), name: '', type: 'application/octet-stream' };
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${chosen.name}"\r\n` +
        `Content-Type: ${chosen.type ?? 'application/octet-stream'}\r\n\r\n`,
    ),
    chosen.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await fetch(`${client.base}${path}`, {
    method: 'POST',
    body,
    redirect: 'manual',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'x-forwarded-for': client.ip,
      cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    },
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: undefined,
    location: res.headers.get('location'),
  };
}

describe('the dispute pages', () => {
  it('need a session', async () => {
    const anonymous = await expectLoginFirst(t.urls.web, [
      '/dashboard/disputes',
      '/dashboard/disputes/fraud-warnings',
      '/dashboard/disputes/dp_x',
      '/dashboard/disputes/dp_x/submit',
      '/dashboard/disputes/dp_x/accept',
    ]);
    const post = await anonymous.postForm('/dashboard/disputes/dp_x/accept', {});
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/login\?/);
  });

  it('without the flag: no link, and every page and form is 404', async () => {
    const merchant = await newMerchant([]);
    const owner = await signedIn(merchant.organizationId, 'owner');
    const home = await owner.get('/dashboard?lang=en');
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('id="disputes-link"');
    for (const path of ['/dashboard/disputes', '/dashboard/disputes/alerts', '/dashboard/disputes/dp_x'])
      expect((await owner.get(`${path}?lang=en`)).status, path).toBe(404);
    const csrf = await owner.sessionCsrf();
    const post = await owner.postForm(
      '/dashboard/disputes/dp_x/evidence?lang=en',
      evidenceForm(csrf, 'save', {}),
    );
    expect(post.status).toBe(404);
    expect((await owner.postForm('/dashboard/disputes/dp_x/accept?lang=en', { _csrf: csrf })).status).toBe(
      404,
    );
  });

  it('list and show a dispute, escaped, in both languages; a viewer reads only; a stranger gets 404', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number, HOSTILE_REFERENCE);
    const dispute = await disputeOf(charge.id);
    const viewer = await signedIn(merchant.organizationId, 'viewer');

    const home = await viewer.get('/dashboard?lang=en');
    expect(home.text).toMatch(
      /<a href="\/dashboard\/disputes\?lang=en" id="disputes-link"[^>]*>Disputes<\/a>/,
    );
    const list = await viewer.get('/dashboard/disputes?lang=en');
    expect(list.status).toBe(200);
    expect(list.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(list.text).not.toMatch(/<script|style=|<img/);
    expect(disputesIn(list.text)).toEqual([dispute.id]);
    const row = new RegExp(`<tr data-dispute-id="${dispute.id}"[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
    expect(row).toContain('data-status="needs_response"');
    expect(row).toContain('order-&lt;img src=x onerror=alert(1)&gt;');
    expect(row).toContain('<td class="num dispute-amount">TRY 100.00</td>');
    expect(row).toContain('<td class="dispute-reason">Fraudulent</td>');
    expect(row).toContain('<td class="dispute-status">Needs a response</td>');
    expect(row).toMatch(/class="dispute-due" data-due-soon="false">\d{4}-\d\d-\d\d \d\d:\d\d UTC</);
    expect(row).toContain(`href="/dashboard/disputes/${dispute.id}?lang=en"`);

    // The status filter; a status that is none is a 400 page that says so.
    expect(disputesIn((await viewer.get('/dashboard/disputes?lang=en&status=needs_response')).text)).toEqual([
      dispute.id,
    ]);
    const won = await viewer.get('/dashboard/disputes?lang=en&status=won');
    expect(disputesIn(won.text)).toEqual([]);
    expect(textOf(won.text, 'no-disputes')).toBe('No dispute has that status.');
    const bogus = await viewer.get('/dashboard/disputes?lang=en&status=%3Cb%3E');
    expect(bogus.status).toBe(400);
    expect(textOf(bogus.text, 'list-error')).toBe('That is not a status of a dispute.');
    expect(bogus.text).not.toContain('<b>');
    for (const tab of ['fraud-warnings', 'alerts']) {
      const page = await viewer.get(`/dashboard/disputes/${tab}?lang=en`);
      expect(page.status, tab).toBe(200);
      expect(page.text).toContain(`id="tab-${tab}" aria-current="true"`);
    }

    const detail = await viewer.get(`/dashboard/disputes/${dispute.id}?lang=en`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toMatch(/<script|style=|<img/);
    expect(textOf(detail.text, 'dispute-status')).toBe('Needs a response');
    expect(textOf(detail.text, 'dispute-reason-code')).toBe('10.4');
    expect(textOf(detail.text, 'dispute-stage')).toBe('Chargeback');
    expect(textOf(detail.text, 'dispute-withdrawn')).toBe('TRY 100.00');
    expect(textOf(detail.text, 'dispute-due')).toBe(
      `${dispute.evidence_due_by!.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    );
    expect(detail.text).toContain('data-kind="dispute_funds_withdrawn"');
    expect(detail.text).toContain('data-kind="dispute_fee"');
    expect(detail.text).toContain('data-amount="-25000"');
    expect(textOf(detail.text, 'read-only')).toBe(
      'Your role can read this dispute but not answer or accept it. Ask an owner or an admin.',
    );
    expect(detail.text).not.toContain('id="evidence-form"');
    expect(detail.text).not.toContain('id="upload-form"');
    expect(detail.text).not.toContain('id="accept-form"');

    // A viewer's post (with its CSRF token) is the page read-only, 403, and nothing is staged.
    const csrf = csrfIn(detail.text);
    const refused = await viewer.postForm(
      `/dashboard/disputes/${dispute.id}/evidence?lang=en`,
      evidenceForm(csrf, 'save', { productDescription: 'nope' }),
    );
    expect(refused.status).toBe(403);
    expect(textOf(refused.text, 'answer-refused')).toContain('Your role can read this dispute');
    expect(
      (await viewer.postForm(`/dashboard/disputes/${dispute.id}/accept?lang=en`, { _csrf: csrf })).status,
    ).toBe(403);
    expect((await viewer.get(`/dashboard/disputes/${dispute.id}/accept?lang=en`)).status).toBe(403);
    expect((await disputeRow(charge.id))!.evidence).toEqual({});
    expect((await disputeRow(charge.id))!.status).toBe('needs_response');

    // In Turkish.
    const turkish = await viewer.get(`/dashboard/disputes?lang=tr`);
    expect(turkish.text).toMatch(/id="disputes-link"[^>]*>İtirazlar<\/a>/);
    expect(turkish.text).toContain('<td class="num dispute-amount">100,00 TRY</td>');
    expect(turkish.text).toContain('<td class="dispute-status">Yanıt bekliyor</td>');
    expect(turkish.text).toContain('<td class="dispute-reason">Dolandırıcılık</td>');
    expect(turkish.text).toContain('Kanıt son tarihi');
    const turkishDetail = await viewer.get(`/dashboard/disputes/${dispute.id}?lang=tr`);
    expect(turkishDetail.text).toContain('Ters ibraz');
    expect(turkishDetail.text).toContain('İtiraz ücreti');

    // Another organization: not in its list, and its pages and forms are 404.
    const stranger = await newMerchant();
    const theirs = await signedIn(stranger.organizationId, 'owner');
    expect(disputesIn((await theirs.get('/dashboard/disputes?lang=en')).text)).toEqual([]);
    expect((await theirs.get(`/dashboard/disputes/${dispute.id}?lang=en`)).status).toBe(404);
    expect((await theirs.get(`/dashboard/disputes/${dispute.id}/submit?lang=en`)).status).toBe(404);
    const theirCsrf = await theirs.sessionCsrf();
    const post = await theirs.postForm(
      `/dashboard/disputes/${dispute.id}/evidence?lang=en`,
      evidenceForm(theirCsrf, 'save', { productDescription: 'not yours' }),
    );
    expect(post.status).toBe(404);
    expect((await disputeRow(charge.id))!.evidence).toEqual({});
  });

  it('an owner stages evidence (CSRF required), uploads files checked by their bytes, and submits once', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(charge.id);
    const owner = await signedIn(merchant.organizationId, 'owner');
    const path = `/dashboard/disputes/${dispute.id}`;
    const page = await owner.get(`${path}?lang=en`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${path}/evidence?lang=en" id="evidence-form">`);
    expect(page.text).toContain('enctype="multipart/form-data" id="upload-form"');
    expect(page.text).toContain('id="accept-form"');
    expect(textOf(page.text, 'dispute-deadline')).toMatch(
      /^Send your evidence by \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
    );
    const csrf = csrfIn(page.text);

    // CSRF: missing or wrong is refused, nothing staged.
    const fields = { productDescription: 'A 12-month IPTV subscription', accessActivityLog: IPTV_LOG };
    const { _csrf: _ignored, ...withoutCsrf } = evidenceForm(csrf, 'save', fields);
    expect((await owner.postForm(`${path}/evidence?lang=en`, withoutCsrf)).status).toBe(403);
    expect(
      (await owner.postForm(`${path}/evidence?lang=en`, evidenceForm('x'.repeat(43), 'save', fields))).status,
    ).toBe(403);
    expect((await disputeRow(charge.id))!.evidence).toEqual({});

    const saved = await owner.postForm(`${path}/evidence?lang=en`, evidenceForm(csrf, 'save', fields));
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${path}?lang=en&notice=saved`);
    expect((await disputeRow(charge.id))!.evidence).toEqual(fields);
    const after = await owner.get(saved.location!);
    expect(textOf(after.text, 'notice')).toBe('Evidence saved. It has not been sent yet.');
    // What was staged is shown escaped in the form.
    expect(after.text).toContain('stream &lt;b&gt;channel 12&lt;/b&gt;</textarea>');
    expect(after.text).not.toContain('<b>channel');

    // Emptying a field clears it.
    await owner.postForm(
      `${path}/evidence?lang=en`,
      evidenceForm(csrf, 'save', {
        ...fields,
        productDescription: '',
        refundPolicy: 'No refunds after first use.',
      }),
    );
    expect((await disputeRow(charge.id))!.evidence).toEqual({
      accessActivityLog: IPTV_LOG,
      refundPolicy: 'No refunds after first use.',
    });

    // Files: a file that is no PNG whatever its name, an empty input, then a real PNG.
    const notPng = await uploadFile(owner, `${path}/files?lang=en`, csrf, {
      bytes: Buffer.from('just text, not an image'),
      name: 'receipt.png',
      type: 'image/png',
    });
    expect(notPng.status).toBe(400);
    expect(notPng.text).toContain('data-problem="file_type_not_allowed"');
    expect(textOf(notPng.text, 'dispute-error')).toBe(
      'The file is not a PDF, PNG or JPEG (its contents are checked, not its name).',
    );
    const none = await uploadFile(owner, `${path}/files?lang=en`, csrf, undefined);
    expect(none.status).toBe(400);
    expect(none.text).toContain('data-problem="file_missing"');
    const noCsrf = await uploadFile(owner, `${path}/files?lang=en`, 'x'.repeat(43), {
      bytes: solidPng(2, 2, [200, 10, 10]),
      name: 'x.png',
    });
    expect(noCsrf.status).toBe(403);
    expect((await disputeRow(charge.id))!.evidence.files).toBeUndefined();
    const uploaded = await uploadFile(owner, `${path}/files?lang=en`, csrf, {
      bytes: solidPng(2, 2, [200, 10, 10]),
      name: 'access-<log>.png',
      type: 'image/png',
    });
    expect(uploaded.status, uploaded.text.slice(0, 500)).toBe(303);
    expect(uploaded.location).toBe(`${path}?lang=en&notice=uploaded`);
    const files = (await disputeRow(charge.id))!.evidence.files ?? [];
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^file_/);
    const withFile = await owner.get(`${path}?lang=en`);
    expect(withFile.text).toContain(`<li data-file-id="${files[0]}">`);
    expect(withFile.text).toContain('access-&lt;log&gt;.png');
    // A second file, taken out again: the first stays.
    await uploadFile(owner, `${path}/files?lang=en`, csrf, {
      bytes: solidPng(3, 3, [0, 0, 0]),
      name: 'b.png',
    });
    const two = (await disputeRow(charge.id))!.evidence.files ?? [];
    expect(two).toHaveLength(2);
    const removed = await owner.postForm(`${path}/files/${two[1]}/remove?lang=en`, { _csrf: csrf });
    expect(removed.location).toBe(`${path}?lang=en&notice=removed`);
    expect((await disputeRow(charge.id))!.evidence.files).toEqual(files);
    expect((await owner.postForm(`${path}/files/file_unknown/remove?lang=en`, { _csrf: csrf })).status).toBe(
      404,
    );

    // Submit: the button saves, then the confirmation step shows what is sent; nothing is sent yet.
    const onward = await owner.postForm(
      `${path}/evidence?lang=en`,
      evidenceForm(csrf, 'submit', {
        accessActivityLog: IPTV_LOG,
        refundPolicy: 'No refunds after first use.',
        uncategorizedText: 'losing_evidence',
      }),
    );
    expect(onward.status).toBe(303);
    expect(onward.location).toBe(`${path}/submit?lang=en&notice=saved`);
    const confirm = await owner.get(onward.location!);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('data-field="uncategorizedText">losing_evidence</dd>');
    expect(textOf(confirm.text, 'confirm-files')).toBe(files[0]);
    expect((await disputeRow(charge.id))!.evidence_submitted_at).toBeNull();
    expect((await owner.postForm(`${path}/submit?lang=en`, {})).status).toBe(403);
    const sent = await owner.postForm(`${path}/submit?lang=en`, { _csrf: csrfIn(confirm.text) });
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`${path}?lang=en&notice=submitted`);
    expect((await disputeRow(charge.id))!.evidence_submitted_at).not.toBeNull();

    // Once per stage: a second submission is the page with the reason.
    const twice = await owner.postForm(`${path}/submit?lang=en`, { _csrf: csrf });
    expect(twice.status).toBe(409);
    expect(textOf(twice.text, 'dispute-error')).toBe(
      'Evidence was already sent for this stage of the dispute.',
    );
    await eventually(
      async () => (await disputeRow(charge.id))!.status === 'lost',
      15_000,
      'the dispute lost',
    );
    const lost = await owner.get(`${path}?lang=en`);
    expect(textOf(lost.text, 'dispute-status')).toBe('Lost');
    expect(lost.text).not.toContain('id="evidence-form"');
    expect(lost.text).toContain('data-field="uncategorizedText">losing_evidence</dd>');
  });

  it('an owner accepts a dispute after a confirmation step; a deadline within 48 hours is highlighted', async () => {
    const merchant = await newMerchant();
    const charge = await paidWith(merchant, TEST_CARDS.disputeFraudulent.number);
    const dispute = await disputeOf(charge.id);
    const admin = await signedIn(merchant.organizationId, 'admin');
    const path = `/dashboard/disputes/${dispute.id}`;
    const confirm = await admin.get(`${path}/accept?lang=en`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text, 'confirm-body')).toBe(
      'Accept the dispute of TRY 100.00 on order-1? It closes as lost and cannot be answered afterwards.',
    );
    expect((await disputeRow(charge.id))!.status).toBe('needs_response');
    const accepted = await admin.postForm(`${path}/accept?lang=en`, { _csrf: csrfIn(confirm.text) });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe(`${path}?lang=en&notice=accepted`);
    expect((await disputeRow(charge.id))!).toMatchObject({ status: 'lost', closed_by: 'acceptance' });
    const after = await admin.get(accepted.location!);
    expect(textOf(after.text, 'notice')).toBe('Dispute accepted: it is closed as lost.');
    expect(textOf(after.text, 'dispute-closed-by')).toMatch(/^Accepted by you · /);
    expect(after.text).not.toContain('id="accept-form"');

    // A dispute raised at the acquirer with a deadline 24 hours away.
    const other = await paidWith(merchant, TEST_CARDS.visa.number, 'order-soon');
    const dueBy = new Date(t.clock.now().getTime() + 24 * 3600 * 1000).toISOString();
    const raised = await request(`${t.sandboxAcquirer.url}/_control/disputes`, {
      body: { paymentId: other.providerPaymentId, kind: 'dispute', reason: 'product_not_received', dueBy },
      headers: { authorization: `Bearer ${t.sandboxAcquirer.apiKey}` },
    });
    expect(raised.status, raised.text).toBeLessThan(300);
    const soon = await disputeOf(other.id);
    const list = await admin.get('/dashboard/disputes?lang=en');
    const row = new RegExp(`<tr data-dispute-id="${soon.id}"[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
    expect(row).toContain('class="dispute-due warning" data-due-soon="true"');
    expect(row).toContain('(due within 48 hours)');
    expect(row).toContain('Product not received');
    expect(disputesIn(list.text)).toEqual([soon.id, dispute.id]);
  });
});
