import { err, ok, type Result } from '../../shared/result.js';
import type { WalletError } from './errors.js';
import { auditEntry } from './notices.js';
import * as repo from './repository.js';
import { walletView, type WalletView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';
import type { Owner } from '../../shared/owner.js';

/** An active wallet that is neither the default nor under a change receives no more payouts. */
export async function archive(
  deps: WalletServiceDeps,
  owner: Owner,
  id: string,
  by: WalletActor,
): Promise<Result<WalletView, WalletError>> {
  return deps.db.transaction().execute(async (trx): Promise<Result<WalletView, WalletError>> => {
    const wallet = await repo.lockWallet(trx, owner, id);
    if (!wallet) return err({ code: 'wallet_not_found' });
    if (wallet.status === 'archived') return ok(walletView(wallet, undefined));
    if (wallet.status !== 'active') return err({ code: 'wallet_not_active', status: wallet.status });
    if (wallet.is_default) return err({ code: 'default_not_archivable' });
    const open = await repo.openChangeOf(trx, wallet.id);
    if (open) return err({ code: 'change_open', changeId: open.id });
    const now = deps.clock.now();
    const archived = await repo.transitionWallet(trx, wallet.id, ['active'], 'archived', {
      archived_at: now,
      updated_at: now,
    });
    if (!archived) throw new Error(`wallet ${wallet.id} moved under its lock`);
    await auditEntry(deps, trx, by, 'wallet.archived', archived, { status: 'archived' });
    return ok(walletView(archived, undefined));
  });
}
