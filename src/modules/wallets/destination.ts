import type { Trx } from '../../db/database.js';
import type { PayoutWallets } from '../payouts/ports.js';
import { apply } from './cooldown.js';
import type { WalletRow } from './model.js';
import * as repo from './repository.js';
import type { WalletServiceDeps } from './deps.js';
import type { Owner } from '../../shared/owner.js';

// Where payouts go: the wallets module's side of the payouts module's port.

export async function destination(
  deps: WalletServiceDeps,
  trx: Trx,
  owner: Owner,
  walletId: string | undefined,
): ReturnType<PayoutWallets['destination']> {
  // A change whose cool-down has passed applies here, so a payout never waits for the job; one that
  // another transaction is applying is skipped (that transaction has not committed, so it has not
  // taken effect).
  for (const change of await repo.lockDueChanges(trx, deps.clock.now(), 10, owner))
    await apply(deps, trx, change);
  const wallet =
    walletId === undefined
      ? await repo.defaultWallet(trx, owner)
      : await repo.findWallet(trx, owner, walletId);
  if (!wallet)
    return { ok: false, reason: walletId === undefined ? 'no_default_wallet' : 'wallet_not_found' };
  if (wallet.status !== 'active') return { ok: false, reason: 'wallet_not_active' };
  return { ok: true, wallet: { walletId: wallet.id, network: wallet.network, address: wallet.address } };
}

export async function defaultDestinations(
  deps: WalletServiceDeps,
  trx: Trx,
  owners: readonly Owner[],
): ReturnType<PayoutWallets['defaultDestinations']> {
  const { changeDue, defaults } = await repo.defaultWalletsOf(trx, owners, deps.clock.now());
  const wanted = new Set(owners.map((owner) => `${owner.organizationId}:${owner.environment}`));
  const found = new Map<string, { walletId: string; network: WalletRow['network']; address: string }>();
  for (const wallet of defaults) {
    const key = `${wallet.organization_id}:${wallet.environment}`;
    if (!wanted.has(key) || changeDue.has(key) || wallet.status !== 'active') continue;
    found.set(key, { walletId: wallet.id, network: wallet.network, address: wallet.address });
  }
  return found;
}
