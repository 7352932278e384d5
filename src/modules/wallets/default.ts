import type { Trx } from '../../db/database.js';
import { err, ok, type Result } from '../../shared/result.js';
import { requestChange } from './changes.js';
import type { WalletError } from './errors.js';
import type { WalletRow } from './model.js';
import { viewOf } from './listing.js';
import { auditEntry, nudgeAfter } from './notices.js';
import * as repo from './repository.js';
import { walletView, type WalletView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';
import type { Owner } from '../../shared/owner.js';

/** Makes the wallet the default now, announcing it (`wallet.default_changed`). */
export async function becomeDefault(
  deps: WalletServiceDeps,
  trx: Trx,
  wallet: WalletRow,
  now: Date,
): Promise<WalletRow> {
  const owner = { organizationId: wallet.organization_id, environment: wallet.environment };
  const previous = await repo.defaultWallet(trx, owner);
  if (previous?.id === wallet.id) return wallet;
  const moved = await repo.moveDefault(trx, owner, wallet.id, now);
  await deps.events.record(trx, {
    organizationId: wallet.organization_id,
    environment: wallet.environment,
    type: 'wallet.default_changed',
    resourceId: wallet.id,
    data: { ...walletView(moved, undefined), previousWalletId: previous?.id ?? null },
  });
  return moved;
}

/** The environment's default wallet as it stands (a change still cooling down has not taken effect). */
export async function defaultWallet(deps: WalletServiceDeps, owner: Owner): Promise<WalletView | undefined> {
  const wallet = await repo.defaultWallet(deps.db, owner);
  return wallet ? viewOf(deps.db, wallet) : undefined;
}

/** A sandbox default moves at once; a live one is a change an owner confirms and that cools down. */
export async function makeDefault(
  deps: WalletServiceDeps,
  owner: Owner,
  id: string,
  by: WalletActor,
): Promise<Result<WalletView, WalletError>> {
  const result = await deps.db
    .transaction()
    .execute(async (trx): Promise<Result<WalletView, WalletError>> => {
      // Before the wallet's row lock, in the order `create` takes it: a sandbox move of the default
      // waits for a wallet being added (which may become the first default).
      await repo.lockOwner(trx, owner);
      const wallet = await repo.lockWallet(trx, owner, id);
      if (!wallet) return err({ code: 'wallet_not_found' });
      const open = await repo.openChangeOf(trx, wallet.id);
      if (open) return err({ code: 'change_open', changeId: open.id });
      if (wallet.status !== 'active') return err({ code: 'wallet_not_active', status: wallet.status });
      if (wallet.is_default) return ok(walletView(wallet, undefined));
      if (owner.environment === 'live') {
        const change = await requestChange(deps, trx, wallet, 'make_default', true, by);
        return ok(walletView(wallet, change));
      }
      const moved = await becomeDefault(deps, trx, wallet, deps.clock.now());
      await auditEntry(deps, trx, by, 'wallet.default_changed', moved, { isDefault: true });
      return ok(walletView(moved, undefined));
    });
  return nudgeAfter(deps, result);
}
