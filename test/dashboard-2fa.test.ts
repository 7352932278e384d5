import { describe, expect, it } from 'vitest';
import { MINUTE, SECOND } from '../src/shared/clock.js';
import { LOGIN_THROTTLE } from '../src/http/login-throttle.js';
import { DASHBOARD_RATE_LIMITS } from '../src/modules/users/http.js';
import { recoveryCodeHash } from '../src/modules/users/totp.js';
import { accountGateway, db, t, useTestGateway, web } from './helpers/suite.js';
import type { ErrorBody } from './helpers/http.js';
import {
  createActiveUser,
  csrfIn,
  nextIp,
  secretFromOtpauthUri,
  textOf,
  totpCode,
  uniqueEmail,
  WebClient,
} from './helpers/accounts.js';

// Two-factor authentication: enroll, verify, recovery codes, login with a second factor, disable;
// and the password change of a signed-in user.

useTestGateway(accountGateway());

const STEP = 30 * SECOND;

interface Enrollment {
  otpauthUri: string;
  secret: string;
  qrCodeDataUrl: string;
}
type Json = Record<string, unknown> & ErrorBody;

async function signedIn(user?: Awaited<ReturnType<typeof createActiveUser>>) {
  const account = user ?? (await createActiveUser(t));
  const client = new WebClient(web);
  const res = await client.login(account.email, account.password);
  expect(res.status).toBe(303);
  const csrf = await client.sessionCsrf();
  const call = <T = Json>(path: string, body: unknown) =>
    client.postJson<T>(path, body, { 'x-csrf-token': csrf });
  return { ...account, client, csrf, call };
}

/** Moves the clock to the start of the next 30-second step, so that a fresh code is due. */
function nextStep() {
  const now = t.clock.now().getTime();
  t.clock.set(new Date(Math.floor(now / STEP) * STEP + STEP + SECOND));
}

async function enable(session: Awaited<ReturnType<typeof signedIn>>) {
  const enroll = await session.call<Enrollment>('/v1/auth/2fa/enroll', {});
  expect(enroll.status).toBe(200);
  const secret = enroll.json.secret;
  const verify = await session.call<{ enabled: true; recoveryCodes: string[] }>('/v1/auth/2fa/verify', {
    code: totpCode(secret, t.clock.now()),
  });
  expect(verify.status).toBe(200);
  return { secret, recoveryCodes: verify.json.recoveryCodes };
}

/** Password step of a login; returns the client, now holding a pending second-factor session. */
async function passwordStep(email: string, password: string) {
  const client = new WebClient(web);
  const res = await client.login(email, password);
  expect(res.status).toBe(303);
  expect(res.location).toBe('/login/2fa?lang=en');
  return client;
}

async function secondStep(client: WebClient, code: string) {
  return client.submit('/login/2fa', { code });
}

describe('enrollment', () => {
  it('needs a signed-in session', async () => {
    const anonymous = new WebClient(web);
    for (const path of [
      '/v1/auth/2fa/enroll',
      '/v1/auth/2fa/verify',
      '/v1/auth/2fa/disable',
      '/v1/auth/change-password',
    ]) {
      const res = await anonymous.postJson<ErrorBody>(path, {}, { 'x-csrf-token': 'x' });
      expect(res.status, path).toBe(401);
      expect(res.json.error.code).toBe('unauthorized');
    }
  });

  it('returns an otpauth URI (SHA1, 6 digits, 30 s), the secret and a QR code; stores the secret sealed', async () => {
    const session = await signedIn();
    const res = await session.call<Enrollment>('/v1/auth/2fa/enroll', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.json).sort()).toEqual(['otpauthUri', 'qrCodeDataUrl', 'secret']);
    const uri = new URL(res.json.otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/Gateway:${session.email}`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'Gateway',
      secret: res.json.secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(res.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.json.qrCodeDataUrl).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(
      Buffer.from(res.json.qrCodeDataUrl.split(',')[1] ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('id', '=', session.userId)
      .executeTakeFirstOrThrow();
    expect(row.totp_enabled_at).toBeNull();
    expect(row.totp_secret_enc).not.toContain(res.json.secret);
    expect(t.gateway.services.box.open(row.totp_secret_enc ?? '')).toBe(res.json.secret);

    // Not on yet: login still needs the password only.
    expect((await new WebClient(web).login(session.email, session.password)).location).toBe(
      '/dashboard?lang=en',
    );
  });

  it('refuses a wrong code, then turns on with a right one and returns 10 recovery codes, stored hashed', async () => {
    const session = await signedIn();
    const { json } = await session.call<Enrollment>('/v1/auth/2fa/enroll', {});
    const secret = secretFromOtpauthUri(json.otpauthUri);
    const right = totpCode(secret, t.clock.now());
    const wrong = right === '000000' ? '111111' : '000000';

    const refused = await session.call('/v1/auth/2fa/verify', { code: wrong });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details?.issues).toEqual([
      { path: 'code', in: 'body', code: 'invalid_value', message: 'is not a valid, unused code' },
    ]);
    expect((await session.call('/v1/auth/2fa/verify', { code: 'abc' })).status).toBe(400);

    const res = await session.call<{ enabled: boolean; recoveryCodes: string[] }>('/v1/auth/2fa/verify', {
      code: right,
    });
    expect(res.status).toBe(200);
    expect(res.json.enabled).toBe(true);
    expect(res.json.recoveryCodes).toHaveLength(10);
    expect(new Set(res.json.recoveryCodes).size).toBe(10);
    for (const code of res.json.recoveryCodes)
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);

    const stored = await db()
      .selectFrom('recovery_codes')
      .selectAll()
      .where('user_id', '=', session.userId)
      .execute();
    expect(stored).toHaveLength(10);
    expect(new Set(stored.map((row) => row.code_hash))).toEqual(
      new Set(res.json.recoveryCodes.map((code) => recoveryCodeHash(session.userId, code))),
    );
    for (const code of res.json.recoveryCodes)
      expect(JSON.stringify(stored)).not.toContain(code.replace('-', ''));

    const again = await session.call('/v1/auth/2fa/enroll', {});
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('duplicate_request');
    expect((await session.call('/v1/auth/2fa/verify', { code: right })).status).toBe(409);

    const page = await session.client.get('/dashboard/security');
    expect(textOf(page.text, 'two-factor-status')).toBe(
      'On: signing in asks for a code of your authenticator app.',
    );
    expect(textOf(page.text, 'recovery-left')).toBe('Unused recovery codes: 10');
    const actions = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', session.userId)
      .orderBy('id')
      .execute();
    expect(actions.map((row) => row.action)).toEqual([
      'user.login',
      'user.2fa_enrollment_started',
      'user.2fa_verify_failed',
      'user.2fa_verify_failed',
      'user.2fa_enabled',
    ]);
  });

  it('verify without enrollment is a conflict', async () => {
    const session = await signedIn();
    const res = await session.call('/v1/auth/2fa/verify', { code: '123456' });
    expect(res.status).toBe(409);
  });

  it('turning it on ends the other sessions of the account', async () => {
    const user = await createActiveUser(t);
    const other = new WebClient(web);
    await other.login(user.email, user.password);
    const session = await signedIn(user);
    await enable(session);
    expect((await other.get('/dashboard')).status).toBe(303);
    expect((await session.client.get('/dashboard')).status).toBe(200);
  });
});

describe('login with two-factor authentication', () => {
  it('asks for the code after the password, and only then opens a new session', async () => {
    const session = await signedIn();
    const { secret } = await enable(session);

    const client = await passwordStep(session.email, session.password);
    const pendingCookie = client.cookies.get('gw_session');
    const pending = await db()
      .selectFrom('sessions')
      .selectAll()
      .where('subject_id', '=', session.userId)
      .where('stage', '=', 'pending_mfa')
      .execute();
    expect(pending).toHaveLength(1);

    // A half-open session reaches neither the pages nor the JSON endpoints.
    expect((await client.get('/dashboard')).status).toBe(303);
    const page = await client.get('/login/2fa');
    expect(page.status).toBe(200);
    const csrf = csrfIn(page.text);
    expect(
      (await client.postJson('/v1/auth/2fa/disable', { code: '123456' }, { 'x-csrf-token': csrf })).status,
    ).toBe(401);
    expect((await client.postForm('/login/2fa', { code: '123456' })).status).toBe(403);

    nextStep();
    const res = await client.postForm('/login/2fa', { _csrf: csrf, code: totpCode(secret, t.clock.now()) });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard?lang=en');
    expect(client.cookies.get('gw_session')).not.toBe(pendingCookie);
    expect((await client.get('/dashboard')).status).toBe(200);

    const replay = new WebClient(web);
    replay.cookies.set('gw_session', pendingCookie ?? '');
    expect((await replay.get('/login/2fa')).status).toBe(303);
    expect((await replay.get('/dashboard')).status).toBe(303);
  });

  it('accepts a code once: the code of enrollment, or a code already used to log in, is refused', async () => {
    const session = await signedIn();
    const { secret } = await enable(session);
    const enrollmentCode = totpCode(secret, t.clock.now());

    const first = await passwordStep(session.email, session.password);
    const replayed = await secondStep(first, enrollmentCode);
    expect(replayed.status).toBe(401);
    expect(textOf(replayed.text, 'form-error')).toBe('This code is not valid or was already used.');

    nextStep();
    const code = totpCode(secret, t.clock.now());
    expect((await secondStep(first, code)).status).toBe(303);
    const second = await passwordStep(session.email, session.password);
    expect((await secondStep(second, code)).status).toBe(401);
    // The code of the next step is a new code.
    t.clock.advance(STEP);
    expect((await secondStep(second, totpCode(secret, t.clock.now()))).status).toBe(303);
  });

  it('accepts one step of drift either side, not two', async () => {
    const session = await signedIn();
    const { secret } = await enable(session);
    nextStep();
    const base = t.clock.now().getTime();
    const client = await passwordStep(session.email, session.password);
    expect((await secondStep(client, totpCode(secret, new Date(base + 2 * STEP)))).status).toBe(401);
    expect((await secondStep(client, totpCode(secret, new Date(base + STEP)))).status).toBe(303);

    t.clock.set(new Date(base + 4 * STEP));
    const late = await passwordStep(session.email, session.password);
    expect((await secondStep(late, totpCode(secret, new Date(base + 2 * STEP)))).status).toBe(401);
    expect((await secondStep(late, totpCode(secret, new Date(base + 3 * STEP)))).status).toBe(303);
  });

  it('a recovery code works once', async () => {
    const session = await signedIn();
    const { recoveryCodes } = await enable(session);
    const code = recoveryCodes[3] ?? '';

    const client = await passwordStep(session.email, session.password);
    expect((await secondStep(client, code.toUpperCase())).status).toBe(303);
    const again = await passwordStep(session.email, session.password);
    expect((await secondStep(again, code)).status).toBe(401);
    expect((await secondStep(again, recoveryCodes[4]?.replace('-', '') ?? '')).status).toBe(303);

    const used = await db()
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', session.userId)
      .where('used_at', 'is not', null)
      .execute();
    expect(used).toHaveLength(2);
    const page = await again.get('/dashboard/security');
    expect(textOf(page.text, 'recovery-left')).toBe('Unused recovery codes: 8');
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', session.userId)
      .where('action', '=', 'user.recovery_code_used')
      .execute();
    expect(audit).toHaveLength(2);
  });

  it(`wrong codes slow the account's second factor: after ${LOGIN_THROTTLE.secondFactor.freeFailures} the half-open session ends and every address waits for it`, async () => {
    const free = LOGIN_THROTTLE.secondFactor.freeFailures;
    const session = await signedIn();
    const { secret } = await enable(session);
    const client = await passwordStep(session.email, session.password);
    for (let i = 0; i < free - 1; i++) {
      expect((await secondStep(client, '000000')).status).toBe(401);
    }
    const last = await secondStep(client, '000000');
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    expect(textOf(last.text, 'form-error')).toBe('Too many failed attempts. Wait a second, then try again.');
    expect(client.cookies.has('gw_session')).toBe(false);

    nextStep();
    // The password step from another address is not slowed: no account-wide lock for the password.
    const other = await passwordStep(session.email, session.password);
    // Its second factor is counted for the account from every address: only the holder of the password
    // gets here, and many addresses must not each get free guesses at a 6-digit code.
    const sixth = await secondStep(other, '000000');
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe('2');
    expect(other.cookies.has('gw_session')).toBe(false);
    // While the wait is in force even the right code is not checked.
    const third = await passwordStep(session.email, session.password);
    const waiting = await secondStep(third, totpCode(secret, t.clock.now()));
    expect(waiting.status).toBe(429);
    expect(third.cookies.has('gw_session')).toBe(false);

    t.clock.advance(2 * SECOND);
    const later = await passwordStep(session.email, session.password);
    expect((await secondStep(later, totpCode(secret, t.clock.now()))).status).toBe(303);
    // The success clears the account-wide count of this address's pair and of the second factor (the
    // proofs of the addresses that signed in are no counters: decision 0066).
    const rows = await db()
      .selectFrom('login_throttle')
      .select(['email', 'address', 'failures'])
      .where('realm', '=', 'dashboard')
      .where('email', '=', session.email.toLowerCase())
      .where('address', 'not like', 'proven %')
      .execute();
    expect(rows.map((row) => row.address).sort()).toEqual([client.ip, other.ip].sort());
  });

  it("a neighbour's flood of posts keeps out nobody who signed in from the address, second factor included", async () => {
    const office = nextIp();
    const owner = await createActiveUser(t);
    const session = await signedIn();
    const { secret } = await enable(session);
    const colleague = await createActiveUser(t);
    // Both have signed in from the office's shared address before: the owner with a password, the other
    // with a password and a second factor.
    expect((await new WebClient(web, office).login(owner.email, owner.password)).status).toBe(303);
    nextStep();
    const before = new WebClient(web, office);
    expect((await before.login(session.email, session.password)).location).toBe('/login/2fa?lang=en');
    expect((await secondStep(before, totpCode(secret, t.clock.now()))).status).toBe(303);

    // A neighbour behind the same address uses up the login form's flood budget with garbage (no form
    // token: refused before any lookup), and posts the second-factor form with no account at all.
    const neighbour = new WebClient(web, office);
    // The two sign-ins above were posts of the address too.
    const flood = DASHBOARD_RATE_LIMITS.loginFlood.max - 2;
    for (let sent = 0; sent < flood; sent += 20) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(20, flood - sent) }, () =>
          neighbour.postForm('/login', { email: uniqueEmail('flood'), password: 'garbage' }),
        ),
      );
      expect(new Set(statuses.map((res) => res.status))).toEqual(new Set([403]));
    }
    for (let i = 0; i < DASHBOARD_RATE_LIMITS.secondFactor.max + 5; i++) {
      const orphan = await neighbour.postForm('/login/2fa', { _csrf: 'x', code: '000000' });
      expect(orphan.status).toBe(303);
      expect(orphan.location).toBe('/login?lang=en&notice=expired');
    }
    // The neighbour stays throttled, with or without a form token, and so does an account new to the
    // address (its first sign-in there waits for the window, as with a key new to a throttled address).
    const garbage = await neighbour.postForm('/login', { email: uniqueEmail('flood'), password: 'garbage' });
    expect(garbage.status).toBe(429);
    expect(Number(garbage.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await neighbour.login(uniqueEmail('flood'), 'garbage')).status).toBe(429);
    const newcomer = await new WebClient(web, office).login(colleague.email, colleague.password);
    expect(newcomer.status).toBe(429);
    expect(newcomer.text).toContain('Too many attempts from your network.');

    // The people who work from the office still sign in there, the second factor included.
    expect((await new WebClient(web, office).login(owner.email, owner.password)).status).toBe(303);
    nextStep();
    const again = new WebClient(web, office);
    const password = await again.login(session.email.toUpperCase(), session.password);
    expect(password.location).toBe('/login/2fa?lang=en');
    const second = await secondStep(again, totpCode(secret, t.clock.now()));
    expect(second.status).toBe(303);
    expect(second.location).toBe('/dashboard?lang=en');
    expect((await again.get('/dashboard')).status).toBe(200);
  });

  it('the half-open session expires after 10 minutes', async () => {
    const session = await signedIn();
    const { secret } = await enable(session);
    const client = await passwordStep(session.email, session.password);
    t.clock.advance(10 * MINUTE + SECOND);
    const page = await client.get('/login/2fa');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/login?lang=en&notice=expired');
    const res = await client.postForm('/login/2fa', { code: totpCode(secret, t.clock.now()) });
    expect(res.status).toBe(303);
    expect((await client.get('/dashboard')).status).toBe(303);
  });
});

describe('disable', () => {
  it('needs a current code or a recovery code; afterwards login asks for the password only', async () => {
    const session = await signedIn();
    const { secret } = await enable(session);
    const refused = await session.call('/v1/auth/2fa/disable', { code: '000000' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details?.issues?.[0]).toMatchObject({ path: 'code', code: 'invalid_value' });
    // The code that turned it on was spent then.
    expect(
      (await session.call('/v1/auth/2fa/disable', { code: totpCode(secret, t.clock.now()) })).status,
    ).toBe(400);

    nextStep();
    const res = await session.call('/v1/auth/2fa/disable', { code: totpCode(secret, t.clock.now()) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ enabled: false });
    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('id', '=', session.userId)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret_enc).toBeNull();
    expect(row.totp_enabled_at).toBeNull();
    expect(
      await db().selectFrom('recovery_codes').selectAll().where('user_id', '=', session.userId).execute(),
    ).toHaveLength(0);
    expect((await session.call('/v1/auth/2fa/disable', { code: '123456' })).status).toBe(409);
    expect((await new WebClient(web).login(session.email, session.password)).location).toBe(
      '/dashboard?lang=en',
    );
  });

  it('takes a recovery code, which is then spent', async () => {
    const session = await signedIn();
    const { recoveryCodes } = await enable(session);
    const res = await session.call('/v1/auth/2fa/disable', { code: recoveryCodes[0] });
    expect(res.status).toBe(200);
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', session.userId)
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    expect(audit.map((row) => row.action)).toEqual(['user.2fa_disabled', 'user.recovery_code_used']);
  });
});

describe('POST /v1/auth/change-password', () => {
  it('needs the current password and a strong new one; ends the other sessions and keeps this one', async () => {
    const user = await createActiveUser(t);
    const other = new WebClient(web);
    await other.login(user.email, user.password);
    const session = await signedIn(user);

    const wrong = await session.call('/v1/auth/change-password', {
      currentPassword: 'not my password at all',
      newPassword: 'a new and long passphrase',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.details?.issues?.[0]).toMatchObject({
      path: 'currentPassword',
      code: 'invalid_value',
    });
    const weak = await session.call('/v1/auth/change-password', {
      currentPassword: user.password,
      newPassword: 'aaaaaaaaaaaaaaaa',
    });
    expect(weak.status).toBe(400);
    expect(weak.json.error.details?.issues?.[0]).toMatchObject({
      path: 'newPassword',
      code: 'invalid_value',
    });

    const res = await session.call('/v1/auth/change-password', {
      currentPassword: user.password,
      newPassword: 'a new and long passphrase',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'password_changed' });
    expect((await session.client.get('/dashboard')).status).toBe(200);
    expect((await other.get('/dashboard')).status).toBe(303);
    expect((await new WebClient(web).login(user.email, user.password)).status).toBe(401);
    expect((await new WebClient(web).login(user.email, 'a new and long passphrase')).status).toBe(303);
  });
});
