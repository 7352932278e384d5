import { sha256Hex } from '../../shared/crypto.js';
import { err, ok, type Result } from '../../shared/result.js';
import { apply, cooldownMs } from './cooldown.js';
import { auditEntry, notify, nudgeAfter } from './notices.js';
import * as repo from './repository.js';
import { changeView, walletView, type WalletChangeView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { ConfirmationView, Confirmer, ConfirmRefusal, WalletActor } from './types.js';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** What the e-mailed link shows, without using it. */
export async function inspectConfirmation(deps: WalletServiceDeps, token: string): Promise<ConfirmationView> {
  const { db, clock } = deps;
  if (!TOKEN_SHAPE.test(token)) return { state: 'invalid' };
  const change = await repo.findChangeByTokenHash(db, sha256Hex(token));
  if (!change) return { state: 'invalid' };
  if (change.status !== 'awaiting_confirmation') return { state: 'used' };
  if (change.confirm_expires_at && change.confirm_expires_at.getTime() <= clock.now().getTime()) {
    return { state: 'invalid' };
  }
  const wallet = await repo.findWalletById(db, change.wallet_id);
  if (!wallet) return { state: 'invalid' };
  return { state: 'valid', change: changeView(change, wallet), wallet: walletView(wallet, change) };
}

/** An owner confirms: the change cools down (or applies at once when the cool-down is zero). */
export async function confirm(
  deps: WalletServiceDeps,
  token: string,
  user: Confirmer,
  code: string | undefined,
  by: WalletActor,
): Promise<Result<WalletChangeView, ConfirmRefusal>> {
  if (!TOKEN_SHAPE.test(token)) return err({ code: 'invalid_link' });
  const tokenHash = sha256Hex(token);
  const result = await deps.db
    .transaction()
    .execute(async (trx): Promise<Result<WalletChangeView, ConfirmRefusal>> => {
      const found = await repo.findChangeByTokenHash(trx, tokenHash);
      if (!found) return err({ code: 'invalid_link' });
      const change = await repo.lockChange(trx, found.id);
      if (!change || change.confirm_token_hash !== tokenHash) return err({ code: 'used_link' });
      if (change.status !== 'awaiting_confirmation') return err({ code: 'used_link' });
      const now = deps.clock.now();
      if (change.confirm_expires_at && change.confirm_expires_at.getTime() <= now.getTime()) {
        return err({ code: 'invalid_link' });
      }
      if (change.organization_id !== user.organizationId) return err({ code: 'other_organization' });
      if (user.role !== 'owner') return err({ code: 'not_owner' });
      if (user.totp === 'on') {
        if (code === undefined || code.trim() === '') return err({ code: 'code_required' });
        const context = { ip: by.ip ?? null, requestId: by.requestId ?? null };
        if (!(await deps.team.verifySecondFactor(trx, user.id, code.trim(), context)))
          return err({ code: 'wrong_code' });
      }
      const effectiveAt = new Date(now.getTime() + (await cooldownMs(deps, trx, change.organization_id)));
      const confirmed = await repo.transitionChange(
        trx,
        change.id,
        ['awaiting_confirmation'],
        'cooling_down',
        {
          confirmed_at: now,
          confirmed_by: by.actor,
          effective_at: effectiveAt,
          updated_at: now,
        },
      );
      if (!confirmed) throw new Error(`wallet change ${change.id} moved under its lock`);
      await auditEntry(deps, trx, by, 'wallet_change.confirmed', confirmed, {
        effectiveAt: effectiveAt.toISOString(),
        secondFactor: user.totp === 'on',
      });
      const wallet = await repo.findWalletById(trx, confirmed.wallet_id);
      if (!wallet) throw new Error(`wallet change ${confirmed.id} has no wallet`);
      await notify(deps, trx, 'confirmed', confirmed, wallet);
      if (effectiveAt.getTime() <= now.getTime()) {
        const applied = await apply(deps, trx, confirmed);
        const after = await repo.findWalletById(trx, applied.wallet_id);
        return ok(changeView(applied, after ?? wallet));
      }
      return ok(changeView(confirmed, wallet));
    });
  return nudgeAfter(deps, result);
}
