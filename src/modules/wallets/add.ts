import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import { checkAddress } from '../../shared/chain-address.js';
import { requestChange } from './changes.js';
import { becomeDefault } from './default.js';
import type { WalletError } from './errors.js';
import type { WalletChangeRow } from './model.js';
import { auditEntry, nudgeAfter } from './notices.js';
import * as repo from './repository.js';
import { walletView, type WalletCreate, type WalletView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';
import type { Owner } from '../../shared/owner.js';

/**
 * Adds a wallet. A sandbox wallet is active at once; a live one is pending, with an `add` change an
 * owner confirms and that then cools down.
 */
export async function create(
  deps: WalletServiceDeps,
  owner: Owner,
  input: WalletCreate,
  by: WalletActor,
): Promise<Result<WalletView, WalletError>> {
  const checked = checkAddress(input.network, input.address.trim());
  if (!checked.ok)
    return err({ code: 'invalid_wallet_address', network: input.network, reason: checked.reason });
  const result = await deps.db
    .transaction()
    .execute(async (trx): Promise<Result<WalletView, WalletError>> => {
      // Two requests at once: the later one waits, then finds the address or the default the first added.
      await repo.lockOwner(trx, owner);
      const existing = await repo.findLiveAddress(trx, owner, input.network, checked.address);
      if (existing) return err({ code: 'wallet_exists', walletId: existing.id });
      const now = deps.clock.now();
      const live = owner.environment === 'live';
      const currentDefault = await repo.defaultWallet(trx, owner);
      const makeDefault = input.makeDefault ?? currentDefault === undefined;
      let wallet = await repo.insertWallet(trx, {
        id: newId('wal', now),
        organization_id: owner.organizationId,
        environment: owner.environment,
        network: input.network,
        address: checked.address,
        label: input.label ?? null,
        status: live ? 'pending' : 'active',
        created_by: by.actor,
        activated_at: live ? null : now,
        archived_at: null,
        created_at: now,
        updated_at: now,
      });
      await auditEntry(deps, trx, by, 'wallet.created', wallet, {
        network: wallet.network,
        address: wallet.address,
        makeDefault,
      });
      let change: WalletChangeRow | undefined;
      if (live) change = await requestChange(deps, trx, wallet, 'add', makeDefault, by);
      const view = walletView(wallet, change);
      await deps.events.record(trx, {
        organizationId: owner.organizationId,
        environment: owner.environment,
        type: 'wallet.created',
        resourceId: wallet.id,
        data: view,
      });
      if (!live && makeDefault) {
        wallet = await becomeDefault(deps, trx, wallet, now);
        return ok(walletView(wallet, undefined));
      }
      return ok(view);
    });
  return nudgeAfter(deps, result);
}
