import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FEES } from '../src/modules/organizations/types.js';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/crypto.js';
import { verifyPassword } from '../src/shared/passwords.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { request } from './helpers/http.js';
import {
  anonymousClient,
  approvalSecrets,
  approvedOrganization,
  bearerClient,
  createStaffUser,
  loginStaff,
  newPassword,
  postLogin,
  sessionClient,
  submitApplication,
  uniqueEmail,
  type ApplicationView,
  type ApprovalView,
  type OperatorClient,
  type OrganizationView,
  type Result,
  type StaffAccount,
  type StaffSession,
  type DemoMerchant,
} from './helpers/operator.js';

// The operator API (/operator/v1 on the operator listener), through real HTTP: staff sessions, the CLI's
// bearer token, roles, underwriting, organization administration, the audit log and the dev mailbox.

let t: TestGateway;
let admin: StaffSession;
let underwriter: StaffSession;
let support: StaffSession;
let cli: OperatorClient;
let anonymous: OperatorClient;

/** Every clear secret this file saw: none of them may be found in the database at the end. */
const secrets = new Set<string>();
const remember = (...values: string[]) => values.forEach((value) => secrets.add(value));

async function staffSession(role: StaffAccount['role']): Promise<StaffSession> {
  const account = await createStaffUser(t, role);
  const session = await loginStaff(t, account);
  remember(account.password, session.token, session.csrfToken);
  return session;
}

beforeAll(async () => {
  t = await startTestGateway();
  admin = await staffSession('admin');
  underwriter = await staffSession('underwriter');
  support = await staffSession('support');
  const token = t.gateway.operatorCliToken;
  if (token === undefined) throw new Error('the test gateway has no operator CLI token');
  remember(token);
  cli = bearerClient(t, token);
  anonymous = anonymousClient(t);
});
afterAll(async () => t?.close());

const db = () => t.testDb.database.db;

async function applicationRow(id: string) {
  return db().selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

interface AuditEntry {
  id: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  organizationId: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
  ip: string | null;
  createdAt: string;
}

async function auditOf(query: string): Promise<AuditEntry[]> {
  const res = await support.get<{ data: AuditEntry[]; nextCursor: string | null }>(
    `/operator/v1/audit-log?limit=100&${query}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Follows nextCursor until the end; fails on a loop. */
async function allPages<T extends { id: string }>(as: OperatorClient, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const res: Result<{ data: T[]; nextCursor: string | null }> = await as.get(
      cursor === null ? path : `${path}${separator}cursor=${encodeURIComponent(cursor)}`,
    );
    expect(res.status, res.text).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error(`${path} never ended`);
}

describe('staff login (POST /operator/v1/session)', () => {
  it('answers 200 with the staff member and a CSRF token, and sets an HttpOnly SameSite=Strict cookie', async () => {
    const account = await createStaffUser(t, 'support', { name: 'Selin Kaya' });
    remember(account.password);
    const res = await postLogin(t, account.email, account.password);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      staff: { id: account.id, email: account.email, name: 'Selin Kaya', role: 'support' },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(res.text).not.toContain('password');
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const cookie = cookies[0] ?? '';
    expect(cookie).toMatch(/^gw_operator=[A-Za-z0-9_-]{43};/);
    const attributes = cookie
      .split(';')
      .slice(1)
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain('path=/');
    const token = cookie.slice('gw_operator='.length).split(';')[0] ?? '';
    remember(token, res.body.csrfToken);

    // The cookie is a session: it reads the API, and the database keeps only its hash.
    const session = sessionClient(t, { cookie: `gw_operator=${token}`, csrfToken: res.body.csrfToken });
    expect((await session.get('/operator/v1/applications')).status).toBe(200);
    const stored = await db()
      .selectFrom('sessions')
      .selectAll()
      .where('token_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ realm: 'operator', subject_id: account.id, stage: 'active' });

    const login = (await auditOf(`targetId=${account.id}`)).find((e) => e.action === 'staff.login');
    expect(login).toMatchObject({ actor: `staff:${account.id}`, targetType: 'staff', ip: '127.0.0.1' });
  });

  it('accepts the e-mail address in any case and with surrounding spaces', async () => {
    const account = await createStaffUser(t, 'support', { email: uniqueEmail('Mixed.Case') });
    remember(account.password);
    const res = await postLogin(t, `  ${account.email.toUpperCase()} `, account.password);
    expect(res.status).toBe(200);
    expect(res.body.staff.id).toBe(account.id);
  });

  it('gives the same 401 invalid_credentials for a wrong password and an unknown e-mail, with no cookie', async () => {
    const account = await createStaffUser(t, 'admin');
    remember(account.password);
    const wrong = await postLogin(t, account.email, `${account.password}x`);
    const unknown = await postLogin(t, uniqueEmail('nobody'), account.password);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_credentials');
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    expect(Object.keys(wrong.body.error).sort()).toEqual(Object.keys(unknown.body.error).sort());
  });

  it('refuses a body that is not an e-mail and a password with 400 validation_failed', async () => {
    const res = await request<{ error: { code: string } }>(`${t.urls.operator}/operator/v1/session`, {
      body: { email: 'someone@example.test' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('logs out with DELETE /operator/v1/session: 204, the cookie is cleared and no longer works', async () => {
    const session = await staffSession('support');
    expect((await session.send('DELETE', '/operator/v1/session', { csrf: false })).status).toBe(403);
    const res = await session.send('DELETE', '/operator/v1/session');
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().join(';')).toMatch(/gw_operator=;/);
    const after = await session.get('/operator/v1/applications');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
    const stored = await db()
      .selectFrom('sessions')
      .select('revoked_at')
      .where('token_hash', '=', sha256Hex(session.token))
      .executeTakeFirstOrThrow();
    expect(stored.revoked_at).not.toBeNull();
  });

  it('audits staff.logout on both paths: DELETE /operator/v1/session and the console form POST /logout', async () => {
    const viaApi = await staffSession('support');
    expect((await viaApi.send('DELETE', '/operator/v1/session')).status).toBe(204);
    const viaConsole = await staffSession('support');
    const form = await fetch(`${t.urls.operator}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: viaConsole.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: viaConsole.csrfToken }).toString(),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/login');
    expect(form.headers.getSetCookie().join(';')).toMatch(/gw_operator=;/);
    for (const session of [viaApi, viaConsole]) {
      const id = session.account.id;
      const logouts = (await auditOf(`targetId=${id}`)).filter((e) => e.action === 'staff.logout');
      expect(logouts).toEqual([
        expect.objectContaining({
          actor: `staff:${id}`,
          targetType: 'staff',
          targetId: id,
          before: null,
          after: null,
          requestId: expect.stringMatching(/^req_/),
          ip: '127.0.0.1',
        }),
      ]);
    }
  });

  it('audits a wrong password of a known account as staff.login_failed, without the password; an unknown address, nothing', async () => {
    const account = await createStaffUser(t, 'underwriter');
    const wrongPassword = `${account.password}-but-wrong`;
    remember(account.password, wrongPassword);
    expect((await postLogin(t, account.email, wrongPassword)).status).toBe(401);
    const entries = await auditOf(`targetId=${account.id}`);
    expect(entries).toEqual([
      expect.objectContaining({
        actor: `staff:${account.id}`,
        action: 'staff.login_failed',
        targetType: 'staff',
        targetId: account.id,
        before: null,
        after: null,
        requestId: expect.stringMatching(/^req_/),
        ip: '127.0.0.1',
      }),
    ]);

    const failedRows = () =>
      db().selectFrom('audit_log').select('id').where('action', '=', 'staff.login_failed').execute();
    const before = (await failedRows()).length;
    expect((await postLogin(t, uniqueEmail('nobody'), wrongPassword)).status).toBe(401);
    expect((await failedRows()).length).toBe(before);
  });

  it('a login ends the operator session the client already had', async () => {
    const first = await staffSession('support');
    const again = await postLogin(t, first.account.email, first.account.password, { cookie: first.cookie });
    expect(again.status).toBe(200);
    const newCookie = again.headers.getSetCookie().find((c) => /^gw_operator=[^;]/.test(c)) ?? '';
    const newToken = newCookie.slice('gw_operator='.length).split(';')[0] ?? '';
    expect(newToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken).not.toBe(first.token);
    remember(newToken, again.body.csrfToken);
    expect((await first.get('/operator/v1/applications')).status).toBe(401);
    const old = await db()
      .selectFrom('sessions')
      .select('revoked_at')
      .where('token_hash', '=', sha256Hex(first.token))
      .executeTakeFirstOrThrow();
    expect(old.revoked_at).not.toBeNull();
    const current = sessionClient(t, { cookie: `gw_operator=${newToken}`, csrfToken: again.body.csrfToken });
    expect((await current.get('/operator/v1/applications')).status).toBe(200);
  });

  it('takes the login as JSON only (415 for a form), so a cross-site HTML form cannot sign a browser in', async () => {
    const account = await createStaffUser(t, 'support');
    remember(account.password);
    const res = await fetch(`${t.urls.operator}/operator/v1/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ email: account.email, password: account.password }).toString(),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await auditOf(`targetId=${account.id}`)).map((e) => e.action)).toEqual([]);
  });
});

describe(
  'staff login: failures slow the address down, the account is never locked',
  { timeout: 60_000 },
  () => {
    // A gateway of its own, trusting X-Forwarded-For from loopback so each test has its own client
    // addresses: the login rate limit (per IP) and the clock must not touch the other tests.
    let u: TestGateway;
    beforeAll(async () => {
      u = await startTestGateway({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    });
    afterAll(async () => u?.close());
    const from = (ip: string) => ({ 'x-forwarded-for': ip });

    it('after 5 failures the address waits (429 even with the right password, unchecked) until the wait lapses', async () => {
      const account = await createStaffUser(u, 'admin');
      const ip = '10.77.0.1';
      for (let i = 1; i <= 5; i++) {
        const res = await postLogin(u, account.email, `wrong-password-${i}`, from(ip));
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_credentials');
      }

      const waiting = await postLogin(u, account.email, account.password, from(ip));
      expect(waiting.status).toBe(429);
      expect(waiting.body.error.code).toBe('too_many_requests');
      expect(waiting.headers.get('retry-after')).toBe('1');
      expect(waiting.headers.getSetCookie()).toEqual([]);

      // The real member of staff, elsewhere, is not kept out.
      expect((await postLogin(u, account.email, account.password, from('10.77.0.2'))).status).toBe(200);

      u.clock.advance(SECOND);
      const open = await postLogin(u, account.email, account.password, from(ip));
      expect(open.status).toBe(200);
      expect(open.body.staff.id).toBe(account.id);
      const rows = await u.testDb.database.db
        .selectFrom('login_throttle')
        .select(['email', 'address', 'failures'])
        .where('realm', '=', 'operator')
        .where('address', '=', ip)
        .execute();
      // The success cleared the pair; the address keeps its count across accounts.
      expect(rows).toEqual([{ email: '', address: ip, failures: 5 }]);
    });

    it('audits a refused attempt of a known account as staff.login_throttled with the wait; never the password', async () => {
      const account = await createStaffUser(u, 'support');
      const ip = '10.77.0.4';
      for (let i = 1; i <= 5; i++)
        expect((await postLogin(u, account.email, `wrong-password-${i}`, from(ip))).status).toBe(401);
      expect((await postLogin(u, account.email, account.password, from(ip))).status).toBe(429);
      const entries = await u.testDb.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('target_id', '=', account.id)
        .execute();
      expect(entries.map((e) => e.action).sort()).toEqual([
        ...Array.from({ length: 5 }, () => 'staff.login_failed'),
        'staff.login_throttled',
      ]);
      for (const entry of entries) {
        expect(entry).toMatchObject({ actor: `staff:${account.id}`, target_type: 'staff', ip });
        expect(JSON.stringify(entry)).not.toContain('wrong-password');
        expect(JSON.stringify(entry)).not.toContain(account.password);
      }
      const after = entries.find((e) => e.action === 'staff.login_throttled')?.after;
      expect(typeof after === 'string' ? JSON.parse(after) : after).toEqual({ wait: 1 });

      // An unknown address waiting on the same client address leaves no entry.
      const throttled = () =>
        u.testDb.database.db
          .selectFrom('audit_log')
          .select('id')
          .where('action', '=', 'staff.login_throttled')
          .execute();
      const before = (await throttled()).length;
      for (let i = 1; i <= 5; i++) await postLogin(u, 'nobody-here@example.test', `guess-${i}`, from(ip));
      expect((await postLogin(u, 'nobody-here@example.test', 'guess-6', from(ip))).status).toBe(429);
      expect((await throttled()).length).toBe(before);
    });

    it('counts failures that arrive at the same time: 6 parallel wrong passwords make the address wait', async () => {
      const account = await createStaffUser(u, 'admin');
      const ip = '10.77.0.3';
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => postLogin(u, account.email, `parallel-guess-${i}`, from(ip))),
      );
      for (const res of results) expect([401, 429]).toContain(res.status);
      const row = await u.testDb.database.db
        .selectFrom('login_throttle')
        .select('failures')
        .where('realm', '=', 'operator')
        .where('email', '=', account.email.toLowerCase())
        .where('address', '=', ip)
        .executeTakeFirstOrThrow();
      expect(row.failures).toBe(results.filter((res) => res.status === 401).length);
      expect(row.failures).toBeGreaterThanOrEqual(5);
      const after = await postLogin(u, account.email, account.password, from(ip));
      expect(after.status).toBe(429);
      expect(after.body.error.code).toBe('too_many_requests');
    });
  },
);

describe('staff login: per-IP rate limit', { timeout: 60_000 }, () => {
  let u: TestGateway;
  beforeAll(async () => {
    u = await startTestGateway();
  });
  afterAll(async () => u?.close());

  it('answers 429 too_many_requests with Retry-After after 20 attempts a minute at one account from one address', async () => {
    const account = await createStaffUser(u, 'admin');
    const other = await createStaffUser(u, 'support');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      // Past the login throttle's waits (injected clock): this test is about the limiter.
      u.clock.advance(15 * MINUTE);
      statuses.push((await postLogin(u, account.email, 'not-the-password-1')).status);
    }
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 401));
    u.clock.advance(15 * MINUTE);
    const limited = await postLogin(u, account.email, 'not-the-password-1');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('too_many_requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password waits: the limit is checked before the password.
    expect((await postLogin(u, account.email, account.password)).status).toBe(429);
    // Another account from the same address is not limited by those posts.
    expect((await postLogin(u, other.email, other.password)).status).toBe(200);
  });
});

describe('authentication and CSRF on /operator/v1', () => {
  let applicationId: string;
  let organizationId: string;
  let emailId: string;

  beforeAll(async () => {
    applicationId = await submitApplication(t);
    const approval = await approvedOrganization(t, admin);
    organizationId = approval.organization.id;
    emailId = approval.emailId;
  });

  /** Every operator API route, with a body that would be valid. */
  const routes = (): Array<{ method: string; path: string; body?: unknown }> => [
    { method: 'DELETE', path: '/operator/v1/session' },
    { method: 'GET', path: '/operator/v1/applications' },
    { method: 'GET', path: `/operator/v1/applications/${applicationId}` },
    { method: 'POST', path: `/operator/v1/applications/${applicationId}/start-review` },
    { method: 'POST', path: `/operator/v1/applications/${applicationId}/approve` },
    { method: 'POST', path: `/operator/v1/applications/${applicationId}/reject`, body: { reason: 'No' } },
    { method: 'GET', path: '/operator/v1/organizations' },
    { method: 'GET', path: `/operator/v1/organizations/${organizationId}` },
    {
      method: 'PUT',
      path: `/operator/v1/organizations/${organizationId}/kyc-status`,
      body: { kycStatus: 'APPROVED' },
    },
    {
      method: 'PUT',
      path: `/operator/v1/organizations/${organizationId}/fees/credit_card_tr`,
      body: { basisPoints: 1, fixedMinor: 1 },
    },
    {
      method: 'PUT',
      path: `/operator/v1/organizations/${organizationId}/feature-flags/payouts`,
      body: { enabled: true },
    },
    {
      method: 'PUT',
      path: `/operator/v1/organizations/${organizationId}/rate-limits`,
      body: { live: 1, sandbox: 1 },
    },
    {
      method: 'POST',
      path: `/operator/v1/organizations/${organizationId}/freeze`,
      body: { reason: 'Test' },
    },
    { method: 'POST', path: `/operator/v1/organizations/${organizationId}/unfreeze` },
    { method: 'GET', path: '/operator/v1/audit-log' },
    { method: 'GET', path: '/operator/v1/emails' },
    { method: 'GET', path: `/operator/v1/emails/${emailId}` },
    {
      method: 'POST',
      path: '/operator/v1/staff',
      body: { email: uniqueEmail('intruder'), name: 'Intruder', role: 'admin', password: newPassword() },
    },
    {
      method: 'POST',
      path: '/operator/v1/staff/password',
      body: { email: uniqueEmail('nobody'), password: newPassword() },
    },
    { method: 'POST', path: '/operator/v1/demo-merchants', body: {} },
    {
      method: 'POST',
      path: '/operator/v1/refunds/re_nope/settle',
      body: { outcome: 'failed', reason: 'Asked the acquirer' },
    },
  ];

  async function unchanged() {
    expect((await applicationRow(applicationId)).status).toBe('NEW');
    const organization = await db()
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    expect(organization).toMatchObject({
      kyc_status: 'REVIEWING',
      feature_flags: [],
      frozen_at: null,
      rate_limit_live: null,
    });
  }

  it('answers 401 unauthorized on every route without a session, whatever the body', async () => {
    const staffBefore = await db().selectFrom('staff_users').select('id').execute();
    for (const route of routes()) {
      const bodies = route.method === 'GET' ? [undefined] : [route.body, undefined, { unexpected: true }];
      for (const body of bodies) {
        const res = await anonymous.send(route.method, route.path, body === undefined ? {} : { body });
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(body)}`).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
        expect(res.body.error.requestId).toMatch(/^req_/);
      }
    }
    await unchanged();
    expect(await db().selectFrom('staff_users').select('id').execute()).toHaveLength(staffBefore.length);
  });

  it('answers 401 to a cookie that is not a session (forged, or of the dashboard realm)', async () => {
    for (const cookie of [
      'gw_operator=forged-token',
      'gw_session=whatever',
      `gw_operator=${'a'.repeat(43)}`,
    ]) {
      const res = await request<{ error: { code: string } }>(`${t.urls.operator}/operator/v1/applications`, {
        headers: { cookie },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('refuses every write of a session without X-CSRF-Token, or with a wrong one, with 403 forbidden', async () => {
    for (const route of routes().filter((r) => r.method !== 'GET')) {
      const missing = await admin.send(route.method, route.path, { body: route.body, csrf: false });
      expect(missing.status, `${route.method} ${route.path}`).toBe(403);
      expect(missing.body.error.code).toBe('forbidden');
      const wrong = await admin.send(route.method, route.path, {
        body: route.body,
        csrf: false,
        headers: { 'x-csrf-token': support.csrfToken },
      });
      expect(wrong.status, `${route.method} ${route.path}`).toBe(403);
      expect(wrong.body.error.code).toBe('forbidden');
    }
    await unchanged();
    // Still logged in: the refusals did not end the session.
    expect((await admin.get('/operator/v1/applications')).status).toBe(200);
  });

  it('takes the CLI bearer token (no CSRF needed) and audits its actions as "cli"', async () => {
    const list = await cli.get<{ data: ApplicationView[] }>('/operator/v1/applications');
    expect(list.status).toBe(200);
    expect(list.body.data.map((a) => a.id)).toContain(applicationId);

    const reviewed = await cli.post<ApplicationView>(
      `/operator/v1/applications/${applicationId}/start-review`,
    );
    expect(reviewed.status).toBe(200);
    expect(reviewed.body).toMatchObject({ status: 'IN_REVIEW', reviewedBy: 'cli' });
    const entry = (await auditOf(`targetId=${applicationId}`)).find(
      (e) => e.action === 'application.review_started',
    );
    expect(entry).toMatchObject({ actor: 'cli', before: { status: 'NEW' }, after: { status: 'IN_REVIEW' } });
  });

  it('answers 401 to a wrong, empty or non-Bearer Authorization header, even with a valid session cookie', async () => {
    const token = t.gateway.operatorCliToken ?? '';
    for (const authorization of [
      'Bearer wrong-token',
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      'Bearer ',
      `Basic ${token}`,
      token,
    ]) {
      const res = await request<{ error: { code: string } }>(`${t.urls.operator}/operator/v1/applications`, {
        headers: { authorization, cookie: admin.cookie },
      });
      expect(res.status, authorization).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('does not take the bearer token on console pages: they ask for a staff login', async () => {
    const res = await fetch(`${t.urls.operator}/applications`, {
      headers: { authorization: `Bearer ${t.gateway.operatorCliToken ?? ''}` },
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fapplications');
  });
});

describe('staff roles', () => {
  let organizationId: string;

  beforeAll(async () => {
    organizationId = (await approvedOrganization(t, admin)).organization.id;
  });

  it('support reads everything but may not decide or administer (403 forbidden, nothing changes)', async () => {
    const applicationId = await submitApplication(t);
    const approval = await approvedOrganization(t, admin);
    for (const path of [
      '/operator/v1/applications',
      `/operator/v1/applications/${applicationId}`,
      '/operator/v1/organizations',
      `/operator/v1/organizations/${organizationId}`,
      '/operator/v1/audit-log',
      '/operator/v1/emails',
      `/operator/v1/emails/${approval.emailId}`,
    ]) {
      expect((await support.get(path)).status, path).toBe(200);
    }
    const refused: Array<[string, string, unknown]> = [
      ['POST', `/operator/v1/applications/${applicationId}/start-review`, undefined],
      ['POST', `/operator/v1/applications/${applicationId}/approve`, undefined],
      ['POST', `/operator/v1/applications/${applicationId}/reject`, { reason: 'No' }],
      ['PUT', `/operator/v1/organizations/${organizationId}/kyc-status`, { kycStatus: 'APPROVED' }],
      ['PUT', `/operator/v1/organizations/${organizationId}/feature-flags/events`, { enabled: true }],
      [
        'PUT',
        `/operator/v1/organizations/${organizationId}/fees/bank_transfer`,
        { basisPoints: 1, fixedMinor: 0 },
      ],
      ['POST', `/operator/v1/organizations/${organizationId}/freeze`, { reason: 'Because' }],
      ['POST', '/operator/v1/demo-merchants', {}],
    ];
    for (const [method, path, body] of refused) {
      const res = await support.send(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await applicationRow(applicationId)).status).toBe('NEW');
    const organization = await support.get<OrganizationView>(`/operator/v1/organizations/${organizationId}`);
    expect(organization.body).toMatchObject({ kycStatus: 'REVIEWING', featureFlags: [], frozen: false });
  });

  it('an underwriter approves, rejects and sets KYC, but may not set fees, flags, limits, freeze, demo merchants or staff', async () => {
    const approval = await approvedOrganization(t, underwriter);
    expect(approval.application.reviewedBy).toBe(`staff:${underwriter.account.id}`);
    const rejectedId = await submitApplication(t);
    const rejected = await underwriter.post<ApplicationView>(
      `/operator/v1/applications/${rejectedId}/reject`,
      {
        reason: 'Outside our risk appetite',
      },
    );
    expect(rejected.status).toBe(200);
    const kyc = await underwriter.put<OrganizationView>(
      `/operator/v1/organizations/${approval.organization.id}/kyc-status`,
      { kycStatus: 'APPROVED' },
    );
    expect(kyc.status).toBe(200);
    expect(kyc.body.kycStatus).toBe('APPROVED');

    const id = approval.organization.id;
    const refused: Array<[string, string, unknown]> = [
      ['PUT', `/operator/v1/organizations/${id}/fees/credit_card_tr`, { basisPoints: 100, fixedMinor: 0 }],
      ['PUT', `/operator/v1/organizations/${id}/feature-flags/payouts`, { enabled: true }],
      ['PUT', `/operator/v1/organizations/${id}/rate-limits`, { live: 10, sandbox: 10 }],
      ['POST', `/operator/v1/organizations/${id}/freeze`, { reason: 'Because' }],
      ['POST', `/operator/v1/organizations/${id}/unfreeze`, undefined],
      ['POST', '/operator/v1/demo-merchants', { kycStatus: 'APPROVED' }],
      [
        'POST',
        '/operator/v1/staff',
        { email: uniqueEmail('new-admin'), name: 'New admin', role: 'admin', password: newPassword() },
      ],
    ];
    for (const [method, path, body] of refused) {
      const res = await underwriter.send(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    const after = await underwriter.get<OrganizationView>(`/operator/v1/organizations/${id}`);
    expect(after.body).toMatchObject({
      featureFlags: [],
      frozen: false,
      rateLimits: { live: null, sandbox: null },
    });
    expect(after.body.fees?.find((f) => f.paymentMethod === 'credit_card_tr')?.basisPoints).toBe(350);
  });

  it('an admin creates staff accounts (POST /operator/v1/staff) that can log in', async () => {
    const password = newPassword();
    remember(password);
    const email = uniqueEmail('new-underwriter');
    const res = await admin.post<{ id: string; email: string; role: string }>('/operator/v1/staff', {
      email,
      name: 'New Underwriter',
      role: 'underwriter',
      password,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^stf_/),
      email,
      name: 'New Underwriter',
      role: 'underwriter',
    });
    expect(res.text).not.toContain(password);
    const login = await postLogin(t, email, password);
    expect(login.status).toBe(200);
    remember(login.body.csrfToken);

    const duplicate = await admin.post('/operator/v1/staff', {
      email: email.toUpperCase(),
      name: 'Again',
      role: 'support',
      password: newPassword(),
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.code).toBe('validation_failed');
    const weak = await admin.post('/operator/v1/staff', {
      email: uniqueEmail('weak'),
      name: 'Weak',
      role: 'support',
      password: 'short',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details?.issues?.map((i) => i.path)).toEqual(['password']);
    const badRole = await admin.post('/operator/v1/staff', {
      email: uniqueEmail('role'),
      name: 'Role',
      role: 'owner',
      password: newPassword(),
    });
    expect(badRole.status).toBe(400);
    const entry = (await auditOf(`targetId=${res.body.id}`)).find((e) => e.action === 'staff.created');
    expect(entry).toMatchObject({
      actor: `staff:${admin.account.id}`,
      after: { email, role: 'underwriter' },
    });
  });

  it('an admin sets a staff password (POST /operator/v1/staff/password): the old one and its sessions end', async () => {
    const account = await createStaffUser(t, 'support');
    const session = await loginStaff(t, account);
    remember(account.password, session.token, session.csrfToken);
    expect((await session.get('/operator/v1/organizations')).status).toBe(200);
    const password = newPassword();
    remember(password);
    const res = await admin.post<{ id: string; email: string; sessionsEnded: number }>(
      '/operator/v1/staff/password',
      { email: account.email.toUpperCase(), password },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: account.id, email: account.email, sessionsEnded: 1 });
    expect(res.text).not.toContain(password);
    expect((await session.get('/operator/v1/organizations')).status).toBe(401);
    expect((await postLogin(t, account.email, account.password)).status).toBe(401);
    const login = await postLogin(t, account.email, password);
    expect(login.status).toBe(200);
    remember(login.body.csrfToken);
    const entry = (await auditOf(`targetId=${account.id}`)).find((e) => e.action === 'staff.password_set');
    expect(entry).toMatchObject({ actor: `staff:${admin.account.id}` });
    expect(JSON.stringify(entry)).not.toContain(password);

    const unknown = await admin.post('/operator/v1/staff/password', {
      email: uniqueEmail('nobody'),
      password: newPassword(),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const weak = await admin.post('/operator/v1/staff/password', { email: account.email, password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details?.issues?.map((i) => i.path)).toEqual(['password']);
    for (const other of [underwriter, support]) {
      const refused = await other.post('/operator/v1/staff/password', {
        email: admin.account.email,
        password: newPassword(),
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    // The refused attempts changed nothing: the password set above still logs in.
    expect((await postLogin(t, account.email, password)).status).toBe(200);
  });

  it('five concurrent creations of one address make one account; the others are 400, never a 500', async () => {
    const email = uniqueEmail('concurrent-staff');
    const answers = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        admin.post('/operator/v1/staff', {
          email: i % 2 === 0 ? email : email.toUpperCase(),
          name: `Concurrent ${i}`,
          role: 'support',
          password: newPassword(),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const refused of answers.filter((answer) => answer.status === 400)) {
      expect(refused.body.error).toMatchObject({
        code: 'validation_failed',
        details: { issues: [{ path: 'email', message: 'is already a staff account' }] },
      });
    }
    const rows = await t.gateway.database.db
      .selectFrom('staff_users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .execute();
    expect(rows).toHaveLength(1);
    const created = await auditOf(`targetId=${rows[0]?.id ?? ''}`);
    expect(created.filter((entry) => entry.action === 'staff.created')).toHaveLength(1);
  });
});

describe('applications', { timeout: 60_000 }, () => {
  it('lists with a status filter and cursor pagination: every application exactly once, newest first', async () => {
    const created: string[] = [];
    for (let i = 0; i < 23; i++) {
      created.push(await submitApplication(t, { companyName: `Paged Company ${i}` }));
      // Some share a millisecond, some do not: the cursor must order by (createdAt, id).
      if (i % 5 === 4) t.clock.advance(1);
    }
    const toReject = created.slice(3, 9);
    for (const id of toReject) {
      expect(
        (await admin.post(`/operator/v1/applications/${id}/reject`, { reason: 'Paging test' })).status,
      ).toBe(200);
    }

    const all = await db()
      .selectFrom('applications')
      .select(['id', 'status'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const paged = await allPages<ApplicationView>(support, '/operator/v1/applications?limit=7');
    expect(paged.map((a) => a.id)).toEqual(all.map((a) => a.id));
    expect(new Set(paged.map((a) => a.id)).size).toBe(paged.length);

    for (const status of ['NEW', 'REJECTED'] as const) {
      const filtered = await allPages<ApplicationView>(
        support,
        `/operator/v1/applications?status=${status}&limit=4`,
      );
      expect(filtered.every((a) => a.status === status)).toBe(true);
      expect(filtered.map((a) => a.id)).toEqual(all.filter((a) => a.status === status).map((a) => a.id));
    }
    const rejected = await allPages<ApplicationView>(
      support,
      '/operator/v1/applications?status=REJECTED&limit=100',
    );
    expect(rejected.map((a) => a.id)).toEqual(expect.arrayContaining(toReject));

    const first = await support.get<{ data: ApplicationView[]; nextCursor: string }>(
      '/operator/v1/applications?limit=1',
    );
    expect(first.body.data).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
  });

  it('refuses a bad status, limit or cursor with 400 validation_failed', async () => {
    for (const query of [
      'status=DONE',
      'limit=0',
      'limit=101',
      'limit=ten',
      'cursor=not-a-cursor',
      `cursor=${Buffer.from('yesterday|app_1').toString('base64url')}`,
      'colour=blue',
    ]) {
      const res = await support.get(`/operator/v1/applications?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('shows one application with every field', async () => {
    const id = await submitApplication(t, {
      companyName: 'Bosphorus Media',
      contactName: 'Mehmet Demir',
      contactEmail: 'mehmet@bosphorus.example',
      telegram: '@mehmet',
      vertical: 'other',
      verticalOther: 'Skill gaming',
      whySwitching: 'Fees',
    });
    const res = await support.get<ApplicationView>(`/operator/v1/applications/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      status: 'NEW',
      companyName: 'Bosphorus Media',
      jurisdiction: 'TR',
      vertical: 'other',
      verticalOther: 'Skill gaming',
      monthlyVolumeUSD: 250_000,
      currentAcquirer: null,
      whySwitching: 'Fees',
      contactName: 'Mehmet Demir',
      contactEmail: 'mehmet@bosphorus.example',
      telegram: '@mehmet',
      submittedIp: '127.0.0.1',
      reviewedBy: null,
      reviewedAt: null,
      decisionReason: null,
      organizationId: null,
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
    });
  });

  it('starts a review: NEW -> IN_REVIEW, audited; a second start changes nothing', async () => {
    const id = await submitApplication(t);
    const res = await underwriter.post<ApplicationView>(`/operator/v1/applications/${id}/start-review`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'IN_REVIEW',
      reviewedBy: `staff:${underwriter.account.id}`,
    });
    const again = await admin.post<ApplicationView>(`/operator/v1/applications/${id}/start-review`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('IN_REVIEW');
    const entries = (await auditOf(`targetId=${id}`)).filter(
      (e) => e.action === 'application.review_started',
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: `staff:${underwriter.account.id}`,
      targetType: 'application',
      before: { status: 'NEW' },
      after: { status: 'IN_REVIEW' },
      requestId: expect.stringMatching(/^req_/),
      ip: '127.0.0.1',
    });
  });

  describe('approval', () => {
    let applicationId: string;
    let contactEmail: string;
    let approval: ApprovalView;
    let responseText: string;

    beforeAll(async () => {
      contactEmail = uniqueEmail('owner');
      applicationId = await submitApplication(t, {
        companyName: 'Galata Commerce',
        contactName: 'Zeynep Arslan',
        contactEmail,
      });
      expect((await underwriter.post(`/operator/v1/applications/${applicationId}/start-review`)).status).toBe(
        200,
      );
      const res = await underwriter.post<ApprovalView>(`/operator/v1/applications/${applicationId}/approve`);
      expect(res.status, res.text).toBe(200);
      approval = res.body;
      responseText = res.text;
    });

    it('answers with the approved application and the new organization, and nothing secret', async () => {
      expect(Object.keys(approval).sort()).toEqual(['application', 'emailId', 'organization', 'ownerEmail']);
      expect(approval.application).toMatchObject({
        id: applicationId,
        status: 'APPROVED',
        organizationId: approval.organization.id,
        reviewedBy: `staff:${underwriter.account.id}`,
        reviewedAt: t.clock.now().toISOString(),
      });
      expect(approval.organization).toMatchObject({
        id: expect.stringMatching(/^org_[0-9a-z]+$/),
        name: 'Galata Commerce',
        applicationId,
        contactEmail,
        kycStatus: 'REVIEWING',
        featureFlags: [],
        rateLimits: { live: null, sandbox: null },
        frozen: false,
        frozenReason: null,
      });
      expect(approval.ownerEmail).toBe(contactEmail);
      expect(approval.emailId).toMatch(/^eml_/);
      expect(responseText).not.toMatch(/sk_(test|live)_/);
      expect(responseText).not.toContain('/activate/');
      expect(responseText).not.toMatch(/secret|token|password/i);

      const stored = await applicationRow(applicationId);
      expect(stored).toMatchObject({ status: 'APPROVED', organization_id: approval.organization.id });
    });

    it('gives the organization the default fee schedule of all three payment methods', async () => {
      const res = await support.get<OrganizationView>(
        `/operator/v1/organizations/${approval.organization.id}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.fees).toEqual(
        Object.entries(DEFAULT_FEES)
          .map(([paymentMethod, fee]) => ({
            paymentMethod,
            basisPoints: fee.basisPoints,
            fixedMinor: fee.fixedMinor.toString(),
          }))
          .sort((a, b) => a.paymentMethod.localeCompare(b.paymentMethod)),
      );
      expect(res.body.fees).toHaveLength(3);
    });

    it('creates an invited owner, one sandbox key with scope all, and a 72-hour activation token', async () => {
      const organizationId = approval.organization.id;
      const users = await db()
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .execute();
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({
        email: contactEmail,
        name: 'Zeynep Arslan',
        role: 'owner',
        status: 'invited',
        password_hash: null,
      });
      const keys = await db()
        .selectFrom('api_keys')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .execute();
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatchObject({
        environment: 'sandbox',
        scopes: ['all'],
        revoked_at: null,
        expires_at: null,
        display_prefix: expect.stringMatching(/^sk_test_[0-9A-Za-z]{8}$/),
      });
      const tokens = await db()
        .selectFrom('account_tokens')
        .selectAll()
        .where('user_id', '=', users[0]?.id ?? '')
        .execute();
      expect(tokens).toHaveLength(1);
      const token = tokens[0];
      expect(token).toMatchObject({ kind: 'activation', used_at: null });
      expect(token?.created_at.toISOString()).toBe(t.clock.now().toISOString());
      expect((token?.expires_at.getTime() ?? 0) - (token?.created_at.getTime() ?? 0)).toBe(72 * 60 * MINUTE);
    });

    it('puts the approval e-mail in the outbox: sealed, with the sandbox key and the activation link', async () => {
      const row = await db()
        .selectFrom('emails')
        .selectAll()
        .where('id', '=', approval.emailId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        to_address: contactEmail,
        template: 'application_approved',
        status: 'dev_mailbox',
      });
      expect(row.body_enc).not.toMatch(/sk_test_|activate/);

      const mail = await approvalSecrets(t, approval.emailId);
      remember(mail.sandboxKey, mail.activationToken);
      const key = await db()
        .selectFrom('api_keys')
        .select(['secret_hash', 'display_prefix'])
        .where('organization_id', '=', approval.organization.id)
        .executeTakeFirstOrThrow();
      expect(key.secret_hash).toBe(sha256Hex(mail.sandboxKey));
      expect(key.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(mail.sandboxKey.startsWith(key.display_prefix)).toBe(true);
      expect(mail.activationUrl).toBe(`${t.urls.web}/activate/${mail.activationToken}`);
      const token = await db()
        .selectFrom('account_tokens')
        .select('token_hash')
        .where('token_hash', '=', sha256Hex(mail.activationToken))
        .executeTakeFirst();
      expect(token).toBeDefined();
      expect(mail.html).toContain(mail.sandboxKey);
      expect(mail.html).toContain(`href="${mail.activationUrl}"`);
      expect(mail.text).toContain('Galata Commerce');
    });

    it('audits the approval with who, before and after', async () => {
      const entry = (await auditOf(`targetId=${applicationId}`)).find(
        (e) => e.action === 'application.approved',
      );
      expect(entry).toMatchObject({
        actor: `staff:${underwriter.account.id}`,
        targetType: 'application',
        organizationId: approval.organization.id,
        before: { status: 'IN_REVIEW' },
        after: { status: 'APPROVED', organizationId: approval.organization.id },
      });
    });

    it('refuses a second approval and a rejection with 409 invalid_state_transition, changing nothing', async () => {
      const again = await admin.post(`/operator/v1/applications/${applicationId}/approve`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state_transition');
      const reject = await admin.post(`/operator/v1/applications/${applicationId}/reject`, {
        reason: 'Late',
      });
      expect(reject.status).toBe(409);
      expect(reject.body.error.code).toBe('invalid_state_transition');
      const review = await admin.post(`/operator/v1/applications/${applicationId}/start-review`);
      expect(review.status).toBe(409);
      const organizations = await db()
        .selectFrom('organizations')
        .select('id')
        .where('application_id', '=', applicationId)
        .execute();
      expect(organizations).toHaveLength(1);
      expect(
        await db().selectFrom('emails').select('id').where('to_address', '=', contactEmail).execute(),
      ).toHaveLength(1);
      expect((await applicationRow(applicationId)).decision_reason).toBeNull();
    });
  });

  it('rejects with a reason: REJECTED, audited, the rejection e-mail sent; approving it then is 409', async () => {
    const contactEmail = uniqueEmail('rejected');
    const id = await submitApplication(t, { companyName: 'Kadıköy Bets', contactEmail });
    for (const body of [
      undefined,
      {},
      { reason: '' },
      { reason: '   ' },
      { reason: 'x'.repeat(2001) },
      { reason: 5 },
    ]) {
      const res = await underwriter.send(
        'POST',
        `/operator/v1/applications/${id}/reject`,
        body === undefined ? {} : { body },
      );
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await applicationRow(id)).status).toBe('NEW');

    const res = await underwriter.post<ApplicationView>(`/operator/v1/applications/${id}/reject`, {
      reason: '  Licence missing  ',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'REJECTED',
      decisionReason: 'Licence missing',
      organizationId: null,
      reviewedBy: `staff:${underwriter.account.id}`,
    });
    const emails = await db()
      .selectFrom('emails')
      .selectAll()
      .where('to_address', '=', contactEmail)
      .execute();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ template: 'application_rejected', status: 'dev_mailbox' });
    const mail = await t.gateway.services.mailer.read(emails[0]?.id ?? '');
    expect(mail?.text).toContain('Licence missing');
    expect(mail?.text).toContain('Kadıköy Bets');
    expect(mail?.text).not.toMatch(/sk_test_|activate/);

    const entry = (await auditOf(`targetId=${id}`)).find((e) => e.action === 'application.rejected');
    expect(entry).toMatchObject({
      actor: `staff:${underwriter.account.id}`,
      before: { status: 'NEW' },
      after: { status: 'REJECTED', reason: 'Licence missing' },
    });

    const approve = await admin.post(`/operator/v1/applications/${id}/approve`);
    expect(approve.status).toBe(409);
    expect(approve.body.error.code).toBe('invalid_state_transition');
    expect(
      await db().selectFrom('organizations').select('id').where('application_id', '=', id).execute(),
    ).toHaveLength(0);
    expect(
      await db().selectFrom('users').select('id').where('email', '=', contactEmail).execute(),
    ).toHaveLength(0);
    const again = await admin.post(`/operator/v1/applications/${id}/reject`, { reason: 'Twice' });
    expect(again.status).toBe(409);
  });

  it('ten concurrent approvals of one application make exactly one organization', async () => {
    const contactEmail = uniqueEmail('race');
    const id = await submitApplication(t, { contactEmail });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? admin : underwriter).post<ApprovalView>(`/operator/v1/applications/${id}/approve`),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 9 }, () => 409)]);
    for (const res of results.filter((r) => r.status === 409)) {
      expect(res.body.error.code).toBe('invalid_state_transition');
    }
    const organizations = await db()
      .selectFrom('organizations')
      .select('id')
      .where('application_id', '=', id)
      .execute();
    expect(organizations).toHaveLength(1);
    const organizationId = organizations[0]?.id ?? '';
    expect((await applicationRow(id)).organization_id).toBe(organizationId);
    expect(
      await db().selectFrom('users').select('id').where('email', '=', contactEmail).execute(),
    ).toHaveLength(1);
    expect(
      await db().selectFrom('api_keys').select('id').where('organization_id', '=', organizationId).execute(),
    ).toHaveLength(1);
    expect(
      await db().selectFrom('emails').select('id').where('to_address', '=', contactEmail).execute(),
    ).toHaveLength(1);
    expect((await auditOf(`targetId=${id}`)).filter((e) => e.action === 'application.approved')).toHaveLength(
      1,
    );
  });

  it('answers 404 not_found for unknown application ids', async () => {
    for (const [method, path, body] of [
      ['GET', '/operator/v1/applications/app_doesnotexist', undefined],
      ['POST', '/operator/v1/applications/app_doesnotexist/start-review', undefined],
      ['POST', '/operator/v1/applications/app_doesnotexist/approve', undefined],
      ['POST', '/operator/v1/applications/app_doesnotexist/reject', { reason: 'No' }],
      ['GET', `/operator/v1/applications/${encodeURIComponent("' or 1=1 --")}`, undefined],
    ] as const) {
      const res = await admin.send(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('organizations', () => {
  let approval: ApprovalView;
  let id: string;

  beforeAll(async () => {
    approval = await approvedOrganization(t, admin, { companyName: 'Izmir Retail' });
    id = approval.organization.id;
  });

  it('lists organizations, newest first, with cursor pagination', async () => {
    await approvedOrganization(t, admin);
    const all = await db()
      .selectFrom('organizations')
      .select('id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    const paged = await allPages<OrganizationView>(support, '/operator/v1/organizations?limit=2');
    expect(paged.map((o) => o.id)).toEqual(all.map((o) => o.id));
    const listed = paged.find((o) => o.id === id);
    expect(listed).toMatchObject({ name: 'Izmir Retail', kycStatus: 'REVIEWING', frozen: false });
    expect(listed).not.toHaveProperty('fees');
  });

  it('shows one organization with its fees', async () => {
    const res = await support.get<OrganizationView>(`/operator/v1/organizations/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...approval.organization, updatedAt: expect.any(String) });
    expect(res.body.fees?.map((f) => f.paymentMethod)).toEqual([
      'bank_transfer',
      'credit_card_international',
      'credit_card_tr',
    ]);
  });

  it('sets the KYC status', async () => {
    const bad = await underwriter.put(`/operator/v1/organizations/${id}/kyc-status`, { kycStatus: 'DONE' });
    expect(bad.status).toBe(400);
    const res = await underwriter.put<OrganizationView>(`/operator/v1/organizations/${id}/kyc-status`, {
      kycStatus: 'APPROVED',
    });
    expect(res.status).toBe(200);
    expect(res.body.kycStatus).toBe('APPROVED');
    const row = await db()
      .selectFrom('organizations')
      .select('kyc_status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.kyc_status).toBe('APPROVED');
  });

  it('sets a fee, with basisPoints 0..10000 and fixedMinor a non-negative integer or digit string', async () => {
    const path = `/operator/v1/organizations/${id}/fees/credit_card_tr`;
    for (const body of [
      { basisPoints: -1, fixedMinor: 0 },
      { basisPoints: 10_001, fixedMinor: 0 },
      { basisPoints: 1.5, fixedMinor: 0 },
      { basisPoints: '100', fixedMinor: 0 },
      { basisPoints: 100, fixedMinor: -1 },
      { basisPoints: 100, fixedMinor: 1.5 },
      { basisPoints: 100, fixedMinor: '-1' },
      { basisPoints: 100, fixedMinor: '1.5' },
      { basisPoints: 100, fixedMinor: '1e3' },
      { basisPoints: 100, fixedMinor: '' },
      { basisPoints: 100, fixedMinor: '12345678901234567' },
      { basisPoints: 100 },
      { fixedMinor: 0 },
      { basisPoints: 100, fixedMinor: 0, currency: 'TRY' },
    ]) {
      const res = await admin.put(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const unknownMethod = await admin.put(`/operator/v1/organizations/${id}/fees/cash`, {
      basisPoints: 1,
      fixedMinor: 0,
    });
    expect(unknownMethod.status).toBe(400);

    const fee = (res: { body: OrganizationView }) =>
      res.body.fees?.find((f) => f.paymentMethod === 'credit_card_tr');
    const set = await admin.put<OrganizationView>(path, { basisPoints: 290, fixedMinor: 75 });
    expect(set.status).toBe(200);
    expect(fee(set)).toEqual({ paymentMethod: 'credit_card_tr', basisPoints: 290, fixedMinor: '75' });
    expect(set.body.fees).toHaveLength(3);
    const big = await admin.put<OrganizationView>(path, {
      basisPoints: 10_000,
      fixedMinor: '9007199254740993',
    });
    expect(big.status).toBe(200);
    expect(fee(big)).toEqual({
      paymentMethod: 'credit_card_tr',
      basisPoints: 10_000,
      fixedMinor: '9007199254740993',
    });
    const zero = await admin.put<OrganizationView>(path, { basisPoints: 0, fixedMinor: '0' });
    expect(fee(zero)).toEqual({ paymentMethod: 'credit_card_tr', basisPoints: 0, fixedMinor: '0' });
    const final = await admin.put<OrganizationView>(path, { basisPoints: 320, fixedMinor: 100 });
    expect(fee(final)).toEqual({ paymentMethod: 'credit_card_tr', basisPoints: 320, fixedMinor: '100' });
    const row = await db()
      .selectFrom('fee_schedules')
      .selectAll()
      .where('organization_id', '=', id)
      .where('payment_method', '=', 'credit_card_tr')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ basis_points: 320, fixed_minor: '100' });
  });

  it('switches feature flags on and off', async () => {
    const flag = (name: string, enabled: boolean) =>
      admin.put<OrganizationView>(`/operator/v1/organizations/${id}/feature-flags/${name}`, { enabled });
    expect((await flag('payouts', true)).body.featureFlags).toEqual(['payouts']);
    expect((await flag('apiKeys', true)).body.featureFlags).toEqual(['apiKeys', 'payouts']);
    expect((await flag('apiKeys', true)).body.featureFlags).toEqual(['apiKeys', 'payouts']);
    expect((await flag('payouts', false)).body.featureFlags).toEqual(['apiKeys']);
    const unknown = await flag('teleport', true);
    expect(unknown.status).toBe(400);
    const notBoolean = await admin.put(`/operator/v1/organizations/${id}/feature-flags/events`, {
      enabled: 'yes',
    });
    expect(notBoolean.status).toBe(400);
    const row = await db()
      .selectFrom('organizations')
      .select('feature_flags')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.feature_flags).toEqual(['apiKeys']);
  });

  it('sets and clears the rate limits', async () => {
    const path = `/operator/v1/organizations/${id}/rate-limits`;
    for (const body of [
      { live: 0, sandbox: 1 },
      { live: 1 },
      { live: 1.5, sandbox: 1 },
      { live: 100_001, sandbox: 1 },
    ]) {
      expect((await admin.put(path, body)).status, JSON.stringify(body)).toBe(400);
    }
    const set = await admin.put<OrganizationView>(path, { live: 250, sandbox: 40 });
    expect(set.status).toBe(200);
    expect(set.body.rateLimits).toEqual({ live: 250, sandbox: 40 });
    const cleared = await admin.put<OrganizationView>(path, { live: null, sandbox: 30 });
    expect(cleared.body.rateLimits).toEqual({ live: null, sandbox: 30 });
  });

  it('freezes with a reason (required) and unfreezes', async () => {
    for (const body of [undefined, {}, { reason: '' }, { reason: '   ' }]) {
      const res = await admin.send(
        'POST',
        `/operator/v1/organizations/${id}/freeze`,
        body === undefined ? {} : { body },
      );
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await support.get<OrganizationView>(`/operator/v1/organizations/${id}`)).body.frozen).toBe(false);
    const frozen = await admin.post<OrganizationView>(`/operator/v1/organizations/${id}/freeze`, {
      reason: 'Chargeback spike',
    });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({ frozen: true, frozenReason: 'Chargeback spike' });
    const row = await db()
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.frozen_at?.toISOString()).toBe(t.clock.now().toISOString());
    const unfrozen = await admin.post<OrganizationView>(`/operator/v1/organizations/${id}/unfreeze`);
    expect(unfrozen.status).toBe(200);
    expect(unfrozen.body).toMatchObject({ frozen: false, frozenReason: null });
  });

  it('audits every change with the actor, the action, before and after', async () => {
    const entries = await auditOf(`organizationId=${id}`);
    const byAdmin = `staff:${admin.account.id}`;
    const oneOf = (action: string) => {
      const found = entries.filter((e) => e.action === action);
      expect(found.length, action).toBeGreaterThan(0);
      return found;
    };
    for (const entry of entries) {
      expect(entry).toMatchObject({
        organizationId: id,
        requestId: expect.stringMatching(/^req_/),
        ip: '127.0.0.1',
      });
    }
    expect(oneOf('organization.kyc_status_set')).toEqual([
      expect.objectContaining({
        actor: `staff:${underwriter.account.id}`,
        targetType: 'organization',
        targetId: id,
        before: { kycStatus: 'REVIEWING' },
        after: { kycStatus: 'APPROVED' },
      }),
    ]);
    // Newest first: the last fee set (320 bps, 100) came after the zero fee.
    const fees = oneOf('organization.fee_set');
    expect(fees).toHaveLength(4);
    expect(fees[0]).toMatchObject({
      actor: byAdmin,
      before: {
        credit_card_tr: { basisPoints: 0, fixedMinor: '0' },
        bank_transfer: { basisPoints: 150, fixedMinor: '0' },
      },
      after: {
        credit_card_tr: { basisPoints: 320, fixedMinor: '100' },
        bank_transfer: { basisPoints: 150, fixedMinor: '0' },
        credit_card_international: { basisPoints: 550, fixedMinor: '100' },
      },
    });
    expect(fees[3]).toMatchObject({
      before: { credit_card_tr: { basisPoints: 350, fixedMinor: '100' } },
      after: { credit_card_tr: { basisPoints: 290, fixedMinor: '75' } },
    });
    expect(oneOf('organization.flag_enabled').at(-1)).toMatchObject({
      actor: byAdmin,
      before: { featureFlags: [] },
      after: { featureFlags: ['payouts'] },
    });
    expect(oneOf('organization.flag_disabled')).toEqual([
      expect.objectContaining({
        actor: byAdmin,
        before: { featureFlags: ['apiKeys', 'payouts'] },
        after: { featureFlags: ['apiKeys'] },
      }),
    ]);
    expect(oneOf('organization.rate_limits_set').map((e) => [e.before, e.after])).toEqual([
      [{ rateLimits: { live: 250, sandbox: 40 } }, { rateLimits: { live: null, sandbox: 30 } }],
      [{ rateLimits: { live: null, sandbox: null } }, { rateLimits: { live: 250, sandbox: 40 } }],
    ]);
    expect(oneOf('organization.frozen')).toEqual([
      expect.objectContaining({
        actor: byAdmin,
        before: { frozen: false, frozenReason: null },
        after: { frozen: true, frozenReason: 'Chargeback spike' },
      }),
    ]);
    expect(oneOf('organization.unfrozen')).toEqual([
      expect.objectContaining({
        actor: byAdmin,
        before: { frozen: true, frozenReason: 'Chargeback spike' },
        after: { frozen: false, frozenReason: null },
      }),
    ]);
    // The refused attempts (validation, roles) left no trace.
    expect(entries.filter((e) => e.action.startsWith('organization.'))).toHaveLength(
      1 + 4 + 3 + 1 + 2 + 1 + 1,
    );
  });

  it('pages through the audit log with a cursor, and refuses a foreign cursor', async () => {
    const all = await auditOf('');
    const paged = await allPages<AuditEntry>(support, '/operator/v1/audit-log?limit=3');
    expect(paged.slice(0, all.length).map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(paged.map((e) => e.id)).size).toBe(paged.length);
    const foreign = await support.get(
      `/operator/v1/audit-log?cursor=${Buffer.from(`${new Date().toISOString()}|app_x`).toString('base64url')}`,
    );
    expect(foreign.status).toBe(400);
  });

  it('answers 404 not_found for unknown organization ids', async () => {
    const unknown = '/operator/v1/organizations/org_doesnotexist';
    for (const [method, path, body] of [
      ['GET', unknown, undefined],
      ['PUT', `${unknown}/kyc-status`, { kycStatus: 'APPROVED' }],
      ['PUT', `${unknown}/fees/bank_transfer`, { basisPoints: 1, fixedMinor: 0 }],
      ['PUT', `${unknown}/feature-flags/events`, { enabled: true }],
      ['PUT', `${unknown}/rate-limits`, { live: 1, sandbox: 1 }],
      ['POST', `${unknown}/freeze`, { reason: 'x' }],
      ['POST', `${unknown}/unfreeze`, undefined],
    ] as const) {
      const res = await admin.send(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('mailbox', () => {
  it('lists the outbox without bodies, newest first, with a cursor', async () => {
    t.clock.advance(SECOND);
    const approval = await approvedOrganization(t, admin);
    const res = await support.get<{
      transport: string;
      data: Array<Record<string, unknown>>;
      nextCursor: string | null;
    }>('/operator/v1/emails?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.transport).toBe('dev_mailbox');
    expect(res.body.data[0]).toEqual({
      id: approval.emailId,
      to: approval.ownerEmail,
      subject: 'Başvurunuz onaylandı / Your application is approved',
      template: 'application_approved',
      status: 'dev_mailbox',
      attempts: 0,
      lastError: null,
      createdAt: t.clock.now().toISOString(),
      sentAt: null,
    });
    expect(res.text).not.toMatch(/sk_test_|\/activate\//);
    const count = await db()
      .selectFrom('emails')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const paged = await allPages<{ id: string }>(support, '/operator/v1/emails?limit=4');
    expect(paged).toHaveLength(Number(count.n));
    expect(new Set(paged.map((e) => e.id)).size).toBe(paged.length);
  });

  it('shows one message with its text and html; unknown ids are 404', async () => {
    const approval = await approvedOrganization(t, admin, { companyName: 'Ankara Foods' });
    const res = await support.get<{ id: string; text: string; html: string; subject: string }>(
      `/operator/v1/emails/${approval.emailId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(approval.emailId);
    expect(res.body.text).toContain('Ankara Foods');
    expect(res.body.text).toMatch(/sk_test_[0-9A-Za-z]{38}/);
    expect(res.body.html).toMatch(/^<!doctype html>/);
    expect(res.body.html).toContain('/activate/');
    const secretsOf = await approvalSecrets(t, approval.emailId);
    remember(secretsOf.sandboxKey, secretsOf.activationToken);
    const missing = await support.get('/operator/v1/emails/eml_doesnotexist');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});

describe('demo merchants', () => {
  it('creates a ready merchant: KYC, flags, a dashboard login and both keys, stored only as hashes', async () => {
    const res = await admin.post<DemoMerchant>('/operator/v1/demo-merchants', {
      kycStatus: 'APPROVED',
      flags: ['events', 'apiKeys'],
    });
    expect(res.status, res.text).toBe(201);
    const demo = res.body;
    expect(demo).toEqual({
      organizationId: expect.stringMatching(/^org_/),
      applicationId: expect.stringMatching(/^app_/),
      kycStatus: 'APPROVED',
      featureFlags: ['apiKeys', 'events'],
      dashboard: {
        url: `${t.urls.web}/login`,
        email: expect.stringMatching(/@merchant\.example$/),
        password: expect.any(String),
      },
      keys: {
        sandbox: expect.stringMatching(/^sk_test_[0-9A-Za-z]{38}$/),
        live: expect.stringMatching(/^sk_live_[0-9A-Za-z]{38}$/),
      },
    });
    remember(demo.keys.sandbox, demo.keys.live, demo.dashboard.password);

    const keys = await db()
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', demo.organizationId)
      .orderBy('environment')
      .execute();
    expect(keys.map((k) => [k.environment, k.secret_hash, k.scopes])).toEqual([
      ['live', sha256Hex(demo.keys.live), ['all']],
      ['sandbox', sha256Hex(demo.keys.sandbox), ['all']],
    ]);
    const owner = await db()
      .selectFrom('users')
      .selectAll()
      .where('organization_id', '=', demo.organizationId)
      .executeTakeFirstOrThrow();
    expect(owner).toMatchObject({ email: demo.dashboard.email, status: 'active', role: 'owner' });
    expect(owner.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(owner.password_hash ?? '', demo.dashboard.password)).toBe(true);
    const tokens = await db()
      .selectFrom('account_tokens')
      .selectAll()
      .where('user_id', '=', owner.id)
      .execute();
    expect(tokens.every((token) => token.used_at !== null)).toBe(true);

    const organization = await support.get<OrganizationView>(
      `/operator/v1/organizations/${demo.organizationId}`,
    );
    expect(organization.body).toMatchObject({ kycStatus: 'APPROVED', featureFlags: ['apiKeys', 'events'] });
    const application = await support.get<ApplicationView>(`/operator/v1/applications/${demo.applicationId}`);
    expect(application.body).toMatchObject({ status: 'APPROVED', organizationId: demo.organizationId });
    const created = (await auditOf(`organizationId=${demo.organizationId}`)).find(
      (e) => e.action === 'organization.demo_created',
    );
    expect(created?.actor).toBe(`staff:${admin.account.id}`);
  });

  it('takes a company name and e-mail, and defaults to KYC REVIEWING without flags', async () => {
    const email = uniqueEmail('demo');
    const res = await admin.post<{
      organizationId: string;
      kycStatus: string;
      featureFlags: string[];
      keys: { sandbox: string; live: string };
      dashboard: { email: string; password: string };
    }>('/operator/v1/demo-merchants', { companyName: 'Demo Kebab House', email });
    expect(res.status).toBe(201);
    remember(res.body.keys.sandbox, res.body.keys.live, res.body.dashboard.password);
    expect(res.body).toMatchObject({ kycStatus: 'REVIEWING', featureFlags: [], dashboard: { email } });
    const organization = await support.get<OrganizationView>(
      `/operator/v1/organizations/${res.body.organizationId}`,
    );
    expect(organization.body.name).toBe('Demo Kebab House');
  });

  it('refuses an e-mail address that already has a dashboard account (409), leaving no application behind', async () => {
    const email = uniqueEmail('demo-twice');
    const first = await admin.post<{
      keys: { sandbox: string; live: string };
      dashboard: { password: string };
    }>('/operator/v1/demo-merchants', { email });
    expect(first.status).toBe(201);
    remember(first.body.keys.sandbox, first.body.keys.live, first.body.dashboard.password);
    const second = await admin.post('/operator/v1/demo-merchants', { email: email.toUpperCase() });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('invalid_state_transition');
    const applications = await db()
      .selectFrom('applications')
      .select('status')
      .where((eb) => eb(eb.fn('lower', ['contact_email']), '=', email))
      .execute();
    expect(applications).toEqual([{ status: 'APPROVED' }]);
  });

  it('refuses unknown flags, KYC statuses and fields with 400', async () => {
    for (const body of [
      { flags: ['teleport'] },
      { flags: ['events', 'events'] },
      { kycStatus: 'DONE' },
      { email: 'not-an-email' },
      { colour: 'blue' },
    ]) {
      const res = await admin.post('/operator/v1/demo-merchants', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });
});

describe('secrets at rest', () => {
  it('no text of any table holds a staff password, session token, key secret or activation token in clear', async () => {
    // Every approval e-mail of this file carries a sandbox key and an activation token: collect them all.
    const emails = await db().selectFrom('emails').select(['id', 'template']).execute();
    for (const email of emails.filter((e) => e.template === 'application_approved')) {
      const found = await approvalSecrets(t, email.id);
      remember(found.sandboxKey, found.activationToken);
    }
    expect(secrets.size).toBeGreaterThan(20);

    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db());
    const names = tables.rows.map((row) => row.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'staff_users',
        'users',
        'api_keys',
        'account_tokens',
        'emails',
        'sessions',
        'audit_log',
      ]),
    );
    const leaks: string[] = [];
    let rows = 0;
    for (const name of names) {
      const result = await sql<{
        row: string;
      }>`select row_to_json(t)::text as row from ${sql.table(name)} t`.execute(db());
      for (const { row } of result.rows) {
        rows++;
        for (const secret of secrets)
          if (row.includes(secret)) leaks.push(`${name}: ${secret.slice(0, 12)}…`);
        if (/sk_(test|live)_[0-9A-Za-z]{20,}/.test(row)) leaks.push(`${name}: a whole API key`);
      }
    }
    expect(rows).toBeGreaterThan(100);
    expect(leaks).toEqual([]);

    // Nor did any of them reach the logs.
    const logged = [...secrets].filter((secret) => t.logs.some((line) => line.includes(secret)));
    expect(logged.map((secret) => `${secret.slice(0, 12)}…`)).toEqual([]);
  });
});
