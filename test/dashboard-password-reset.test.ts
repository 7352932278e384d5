import { describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../src/shared/clock.js';
import { LOGIN_THROTTLE, provenAddress } from '../src/http/login-throttle.js';
import { DASHBOARD_RATE_LIMITS } from '../src/modules/users/http.js';
import { accountGateway, db, t, useTestGateway, web } from './helpers/suite.js';
import type { ErrorBody } from './helpers/http.js';
import {
  createActiveUser,
  createInvitedOwner,
  linkIn,
  mailsTo,
  textOf,
  uniqueEmail,
  WebClient,
} from './helpers/accounts.js';

// Forgot password (no enumeration), reset (single use, 1 hour, ends every session, clears a lockout).

useTestGateway(accountGateway());

const NEW_PASSWORD = 'a brand new passphrase 2026';

async function forgot(client: WebClient, email: string) {
  return client.postJson<Record<string, unknown> & ErrorBody>('/v1/auth/forgot-password', { email });
}

/** Asks for a reset of `email` and returns the link of the e-mail it produced. */
async function resetLink(email: string): Promise<{ url: string; token: string }> {
  const before = (await mailsTo(t, email)).length;
  expect((await forgot(new WebClient(web), email)).status).toBe(202);
  const mails = await mailsTo(t, email);
  expect(mails).toHaveLength(before + 1);
  const mail = mails[0];
  expect(mail?.template).toBe('password_reset');
  return linkIn(mail?.text ?? '', '/reset-password');
}

async function reset(token: string, password = NEW_PASSWORD, client = new WebClient(web)) {
  return client.postJson<Record<string, unknown> & ErrorBody>('/v1/auth/reset-password', { token, password });
}

async function emailCount(): Promise<number> {
  await t.gateway.services.users.passwordResetsSettled();
  const row = await db()
    .selectFrom('emails')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('POST /v1/auth/forgot-password', () => {
  it('answers the same status and body whether or not the address has an account, and mails only a real one', async () => {
    const user = await createActiveUser(t);
    const invited = await createInvitedOwner(t);
    const unknown = uniqueEmail('nobody');
    const before = await emailCount();

    const known = await forgot(new WebClient(web), user.email);
    const stranger = await forgot(new WebClient(web), unknown);
    const notActivated = await forgot(new WebClient(web), invited.email);
    const otherCase = await forgot(new WebClient(web), user.email.toUpperCase());

    expect(known.status).toBe(202);
    expect(known.json).toEqual({
      status: 'accepted',
      message:
        'If an account exists for this address, a link to choose a new password is on its way. It is valid for 1 hour.',
    });
    for (const res of [stranger, notActivated, otherCase]) {
      expect(res.status).toBe(202);
      expect(res.text).toBe(known.text);
      expect(res.headers.get('content-type')).toBe(known.headers.get('content-type'));
    }

    // Two e-mails (the known address, twice), none for the stranger or the invited account.
    expect(await emailCount()).toBe(before + 2);
    expect(await mailsTo(t, unknown)).toHaveLength(0);
    expect(await mailsTo(t, invited.email)).toHaveLength(0);
    const mails = await mailsTo(t, user.email);
    expect(mails).toHaveLength(2);
    expect(mails[0]?.subject).toBe('Şifre sıfırlama / Password reset');
    const { url, token } = linkIn(mails[0]?.text ?? '', '/reset-password');
    expect(url).toBe(`${web}/reset-password/${token}`);
    // Stored sealed: the link is not in the outbox row in clear.
    const raw = await db()
      .selectFrom('emails')
      .selectAll()
      .where('id', '=', mails[0]?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(raw)).not.toContain(token);

    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('action', '=', 'user.password_reset_requested')
      .where('target_id', '=', user.userId)
      .execute();
    expect(audit).toEqual([
      { actor: `user:${user.userId}`, action: 'user.password_reset_requested' },
      { actor: `user:${user.userId}`, action: 'user.password_reset_requested' },
    ]);
  });

  it('refuses a malformed body the same way for every address', async () => {
    const client = new WebClient(web);
    const res = await client.postJson<ErrorBody>('/v1/auth/forgot-password', { email: 'not-an-address' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_failed');
    expect(res.json.error.details?.issues).toEqual([
      { path: 'email', in: 'body', code: 'invalid_format', message: 'must be a valid e-mail address' },
    ]);
    const extra = await client.postJson<ErrorBody>('/v1/auth/forgot-password', {
      email: 'a@b.example',
      admin: true,
    });
    expect(extra.json.error.details?.issues?.[0]).toMatchObject({ path: 'admin', code: 'unknown_field' });
  });

  it(`is limited to ${DASHBOARD_RATE_LIMITS.forgotPassword.max} requests per client address per window`, async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    for (let i = 0; i < DASHBOARD_RATE_LIMITS.forgotPassword.max; i++) {
      expect((await forgot(client, uniqueEmail('spray'))).status).toBe(202);
    }
    const limited = await forgot(client, user.email);
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('too_many_requests');
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect(await mailsTo(t, user.email)).toHaveLength(0);
  });
});

describe('POST /v1/auth/reset-password', () => {
  it('sets the password once: the token cannot be used again, the old password stops working', async () => {
    const user = await createActiveUser(t);
    const { token } = await resetLink(user.email);

    const page = await new WebClient(web).get(`/reset-password/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-token="${token}"`);

    const weak = await reset(token, 'short');
    expect(weak.status).toBe(400);
    expect(weak.json.error.details?.issues).toEqual([
      { path: 'password', in: 'body', code: 'too_short', message: 'must be at least 12 characters' },
    ]);
    const namePart = await reset(token, `${user.email.split('@')[0]}-and-more`);
    expect(namePart.json.error.details?.issues?.[0]).toMatchObject({
      path: 'password',
      code: 'invalid_value',
    });

    const done = await reset(token);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ status: 'password_reset' });

    const again = await reset(token, 'yet another passphrase here');
    expect(again.status).toBe(400);
    expect(again.json.error.details?.issues).toEqual([
      {
        path: 'token',
        in: 'body',
        code: 'invalid_value',
        message: 'the link is invalid, expired or already used',
      },
    ]);
    expect((await new WebClient(web).get(`/reset-password/${token}`)).status).toBe(404);

    expect((await new WebClient(web).login(user.email, user.password)).status).toBe(401);
    expect((await new WebClient(web).login(user.email, NEW_PASSWORD)).status).toBe(303);
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('target_id', '=', user.userId)
      .where('action', '=', 'user.password_reset')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('ends every session of the account', async () => {
    const user = await createActiveUser(t);
    const laptop = new WebClient(web);
    const phone = new WebClient(web);
    await laptop.login(user.email, user.password);
    await phone.login(user.email, user.password);
    expect((await laptop.get('/dashboard')).status).toBe(200);
    expect((await phone.get('/dashboard')).status).toBe(200);

    const { token } = await resetLink(user.email);
    // Even a reset made from a signed-in browser keeps no session.
    expect((await reset(token, NEW_PASSWORD, laptop)).status).toBe(200);

    expect((await laptop.get('/dashboard')).status).toBe(303);
    expect((await phone.get('/dashboard')).status).toBe(303);
    const live = await db()
      .selectFrom('sessions')
      .select('token_hash')
      .where('subject_id', '=', user.userId)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toHaveLength(0);
  });

  it('expires after 1 hour', async () => {
    const user = await createActiveUser(t);
    const { token } = await resetLink(user.email);
    t.clock.advance(HOUR - 1000);
    expect((await new WebClient(web).get(`/reset-password/${token}`)).status).toBe(200);
    t.clock.advance(1000);
    const page = await new WebClient(web).get(`/reset-password/${token}`);
    expect(page.status).toBe(404);
    expect(textOf(page.text, 'message-body')).toContain('password reset links for 1 hour');
    const res = await reset(token);
    expect(res.status).toBe(400);
    expect(res.json.error.details?.issues?.[0]?.path).toBe('token');
    expect((await new WebClient(web).login(user.email, user.password)).status).toBe(303);
  });

  it('a newer link replaces the older one', async () => {
    const user = await createActiveUser(t);
    const first = await resetLink(user.email);
    t.clock.advance(MINUTE);
    const second = await resetLink(user.email);
    expect((await reset(first.token)).status).toBe(400);
    expect((await reset(second.token)).status).toBe(200);
  });

  it('refuses unknown and malformed tokens', async () => {
    for (const token of ['x', 'A'.repeat(43), '../../etc/passwd']) {
      const res = await reset(token);
      expect(res.status, token).toBe(400);
      expect(res.json.error.code).toBe('validation_failed');
    }
    expect((await new WebClient(web).get(`/reset-password/${'A'.repeat(43)}`)).status).toBe(404);
  });

  it('clears the waits of the account', async () => {
    const user = await createActiveUser(t);
    const client = new WebClient(web);
    for (let i = 0; i < LOGIN_THROTTLE.pair.freeFailures + 3; i++) {
      t.clock.advance(10 * 1000);
      expect((await client.login(user.email, 'not the password')).status).toBe(401);
    }
    const waiting = await client.login(user.email, user.password);
    expect(waiting.status).toBe(429);
    const { token } = await resetLink(user.email);
    expect((await reset(token)).status).toBe(200);
    // The address that waited may try the new password at once.
    expect((await new WebClient(web, client.ip).login(user.email, NEW_PASSWORD)).status).toBe(303);
    const left = await t.testDb.database.db
      .selectFrom('login_throttle')
      .select('address')
      .where('email', '=', user.email.toLowerCase())
      .execute();
    // No counter is left, only the proof of the sign-in just made (decision 0066).
    expect(left).toEqual([{ address: provenAddress(client.ip) }]);
  });

  it('two concurrent resets with one token: exactly one succeeds', async () => {
    const user = await createActiveUser(t);
    const { token } = await resetLink(user.email);
    const results = await Promise.all([
      reset(token, 'first concurrent passphrase'),
      reset(token, 'second concurrent passphrase'),
    ]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 400]);
    const winner =
      results[0]?.status === 200 ? 'first concurrent passphrase' : 'second concurrent passphrase';
    expect((await new WebClient(web).login(user.email, winner)).status).toBe(303);
  });
});

describe('the forgot and reset pages', () => {
  it('are served in both languages and script only from our origin', async () => {
    const client = new WebClient(web);
    const en = await client.get('/forgot-password');
    expect(en.status).toBe(200);
    expect(en.text).toContain('<script src="/assets/dashboard.js" defer></script>');
    expect(en.text).toContain('data-endpoint="/v1/auth/forgot-password"');
    const tr = await client.get('/forgot-password?lang=tr');
    expect(tr.text).toContain('<h1>Şifrenizi mi unuttunuz?</h1>');
    expect(tr.headers.get('content-language')).toBe('tr');
  });
});
