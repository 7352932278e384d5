import { sql, type Insertable, type Selectable } from 'kysely';
import type { Kdb } from '../../db/database.js';
import { findAll, findOne } from '../../db/rows.js';
import { newId } from '../../shared/ids.js';
import type { AccountTokensTable, UserRole, UsersTable } from '../../db/schema.js';

export type UserRow = Selectable<UsersTable>;
export type AccountTokenKind = AccountTokensTable['kind'];
export type AccountTokenRow = Selectable<AccountTokensTable>;

/** A new account, invited: no password, no second factor, not locked, until its link is used. */
export async function insertInvitedUser(
  db: Kdb,
  user: { organizationId: string; email: string; name: string | null; role: UserRole },
  now: Date,
): Promise<UserRow> {
  const row: Insertable<UsersTable> = {
    id: newId('usr', now),
    organization_id: user.organizationId,
    email: user.email,
    name: user.name,
    role: user.role,
    status: 'invited',
    password_hash: null,
    totp_secret_enc: null,
    totp_enabled_at: null,
    locked_until: null,
    created_at: now,
    updated_at: now,
  };
  return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUserById(db: Kdb, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByEmail(db: Kdb, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function listOrganizationUsers(db: Kdb, organizationId: string): Promise<UserRow[]> {
  return findAll(db, 'users', { organization_id: organizationId }, ['created_at', 'id']);
}

export async function insertAccountToken(
  db: Kdb,
  row: { tokenHash: string; kind: AccountTokenKind; userId: string; now: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('account_tokens')
    .values({
      token_hash: row.tokenHash,
      kind: row.kind,
      user_id: row.userId,
      created_at: row.now,
      expires_at: row.expiresAt,
    })
    .execute();
}

export async function findAccountToken(
  db: Kdb,
  kind: AccountTokenKind,
  tokenHash: string,
): Promise<AccountTokenRow | undefined> {
  return findOne(db, 'account_tokens', { token_hash: tokenHash, kind });
}

/** An update marking the still unused rows of a single-use table (links, recovery codes) used at `now`. */
function markUnusedUsed(db: Kdb, table: 'account_tokens' | 'recovery_codes', now: Date) {
  return db.updateTable(table).set({ used_at: now }).where('used_at', 'is', null);
}

/**
 * Marks a token used if it is still unused and unexpired, in one statement: of two concurrent
 * consumers, the second waits for the first's row lock, re-reads `used_at` and matches nothing.
 */
export async function consumeAccountToken(db: Kdb, kind: AccountTokenKind, tokenHash: string, now: Date) {
  const row = await markUnusedUsed(db, 'account_tokens', now)
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/** Retires the user's outstanding tokens of a kind (a newer link replaces older ones). */
export async function retireAccountTokens(db: Kdb, userId: string, kind: AccountTokenKind, now: Date) {
  await markUnusedUsed(db, 'account_tokens', now)
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .execute();
}

/** The e-mail addresses of an organization's active owners. */
export async function activeOwnerEmails(db: Kdb, organizationId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .where('status', '=', 'active')
    .execute();
  return rows.map((row) => row.email);
}

export async function activeMemberEmails(
  db: Kdb,
  organizationId: string,
  roles: readonly UserRole[],
): Promise<string[]> {
  if (roles.length === 0) return [];
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('organization_id', '=', organizationId)
    .where('role', 'in', [...roles])
    .where('status', '=', 'active')
    .orderBy('email')
    .execute();
  return rows.map((row) => row.email);
}

/** Deletes single-use tokens used or expired before `before` (retention); the number deleted. */
export async function purgeAccountTokens(db: Kdb, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('account_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('used_at', '<', before)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Accepts a TOTP time step once: only a step later than the last accepted one updates the row. */
export async function claimTotpStep(db: Kdb, userId: string, step: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: step, updated_at: now })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function replaceRecoveryCodes(
  db: Kdb,
  userId: string,
  codeHashes: string[],
  now: Date,
): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (codeHashes.length === 0) return;
  await db
    .insertInto('recovery_codes')
    .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
    .execute();
}

export async function useRecoveryCode(db: Kdb, userId: string, codeHash: string, now: Date) {
  const result = await markUnusedUsed(db, 'recovery_codes', now)
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(db: Kdb, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
