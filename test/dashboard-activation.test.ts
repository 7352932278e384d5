import { describe, expect, it } from 'vitest';
import { parseApiKey } from '../src/modules/api-keys/key-format.js';
import { DAY, HOUR } from '../src/shared/clock.js';
import { accountGateway, db, t, useTestGateway, web } from './helpers/suite.js';
import {
  createActiveUser,
  createInvitedOwner,
  csrfIn,
  linkIn,
  mailsTo,
  STRONG_PASSWORD,
  textOf,
  uniqueEmail,
  users,
  WebClient,
} from './helpers/accounts.js';

// The activation link of an approved merchant (password, first live key shown once), and invitations
// of team members by role.

useTestGateway(accountGateway());

const LIVE_KEY = /sk_live_[0-9A-Za-z]{38}/;

/** Posts the activation form; the anonymous-form token comes from any page, whatever the link's state. */
async function activate(
  client: WebClient,
  token: string,
  password = STRONG_PASSWORD,
  confirmation = password,
) {
  const page = await client.get('/login');
  return client.postForm(`/activate/${token}`, {
    _csrf: csrfIn(page.text),
    password,
    passwordConfirmation: confirmation,
  });
}

async function liveKeys(organizationId: string) {
  return db().selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId).execute();
}

describe('createOwnerUser and createActivation (called by the approval)', () => {
  it('create an invited owner without a password and a 72-hour link whose token is stored hashed', async () => {
    const owner = await createInvitedOwner(t);
    expect(owner.url).toBe(`${web}/activate/${owner.token}`);
    expect(owner.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const user = await db()
      .selectFrom('users')
      .selectAll()
      .where('id', '=', owner.userId)
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({
      role: 'owner',
      status: 'invited',
      password_hash: null,
      organization_id: owner.organizationId,
    });
    const tokens = await db()
      .selectFrom('account_tokens')
      .selectAll()
      .where('user_id', '=', owner.userId)
      .execute();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ kind: 'activation', used_at: null });
    expect(tokens[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokens[0]?.token_hash).not.toContain(owner.token);
    expect((tokens[0]?.expires_at.getTime() ?? 0) - t.clock.now().getTime()).toBe(3 * DAY);
  });
});

describe('GET and POST /activate/:token', () => {
  it('sets the password, activates the owner and shows the first live key exactly once', async () => {
    const owner = await createInvitedOwner(t);
    const client = new WebClient(web);
    const page = await client.get(`/activate/${owner.token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain(owner.email);
    expect(page.text).toContain(owner.organizationName);
    expect(page.text).not.toMatch(LIVE_KEY);
    expect(await liveKeys(owner.organizationId)).toHaveLength(0);

    const res = await client.postForm(`/activate/${owner.token}`, {
      _csrf: csrfIn(page.text),
      password: STRONG_PASSWORD,
      passwordConfirmation: STRONG_PASSWORD,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = textOf(res.text, 'live-key') ?? '';
    expect(secret).toMatch(LIVE_KEY);
    expect(parseApiKey(secret)?.environment).toBe('live');
    expect(res.text).toContain('Live traffic stays off until your KYC review is approved.');

    const keys = await liveKeys(owner.organizationId);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      environment: 'live',
      scopes: ['all'],
      name: 'First live key',
      created_by: 'system',
      secret_hash: parseApiKey(secret)?.secretHash,
      revoked_at: null,
    });
    expect(secret.startsWith(keys[0]?.display_prefix ?? 'x')).toBe(true);
    const user = await db()
      .selectFrom('users')
      .selectAll()
      .where('id', '=', owner.userId)
      .executeTakeFirstOrThrow();
    expect(user.status).toBe('active');
    expect(user.password_hash).toMatch(/^\$argon2id\$/);

    // A second visit, or a second post, shows that the link was used, and no key.
    const again = await new WebClient(web).get(`/activate/${owner.token}`);
    expect(again.status).toBe(410);
    expect(textOf(again.text, 'message-body')).toContain('Each link works once');
    expect(again.text).not.toMatch(/sk_live_/);
    const repost = await activate(client, owner.token, 'another passphrase for me');
    expect(repost.status).toBe(410);
    expect(repost.text).not.toMatch(/sk_live_/);
    expect(await liveKeys(owner.organizationId)).toHaveLength(1);

    // Then the owner signs in.
    expect((await new WebClient(web).login(owner.email, STRONG_PASSWORD)).status).toBe(303);

    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'action', 'target_type', 'target_id'])
      .where('organization_id', '=', owner.organizationId)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      {
        actor: `user:${owner.userId}`,
        action: 'user.activated',
        target_type: 'user',
        target_id: owner.userId,
      },
      { actor: 'system', action: 'api_key.created', target_type: 'api_key', target_id: keys[0]?.id },
      { actor: `user:${owner.userId}`, action: 'user.login', target_type: 'user', target_id: owner.userId },
    ]);

    // The link's token never reaches the request log.
    expect(t.logs.some((line) => line.includes(owner.token))).toBe(false);
  });

  it('two concurrent posts of the link: exactly one activates and sees a key', async () => {
    const owner = await createInvitedOwner(t);
    const client = new WebClient(web);
    const page = await client.get(`/activate/${owner.token}`);
    const form = {
      _csrf: csrfIn(page.text),
      password: STRONG_PASSWORD,
      passwordConfirmation: STRONG_PASSWORD,
    };
    const results = await Promise.all([
      client.postForm(`/activate/${owner.token}`, form),
      client.postForm(`/activate/${owner.token}`, form),
      client.postForm(`/activate/${owner.token}`, form),
    ]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 410, 410]);
    expect(results.filter((res) => LIVE_KEY.test(res.text))).toHaveLength(1);
    expect(await liveKeys(owner.organizationId)).toHaveLength(1);
    const activated = await db()
      .selectFrom('audit_log')
      .select('id')
      .where('target_id', '=', owner.userId)
      .where('action', '=', 'user.activated')
      .execute();
    expect(activated).toHaveLength(1);
  });

  it('the service is single-use under concurrency too', async () => {
    const owner = await createInvitedOwner(t);
    const service = users(t);
    const context = { ip: null, requestId: null };
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        service.activate({ token: owner.token, password: STRONG_PASSWORD }, context),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.error.code)).toEqual([
      'token_used',
      'token_used',
      'token_used',
    ]);
    expect(await liveKeys(owner.organizationId)).toHaveLength(1);
  });

  it('refuses a weak or mismatched password and keeps the link usable', async () => {
    const owner = await createInvitedOwner(t);
    const client = new WebClient(web);
    const short = await activate(client, owner.token, 'too short');
    expect(short.status).toBe(400);
    expect(textOf(short.text, 'form-error')).toBe('The password must be at least 12 characters long.');
    const mismatch = await activate(client, owner.token, STRONG_PASSWORD, `${STRONG_PASSWORD}!`);
    expect(mismatch.status).toBe(400);
    expect(textOf(mismatch.text, 'form-error')).toBe('The two passwords do not match.');
    const local = owner.email.split('@')[0] ?? '';
    const tr = new WebClient(web);
    const page = await tr.get(`/activate/${owner.token}?lang=tr`);
    const named = await tr.postForm(`/activate/${owner.token}?lang=tr`, {
      _csrf: csrfIn(page.text),
      password: `my ${local} password`,
      passwordConfirmation: `my ${local} password`,
    });
    expect(named.status).toBe(400);
    expect(textOf(named.text, 'form-error')).toBe(
      'Şifre e-posta adresinizin kullanıcı adı kısmını içermemelidir.',
    );
    expect(await liveKeys(owner.organizationId)).toHaveLength(0);
    expect((await activate(client, owner.token)).status).toBe(200);
  });

  it('refuses the form without its CSRF token', async () => {
    const owner = await createInvitedOwner(t);
    const client = new WebClient(web);
    await client.get(`/activate/${owner.token}`);
    const res = await client.postForm(`/activate/${owner.token}`, {
      password: STRONG_PASSWORD,
      passwordConfirmation: STRONG_PASSWORD,
    });
    expect(res.status).toBe(403);
    expect(await liveKeys(owner.organizationId)).toHaveLength(0);
  });

  it('an unknown or expired link explains itself, in both languages', async () => {
    const owner = await createInvitedOwner(t);
    const unknown = await new WebClient(web).get(`/activate/${'x'.repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(textOf(unknown.text, 'message-body')).toContain('The link is unknown or has expired.');
    expect((await new WebClient(web).get('/activate/short')).status).toBe(404);

    t.clock.advance(3 * DAY - HOUR);
    expect((await new WebClient(web).get(`/activate/${owner.token}`)).status).toBe(200);
    t.clock.advance(HOUR);
    const expired = await new WebClient(web).get(`/activate/${owner.token}?lang=tr`);
    expect(expired.status).toBe(404);
    expect(textOf(expired.text, 'message-body')).toContain('Bağlantı bilinmiyor ya da süresi dolmuş.');
    const post = await activate(new WebClient(web), owner.token);
    expect(post.status).toBe(404);
    expect(await liveKeys(owner.organizationId)).toHaveLength(0);
    expect((await new WebClient(web).login(owner.email, STRONG_PASSWORD)).status).toBe(401);
  });

  it('a newer activation link replaces the older one', async () => {
    const owner = await createInvitedOwner(t);
    const { url } = await users(t).createActivation(db(), { userId: owner.userId });
    const token = url.split('/').pop() ?? '';
    expect((await new WebClient(web).get(`/activate/${owner.token}`)).status).toBe(410);
    expect((await activate(new WebClient(web), token)).status).toBe(200);
  });
});

describe('invitations and roles', () => {
  async function signedIn(role: 'owner' | 'admin' | 'developer' | 'viewer', organizationId?: string) {
    const user = await createActiveUser(t, { role, ...(organizationId ? { organizationId } : {}) });
    const client = new WebClient(web);
    expect((await client.login(user.email, user.password)).status).toBe(303);
    return { ...user, client, csrf: await client.sessionCsrf() };
  }

  it('the owner invites a developer, who accepts with a password and signs in', async () => {
    const owner = await signedIn('owner');
    const email = uniqueEmail('dev');
    const res = await owner.client.postForm('/dashboard/team/invitations', {
      _csrf: owner.csrf,
      email,
      name: 'Deniz Kaya',
      role: 'developer',
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard?lang=en&notice=invited');
    const home = await owner.client.get('/dashboard?notice=invited');
    expect(textOf(home.text, 'notice')).toBe('Invitation sent.');
    expect(home.text).toContain(`data-email="${email}"`);

    const invitee = await db()
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(invitee).toMatchObject({
      organization_id: owner.organizationId,
      role: 'developer',
      status: 'invited',
      password_hash: null,
      name: 'Deniz Kaya',
    });
    const mails = await mailsTo(t, email);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.template).toBe('invitation');
    const { token } = linkIn(mails[0]?.text ?? '', '/invitation');
    const tokenRow = await db()
      .selectFrom('account_tokens')
      .selectAll()
      .where('user_id', '=', invitee.id)
      .executeTakeFirstOrThrow();
    expect(tokenRow.kind).toBe('invitation');
    expect(tokenRow.expires_at.getTime() - t.clock.now().getTime()).toBe(3 * DAY);

    const guest = new WebClient(web);
    const page = await guest.get(`/invitation/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('as Developer');
    const accepted = await guest.postForm(`/invitation/${token}`, {
      _csrf: csrfIn(page.text),
      name: 'Deniz K.',
      password: STRONG_PASSWORD,
      passwordConfirmation: STRONG_PASSWORD,
    });
    expect(accepted.status).toBe(200);
    expect(accepted.text).not.toMatch(/sk_live_/);
    expect((await guest.get(`/invitation/${token}`)).status).toBe(410);

    const dev = new WebClient(web);
    expect((await dev.login(email, STRONG_PASSWORD)).status).toBe(303);
    const devHome = await dev.get('/dashboard');
    expect(textOf(devHome.text, 'your-role')).toContain('Developer');
    // Developers see the team but cannot invite.
    expect(devHome.text).not.toContain('id="invite-form"');

    const audit = await db()
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('target_id', '=', invitee.id)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { actor: `user:${owner.userId}`, action: 'user.invited' },
      { actor: `user:${invitee.id}`, action: 'user.invitation_accepted' },
      { actor: `user:${invitee.id}`, action: 'user.login' },
    ]);
  });

  it('an admin can invite too', async () => {
    const owner = await createActiveUser(t, { role: 'owner' });
    const admin = await signedIn('admin', owner.organizationId);
    const res = await admin.client.postForm('/dashboard/team/invitations', {
      _csrf: admin.csrf,
      email: uniqueEmail('viewer'),
      role: 'viewer',
    });
    expect(res.status).toBe(303);
  });

  for (const role of ['viewer', 'developer'] as const) {
    it(`a ${role} cannot invite: no form, and a forged post is refused`, async () => {
      const member = await signedIn(role);
      const home = await member.client.get('/dashboard');
      expect(home.text).not.toContain('id="invite-form"');
      const email = uniqueEmail('intruder');
      const res = await member.client.postForm('/dashboard/team/invitations', {
        _csrf: member.csrf,
        email,
        role: 'admin',
      });
      expect(res.status).toBe(403);
      expect(textOf(res.text, 'form-error')).toBe('Your role does not allow inviting people.');
      expect(await db().selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(
        0,
      );
      expect(await mailsTo(t, email)).toHaveLength(0);
    });
  }

  it('nobody invites an owner; an address with an account elsewhere is refused', async () => {
    const owner = await signedIn('owner');
    const asOwner = await owner.client.postForm('/dashboard/team/invitations', {
      _csrf: owner.csrf,
      email: uniqueEmail('second-owner'),
      role: 'owner',
    });
    expect(asOwner.status).toBe(400);

    const elsewhere = await createActiveUser(t);
    const taken = await owner.client.postForm('/dashboard/team/invitations', {
      _csrf: owner.csrf,
      email: elsewhere.email.toUpperCase(),
      role: 'viewer',
    });
    expect(taken.status).toBe(409);
    expect(textOf(taken.text, 'form-error')).toBe(
      'This address already has an account and cannot be invited.',
    );
    const invalid = await owner.client.postForm('/dashboard/team/invitations', {
      _csrf: owner.csrf,
      email: 'not an address',
      role: 'viewer',
    });
    expect(invalid.status).toBe(400);
    const row = await db()
      .selectFrom('users')
      .select(['organization_id'])
      .where('id', '=', elsewhere.userId)
      .executeTakeFirstOrThrow();
    expect(row.organization_id).toBe(elsewhere.organizationId);
  });

  it('inviting a pending address again sends a new link and retires the old one', async () => {
    const owner = await signedIn('owner');
    const email = uniqueEmail('again');
    await owner.client.postForm('/dashboard/team/invitations', { _csrf: owner.csrf, email, role: 'viewer' });
    t.clock.advance(1000);
    await owner.client.postForm('/dashboard/team/invitations', { _csrf: owner.csrf, email, role: 'admin' });
    const mails = await mailsTo(t, email);
    expect(mails).toHaveLength(2);
    const newest = linkIn(mails[0]?.text ?? '', '/invitation');
    const oldest = linkIn(mails[1]?.text ?? '', '/invitation');
    expect((await new WebClient(web).get(`/invitation/${oldest.token}`)).status).toBe(410);
    const page = await new WebClient(web).get(`/invitation/${newest.token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('as Admin');
  });

  it('an invitation expires after 72 hours', async () => {
    const owner = await signedIn('owner');
    const email = uniqueEmail('late');
    await owner.client.postForm('/dashboard/team/invitations', { _csrf: owner.csrf, email, role: 'viewer' });
    const { token } = linkIn((await mailsTo(t, email))[0]?.text ?? '', '/invitation');
    t.clock.advance(3 * DAY);
    expect((await new WebClient(web).get(`/invitation/${token}`)).status).toBe(404);
  });
});
