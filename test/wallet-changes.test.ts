/**
 * Issue 13 item 2: live wallet change controls. A new live wallet or a change of the live default waits
 * for an owner's confirmation (e-mailed single-use link, a TOTP code when 2FA is on) and a cool-down;
 * every owner and admin is e-mailed at each step; payouts keep going to the previous default until the
 * change applies (by the job, or lazily in `destination()`); the operator sees and cancels changes and
 * sets the cool-down; every step is audited and announced.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, SECOND } from '../src/shared/clock.js';
import { newTotpSecret } from '../src/modules/users/totp.js';
import {
  ACCOUNT_TEST_ENV,
  createActiveUser,
  csrfIn,
  linkIn,
  mailsTo,
  totpCode,
  WebClient,
} from './helpers/accounts.js';
import { apiRequest } from './helpers/client.js';
import { onPostgres } from './helpers/database.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';

interface WalletBody {
  id: string;
  address: string;
  status: string;
  isDefault: boolean;
  livemode: boolean;
  pendingChange: { id: string; kind: string; status: string; effectiveAt: string | null } | null;
}
interface ErrorBody {
  error: { code: string };
}

const TRON_A = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const TRON_B = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const ETH_C = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ETH_D = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const ETH_E = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
const CONFIRM_PATH = '/dashboard/wallet-changes/confirm';

let t: TestGateway;
let merchant: Merchant;
let owner: { userId: string; email: string; password: string };
let admin: { userId: string; email: string; password: string };
let developer: { email: string };
let staff: StaffSession;

beforeAll(async () => {
  // No worker role: the tests apply due changes themselves (`applyDue`), and the job's own round every
  // 30 s would otherwise take a change a test has just made due, or wait on a lock a test holds.
  t = await startTestGateway({
    env: { ...ACCOUNT_TEST_ENV, ROLES: 'api,operator,sandbox-acquirer,sandbox-chain' },
  });
  merchant = await createMerchant(t, { featureFlags: ['apiKeys', 'wallets'] });
  owner = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'owner' });
  admin = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'admin' });
  developer = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'developer' });
  staff = await loginStaff(t, await createStaffUser(t, 'admin'));
});
afterAll(async () => t?.close());

const live = <T = WalletBody>(path: string, body?: unknown) =>
  apiRequest<T & ErrorBody>(t.urls, path, {
    key: merchant.keys.live.secret,
    environment: 'live',
    ...(body === undefined ? {} : { body }),
  });
const db = () => t.gateway.database.db;
const wallets = () => t.gateway.services.wallets;
const liveOwner = () => ({ organizationId: merchant.organizationId, environment: 'live' as const });
const destination = () =>
  db()
    .transaction()
    .execute((trx) => wallets().destination(trx, liveOwner(), undefined));

async function signIn(user: { email: string; password: string }): Promise<WebClient> {
  const client = new WebClient(t.urls.web);
  const res = await client.login(user.email, user.password);
  expect(res.status, res.text).toBe(303);
  return client;
}

/** The newest wallet-change e-mail to `to` of a step, opened. */
async function lastMail(to: string, template: string) {
  const mails = await mailsTo(t, to);
  return mails.find((mail) => mail.template === template);
}

/** Signs the owner in with the second step (2FA on), then lets the code's time step pass. */
async function signInWithTotp(secret: string): Promise<WebClient> {
  const client = new WebClient(t.urls.web);
  await client.login(owner.email, owner.password);
  t.clock.advance(30 * SECOND);
  const step = await client.get('/login/2fa');
  const done = await client.postForm('/login/2fa', {
    _csrf: csrfIn(step.text),
    code: totpCode(secret, t.clock.now()),
  });
  expect(done.status).toBe(303);
  t.clock.advance(30 * SECOND);
  return client;
}

async function confirmLink(changeId: string): Promise<string> {
  const mails = await mailsTo(t, owner.email);
  const mail = mails.find((m) => m.template === 'wallet_change_requested' && m.text.includes(changeId));
  expect(mail).toBeDefined();
  return linkIn(mail?.text ?? '', CONFIRM_PATH).token;
}

async function confirmAs(client: WebClient, token: string, code?: string) {
  const page = await client.get(`${CONFIRM_PATH}/${token}`);
  if (page.status !== 200) return page;
  return client.postForm(`${CONFIRM_PATH}/${token}`, {
    _csrf: csrfIn(page.text),
    ...(code === undefined ? {} : { code }),
  });
}

async function auditActions(targetId: string): Promise<string[]> {
  const rows = await db()
    .selectFrom('audit_log')
    .select('action')
    .where('target_id', '=', targetId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.action);
}

async function eventsOf(walletId: string) {
  const rows = await db()
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('resource_id', '=', walletId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    type: row.type,
    payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as {
      livemode: boolean;
      data: WalletBody & { previousWalletId?: string | null };
    },
  }));
}

let walletA: string;
let walletB: string;

describe('adding the first live wallet', () => {
  it('waits for an owner, e-mails owners (with the link) and admins (without), and records wallet.created', async () => {
    const res = await live('/v1/wallets', { network: 'tron', address: TRON_A, label: 'Main' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', isDefault: false, livemode: true });
    expect(res.body.pendingChange).toMatchObject({
      kind: 'add',
      status: 'awaiting_confirmation',
      effectiveAt: null,
    });
    walletA = res.body.id;
    const changeId = res.body.pendingChange?.id ?? '';

    const ownerMail = await lastMail(owner.email, 'wallet_change_requested');
    expect(ownerMail?.text).toContain(TRON_A);
    expect(ownerMail?.text).toContain(`${CONFIRM_PATH}/`);
    const adminMail = await lastMail(admin.email, 'wallet_change_requested');
    expect(adminMail?.text).toContain(TRON_A);
    expect(adminMail?.text).not.toContain(CONFIRM_PATH);
    expect(await mailsTo(t, developer.email)).toHaveLength(0);
    // Only the hash of the token is stored.
    const token = await confirmLink(changeId);
    const row = await db()
      .selectFrom('wallet_changes')
      .selectAll()
      .where('id', '=', changeId)
      .executeTakeFirstOrThrow();
    expect(row.confirm_token_hash).not.toBe(token);
    expect(row.confirm_token_hash).toMatch(/^[0-9a-f]{64}$/);

    const events = await eventsOf(walletA);
    expect(events.map((e) => e.type)).toEqual(['wallet.created']);
    expect(events[0]?.payload.livemode).toBe(true);
    expect(events[0]?.payload.data.status).toBe('pending');

    expect(await destination()).toEqual({ ok: false, reason: 'no_default_wallet' });
  });

  it('refuses an admin, then an owner confirms and the change cools down for 24 hours', async () => {
    const changeId = (await live(`/v1/wallets/${walletA}`)).body.pendingChange?.id ?? '';
    const token = await confirmLink(changeId);

    const asAdmin = await signIn(admin);
    const adminPage = await asAdmin.get(`${CONFIRM_PATH}/${token}`);
    expect(adminPage.status).toBe(200);
    expect(adminPage.text).toContain('id="not-owner"');
    const refused = await asAdmin.postForm(`${CONFIRM_PATH}/${token}`, { _csrf: csrfIn(adminPage.text) });
    expect(refused.status).toBe(403);

    // Without the CSRF token: refused.
    const asOwner = await signIn(owner);
    expect((await asOwner.postForm(`${CONFIRM_PATH}/${token}`, {})).status).toBe(403);

    const confirmedAt = t.clock.now();
    const confirmed = await confirmAs(asOwner, token);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.text).toContain('data-status="cooling_down"');
    const view = (await live(`/v1/wallets/${walletA}`)).body;
    expect(view.status).toBe('pending');
    expect(view.pendingChange).toMatchObject({
      status: 'cooling_down',
      effectiveAt: new Date(confirmedAt.getTime() + 24 * HOUR).toISOString(),
    });
    expect(await lastMail(owner.email, 'wallet_change_confirmed')).toBeDefined();
    expect(await lastMail(admin.email, 'wallet_change_confirmed')).toBeDefined();

    // The link is single-use.
    expect((await asOwner.get(`${CONFIRM_PATH}/${token}`)).status).toBe(410);

    // During the cool-down nothing changes.
    t.clock.advance(23 * HOUR);
    expect(await destination()).toEqual({ ok: false, reason: 'no_default_wallet' });
    expect((await wallets().applyDue()).applied).toBe(0);
  });

  it('applies lazily when a payout asks, in one transaction with wallet.default_changed', async () => {
    t.clock.advance(HOUR);
    expect(await destination()).toEqual({
      ok: true,
      wallet: { walletId: walletA, network: 'tron', address: TRON_A },
    });
    const view = (await live(`/v1/wallets/${walletA}`)).body;
    expect(view).toMatchObject({ status: 'active', isDefault: true, pendingChange: null });
    const events = await eventsOf(walletA);
    expect(events.map((e) => e.type)).toEqual(['wallet.created', 'wallet.default_changed']);
    expect(events[1]?.payload.data.previousWalletId).toBeNull();
    expect(await lastMail(owner.email, 'wallet_change_applied')).toBeDefined();
    expect(await lastMail(admin.email, 'wallet_change_applied')).toBeDefined();
    const changeId = (
      await db()
        .selectFrom('wallet_changes')
        .select('id')
        .where('wallet_id', '=', walletA)
        .executeTakeFirstOrThrow()
    ).id;
    expect(await auditActions(changeId)).toEqual([
      'wallet_change.requested',
      'wallet_change.confirmed',
      'wallet_change.applied',
    ]);
    expect(await auditActions(walletA)).toEqual(['wallet.created']);
  });
});

describe('a change of default with 2FA on', () => {
  it('asks the owner for a current TOTP code', async () => {
    const secret = newTotpSecret();
    await db()
      .updateTable('users')
      .set({ totp_secret_enc: t.gateway.services.box.seal(secret), totp_enabled_at: t.clock.now() })
      .where('id', '=', owner.userId)
      .execute();
    const client = await signInWithTotp(secret);

    const added = await live('/v1/wallets', { network: 'tron', address: TRON_B });
    expect(added.status).toBe(201);
    walletB = added.body.id;
    expect(added.body.pendingChange?.kind).toBe('add');
    const addToken = await confirmLink(added.body.pendingChange?.id ?? '');

    const noCode = await confirmAs(client, addToken);
    expect(noCode.status).toBe(400);
    expect(noCode.text).toContain('id="confirm-code"');
    expect((await confirmAs(client, addToken, '000000')).status).toBe(400);
    const withCode = await confirmAs(client, addToken, totpCode(secret, t.clock.now()));
    expect(withCode.status, withCode.text).toBe(200);
    t.clock.advance(24 * HOUR + SECOND);
    expect(await wallets().applyDue()).toEqual({ applied: 1, expired: 0 });
    expect((await live(`/v1/wallets/${walletB}`)).body).toMatchObject({ status: 'active', isDefault: false });

    // Make B the default: a change too; payouts go to A until it applies.
    const made = await live(`/v1/wallets/${walletB}/make-default`, {});
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({ isDefault: false, pendingChange: { kind: 'make_default' } });
    const again = await live(`/v1/wallets/${walletB}/make-default`, {});
    expect(again.status).toBe(409);
    const token = await confirmLink(made.body.pendingChange?.id ?? '');
    // A day has passed: the dashboard session has ended, so the owner signs in again.
    const again2 = await signInWithTotp(secret);
    expect((await confirmAs(again2, token, totpCode(secret, t.clock.now()))).status).toBe(200);
    t.clock.advance(12 * HOUR);
    expect(await destination()).toMatchObject({ ok: true, wallet: { walletId: walletA } });
    t.clock.advance(12 * HOUR);
    expect((await wallets().applyDue()).applied).toBe(1);
    expect(await destination()).toMatchObject({ ok: true, wallet: { walletId: walletB } });
    expect((await live(`/v1/wallets/${walletA}`)).body.isDefault).toBe(false);
    const changed = (await eventsOf(walletB)).filter((e) => e.type === 'wallet.default_changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]?.payload.data).toMatchObject({
      id: walletB,
      isDefault: true,
      previousWalletId: walletA,
    });
    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'after'])
      .where('target_id', '=', made.body.pendingChange?.id ?? '')
      .where('action', '=', 'wallet_change.confirmed')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(audit.after)).toContain('"secondFactor":true');
  });
});

describe('expiry, cancellation and the operator', () => {
  it('expires an unconfirmed addition after 24 hours and cancels its wallet', async () => {
    const added = await live('/v1/wallets', { network: 'ethereum', address: ETH_C });
    const token = await confirmLink(added.body.pendingChange?.id ?? '');
    t.clock.advance(24 * HOUR + SECOND);
    expect((await wallets().applyDue()).expired).toBe(1);
    expect((await live(`/v1/wallets/${added.body.id}`)).body).toMatchObject({
      status: 'canceled',
      pendingChange: null,
    });
    const client = new WebClient(t.urls.web);
    expect(await wallets().inspectConfirmation(token)).toEqual({ state: 'used' });
    expect((await client.get(`${CONFIRM_PATH}/${token}`)).status).toBe(303);
  });

  it('lets the merchant cancel its own open change in the dashboard', async () => {
    const added = await live('/v1/wallets', { network: 'ethereum', address: ETH_D });
    const changeId = added.body.pendingChange?.id ?? '';
    const asAdmin = await signIn(admin);
    const page = await asAdmin.postForm('/dashboard/environment?lang=en', {
      _csrf: await asAdmin.sessionCsrf(),
      environment: 'live',
    });
    expect(page.status).toBe(303);
    const list = await asAdmin.get('/dashboard/wallets?lang=en');
    expect(list.text).toContain(`data-change-id="${changeId}"`);
    const canceled = await asAdmin.postForm(`/dashboard/wallet-changes/${changeId}/cancel?lang=en`, {
      _csrf: csrfIn(list.text),
    });
    expect(canceled.status).toBe(303);
    expect((await live(`/v1/wallets/${added.body.id}`)).body.status).toBe('canceled');
    expect(await auditActions(changeId)).toEqual(['wallet_change.requested', 'wallet_change.canceled']);
  });

  it('lists pending changes for the operator, cancels one with a reason and sets the cool-down', async () => {
    const added = await live('/v1/wallets', { network: 'ethereum', address: ETH_E });
    const changeId = added.body.pendingChange?.id ?? '';
    staff = await loginStaff(t, await createStaffUser(t, 'admin'));
    const listed = await staff.get<{ data: Array<{ id: string; status: string; address: string }> }>(
      '/operator/v1/wallet-changes?status=awaiting_confirmation',
    );
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.find((c) => c.id === changeId)).toMatchObject({ address: ETH_E });
    const console = await staff.send('GET', '/wallet-changes');
    expect(console.text).toContain(changeId);

    expect((await staff.post(`/operator/v1/wallet-changes/${changeId}/cancel`, { reason: '' })).status).toBe(
      400,
    );
    const canceled = await staff.post<{ status: string; cancelReason: string }>(
      `/operator/v1/wallet-changes/${changeId}/cancel`,
      { reason: 'Looks like an account takeover' },
    );
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({
      status: 'canceled',
      cancelReason: 'Looks like an account takeover',
    });
    expect(
      (await staff.post(`/operator/v1/wallet-changes/${changeId}/cancel`, { reason: 'again' })).status,
    ).toBe(409);
    expect((await staff.post('/operator/v1/wallet-changes/wch_nope/cancel', { reason: 'x' })).status).toBe(
      404,
    );
    expect((await live(`/v1/wallets/${added.body.id}`)).body.status).toBe('canceled');

    // The console's cancel button does the same.
    const viaConsole = await live('/v1/wallets', { network: 'tron', address: TRON_B });
    expect(viaConsole.status).toBe(400); // B is already a wallet of this environment
    const other = await live('/v1/wallets', { network: 'ethereum', address: ETH_E.toLowerCase() });
    const otherChange = other.body.pendingChange?.id ?? '';
    const consoleCancel = await staff.send('POST', `/wallet-changes/${otherChange}/cancel`, {
      body: { reason: 'Owner asked by phone' },
    });
    // Redirected back to the console page (the client follows redirects).
    expect(consoleCancel.status).toBe(200);
    expect(consoleCancel.text).toContain('Change canceled.');
    expect((await live(`/v1/wallets/${other.body.id}`)).body.status).toBe('canceled');

    const set = await staff.put(`/operator/v1/organizations/${merchant.organizationId}/wallet-settings`, {
      cooldownHours: 2,
    });
    expect(set.status, set.text).toBe(200);
    expect(
      (await staff.put('/operator/v1/organizations/org_nope/wallet-settings', { cooldownHours: 2 })).status,
    ).toBe(404);
    expect(
      (
        await staff.put(`/operator/v1/organizations/${merchant.organizationId}/wallet-settings`, {
          cooldownHours: -1,
        })
      ).status,
    ).toBe(400);
    expect(await auditActions(merchant.organizationId)).toContain('wallet_settings.cooldown_set');

    // The next change cools down for 2 hours (the owner has 2FA: a fresh code).
    const again = await live('/v1/wallets', { network: 'ethereum', address: ETH_E });
    const token = await confirmLink(again.body.pendingChange?.id ?? '');
    const row = await db()
      .selectFrom('users')
      .select('totp_secret_enc')
      .where('id', '=', owner.userId)
      .executeTakeFirstOrThrow();
    const secret = t.gateway.services.box.open(row.totp_secret_enc ?? '');
    const client = await signInWithTotp(secret);
    const confirmedAt = t.clock.now();
    expect((await confirmAs(client, token, totpCode(secret, confirmedAt))).status).toBe(200);
    expect((await live(`/v1/wallets/${again.body.id}`)).body.pendingChange?.effectiveAt).toBe(
      new Date(confirmedAt.getTime() + 2 * HOUR).toISOString(),
    );
  });

  it('lets owners and admins request in the dashboard, and developers only read', async () => {
    const dev = await createActiveUser(t, { organizationId: merchant.organizationId, role: 'developer' });
    const asDev = await signIn(dev);
    const page = await asDev.get('/dashboard/wallets?lang=en');
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="read-only"');
    const refused = await asDev.postForm('/dashboard/wallets?lang=en', {
      _csrf: csrfIn(page.text),
      network: 'tron',
      address: TRON_A,
    });
    expect(refused.status).toBe(403);
    // The sandbox page: a wallet added by an admin is active at once.
    const asAdmin = await signIn(admin);
    const list = await asAdmin.get('/dashboard/wallets?lang=en');
    const added = await asAdmin.postForm('/dashboard/wallets?lang=en', {
      _csrf: csrfIn(list.text),
      network: 'tron',
      address: TRON_B,
    });
    expect(added.status).toBe(303);
    expect(added.location).toContain('notice=created');
    const sandbox = await apiRequest<{ data: WalletBody[] }>(t.urls, '/v1/wallets', {
      key: merchant.keys.sandbox.secret,
    });
    expect(sandbox.body.data[0]).toMatchObject({
      address: TRON_B,
      status: 'active',
      isDefault: true,
      livemode: false,
    });
  });

  it('answers 404 for another organization’s change and keeps staff without rights out', async () => {
    const stranger = await createMerchant(t, { featureFlags: ['wallets'] });
    const owned = await apiRequest<WalletBody>(t.urls, '/v1/wallets', {
      key: stranger.keys.live.secret,
      environment: 'live',
      body: { network: 'tron', address: TRON_A },
    });
    expect(owned.status).toBe(201);
    const result = await wallets().cancelChange(liveOwner(), owned.body.pendingChange?.id ?? '', {
      actor: 'user:x',
    });
    expect(result).toEqual({ ok: false, error: { code: 'change_not_found' } });
    const anonymous = await fetch(`${t.urls.operator}/operator/v1/wallet-changes`);
    expect(anonymous.status).toBe(401);
  });
});

describe(`a change applied while a wallet is added (${onPostgres ? 'concurrently, on PostgreSQL' : 'one after the other: PGlite runs one transaction at a time'})`, () => {
  it('the addition waits for the owner’s lock and sees the default the change made', async () => {
    const other = await createMerchant(t, { featureFlags: ['wallets'] });
    const otherOwner = await createActiveUser(t, { organizationId: other.organizationId, role: 'owner' });
    const post = (address: string) =>
      apiRequest<WalletBody & ErrorBody & { pendingChange: { makeDefault: boolean } | null }>(
        t.urls,
        '/v1/wallets',
        { key: other.keys.live.secret, environment: 'live', body: { network: 'tron', address } },
      );
    // The first live wallet: its addition will make it the default once it applies.
    const first = await post(TRON_A);
    expect(first.status, first.text).toBe(201);
    const changeId = first.body.pendingChange?.id ?? '';
    const mail = (await mailsTo(t, otherOwner.email)).find(
      (m) => m.template === 'wallet_change_requested' && m.text.includes(changeId),
    );
    const confirmed = await confirmAs(await signIn(otherOwner), linkIn(mail?.text ?? '', CONFIRM_PATH).token);
    expect(confirmed.status, confirmed.text).toBe(200);
    t.clock.advance(24 * HOUR);

    if (!onPostgres) {
      // PGlite serialises transactions: the addition can only come before or after the change, and after
      // it, it must see the default the change made.
      expect((await wallets().applyDue()).applied).toBeGreaterThanOrEqual(1);
      const res = await post(TRON_B);
      expect(res.status, res.text).toBe(201);
      expect(res.body.pendingChange).toMatchObject({ kind: 'add', makeDefault: false });
      return;
    }
    // Another connection holds the wallet's row: the job applying the change stops on it, inside its
    // transaction, once it has taken what it takes before the wallet.
    const blocker = new pg.Client({ connectionString: t.testDb.url });
    await blocker.connect();
    const waiting = async () =>
      Number(
        (
          await blocker.query<{ n: string }>(
            "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          )
        ).rows[0]?.n ?? 0,
      );
    const settle = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 25));
    };
    try {
      await blocker.query('begin');
      await blocker.query('select id from wallets where id = $1 for update', [first.body.id]);
      const applying = wallets().applyDue();
      await settle(async () => (await waiting()) === 1);
      expect(await waiting()).toBe(1);
      // The second wallet, added meanwhile: it waits for the owner's lock the change holds.
      let added = false;
      const second = post(TRON_B).then((res) => {
        added = true;
        return res;
      });
      await settle(async () => added || (await waiting()) === 2);
      await blocker.query('commit');
      // (With the changes of the tests above that came due meanwhile.)
      expect((await applying).applied).toBeGreaterThanOrEqual(1);
      const res = await second;
      expect(res.status, res.text).toBe(201);
      // Added after the change made the first wallet the default: it does not take the default over.
      expect(res.body.pendingChange).toMatchObject({ kind: 'add', makeDefault: false });
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
    }
    const list = await apiRequest<{ data: WalletBody[] }>(t.urls, '/v1/wallets', {
      key: other.keys.live.secret,
      environment: 'live',
    });
    expect(list.body.data.filter((wallet) => wallet.isDefault).map((wallet) => wallet.id)).toEqual([
      first.body.id,
    ]);
  });
});
