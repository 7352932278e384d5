import type { LoginThrottle } from '../../http/login-throttle.js';
import { hashPassword, verifyPassword } from '../../shared/passwords.js';
import { ok } from '../../shared/result.js';
import { passwordResetEmail } from '../email/templates.js';
import { issueToken, liveToken } from './account-links.js';
import { record } from './audit.js';
import { fail, weakPassword } from './errors.js';
import { DASHBOARD_REALM } from './realm.js';
import { consumeAccountToken, findUserByEmail, findUserById, retireAccountTokens } from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { PasswordReset, RequestContext, UserResult } from './types.js';
import { accountTokenHash } from './tokens.js';

/** How long a password reset request waits after its answer went out before it is worked off. */
const RESET_WORK_DELAY_MS = 20;

/** The reset requests accepted and not yet worked off. */
export type PendingResets = Set<Promise<void>>;

/**
 * Accepts a reset request and returns before anything about the address is looked up: the lookup,
 * the link and the e-mail happen out of band, so the answer takes the same time for every address.
 */
export async function requestPasswordReset(
  deps: UserServiceDeps,
  pendingResets: PendingResets,
  email: string,
  context: RequestContext,
  after?: Promise<void>,
): Promise<void> {
  // The work waits for the answer to be sent: with the embedded database a query runs on this
  // thread, and one that started before the answer went out would delay it for known addresses only.
  // It then waits a little longer, so that it does not compete for the CPU with the client still
  // reading the answer (on a loaded machine that alone made known addresses measurably slower).
  const job = (after ?? Promise.resolve())
    .then(() => new Promise<void>((resolve) => setTimeout(resolve, RESET_WORK_DELAY_MS)))
    .then(() => sendPasswordReset(deps, email, context))
    .catch((error: unknown) => deps.logger.error({ err: error }, 'password reset request failed'))
    .finally(() => pendingResets.delete(job));
  pendingResets.add(job);
}

/** Resolves when every accepted reset request has been worked off (tests, shutdown). */
export async function passwordResetsSettled(pendingResets: PendingResets): Promise<void> {
  while (pendingResets.size > 0) await Promise.all([...pendingResets]);
}

/** The out-of-band half of a reset request: only an active account gets a link. */
async function sendPasswordReset(
  deps: UserServiceDeps,
  email: string,
  context: RequestContext,
): Promise<void> {
  const { db, mailer } = deps;
  const user = await findUserByEmail(db, email.trim());
  // An invited account still has its activation or invitation link.
  if (!user || user.status !== 'active') return;
  await db.transaction().execute(async (trx) => {
    const url = await issueToken(deps, trx, user.id, 'password_reset');
    await mailer.enqueue(trx, user.email, passwordResetEmail({ url }));
    await record(deps, trx, user, 'user.password_reset_requested', context);
  });
  mailer.nudge();
}

export async function resetPassword(
  deps: UserServiceDeps,
  throttle: LoginThrottle,
  { token, password }: { token: string; password: string },
  context: RequestContext,
): Promise<UserResult<PasswordReset>> {
  const found = await liveToken(deps, 'password_reset', token);
  if (found.state !== 'valid') return fail('token_invalid');
  const problem = weakPassword(password, found.user.email);
  if (problem) return problem;
  const passwordHash = await hashPassword(password);
  const tokenHash = accountTokenHash(token) as string;
  const userId = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const consumedBy = await consumeAccountToken(trx, 'password_reset', tokenHash, now);
    if (consumedBy === undefined) return undefined;
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, failed_logins: 0, locked_until: null, updated_at: now })
      .where('id', '=', consumedBy)
      .execute();
    await retireAccountTokens(trx, consumedBy, 'password_reset', now);
    await record(deps, trx, found.user, 'user.password_reset', context);
    return consumedBy;
  });
  if (userId === undefined) return fail('token_invalid');
  // The reset proves the mailbox, and whoever guessed at the old password must start again.
  await throttle.clearAccount(DASHBOARD_REALM, found.user.email);
  // Whoever knew the old password may hold a session: a reset ends every one of them.
  const sessionsEnded = await deps.sessions.endAll(DASHBOARD_REALM, userId);
  return ok({ userId, sessionsEnded });
}

export async function changePassword(
  deps: UserServiceDeps,
  userId: string,
  {
    currentPassword,
    newPassword,
    keepSessionTokenHash,
  }: { currentPassword: string; newPassword: string; keepSessionTokenHash: string },
  context: RequestContext,
): Promise<UserResult<{ sessionsEnded: number }>> {
  const { db, clock, sessions } = deps;
  const user = await findUserById(db, userId);
  if (!user || user.status !== 'active' || user.password_hash === null) return fail('inactive');
  if (!(await verifyPassword(user.password_hash, currentPassword))) {
    await record(deps, db, user, 'user.password_change_failed', context);
    return fail('wrong_password');
  }
  const problem = weakPassword(newPassword, user.email, 'newPassword');
  if (problem) return problem;
  const passwordHash = await hashPassword(newPassword);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: clock.now() })
      .where('id', '=', user.id)
      .execute();
    await record(deps, trx, user, 'user.password_changed', context);
  });
  const sessionsEnded = await sessions.endAll(DASHBOARD_REALM, user.id, keepSessionTokenHash);
  return ok({ sessionsEnded });
}
