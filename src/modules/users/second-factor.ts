import type { Kdb, Trx } from '../../db/database.js';
import { record } from './audit.js';
import { claimTotpStep, findUserById, useRecoveryCode, type UserRow } from './repository.js';
import type { UserServiceDeps } from './deps.js';
import type { RequestContext } from './types.js';
import { matchTotpStep, normalizeSecondFactor, recoveryCodeHash } from './totp.js';

/** Checks a TOTP code (each time step once) or an unused recovery code, and consumes it. */
export async function checkSecondFactor(
  deps: UserServiceDeps,
  dbOrTrx: Kdb,
  user: UserRow,
  input: string,
  context: RequestContext,
): Promise<boolean> {
  if (user.totp_secret_enc === null) return false;
  const factor = normalizeSecondFactor(input);
  if (!factor) return false;
  const now = deps.clock.now();
  if (factor.kind === 'totp') {
    const step = matchTotpStep(deps.box.open(user.totp_secret_enc), factor.code, now);
    return step !== undefined && (await claimTotpStep(dbOrTrx, user.id, step, now));
  }
  if (user.totp_enabled_at === null) return false;
  const used = await useRecoveryCode(dbOrTrx, user.id, recoveryCodeHash(user.id, factor.code), now);
  if (used) await record(deps, dbOrTrx, user, 'user.recovery_code_used', context);
  return used;
}

/** The second factor of an active user with 2FA on, checked in the caller's transaction (wallet changes). */
export async function verifySecondFactor(
  deps: UserServiceDeps,
  trx: Trx,
  userId: string,
  code: string,
  context: RequestContext,
): Promise<boolean> {
  const user = await findUserById(trx, userId);
  if (!user || user.status !== 'active' || user.totp_enabled_at === null) return false;
  return checkSecondFactor(deps, trx, user, code, context);
}
