/**
 * Issue 11, item 3: no secret reaches a log line. A full run over real HTTP (onboarding, approval,
 * activation, API keys, charges, a checkout payment, webhook endpoints and rotation, password reset,
 * two-factor enrollment, the operator CLI token) remembers every secret it created or sent, including a
 * key in the query string, keys and tokens in paths, and card numbers in bodies; then every line the
 * gateway logged is searched for each of them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiRequest } from './helpers/client.js';
import { scrubSecrets } from '../src/logger.js';
import { accountGateway, t, useTestGateway } from './helpers/suite.js';
import { linkIn, mailsTo, textOf, totpCode, WebClient } from './helpers/accounts.js';
import { request, validCharge, type ErrorBody } from './helpers/http.js';
import { createOrganization, issueKey } from './helpers/merchants.js';
import {
  approvalSecrets,
  approvedOrganization,
  bearerClient,
  createStaffUser,
  loginStaff,
  uniqueEmail,
} from './helpers/operator.js';
import { freshCardNumber } from './helpers/charges.js';

useTestGateway(accountGateway());

const secrets = new Map<string, string>();
function remember(label: string, value: string | undefined): string {
  if (!value) throw new Error(`no value for ${label}`);
  secrets.set(label, value);
  return value;
}

async function fullRun(): Promise<void> {
  // Operator: a staff session (cookie) and the CLI's bearer token.
  const admin = await createStaffUser(t, 'admin');
  remember('staff password', admin.password);
  const staff = await loginStaff(t, admin);
  remember('operator session cookie', staff.token);
  const cliToken = remember('operator CLI token', t.gateway.operatorCliToken);
  expect((await bearerClient(t, cliToken).get('/operator/v1/applications')).status).toBe(200);

  // Onboarding: application, approval (sandbox key and activation link by e-mail), activation (live key).
  const approval = await approvedOrganization(t, staff, { contactEmail: uniqueEmail('owner') });
  const organizationId = approval.organization.id;
  const mail = await approvalSecrets(t, approval.emailId);
  const sandboxKey = remember('sandbox key from the approval e-mail', mail.sandboxKey);
  remember('activation token', mail.activationToken);
  for (const flag of ['apiKeys', 'events']) {
    const flagged = await staff.put(`/operator/v1/organizations/${organizationId}/feature-flags/${flag}`, {
      enabled: true,
    });
    expect(flagged.status, flagged.text).toBe(200);
  }
  const owner = new WebClient(t.urls.web);
  const ownerPassword = remember('owner password', `first passphrase ${randomBytes(4).toString('hex')}`);
  const activated = await owner.submit(`/activate/${mail.activationToken}`, {
    password: ownerPassword,
    passwordConfirmation: ownerPassword,
  });
  expect(activated.status, activated.text).toBe(200);
  remember('live key shown at activation', textOf(activated.text, 'live-key'));
  // The used link again (a page that answers with a problem) still carries the token in its URL.
  await new WebClient(t.urls.web).get(`/activate/${mail.activationToken}`);

  const api = (path: string, init: { body?: unknown; headers?: Record<string, string>; key?: string } = {}) =>
    apiRequest<Record<string, unknown> & ErrorBody>(t.urls, path, { ...init, key: init.key ?? sandboxKey });

  // Keys: a new one through the API, then used in the query string, as a bearer token and in a path.
  const created = await api('/v1/api-keys', { body: { scopes: ['read', 'write'] } });
  expect(created.status, created.text).toBe(201);
  const newKey = remember('key created through the API', created.body.secret as string);
  const queried = await request(`${t.urls.sandboxApi}/v1/charges?api_key=${newKey}&limit=1`);
  expect(queried.status).toBe(401);
  await request(`${t.urls.sandboxApi}/v1/charges?limit=1&apiKey=${encodeURIComponent(newKey)}`, {
    headers: { 'x-api-key': newKey },
  });
  await request(`${t.urls.sandboxApi}/v1/charges`, { headers: { authorization: `Bearer ${newKey}` } });
  await api(`/v1/charges/${newKey}`);
  await request(`${t.urls.web}/nowhere?token=${newKey}&key=${sandboxKey}`);

  // Charges: a customer ID number, and a card number the API refuses (neither may be logged).
  const idNumber = remember('customer ID number', '10000000146');
  const charge = await api('/v1/charges', {
    body: validCharge({ customer: { name: 'Mehmet', idNumber } }),
    headers: { 'x-idempotency-key': `idem-${randomBytes(4).toString('hex')}` },
  });
  expect(charge.status, charge.text).toBe(201);
  const refusedCard = remember('card number sent to the API', freshCardNumber());
  const refused = await api('/v1/charges', {
    body: validCharge({ metadata: { note: `card ${refusedCard}` } }),
  });
  expect(refused.status).toBe(400);

  // Checkout: pay with a card on the hosted page.
  const paymentId = charge.body.providerPaymentId as string;
  const cardNumber = remember('card number paid with', freshCardNumber());
  remember('card number paid with, spaced', cardNumber.replace(/(\d{4})(?=\d)/g, '$1 '));
  const paid = await fetch(`${t.urls.web}/c/${paymentId}/card?lang=en`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      holderName: 'Ayşe Yılmaz',
      cardNumber: cardNumber.replace(/(\d{4})(?=\d)/g, '$1 '),
      expiry: '12/30',
      cvc: '739',
    }).toString(),
  });
  expect(paid.status).toBe(303);

  // Webhook endpoints: a secret at creation, another at rotation.
  const endpoint = await api('/v1/webhook-endpoints', {
    body: { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['charge.succeeded'] },
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  remember('webhook secret', endpoint.body.secret as string);
  const rotated = await api(`/v1/webhook-endpoints/${endpoint.body.id as string}/rotate-secret`, {
    body: { gracePeriodSeconds: 3600 },
  });
  expect(rotated.status, rotated.text).toBe(200);
  remember('rotated webhook secret', rotated.body.secret as string);
  await request(`${t.urls.sandboxApi}/v1/webhook-endpoints?secret=${rotated.body.secret as string}`);

  // Dashboard: login (session and form cookies), two-factor enrollment (TOTP secret).
  expect((await owner.login(approval.ownerEmail, ownerPassword)).status).toBe(303);
  remember('dashboard session cookie', owner.cookies.get('gw_session'));
  remember('form cookie', owner.cookies.get('gw_form'));
  const csrf = await owner.sessionCsrf();
  const enroll = await owner.postJson<{ secret: string; otpauthUri: string }>(
    '/v1/auth/2fa/enroll',
    {},
    { 'x-csrf-token': csrf },
  );
  expect(enroll.status).toBe(200);
  remember('TOTP secret', enroll.json.secret);
  const verified = await owner.postJson(
    '/v1/auth/2fa/verify',
    { code: totpCode(enroll.json.secret, t.clock.now()) },
    { 'x-csrf-token': csrf },
  );
  expect(verified.status).toBe(200);

  // Password reset: the token in the e-mailed link, the page that shows it, and the new password.
  await new WebClient(t.urls.web).postJson('/v1/auth/forgot-password', { email: approval.ownerEmail });
  // The approval e-mail went to the same address at the same (manual) clock time: pick by content.
  const resetMail = (await mailsTo(t, approval.ownerEmail)).find((sent) =>
    sent.text.includes('/reset-password/'),
  );
  const reset = linkIn(resetMail?.text ?? '', '/reset-password');
  remember('reset token', reset.token);
  expect((await new WebClient(t.urls.web).get(`/reset-password/${reset.token}`)).status).toBe(200);
  const newPassword = remember(
    'password set by the reset',
    `second passphrase ${randomBytes(4).toString('hex')}`,
  );
  const resetDone = await new WebClient(t.urls.web).postJson('/v1/auth/reset-password', {
    token: reset.token,
    password: newPassword,
  });
  expect(resetDone.status).toBe(200);
  await new WebClient(t.urls.web).get(`/reset-password/${reset.token}?lang=en`);
}

describe('log lines', () => {
  it('of a full run hold none of the secrets the run created or sent', async () => {
    await fullRun();
    expect(secrets.size).toBeGreaterThanOrEqual(19);
    expect(t.logs.length).toBeGreaterThan(50);
    // The key in the query string was logged, redacted: the line is there, the key is not.
    expect(t.logs.some((line) => line.includes('/v1/charges?api_key=[REDACTED]&limit=1'))).toBe(true);

    const leaks: string[] = [];
    for (const line of t.logs) {
      const lower = line.toLowerCase();
      for (const [label, secret] of secrets) {
        if (lower.includes(secret.toLowerCase())) leaks.push(`${label}: ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);
    // Every line is still JSON.
    for (const line of t.logs) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('scrubSecrets', () => {
  it('keeps what is not a secret: ids, amounts, timestamps, numbers, ordinary query parameters', () => {
    const line = JSON.stringify({
      time: '2026-11-23T10:00:00.000Z',
      pid: 4242,
      amount: '12550',
      epochMs: 1764237600000,
      id: 'ch_06h0k6a8wg696544ahyd611j94ng6',
      url: '/v1/charges?limit=20&cursor=abc',
      msg: 'request completed',
    });
    expect(scrubSecrets(line)).toBe(line);
  });

  it('redacts each shape of secret wherever it sits in the line', () => {
    const line = JSON.stringify({
      url: '/v1/charges?api_key=sk_test_abc123&limit=1',
      msg: 'Bearer abc.def-ghi whsec_XYZ sk_live_Q1w2 gw_session=s3cr3t; /reset-password/tok_123 4242 4242 4242 4242',
      otp: 'otpauth://totp/Gateway:a?secret=JBSWY3DPEHPK3PXP&issuer=Gateway',
    });
    const scrubbed = scrubSecrets(line);
    for (const secret of [
      'abc123',
      'abc.def-ghi',
      'XYZ',
      'Q1w2',
      's3cr3t',
      'tok_123',
      '4242 4242',
      'JBSWY3DP',
    ])
      expect(scrubbed).not.toContain(secret);
    expect(JSON.parse(scrubbed)).toMatchObject({ url: '/v1/charges?api_key=[REDACTED]&limit=1' });
  });
});

describe('log lines of a card number sent in a URL', () => {
  it.each([
    '4242%204242%204242%204242',
    '4242+4242+4242+4242',
    '4242%2D4242%2D4242%2D4242',
    '4242%C2%A04242%C2%A04242%C2%A04242',
    'cus_4242424242424242',
    '4242.4242.4242.4242',
    '4242%2E4242%2E4242%2E4242',
  ])('never hold %s, whatever encodes its separators', async (value) => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const key = await issueKey(db, t.clock, organizationId, { scopes: ['all'] });
    await apiRequest(t.urls, `/v1/charges?customerId=${value}`, { key: key.secret });
    await apiRequest(t.urls, `/v1/charges/${value}`, { key: key.secret });
    const digits = value.replace(/^cus_/, '').slice(0, 9);
    expect(t.logs.filter((line) => line.includes(digits))).toEqual([]);
  });
});

describe('scrubSecrets and card numbers glued to a name', () => {
  it('redacts a card number after a letter or an underscore (an id a caller made of one), not a decimal', () => {
    const line = JSON.stringify({
      url: '/v1/customers/cus_4242424242424242?ref=x4111111111111111y',
      msg: 'latency 0.4242424242424242 s',
    });
    const scrubbed = scrubSecrets(line);
    expect(scrubbed).not.toContain('4242424242424242?');
    expect(scrubbed).not.toContain('4111111111111111');
    expect(JSON.parse(scrubbed)).toEqual({
      url: '/v1/customers/cus_[REDACTED]?ref=x[REDACTED]y',
      msg: 'latency 0.4242424242424242 s',
    });
  });
});

describe('scrubSecrets and personal data', () => {
  it('redacts the e-mail and phone query values of a customer search, keeping the other parameters', () => {
    const line = JSON.stringify({
      url: '/v1/customers?email=ayse%40example.com&limit=20&phone=%2B905321112233',
      msg: 'request completed',
    });
    const scrubbed = scrubSecrets(line);
    expect(scrubbed).not.toContain('ayse');
    expect(scrubbed).not.toContain('905321112233');
    expect(JSON.parse(scrubbed)).toMatchObject({
      url: '/v1/customers?email=[REDACTED]&limit=20&phone=[REDACTED]',
    });
  });
});

describe('log lines of a card number in other digits (ADR 0056)', () => {
  it.each([
    ['full-width', '４２４２４２４２４２４２４２４２'],
    ['Arabic-Indic', '٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢'],
  ])('never hold one written in %s digits, percent-encoded in a URL', async (_script, value) => {
    const db = t.gateway.database.db;
    const organizationId = await createOrganization(db, t.clock);
    const key = await issueKey(db, t.clock, organizationId, { scopes: ['all'] });
    const encoded = encodeURIComponent(value);
    await apiRequest(t.urls, `/v1/charges?customerId=${encoded}`, { key: key.secret });
    await apiRequest(t.urls, `/v1/charges/${encoded}`, { key: key.secret });
    expect(t.logs.filter((line) => line.includes(encoded.slice(0, 36)))).toEqual([]);
  });
});

describe('scrubSecrets and card numbers grouped by dots or written in other digits', () => {
  it('redacts them, with full-width separators too', () => {
    for (const card of [
      '4242424242424242',
      '4242 4242 4242 4242',
      '4242.4242.4242.4242',
      '3782.822463.10005',
      '４２４２４２４２４２４２４２４２',
      '４２４２－４２４２－４２４２－４２４２',
      '４２４２．４２４２．４２４２．４２４２',
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢',
      '۴۲۴۲-۴۲۴۲-۴۲۴۲-۴۲۴۲',
      '%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92%EF%BC%94%EF%BC%92',
    ]) {
      const scrubbed = scrubSecrets(
        JSON.stringify({ msg: `paid with ${card}.`, url: `/v1/charges/${card}` }),
      );
      expect(JSON.parse(scrubbed), card).toEqual({
        msg: 'paid with [REDACTED].',
        url: '/v1/charges/[REDACTED]',
      });
    }
  });

  it('keeps decimals, IP addresses, versions, timestamps, dates and phone numbers, in any digits', () => {
    const line = JSON.stringify({
      msg: 'latency 0.4242424242424242 s, amount 1234567.89, 4242.42 TRY',
      ips: '192.168.100.200 192.168.100.201',
      version: 'v10.4.2',
      at: '1764237600.123456',
      dotted: '2026.11.23',
      phone: '+90.532.123.45.67',
      arabic: '٠٥٣٢ ١٢٣ ٤٥ ٦٧',
      wide: '２０２６．１１．２３',
      url: '/v1/charges?q=%D9%A0%D9%A5%D9%A3%D9%A2&limit=10',
      notCard: '4242.4242.4242.4241',
    });
    expect(scrubSecrets(line)).toBe(line);
  });
});
