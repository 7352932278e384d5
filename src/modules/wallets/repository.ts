import type { Insertable, Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { lockUntilCommit } from '../../db/locks.js';
import type { WalletChangesTable, WalletsTable } from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { findOne, lockOne } from '../../db/rows.js';
import { ownedBy, ownerColumns } from '../../db/scopes.js';
import { rowTransition, type RowTransition } from '../../shared/row-transition.js';
import {
  CHANGE_TRANSITIONS,
  OPEN_CHANGE_STATUSES,
  WALLET_TRANSITIONS,
  type WalletChangeRow,
  type WalletChangeStatus,
  type WalletRow,
  type WalletStatus,
} from './model.js';
import type { Owner } from '../../shared/owner.js';

/**
 * The only writer of `wallets`, `wallet_changes` and `wallet_settings`; a wallet's and a change's
 * `status` move only through `transitionWallet` and `transitionChange`.
 */

export type WalletPatch = Omit<Updateable<WalletsTable>, 'id' | 'status' | 'is_default'>;
export type ChangePatch = Omit<Updateable<WalletChangesTable>, 'id' | 'status'>;

/**
 * Serialises, until the end of the caller's transaction, the writers that add a wallet to one owner or
 * move its default, so that each sees the addresses and the default the previous one left (the unique
 * indexes `wallets_address_idx` and `wallets_one_default_idx` would otherwise refuse the later one).
 */
export async function lockOwner(trx: Trx, owner: Owner): Promise<void> {
  await lockUntilCommit(trx, `wallets:${owner.organizationId}:${owner.environment}`);
}

export async function insertWallet(trx: Trx, values: Insertable<WalletsTable>): Promise<WalletRow> {
  return trx.insertInto('wallets').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findWallet(db: Kdb, owner: Owner, id: string): Promise<WalletRow | undefined> {
  return findOne(db, 'wallets', { id, ...ownerColumns(owner) });
}

export async function lockWallet(trx: Trx, owner: Owner, id: string): Promise<WalletRow | undefined> {
  return lockOne(trx, 'wallets', { id, ...ownerColumns(owner) });
}

export async function findWalletById(db: Kdb, id: string): Promise<WalletRow | undefined> {
  return findOne(db, 'wallets', { id });
}

/** The active wallet with this address, or the one waiting for its addition (the unique index's set). */
export async function findLiveAddress(
  trx: Trx,
  owner: Owner,
  network: string,
  address: string,
): Promise<WalletRow | undefined> {
  return trx
    .selectFrom('wallets')
    .selectAll()
    .$call(ownedBy(owner))
    .where('network', '=', network as WalletRow['network'])
    .where('address', '=', address)
    .where('status', 'in', ['pending', 'active'])
    .executeTakeFirst();
}

export async function defaultWallet(db: Kdb, owner: Owner): Promise<WalletRow | undefined> {
  return findOne(db, 'wallets', { ...ownerColumns(owner), is_default: true });
}

export async function listWallets(
  db: Kdb,
  owner: Owner,
  page: { limit: number; after?: Cursor; status?: WalletStatus },
): Promise<WalletRow[]> {
  let query = db.selectFrom('wallets').selectAll().$call(ownedBy(owner));
  if (page.status) query = query.where('status', '=', page.status);
  return query.$call(keysetPage(page.after, page.limit + 1)).execute();
}

/**
 * Moves the default to `walletId` (null: no default): the old default is cleared first, so the partial
 * unique index (one default per organization and environment) holds at every statement.
 */
export async function moveDefault(trx: Trx, owner: Owner, walletId: string, now: Date): Promise<WalletRow> {
  await trx
    .updateTable('wallets')
    .set({ is_default: false, updated_at: now })
    .$call(ownedBy(owner))
    .where('is_default', '=', true)
    .where('id', '<>', walletId)
    .execute();
  return trx
    .updateTable('wallets')
    .set({ is_default: true, updated_at: now })
    .where('id', '=', walletId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export const transitionWallet: RowTransition<Kdb, WalletStatus, WalletPatch, WalletRow> = rowTransition(
  'wallets',
  'status',
  WALLET_TRANSITIONS,
  (id) => `wallet ${id}`,
);

// ---------------------------------------------------------------- changes

export async function insertChange(
  trx: Trx,
  values: Insertable<WalletChangesTable>,
): Promise<WalletChangeRow> {
  return trx.insertInto('wallet_changes').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findChange(db: Kdb, id: string): Promise<WalletChangeRow | undefined> {
  return findOne(db, 'wallet_changes', { id });
}

export async function lockChange(trx: Trx, id: string): Promise<WalletChangeRow | undefined> {
  return lockOne(trx, 'wallet_changes', { id });
}

export async function findChangeByTokenHash(
  db: Kdb,
  tokenHash: string,
): Promise<WalletChangeRow | undefined> {
  return findOne(db, 'wallet_changes', { confirm_token_hash: tokenHash });
}

export async function openChangeOf(db: Kdb, walletId: string): Promise<WalletChangeRow | undefined> {
  return db
    .selectFrom('wallet_changes')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where('status', 'in', [...OPEN_CHANGE_STATUSES])
    .executeTakeFirst();
}

export async function openChangesOf(db: Kdb, walletIds: readonly string[]): Promise<WalletChangeRow[]> {
  if (walletIds.length === 0) return [];
  return db
    .selectFrom('wallet_changes')
    .selectAll()
    .where('wallet_id', 'in', [...walletIds])
    .where('status', 'in', [...OPEN_CHANGE_STATUSES])
    .execute();
}

/** The owner's open changes, oldest first. */
export async function openChangesFor(db: Kdb, owner: Owner): Promise<WalletChangeRow[]> {
  return db
    .selectFrom('wallet_changes')
    .selectAll()
    .$call(ownedBy(owner))
    .where('status', 'in', [...OPEN_CHANGE_STATUSES])
    .orderBy('created_at', 'asc')
    .execute();
}

/** Every organization's changes in a status, newest first (the operator's queue). */
export async function listChanges(
  db: Kdb,
  filter: { statuses: readonly WalletChangeStatus[]; limit: number },
): Promise<WalletChangeRow[]> {
  return db
    .selectFrom('wallet_changes')
    .selectAll()
    .where('status', 'in', [...filter.statuses])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
}

/**
 * Cooling-down changes whose time has come, locked (`SKIP LOCKED`: a change another worker or a payout
 * is applying is left to it). With an owner: that owner's only (the lazy apply of `destination`).
 */
export async function lockDueChanges(
  trx: Trx,
  now: Date,
  limit: number,
  owner?: Owner,
): Promise<WalletChangeRow[]> {
  let query = trx
    .selectFrom('wallet_changes')
    .selectAll()
    .where('status', '=', 'cooling_down')
    .where('effective_at', '<=', now);
  if (owner) query = query.$call(ownedBy(owner));
  return query.orderBy('effective_at', 'asc').limit(limit).forUpdate().skipLocked().execute();
}

/** Changes nobody confirmed in time, locked. */
export async function lockExpiredChanges(trx: Trx, now: Date, limit: number): Promise<WalletChangeRow[]> {
  return trx
    .selectFrom('wallet_changes')
    .selectAll()
    .where('status', '=', 'awaiting_confirmation')
    .where('confirm_expires_at', '<=', now)
    .orderBy('confirm_expires_at', 'asc')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export const transitionChange: RowTransition<Kdb, WalletChangeStatus, ChangePatch, WalletChangeRow> =
  rowTransition('wallet_changes', 'status', CHANGE_TRANSITIONS, (id) => `wallet change ${id}`);

// ---------------------------------------------------------------- settings

export async function cooldownSeconds(db: Kdb, organizationId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('wallet_settings')
    .select('cooldown_seconds')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row?.cooldown_seconds;
}

export async function upsertCooldown(
  trx: Trx,
  input: { organizationId: string; cooldownSeconds: number; by: string; now: Date },
): Promise<void> {
  await trx
    .insertInto('wallet_settings')
    .values({
      organization_id: input.organizationId,
      cooldown_seconds: input.cooldownSeconds,
      updated_by: input.by,
      updated_at: input.now,
    })
    .onConflict((conflict) =>
      conflict.column('organization_id').doUpdateSet({
        cooldown_seconds: input.cooldownSeconds,
        updated_by: input.by,
        updated_at: input.now,
      }),
    )
    .execute();
}

/**
 * Of these owners, those with a change whose cool-down has passed (`lockDueChanges` would apply it), and
 * each other owner's default wallet, in two statements (a settlement chunk).
 */
export async function defaultWalletsOf(
  db: Kdb,
  owners: readonly Owner[],
  now: Date,
): Promise<{ changeDue: Set<string>; defaults: WalletRow[] }> {
  if (owners.length === 0) return { changeDue: new Set(), defaults: [] };
  const organizations = [...new Set(owners.map((owner) => owner.organizationId))];
  const due = await db
    .selectFrom('wallet_changes')
    .select(['organization_id', 'environment'])
    .where('status', '=', 'cooling_down')
    .where('effective_at', '<=', now)
    .where('organization_id', 'in', organizations)
    .execute();
  const defaults = await db
    .selectFrom('wallets')
    .selectAll()
    .where('organization_id', 'in', organizations)
    .where('is_default', '=', true)
    .execute();
  return { changeDue: new Set(due.map((row) => `${row.organization_id}:${row.environment}`)), defaults };
}
