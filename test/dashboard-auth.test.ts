import { describe, expect, it } from 'vitest';
import { LOGIN_THROTTLE } from '../src/http/login-throttle.js';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { DASHBOARD_RATE_LIMITS } from '../src/modules/users/http.js';
import { accountGateway, db, t, useTestGateway, web } from './helpers/suite.js';
import type { ErrorBody } from './helpers/http.js';
import {
  createActiveUser,
  createInvitedOwner,
  csrfIn,
  STRONG_PASSWORD,
  textOf,
  uniqueEmail,
  WebClient,
} from './helpers/accounts.js';

// Dashboard login, logout, sessions, CSRF and throttling on the web listener (the login throttle's own
// rules across addresses and realms are in login-throttle.test.ts).

useTestGateway(accountGateway());

async function auditActions(userId: string): Promise<string[]> {
  const rows = await db()
    .selectFrom('audit_log')
    .select(['action', 'actor'])
    .where('target_id', '=', userId)
    .orderBy('id')
    .execute();
  for (const row of rows) expect(row.actor === `user:${userId}` || row.actor === 'system').toBe(true);
  return rows.map((row) => row.action);
}

async function userRow(userId: string) {
  return db().selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The failed-login counter of one e-mail from one address, if any. */
async function pairRow(email: string, address: string) {
  return db()
    .selectFrom('login_throttle')
    .selectAll()
    .where('realm', '=', 'dashboard')
    .where('email', '=', email.toLowerCase())
    .where('address', '=', address)
    .executeTakeFirst();
}

const FREE = LOGIN_THROTTLE.pair.freeFailures;

describe('login', () => {
  it('signs in with e-mail and password, with a strict cookie, and shows the organization', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    const page = await client.get('/login');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const formCookie = page.headers.getSetCookie().find((cookie) => cookie.startsWith('gw_form='));
    expect(formCookie).toMatch(/HttpOnly/);
    expect(formCookie).toMatch(/SameSite=Strict/);

    const res = await client.postForm('/login', {
      _csrf: csrfIn(page.text),
      email: user.email,
      password: user.password,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard?lang=en');
    const sessionCookie = res.headers.getSetCookie().find((cookie) => cookie.startsWith('gw_session='));
    expect(sessionCookie).toMatch(/HttpOnly/);
    expect(sessionCookie).toMatch(/SameSite=Strict/);
    expect(sessionCookie).toMatch(/Path=\//);

    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    expect(textOf(home.text, 'kyc-status')).toContain('REVIEWING');
    expect(textOf(home.text, 'environment')).toBe('Sandbox');
    expect(await auditActions(user.userId)).toContain('user.login');

    const sessions = await db()
      .selectFrom('sessions')
      .selectAll()
      .where('subject_id', '=', user.userId)
      .execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ realm: 'dashboard', stage: 'active', ip: client.ip });
    expect(sessions[0]?.token_hash).not.toBe(client.cookies.get('gw_session'));
  });

  it('takes the address in any letter case', async () => {
    const user = await createActiveUser(t, { email: uniqueEmail('Mixed.Case') });
    const client = new WebClient(web);
    const res = await client.login(user.email.toUpperCase(), user.password);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard?lang=en');
  });

  it('sends a visitor without a session to the login page, and a signed-in one away from it', async () => {
    const client = new WebClient(web);
    for (const path of ['/dashboard', '/dashboard/security']) {
      const res = await client.get(path);
      expect(res.status).toBe(303);
      expect(res.location).toBe('/login?lang=en');
    }
    const user = await createActiveUser(t);
    await client.login(user.email, user.password);
    const login = await client.get('/login?lang=tr');
    expect(login.status).toBe(303);
    expect(login.location).toBe('/dashboard?lang=tr');
  });

  it('answers an unknown address and a wrong password the same way, and creates no session', async () => {
    const user = await createActiveUser(t);
    const invited = await createInvitedOwner(t);
    const outcomes = [];
    const client = new WebClient(web);
    for (const [email, password] of [
      [uniqueEmail('nobody'), user.password],
      [user.email, 'a wrong password of some length'],
      [invited.email, STRONG_PASSWORD],
    ] as const) {
      const res = await client.login(email, password);
      expect(client.cookies.has('gw_session')).toBe(false);
      outcomes.push({ status: res.status, error: textOf(res.text, 'form-error') });
    }
    expect(outcomes[0]).toEqual({
      status: 401,
      error:
        'The e-mail address or the password is incorrect. After 5 failed attempts, each further attempt has to wait longer.',
    });
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
    expect(await auditActions(user.userId)).toEqual(['user.login_failed']);
    // Every failure is counted the same way, known account or not: per address and e-mail, and per address.
    expect((await pairRow(user.email, client.ip))?.failures).toBe(1);
    expect((await pairRow(invited.email, client.ip))?.failures).toBe(1);
    expect((await pairRow('', client.ip))?.failures).toBe(3);
  });

  it('the same in Turkish, and keeps the typed address (escaped) in the form', async () => {
    const client = new WebClient(web);
    const page = await client.get('/login?lang=tr');
    expect(page.text).toContain('<html lang="tr">');
    const hostile = '"><script>alert(1)</script>@x.example';
    const res = await client.postForm('/login?lang=tr', {
      _csrf: csrfIn(page.text),
      email: hostile,
      password: 'x',
    });
    expect(res.status).toBe(401);
    expect(textOf(res.text, 'form-error')).toBe(
      'E-posta adresi ya da şifre hatalı. 5 başarısız denemeden sonra her yeni deneme için daha uzun beklemeniz gerekir.',
    );
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example"');
  });
});

describe('logout', () => {
  it('ends the session on the server: the old cookie no longer works', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    await client.login(user.email, user.password);
    const stolen = client.cookies.get('gw_session') ?? '';
    const csrf = await client.sessionCsrf();

    const res = await client.postForm('/logout', { _csrf: csrf });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?lang=en&notice=signed_out');
    expect(client.cookies.has('gw_session')).toBe(false);
    const notice = await client.get('/login?notice=signed_out');
    expect(textOf(notice.text, 'login-notice')).toBe('You are signed out.');

    const replay = new WebClient(web);
    replay.cookies.set('gw_session', stolen);
    expect((await replay.get('/dashboard')).status).toBe(303);
    expect(await auditActions(user.userId)).toEqual(['user.login', 'user.logout']);
  });
});

describe('CSRF', () => {
  it('refuses the login form without its token, with a wrong token, or without the form cookie', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    const page = await client.get('/login');
    const csrf = csrfIn(page.text);

    const missing = await client.postForm('/login', { email: user.email, password: user.password });
    expect(missing.status).toBe(403);
    expect(textOf(missing.text, 'message-body')).toBe(
      'The form has expired or did not come from this site. Reload the page and try again.',
    );
    const wrong = await client.postForm('/login', {
      // The last two characters changed (never the token itself, even one that ends in `xx`).
      _csrf: `${csrf.slice(0, -2)}${csrf.endsWith('xx') ? 'yy' : 'xx'}`,
      email: user.email,
      password: user.password,
    });
    expect(wrong.status).toBe(403);
    const stranger = new WebClient(web);
    const noCookie = await stranger.postForm('/login', {
      _csrf: csrf,
      email: user.email,
      password: user.password,
    });
    expect(noCookie.status).toBe(403);
    expect(client.cookies.has('gw_session') || stranger.cookies.has('gw_session')).toBe(false);
    // A refused form is not a login attempt: nothing is counted.
    expect(await pairRow(user.email, client.ip)).toBeUndefined();
    expect(await pairRow(user.email, stranger.ip)).toBeUndefined();
  });

  it('refuses every signed-in form and JSON call without the session token', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    await client.login(user.email, user.password);
    const csrf = await client.sessionCsrf();
    const otherClient = new WebClient(web);
    await otherClient.login(user.email, user.password);
    const otherCsrf = await otherClient.sessionCsrf();

    for (const [path, form] of [
      ['/logout', {}],
      ['/dashboard/environment', { environment: 'live' }],
      ['/dashboard/team/invitations', { email: uniqueEmail('invitee'), role: 'viewer' }],
    ] as const) {
      expect((await client.postForm(path, form)).status, path).toBe(403);
      // The token of another session of the same user is not this session's token.
      expect((await client.postForm(path, { ...form, _csrf: otherCsrf })).status, path).toBe(403);
    }
    for (const [path, body] of [
      ['/v1/auth/2fa/enroll', {}],
      [
        '/v1/auth/change-password',
        { currentPassword: user.password, newPassword: 'another long passphrase' },
      ],
    ] as const) {
      const missing = await client.postJson<ErrorBody>(path, body);
      expect(missing.status, path).toBe(403);
      expect(missing.json.error.code).toBe('forbidden');
      const wrong = await client.postJson<ErrorBody>(path, body, { 'x-csrf-token': otherCsrf });
      expect(wrong.status, path).toBe(403);
    }
    // Nothing happened: still signed in, still sandbox, nobody invited, no enrollment.
    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    expect(textOf(home.text, 'environment')).toBe('Sandbox');
    const row = await userRow(user.userId);
    expect(row.totp_secret_enc).toBeNull();
    expect(
      await db()
        .selectFrom('users')
        .select('id')
        .where('organization_id', '=', user.organizationId)
        .execute(),
    ).toHaveLength(1);
    expect(csrf).not.toBe(otherCsrf);
  });

  it('the JSON endpoints take JSON only, so a cross-site HTML form cannot reach them', async () => {
    const client = new WebClient(web);
    for (const path of ['/v1/auth/forgot-password', '/v1/auth/reset-password', '/v1/auth/2fa/verify']) {
      const res = await client.request<ErrorBody>('POST', path, { form: { email: 'a@b.example' } });
      expect(res.status, path).toBe(415);
      expect(res.json.error.code).toBe('unsupported_media_type');
      const plain = await client.request<ErrorBody>('POST', path, {
        headers: { 'content-type': 'text/plain' },
        json: { email: 'a@b.example' },
      });
      expect(plain.status, path).toBe(415);
    }
  });
});

describe('failed logins slow the address down, never lock the account', () => {
  it(`after ${FREE} failures from one address, that address waits, even with the right password, until the wait lapses`, async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    for (let i = 0; i < FREE - 1; i++) {
      expect((await client.login(user.email, `wrong password number ${i}`)).status).toBe(401);
    }
    const last = await client.login(user.email, 'wrong password number last');
    expect(last.status).toBe(401);
    const row = await pairRow(user.email, client.ip);
    expect(row?.failures).toBe(FREE);
    expect(row?.blocked_until?.getTime()).toBe(t.clock.now().getTime() + LOGIN_THROTTLE.pair.baseMs);

    // Waiting: the right password is not even checked; the page says how long to wait, in the header too.
    const refused = await client.login(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(textOf(refused.text, 'form-error')).toBe(
      'Too many failed attempts. Wait a second, then try again.',
    );
    expect(client.cookies.has('gw_session')).toBe(false);
    const tr = await client.submit('/login?lang=tr', { email: user.email, password: user.password });
    expect(tr.status).toBe(429);
    expect(textOf(tr.text, 'form-error')).toBe(
      'Çok fazla başarısız deneme. 1 saniye bekleyip tekrar deneyin.',
    );

    t.clock.advance(SECOND);
    const open = await client.login(user.email, user.password);
    expect(open.status).toBe(303);
    expect(open.location).toBe('/dashboard?lang=en');
    // A success clears the pair's counter.
    expect(await pairRow(user.email, client.ip)).toBeUndefined();

    const actions = await auditActions(user.userId);
    expect(actions.filter((action) => action === 'user.login_failed')).toHaveLength(FREE);
    expect(actions.filter((action) => action === 'user.login_throttled')).toHaveLength(2);
    expect(actions.at(-1)).toBe('user.login');
  });

  it('the same account from another address signs in at once', async () => {
    const user = await createActiveUser(t);
    const attacker = new WebClient(web);
    for (let i = 0; i < FREE + 2; i++) {
      t.clock.advance(10 * SECOND);
      expect((await attacker.login(user.email, `wrong password number ${i}`)).status).toBe(401);
    }
    expect((await attacker.login(user.email, user.password)).status).toBe(429);
    const owner = new WebClient(web);
    expect((await owner.login(user.email, user.password)).status).toBe(303);
    expect((await userRow(user.userId)).locked_until).toBeNull();
  });

  it('a successful login resets the count of failures', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    for (let i = 0; i < FREE - 1; i++) await client.login(user.email, 'wrong password here');
    expect((await client.login(user.email, user.password)).status).toBe(303);
    const again = new WebClient(web, client.ip);
    for (let i = 0; i < FREE - 1; i++)
      expect((await again.login(user.email, 'wrong password here')).status).toBe(401);
    expect((await pairRow(user.email, client.ip))?.failures).toBe(FREE - 1);
    expect((await new WebClient(web, client.ip).login(user.email, user.password)).status).toBe(303);
  });

  it('counts concurrent failures exactly', async () => {
    const user = await createActiveUser(t);
    const ip = new WebClient(web).ip;
    await Promise.all(
      Array.from({ length: FREE }, () => new WebClient(web, ip).login(user.email, 'parallel wrong password')),
    );
    const row = await pairRow(user.email, ip);
    expect(row?.failures).toBe(FREE);
    expect(row?.blocked_until).not.toBeNull();
    expect((await new WebClient(web, ip).login(user.email, user.password)).status).toBe(429);
  });
});

describe('throttling', () => {
  it(`limits login attempts per client address and e-mail to ${DASHBOARD_RATE_LIMITS.login.max} per window`, async () => {
    const user = await createActiveUser(t);
    const other = await createActiveUser(t);
    const client = new WebClient(web);
    const csrf = csrfIn((await client.get('/login')).text);
    const statuses: number[] = [];
    for (let i = 0; i < DASHBOARD_RATE_LIMITS.login.max; i++) {
      // Past the login throttle's waits (which follow the injected clock): this test is about the limiter.
      t.clock.advance(LOGIN_THROTTLE.address.maxMs);
      statuses.push(
        (await client.postForm('/login', { _csrf: csrf, email: user.email, password: 'x' })).status,
      );
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    const limited = await client.postForm('/login', {
      _csrf: csrf,
      email: user.email,
      password: user.password,
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toContain('text/html');
    expect(textOf(limited.text, 'message-body')).toBe(
      'Too many attempts from your network. Wait a few minutes and try again.',
    );
    expect(client.cookies.has('gw_session')).toBe(false);

    // Another account from the same address is not limited by those posts (past the throttle's wait).
    t.clock.advance(LOGIN_THROTTLE.address.maxMs);
    expect((await new WebClient(web, client.ip).login(other.email, other.password)).status).toBe(303);

    // Another address is not affected.
    expect((await new WebClient(web).login(user.email, user.password)).status).toBe(303);
  });
});

describe('environment switch', () => {
  it('switches the session between sandbox and live with a CSRF-protected form, and audits it', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    await client.login(user.email, user.password);
    const csrf = await client.sessionCsrf();

    const res = await client.postForm('/dashboard/environment', { _csrf: csrf, environment: 'live' });
    expect(res.status).toBe(303);
    const home = await client.get('/dashboard');
    expect(textOf(home.text, 'environment')).toBe('Live');
    expect(textOf(home.text, 'api-base-url')).toBe(t.urls.liveApi);
    const session = await db()
      .selectFrom('sessions')
      .selectAll()
      .where('subject_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(session.environment).toBe('live');

    const invalid = await client.postForm('/dashboard/environment', {
      _csrf: csrf,
      environment: 'production',
    });
    expect(invalid.status).toBe(400);
    await client.postForm('/dashboard/environment', { _csrf: csrf, environment: 'sandbox' });
    expect(textOf((await client.get('/dashboard?lang=tr')).text, 'environment')).toBe('Sandbox (test)');
    const audits = await db()
      .selectFrom('audit_log')
      .select(['action', 'after'])
      .where('actor', '=', `user:${user.userId}`)
      .where('action', '=', 'session.environment_changed')
      .orderBy('id')
      .execute();
    expect(audits.map((row) => row.after)).toEqual([{ environment: 'live' }, { environment: 'sandbox' }]);
  });

  it('comes back to the area it was made from, and never leaves the dashboard', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    await client.login(user.email, user.password);
    const csrf = await client.sessionCsrf();

    const back = await client.postForm('/dashboard/environment?lang=tr', {
      _csrf: csrf,
      environment: 'live',
      return: '/dashboard/wallets',
    });
    expect(back.status).toBe(303);
    expect(back.location).toBe('/dashboard/wallets?lang=tr');

    // Another origin, a path outside the dashboard, a path with dots or a query: the form is refused and
    // the session is left as it was.
    for (const target of [
      '//evil.example/dashboard',
      'https://evil.example/dashboard',
      '/login',
      '/dashboard/../operator',
      '/dashboard/wallets?next=//evil.example',
      '/dashboardx',
      `/dashboard/${'a'.repeat(100)}`,
    ]) {
      const refused = await client.postForm('/dashboard/environment', {
        _csrf: csrf,
        environment: 'sandbox',
        return: target,
      });
      expect(refused.status, target).toBe(400);
      expect(refused.location, target).toBeNull();
    }
    expect(textOf((await client.get('/dashboard')).text, 'environment')).toBe('Live');
  });

  it('a session expires after an hour idle', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    await client.login(user.email, user.password);
    t.clock.advance(30 * MINUTE);
    expect((await client.get('/dashboard')).status).toBe(200);
    t.clock.advance(61 * MINUTE);
    expect((await client.get('/dashboard')).status).toBe(303);
  });
});
