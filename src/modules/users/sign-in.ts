import type { LoginAttempt, LoginThrottle } from '../../http/login-throttle.js';
import { decoyPasswordHash, verifyPassword } from '../../shared/passwords.js';
import { ok } from '../../shared/result.js';
import { record } from './audit.js';
import { fail, throttled } from './errors.js';
import { DASHBOARD_REALM } from './realm.js';
import { findUserByEmail, findUserById } from './repository.js';
import { checkSecondFactor } from './second-factor.js';
import type { UserServiceDeps } from './deps.js';
import type { RequestContext, UserResult } from './types.js';

function attemptOf(email: string, context: RequestContext): LoginAttempt {
  return { realm: DASHBOARD_REALM, email, address: context.ip ?? '' };
}

/** The password step of a login, throttled per account and address. */
export async function login(
  deps: UserServiceDeps,
  throttle: LoginThrottle,
  { email, password }: { email: string; password: string },
  context: RequestContext,
): Promise<UserResult<{ userId: string; mfaRequired: boolean }>> {
  const { db } = deps;
  const attempt = attemptOf(email, context);
  // While this address waits (for this account, or across accounts), no password is checked: the
  // answer says so for known and unknown addresses alike, and takes no argon2 time.
  const wait = await throttle.wait(attempt);
  if (wait !== undefined) {
    const known = await findUserByEmail(db, email.trim());
    if (known) await record(deps, db, known, 'user.login_throttled', context, { after: { wait } });
    return throttled(wait);
  }
  const user = await findUserByEmail(db, email.trim());
  // Unknown, not yet activated, disabled or wrong password: the same answer after the same work,
  // and counted the same way.
  if (!user || user.status !== 'active' || user.password_hash === null) {
    await verifyPassword(await decoyPasswordHash(), password);
    await throttle.fail(attempt);
    return fail('invalid_credentials');
  }
  if (!(await verifyPassword(user.password_hash, password))) {
    await throttle.fail(attempt);
    await record(deps, db, user, 'user.login_failed', context);
    return fail('invalid_credentials');
  }
  const mfaRequired = user.totp_enabled_at !== null;
  // The pair is cleared once the whole login succeeded: after the second factor when it is on.
  if (!mfaRequired) await throttle.succeed(attempt);
  await record(deps, db, user, mfaRequired ? 'user.login_password_ok' : 'user.login', context);
  return ok({ userId: user.id, mfaRequired });
}

/** The second step of a login with two-factor authentication: a TOTP code or a recovery code. */
export async function completeMfaLogin(
  deps: UserServiceDeps,
  throttle: LoginThrottle,
  userId: string,
  code: string,
  context: RequestContext,
): Promise<UserResult<void>> {
  const { db } = deps;
  const user = await findUserById(db, userId);
  if (!user || user.status !== 'active' || user.totp_enabled_at === null) return fail('inactive');
  const attempt = { ...attemptOf(user.email, context), secondFactor: true };
  const wait = await throttle.wait(attempt);
  if (wait !== undefined) {
    await record(deps, db, user, 'user.login_throttled', context, { after: { wait } });
    return throttled(wait);
  }
  if (!(await checkSecondFactor(deps, db, user, code, context))) {
    const started = await throttle.fail(attempt);
    await record(deps, db, user, 'user.mfa_failed', context);
    return started === undefined ? fail('invalid_code') : throttled(started);
  }
  await throttle.succeed(attempt);
  await record(deps, db, user, 'user.login', context, { after: { secondFactor: true } });
  return ok();
}
