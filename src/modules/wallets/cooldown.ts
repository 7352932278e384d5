import type { Kdb, Trx } from '../../db/database.js';
import { err, ok, type Result } from '../../shared/result.js';
import { close } from './changes.js';
import { becomeDefault } from './default.js';
import type { WalletError } from './errors.js';
import type { WalletChangeRow } from './model.js';
import { auditEntry, notify } from './notices.js';
import * as repo from './repository.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';
import type { Owner } from '../../shared/owner.js';

// The cool-down of confirmed changes: how long it lasts, and the change that applies at its end.

export const MAX_COOLDOWN_HOURS = 24 * 30;

/** The organization's cool-down, or the configured default. */
export async function cooldownMs(deps: WalletServiceDeps, db: Kdb, organizationId: string): Promise<number> {
  return ((await repo.cooldownSeconds(db, organizationId)) ?? deps.defaultCooldownSeconds) * 1000;
}

/** The owners of these changes, each once, in the one order a transaction takes several owners' locks. */
function ownerLockOrder(changes: readonly WalletChangeRow[]): Owner[] {
  const owners = new Map<string, Owner>();
  for (const change of changes) {
    owners.set(`${change.organization_id}:${change.environment}`, {
      organizationId: change.organization_id,
      environment: change.environment,
    });
  }
  return [...owners.keys()].sort().map((key) => owners.get(key) as Owner);
}

/**
 * Applies a locked, due, cooling-down change in the caller's transaction, under its owner's lock: it
 * activates a wallet and may move the default, so it waits for a wallet being added or a default being
 * moved (`create`, `makeDefault`), which then sees what it did, and two changes of one owner applied at
 * once (the job and a confirmation or a payout's `destination`) move the default one after the other.
 *
 * Lock order, in every transaction of this module: `wallet_changes` rows (FOR UPDATE, the job's with
 * SKIP LOCKED), then owner locks (`repo.lockOwner`; several in `ownerLockOrder`), then `wallets` rows.
 * Nothing waits for a change row while it holds an owner lock (the job's later reads skip locked rows),
 * so no two transactions wait on each other.
 */
export async function apply(
  deps: WalletServiceDeps,
  trx: Trx,
  change: WalletChangeRow,
): Promise<WalletChangeRow> {
  await repo.lockOwner(trx, { organizationId: change.organization_id, environment: change.environment });
  const now = deps.clock.now();
  let wallet = await repo.findWalletById(trx, change.wallet_id);
  if (!wallet) throw new Error(`wallet change ${change.id} has no wallet`);
  if (wallet.status === 'pending') {
    const activated = await repo.transitionWallet(trx, wallet.id, ['pending'], 'active', {
      activated_at: now,
      updated_at: now,
    });
    if (!activated) throw new Error(`wallet ${wallet.id} left pending under its change's lock`);
    wallet = activated;
  }
  const applied = await repo.transitionChange(trx, change.id, ['cooling_down'], 'applied', {
    applied_at: now,
    updated_at: now,
  });
  if (!applied) throw new Error(`wallet change ${change.id} left cooling_down under its lock`);
  if (change.make_default && wallet.status === 'active') wallet = await becomeDefault(deps, trx, wallet, now);
  await auditEntry(deps, trx, { actor: 'system' }, 'wallet_change.applied', applied, {
    walletId: wallet.id,
    isDefault: wallet.is_default,
  });
  await notify(deps, trx, 'applied', applied, wallet);
  return applied;
}

/** One round of the job: changes whose cool-down has passed are applied, unconfirmed ones expire. */
export async function applyDue(
  deps: WalletServiceDeps,
  limit = 50,
): Promise<{ applied: number; expired: number }> {
  const now = deps.clock.now();
  const counts = await deps.db.transaction().execute(async (trx) => {
    let applied = 0;
    let expired = 0;
    const due = await repo.lockDueChanges(trx, now, limit);
    // Every owner's lock before the first change applies, in one order: two runs (or a run and one
    // owner's `destination`) never hold one owner's lock each while waiting for the other's.
    for (const owner of ownerLockOrder(due)) await repo.lockOwner(trx, owner);
    for (const change of due) {
      await apply(deps, trx, change);
      applied++;
    }
    for (const change of await repo.lockExpiredChanges(trx, now, limit)) {
      await close(deps, trx, change, 'expired', { actor: 'system' }, null);
      expired++;
    }
    return { applied, expired };
  });
  if (counts.applied > 0) deps.mailer.nudge();
  return counts;
}

/** Operator: the organization's cool-down. */
export async function setCooldown(
  deps: WalletServiceDeps,
  organizationId: string,
  hours: number,
  by: WalletActor,
): Promise<Result<{ organizationId: string; cooldownHours: number }, WalletError>> {
  if (!Number.isInteger(hours) || hours < 0 || hours > MAX_COOLDOWN_HOURS) {
    return err({
      code: 'invalid_cooldown',
      message: `must be a whole number of hours from 0 to ${MAX_COOLDOWN_HOURS}`,
    });
  }
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    await repo.upsertCooldown(trx, { organizationId, cooldownSeconds: hours * 3600, by: by.actor, now });
    await deps.audit.record(trx, {
      actor: by.actor,
      action: 'wallet_settings.cooldown_set',
      targetType: 'organization',
      targetId: organizationId,
      organizationId,
      after: { cooldownHours: hours },
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });
  });
  return ok({ organizationId, cooldownHours: hours });
}
