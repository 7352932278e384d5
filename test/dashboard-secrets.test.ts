import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SECOND } from '../src/shared/clock.js';
import { accountGateway, t, useTestGateway, web } from './helpers/suite.js';
import {
  createInvitedOwner,
  csrfIn,
  linkIn,
  mailsTo,
  textOf,
  totpCode,
  uniqueEmail,
  WebClient,
} from './helpers/accounts.js';

// Runs every account flow over HTTP, remembers every secret that went by, then reads every text column
// of every table: none of them may hold a secret in clear. The request log may not either.

useTestGateway(accountGateway());

const secrets = new Map<string, string>();
function remember(label: string, value: string | undefined) {
  if (!value) throw new Error(`no value for ${label}`);
  secrets.set(label, value);
}

async function runEveryFlow() {
  const passwords = {
    activation: 'first passphrase of the owner',
    reset: 'second passphrase after a reset',
    changed: 'third passphrase after a change',
    invitee: 'passphrase of the invited admin',
  };
  for (const [label, value] of Object.entries(passwords)) remember(`password:${label}`, value);

  // Activation: password and first live key.
  const owner = await createInvitedOwner(t);
  remember('activation token', owner.token);
  const client = new WebClient(web);
  const activation = await client.submit(`/activate/${owner.token}`, {
    password: passwords.activation,
    passwordConfirmation: passwords.activation,
  });
  expect(activation.status).toBe(200);
  remember('live key', textOf(activation.text, 'live-key'));

  // Login, two-factor enrollment, recovery codes.
  expect((await client.login(owner.email, passwords.activation)).status).toBe(303);
  remember('session cookie (password login)', client.cookies.get('gw_session'));
  remember('form cookie', client.cookies.get('gw_form'));
  const csrf = await client.sessionCsrf();
  const enroll = await client.postJson<{ secret: string; otpauthUri: string }>(
    '/v1/auth/2fa/enroll',
    {},
    { 'x-csrf-token': csrf },
  );
  remember('totp secret', enroll.json.secret);
  remember('otpauth uri', enroll.json.otpauthUri);
  const verify = await client.postJson<{ recoveryCodes: string[] }>(
    '/v1/auth/2fa/verify',
    { code: totpCode(enroll.json.secret, t.clock.now()) },
    { 'x-csrf-token': csrf },
  );
  expect(verify.status).toBe(200);
  verify.json.recoveryCodes.forEach((code, i) => {
    remember(`recovery code ${i}`, code);
    remember(`recovery code ${i} compact`, code.replace('-', ''));
  });

  // Login with a TOTP code, then with a recovery code.
  t.clock.advance(30 * SECOND);
  const second = new WebClient(web);
  await second.login(owner.email, passwords.activation);
  expect(
    (await second.submit('/login/2fa', { code: totpCode(enroll.json.secret, t.clock.now()) })).status,
  ).toBe(303);
  remember('session cookie (second factor)', second.cookies.get('gw_session'));
  const third = new WebClient(web);
  await third.login(owner.email, passwords.activation);
  expect((await third.submit('/login/2fa', { code: verify.json.recoveryCodes[0] ?? '' })).status).toBe(303);

  // Forgot and reset.
  await new WebClient(web).postJson('/v1/auth/forgot-password', { email: owner.email });
  const reset = linkIn((await mailsTo(t, owner.email))[0]?.text ?? '', '/reset-password');
  remember('reset token', reset.token);
  const resetDone = await new WebClient(web).postJson('/v1/auth/reset-password', {
    token: reset.token,
    password: passwords.reset,
  });
  expect(resetDone.status).toBe(200);

  // Password change.
  t.clock.advance(30 * SECOND);
  const fourth = new WebClient(web);
  await fourth.login(owner.email, passwords.reset);
  await fourth.submit('/login/2fa', { code: totpCode(enroll.json.secret, t.clock.now()) });
  const fourthCsrf = await fourth.sessionCsrf();
  const changed = await fourth.postJson(
    '/v1/auth/change-password',
    { currentPassword: passwords.reset, newPassword: passwords.changed },
    { 'x-csrf-token': fourthCsrf },
  );
  expect(changed.status).toBe(200);

  // Invitation.
  const inviteeEmail = uniqueEmail('admin');
  const invited = await fourth.postForm('/dashboard/team/invitations', {
    _csrf: fourthCsrf,
    email: inviteeEmail,
    role: 'admin',
  });
  expect(invited.status).toBe(303);
  const invitation = linkIn((await mailsTo(t, inviteeEmail))[0]?.text ?? '', '/invitation');
  remember('invitation token', invitation.token);
  const guest = new WebClient(web);
  const page = await guest.get(`/invitation/${invitation.token}`);
  const accepted = await guest.postForm(`/invitation/${invitation.token}`, {
    _csrf: csrfIn(page.text),
    password: passwords.invitee,
    passwordConfirmation: passwords.invitee,
  });
  expect(accepted.status).toBe(200);
  expect((await guest.login(inviteeEmail, passwords.invitee)).status).toBe(303);
  remember('session cookie (invitee)', guest.cookies.get('gw_session'));
}

describe('secrets at rest', () => {
  it('no text column of any table holds a password, token, TOTP secret, recovery code or API key in clear', async () => {
    await runEveryFlow();
    expect(secrets.size).toBeGreaterThan(25);

    const db = t.testDb.database.db;
    const columns = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
      ORDER BY table_name, ordinal_position`.execute(db);
    const tables = new Set(columns.rows.map((column) => column.table_name));
    for (const table of [
      'users',
      'sessions',
      'account_tokens',
      'recovery_codes',
      'api_keys',
      'audit_log',
      'emails',
    ]) {
      expect(tables.has(table), table).toBe(true);
    }

    let cells = 0;
    const leaks: string[] = [];
    for (const { table_name: table, column_name: column } of columns.rows) {
      const values = await sql<{ value: string | null }>`
        SELECT ${sql.ref(column)}::text AS value FROM ${sql.table(table)}`.execute(db);
      for (const { value } of values.rows) {
        if (value === null) continue;
        cells += 1;
        const lower = value.toLowerCase();
        for (const [label, secret] of secrets) {
          if (lower.includes(secret.toLowerCase())) leaks.push(`${table}.${column} holds the ${label}`);
        }
      }
    }
    expect(cells).toBeGreaterThan(100);
    expect(leaks).toEqual([]);

    // The request log neither.
    const logged = t.logs.join('\n').toLowerCase();
    expect(
      [...secrets].filter(([, secret]) => logged.includes(secret.toLowerCase())).map(([label]) => label),
    ).toEqual([]);
  });
});
