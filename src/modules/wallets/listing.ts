import type { Kdb } from '../../db/database.js';
import { cursorPage } from '../../shared/cursor-page.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { WalletError } from './errors.js';
import type { WalletChangeRow, WalletRow, WalletStatus } from './model.js';
import * as repo from './repository.js';
import { changeView, walletView, type WalletChangeView, type WalletView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { Owner } from '../../shared/owner.js';

// What the API, the dashboard and the operator read: wallets and changes, as views.

/** The wallet with its open change, if any. */
export async function viewOf(dbOrTrx: Kdb, wallet: WalletRow): Promise<WalletView> {
  return walletView(wallet, await repo.openChangeOf(dbOrTrx, wallet.id));
}

export async function list(
  deps: WalletServiceDeps,
  owner: Owner,
  { limit, cursor, status }: { limit: number; cursor?: string; status?: WalletStatus },
): Promise<Result<{ data: WalletView[]; nextCursor: string | null }, WalletError>> {
  const { db } = deps;
  return cursorPage(deps.cursors, {
    list: 'wallets',
    owner,
    filter: status ?? null,
    query: { limit, cursor },
    rows: (after) =>
      repo.listWallets(db, owner, { limit, ...(after ? { after } : {}), ...(status ? { status } : {}) }),
    view: async (rows) => {
      const changes = await repo.openChangesOf(
        db,
        rows.map((row) => row.id),
      );
      return rows.map((row) =>
        walletView(
          row,
          changes.find((change) => change.wallet_id === row.id),
        ),
      );
    },
  });
}

export async function get(
  deps: WalletServiceDeps,
  owner: Owner,
  id: string,
): Promise<Result<WalletView, WalletError>> {
  const wallet = await repo.findWallet(deps.db, owner, id);
  return wallet ? ok(await viewOf(deps.db, wallet)) : err({ code: 'wallet_not_found' });
}

/** The dashboard's page: every wallet of the environment (newest first) and the open changes. */
export async function overview(
  deps: WalletServiceDeps,
  owner: Owner,
  limit: number,
): Promise<{ wallets: WalletView[]; changes: WalletChangeView[] }> {
  const { db } = deps;
  const rows = await repo.listWallets(db, owner, { limit });
  const changes = await repo.openChangesFor(db, owner);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const views: WalletChangeView[] = [];
  for (const change of changes) {
    const wallet = byId.get(change.wallet_id) ?? (await repo.findWalletById(db, change.wallet_id));
    if (wallet) views.push(changeView(change, wallet));
  }
  return {
    wallets: rows.slice(0, limit).map((row) =>
      walletView(
        row,
        changes.find((c) => c.wallet_id === row.id),
      ),
    ),
    changes: views,
  };
}

/** Operator: changes in the given statuses (default: the open ones), newest first. */
export async function listChanges(
  deps: WalletServiceDeps,
  { status, limit }: { status?: WalletChangeRow['status']; limit: number },
): Promise<WalletChangeView[]> {
  const { db } = deps;
  const rows = await repo.listChanges(db, {
    statuses: status ? [status] : ['awaiting_confirmation', 'cooling_down'],
    limit,
  });
  const views: WalletChangeView[] = [];
  for (const change of rows) {
    const wallet = await repo.findWalletById(db, change.wallet_id);
    if (wallet) views.push(changeView(change, wallet));
  }
  return views;
}
