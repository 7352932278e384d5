// The single-use links of accounts: activation, invitation and password reset.
import type { Kdb, Trx } from '../../db/database.js';
import { hashPassword } from '../../shared/passwords.js';
import { ok } from '../../shared/result.js';
import { fail, weakPassword } from './errors.js';
import {
  consumeAccountToken,
  findAccountToken,
  findUserById,
  insertAccountToken,
  retireAccountTokens,
  type AccountTokenKind,
  type UserRow,
} from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { UserResult } from './types.js';
import { ACCOUNT_TOKEN_PATH, ACCOUNT_TOKEN_TTL_MS, accountTokenHash, newAccountToken } from './tokens.js';

export type LiveToken = { state: 'valid'; user: UserRow } | { state: 'used' } | { state: 'invalid' };

/** A new link of this kind for the user; the user's earlier links of the kind are retired. */
export async function issueToken(
  deps: UserServiceDeps,
  dbOrTrx: Kdb,
  userId: string,
  kind: AccountTokenKind,
): Promise<string> {
  const now = deps.clock.now();
  await retireAccountTokens(dbOrTrx, userId, kind, now);
  const { token, tokenHash } = newAccountToken();
  await insertAccountToken(dbOrTrx, {
    tokenHash,
    kind,
    userId,
    now,
    expiresAt: new Date(now.getTime() + ACCOUNT_TOKEN_TTL_MS[kind]),
  });
  return `${deps.urls.web()}${ACCOUNT_TOKEN_PATH[kind]}/${token}`;
}

/** The token's user when the token is live, or why not. */
export async function liveToken(
  deps: UserServiceDeps,
  kind: AccountTokenKind,
  token: string,
): Promise<LiveToken> {
  const { db, clock } = deps;
  const tokenHash = accountTokenHash(token);
  if (tokenHash === undefined) return { state: 'invalid' };
  const row = await findAccountToken(db, kind, tokenHash);
  if (!row) return { state: 'invalid' };
  if (row.used_at !== null) return { state: 'used' };
  if (row.expires_at.getTime() <= clock.now().getTime()) return { state: 'invalid' };
  const user = await findUserById(db, row.user_id);
  const expectedStatus = kind === 'password_reset' ? 'active' : 'invited';
  if (!user || user.status !== expectedStatus) {
    // A concurrent redemption may have committed between the two reads: the token was unused when
    // read, the user is active now. The link was used, not invalid (410, not 404).
    const again = await findAccountToken(db, kind, tokenHash);
    return again?.used_at != null ? { state: 'used' } : { state: 'invalid' };
  }
  return { state: 'valid', user };
}

/** Another request consumed the token first; the transaction is rolled back. */
class TokenRaceLost extends Error {}

/**
 * Uses a single-use activation or invitation link: the token is consumed, the invited user gets the
 * password and becomes active, and `then` runs, all in one transaction. Of two concurrent uses, one
 * wins; the other is told the link was used.
 */
export async function redeemToken<T>(
  deps: UserServiceDeps,
  kind: 'activation' | 'invitation',
  token: string,
  password: string,
  changes: { failed_logins?: number; locked_until?: null; name?: string },
  then: (trx: Trx, user: UserRow) => Promise<T>,
): Promise<UserResult<T>> {
  const { db, clock } = deps;
  const found = await liveToken(deps, kind, token);
  if (found.state !== 'valid') return fail(found.state === 'used' ? 'token_used' : 'token_invalid');
  const problem = weakPassword(password, found.user.email);
  if (problem) return problem;
  const passwordHash = await hashPassword(password);
  const tokenHash = accountTokenHash(token) as string;
  const outcome = await db
    .transaction()
    .execute(async (trx) => {
      const now = clock.now();
      const userId = await consumeAccountToken(trx, kind, tokenHash, now);
      if (userId === undefined) return undefined;
      const user = await trx
        .updateTable('users')
        .set({ password_hash: passwordHash, status: 'active', ...changes, updated_at: now })
        .where('id', '=', userId)
        .where('status', '=', 'invited')
        .returningAll()
        .executeTakeFirst();
      if (!user) throw new TokenRaceLost();
      return { value: await then(trx, user) };
    })
    .catch((error: unknown) => {
      if (error instanceof TokenRaceLost) return undefined;
      throw error;
    });
  if (!outcome) {
    const again = await liveToken(deps, kind, token);
    return fail(again.state === 'used' ? 'token_used' : 'token_invalid');
  }
  return ok(outcome.value);
}
