import QRCode from 'qrcode';
import { ok } from '../../shared/result.js';
import { record } from './audit.js';
import { fail } from './errors.js';
import { DASHBOARD_REALM } from './realm.js';
import { findUserById, replaceRecoveryCodes } from './repository.js';
import { checkSecondFactor } from './second-factor.js';
import type { UserServiceDeps } from './deps.js';
import type { RequestContext, TotpEnrollment, UserResult } from './types.js';
import { newRecoveryCodes, newTotpSecret, otpauthUri, recoveryCodeHash } from './totp.js';

export async function startTotpEnrollment(
  deps: UserServiceDeps,
  userId: string,
  context: RequestContext,
): Promise<UserResult<TotpEnrollment>> {
  const { db, clock, box } = deps;
  const user = await findUserById(db, userId);
  if (!user || user.status !== 'active') return fail('inactive');
  if (user.totp_enabled_at !== null) return fail('totp_already_enabled');
  const secret = newTotpSecret();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ totp_secret_enc: box.seal(secret), totp_last_step: null, updated_at: clock.now() })
      .where('id', '=', user.id)
      .where('totp_enabled_at', 'is', null)
      .execute();
    await record(deps, trx, user, 'user.2fa_enrollment_started', context);
  });
  const uri = otpauthUri(secret, user.email);
  const qrCodeDataUrl = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });
  return ok({ secret, otpauthUri: uri, qrCodeDataUrl });
}

export async function confirmTotpEnrollment(
  deps: UserServiceDeps,
  userId: string,
  code: string,
  context: RequestContext & { keepSessionTokenHash: string },
): Promise<UserResult<{ recoveryCodes: string[] }>> {
  const { db, clock, sessions } = deps;
  const user = await findUserById(db, userId);
  if (!user || user.status !== 'active') return fail('inactive');
  if (user.totp_enabled_at !== null) return fail('totp_already_enabled');
  if (user.totp_secret_enc === null) return fail('totp_not_pending');
  const recoveryCodes = newRecoveryCodes();
  const enabled = await db.transaction().execute(async (trx) => {
    if (!(await checkSecondFactor(deps, trx, user, code, context))) return false;
    const now = clock.now();
    await trx
      .updateTable('users')
      .set({ totp_enabled_at: now, updated_at: now })
      .where('id', '=', user.id)
      .execute();
    await replaceRecoveryCodes(
      trx,
      user.id,
      recoveryCodes.map((recoveryCode) => recoveryCodeHash(user.id, recoveryCode)),
      now,
    );
    await record(deps, trx, user, 'user.2fa_enabled', context);
    return true;
  });
  if (!enabled) {
    await record(deps, db, user, 'user.2fa_verify_failed', context);
    return fail('invalid_code');
  }
  // Sessions opened before the second factor existed did not pass it.
  await sessions.endAll(DASHBOARD_REALM, user.id, context.keepSessionTokenHash);
  return ok({ recoveryCodes });
}

export async function disableTotp(
  deps: UserServiceDeps,
  userId: string,
  code: string,
  context: RequestContext,
): Promise<UserResult<void>> {
  const { db, clock } = deps;
  const user = await findUserById(db, userId);
  if (!user || user.status !== 'active') return fail('inactive');
  if (user.totp_enabled_at === null) return fail('totp_not_enabled');
  const disabled = await db.transaction().execute(async (trx) => {
    if (!(await checkSecondFactor(deps, trx, user, code, context))) return false;
    await trx
      .updateTable('users')
      .set({ totp_secret_enc: null, totp_enabled_at: null, updated_at: clock.now() })
      .where('id', '=', user.id)
      .execute();
    await replaceRecoveryCodes(trx, user.id, [], clock.now());
    await record(deps, trx, user, 'user.2fa_disabled', context);
    return true;
  });
  if (!disabled) {
    await record(deps, db, user, 'user.2fa_disable_failed', context);
    return fail('invalid_code');
  }
  return ok();
}
