import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { UserRole } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { sha256Hex } from '../../shared/crypto.js';
import { newId } from '../../shared/ids.js';
import { toPage, type CursorCodec } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { Mailer } from '../email/service.js';
import { walletChangeEmail, type WalletChangeStep } from '../email/templates.js';
import type { EventRecorder } from '../events/service.js';
import type { PayoutWallets } from '../payouts/ports.js';
import { checkAddress } from './address.js';
import type { WalletError } from './errors.js';
import type { WalletChangeRow, WalletOwner, WalletRow, WalletStatus } from './model.js';
import * as repo from './repository.js';
import {
  changeView,
  walletView,
  type WalletChangeView,
  type WalletCreate,
  type WalletView,
} from './schemas.js';

export type { WalletOwner };

/** Who acts, for the audit log: `key:key_…`, `user:usr_…`, `staff:stf_…`, `cli` or `system`. */
export interface WalletActor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

/** The signed-in owner confirming a change from the e-mailed link. */
export interface Confirmer {
  id: string;
  organizationId: string;
  role: UserRole;
  totp: 'off' | 'pending' | 'on';
}

export type ConfirmationView =
  { state: 'valid'; change: WalletChangeView; wallet: WalletView } | { state: 'used' } | { state: 'invalid' };

export type ConfirmRefusal = {
  code: 'invalid_link' | 'used_link' | 'other_organization' | 'not_owner' | 'code_required' | 'wrong_code';
};

/** What the wallets module needs of the users module: who hears of changes, and the 2FA check. */
export interface WalletTeam {
  activeMemberEmails(trx: Trx, organizationId: string, roles: readonly UserRole[]): Promise<string[]>;
  verifySecondFactor(
    trx: Trx,
    userId: string,
    code: string,
    context: { ip: string | null; requestId: string | null },
  ): Promise<boolean>;
}

export interface WalletService extends PayoutWallets {
  create(owner: WalletOwner, input: WalletCreate, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  list(
    owner: WalletOwner,
    page: { limit: number; cursor?: string; status?: WalletStatus },
  ): Promise<Result<{ data: WalletView[]; nextCursor: string | null }, WalletError>>;
  get(owner: WalletOwner, id: string): Promise<Result<WalletView, WalletError>>;
  /** The environment's default wallet as it stands (a change still cooling down has not taken effect). */
  defaultWallet(owner: WalletOwner): Promise<WalletView | undefined>;
  makeDefault(owner: WalletOwner, id: string, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  archive(owner: WalletOwner, id: string, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  /** The merchant cancels its own open change (an added wallet is canceled with it). */
  cancelChange(
    owner: WalletOwner,
    changeId: string,
    by: WalletActor,
  ): Promise<Result<WalletChangeView, WalletError>>;
  /** The dashboard's page: every wallet of the environment (newest first) and the open changes. */
  overview(
    owner: WalletOwner,
    limit: number,
  ): Promise<{ wallets: WalletView[]; changes: WalletChangeView[] }>;
  /** What the e-mailed link shows, without using it. */
  inspectConfirmation(token: string): Promise<ConfirmationView>;
  /** An owner confirms: the change cools down (or applies at once when the cool-down is zero). */
  confirm(
    token: string,
    user: Confirmer,
    code: string | undefined,
    by: WalletActor,
  ): Promise<Result<WalletChangeView, ConfirmRefusal>>;
  /** One round of the job: changes whose cool-down has passed are applied, unconfirmed ones expire. */
  applyDue(limit?: number): Promise<{ applied: number; expired: number }>;
  /** Operator: changes in the given statuses (default: the open ones), newest first. */
  listChanges(filter: { status?: WalletChangeRow['status']; limit: number }): Promise<WalletChangeView[]>;
  /** Operator: cancels an open change with a reason, audited. */
  operatorCancel(
    changeId: string,
    reason: string,
    by: WalletActor,
  ): Promise<Result<WalletChangeView, WalletError>>;
  /** Operator: the organization's cool-down; null goes back to the configured default. */
  setCooldown(
    organizationId: string,
    hours: number,
    by: WalletActor,
  ): Promise<Result<{ organizationId: string; cooldownHours: number }, WalletError>>;
}

export interface WalletServiceDeps {
  db: Kdb;
  clock: Clock;
  logger: Logger;
  cursors: CursorCodec;
  audit: AuditLog;
  mailer: Mailer;
  events: EventRecorder;
  team: WalletTeam;
  /** The web listener's base URL: the confirmation links and the dashboard. */
  webUrl: () => string;
  /** WALLET_CHANGE_COOLDOWN_HOURS, in seconds: the cool-down of an organization without its own. */
  defaultCooldownSeconds: number;
  /** How long the e-mailed confirmation link lives. */
  confirmTtlMs: number;
}

export const CONFIRM_PATH = '/dashboard/wallet-changes/confirm';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const MAX_COOLDOWN_HOURS = 24 * 30;

/** The owners of these changes, each once, in the one order a transaction takes several owners' locks. */
function ownerLockOrder(changes: readonly WalletChangeRow[]): WalletOwner[] {
  const owners = new Map<string, WalletOwner>();
  for (const change of changes) {
    owners.set(`${change.organization_id}:${change.environment}`, {
      organizationId: change.organization_id,
      environment: change.environment,
    });
  }
  return [...owners.keys()].sort().map((key) => owners.get(key) as WalletOwner);
}

/**
 * Wallets and their change controls (issue 13 items 1 and 2). A live wallet, or a change of the live
 * default, is a `wallet_changes` row that an owner confirms and that then cools down; it applies in one
 * transaction (wallet active, default moved, `wallet.default_changed`) by the job or, lazily, when a
 * payout asks where to go. Sandbox wallets take effect at once.
 */
export function createWalletService(deps: WalletServiceDeps): WalletService {
  const { db, clock } = deps;

  const auditEntry = (
    trx: Trx,
    by: WalletActor,
    action: string,
    target: WalletChangeRow | WalletRow,
    after: unknown,
  ) =>
    deps.audit.record(trx, {
      actor: by.actor,
      action,
      targetType: target.id.startsWith('wch_') ? 'wallet_change' : 'wallet',
      targetId: target.id,
      organizationId: target.organization_id,
      after,
      requestId: by.requestId ?? null,
      ip: by.ip ?? null,
    });

  const viewOf = async (dbOrTrx: Kdb, wallet: WalletRow) =>
    walletView(wallet, await repo.openChangeOf(dbOrTrx, wallet.id));

  /** Every owner and admin hears of each step; at the request, owners get the confirmation link. */
  const notify = async (
    trx: Trx,
    step: WalletChangeStep,
    change: WalletChangeRow,
    wallet: WalletRow,
    token?: string,
  ) => {
    const base = {
      step,
      kind: change.kind,
      makeDefault: change.make_default,
      network: wallet.network,
      address: wallet.address,
      changeId: change.id,
      dashboardUrl: `${deps.webUrl()}/dashboard/wallets`,
      ...(change.effective_at ? { effectiveAt: change.effective_at } : {}),
      ...(change.confirm_expires_at ? { confirmExpiresAt: change.confirm_expires_at } : {}),
    };
    const owners = await deps.team.activeMemberEmails(trx, change.organization_id, ['owner']);
    const admins = await deps.team.activeMemberEmails(trx, change.organization_id, ['admin']);
    const confirmUrl = token === undefined ? undefined : `${deps.webUrl()}${CONFIRM_PATH}/${token}`;
    for (const to of owners) {
      await deps.mailer.enqueue(
        trx,
        to,
        walletChangeEmail({ ...base, ...(confirmUrl ? { confirmUrl } : {}) }),
      );
    }
    for (const to of admins) await deps.mailer.enqueue(trx, to, walletChangeEmail(base));
  };

  const cooldownMs = async (trx: Kdb, organizationId: string) =>
    ((await repo.cooldownSeconds(trx, organizationId)) ?? deps.defaultCooldownSeconds) * 1000;

  /** Opens a live change: `awaiting_confirmation`, a single-use link to the owners, everyone told. */
  const requestChange = async (
    trx: Trx,
    wallet: WalletRow,
    kind: WalletChangeRow['kind'],
    makeDefault: boolean,
    by: WalletActor,
  ) => {
    const now = clock.now();
    const token = randomBytes(32).toString('base64url');
    const change = await repo.insertChange(trx, {
      id: newId('wch', now),
      organization_id: wallet.organization_id,
      environment: wallet.environment,
      wallet_id: wallet.id,
      kind,
      make_default: makeDefault,
      status: 'awaiting_confirmation',
      confirm_token_hash: sha256Hex(token),
      confirm_expires_at: new Date(now.getTime() + deps.confirmTtlMs),
      confirmed_at: null,
      confirmed_by: null,
      effective_at: null,
      applied_at: null,
      canceled_at: null,
      canceled_by: null,
      cancel_reason: null,
      requested_by: by.actor,
      created_at: now,
      updated_at: now,
    });
    await auditEntry(trx, by, 'wallet_change.requested', change, { walletId: wallet.id, kind, makeDefault });
    await notify(trx, 'requested', change, wallet, token);
    return change;
  };

  /** Makes the wallet the default now, announcing it (`wallet.default_changed`). */
  const becomeDefault = async (trx: Trx, wallet: WalletRow, now: Date) => {
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
  };

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
  const apply = async (trx: Trx, change: WalletChangeRow) => {
    await repo.lockOwner(trx, { organizationId: change.organization_id, environment: change.environment });
    const now = clock.now();
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
    if (change.make_default && wallet.status === 'active') wallet = await becomeDefault(trx, wallet, now);
    await auditEntry(trx, { actor: 'system' }, 'wallet_change.applied', applied, {
      walletId: wallet.id,
      isDefault: wallet.is_default,
    });
    await notify(trx, 'applied', applied, wallet);
    return applied;
  };

  /** Closes an open change (canceled or expired); an added wallet is canceled with it. */
  const close = async (
    trx: Trx,
    change: WalletChangeRow,
    to: 'canceled' | 'expired',
    by: WalletActor,
    reason: string | null,
  ) => {
    const now = clock.now();
    const closed = await repo.transitionChange(trx, change.id, [change.status], to, {
      updated_at: now,
      ...(to === 'canceled' ? { canceled_at: now, canceled_by: by.actor, cancel_reason: reason } : {}),
    });
    if (!closed) throw new Error(`wallet change ${change.id} moved under its lock`);
    if (change.kind === 'add') {
      await repo.transitionWallet(trx, change.wallet_id, ['pending'], 'canceled', { updated_at: now });
    }
    await auditEntry(
      trx,
      by,
      `wallet_change.${to}`,
      closed,
      reason === null ? { status: to } : { status: to, reason },
    );
    return closed;
  };

  const isOpen = (change: WalletChangeRow) =>
    change.status === 'awaiting_confirmation' || change.status === 'cooling_down';

  const cancelLocked = async (
    trx: Trx,
    changeId: string,
    owner: WalletOwner | undefined,
    by: WalletActor,
    reason: string | null,
  ): Promise<Result<WalletChangeView, WalletError>> => {
    const change = await repo.lockChange(trx, changeId);
    if (
      !change ||
      (owner && (change.organization_id !== owner.organizationId || change.environment !== owner.environment))
    ) {
      return err({ code: 'change_not_found' });
    }
    if (!isOpen(change)) return err({ code: 'change_closed', status: change.status });
    const closed = await close(trx, change, 'canceled', by, reason);
    const wallet = await repo.findWalletById(trx, closed.wallet_id);
    if (!wallet) throw new Error(`wallet change ${closed.id} has no wallet`);
    return ok(changeView(closed, wallet));
  };

  const nudgeAfter = <T>(result: T): T => {
    deps.mailer.nudge();
    return result;
  };

  return {
    async create(owner, input, by) {
      const checked = checkAddress(input.network, input.address.trim());
      if (!checked.ok)
        return err({ code: 'invalid_wallet_address', network: input.network, reason: checked.reason });
      const result = await db.transaction().execute(async (trx): Promise<Result<WalletView, WalletError>> => {
        // Two requests at once: the later one waits, then finds the address or the default the first added.
        await repo.lockOwner(trx, owner);
        const existing = await repo.findLiveAddress(trx, owner, input.network, checked.address);
        if (existing) return err({ code: 'wallet_exists', walletId: existing.id });
        const now = clock.now();
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
        await auditEntry(trx, by, 'wallet.created', wallet, {
          network: wallet.network,
          address: wallet.address,
          makeDefault,
        });
        let change: WalletChangeRow | undefined;
        if (live) change = await requestChange(trx, wallet, 'add', makeDefault, by);
        const view = walletView(wallet, change);
        await deps.events.record(trx, {
          organizationId: owner.organizationId,
          environment: owner.environment,
          type: 'wallet.created',
          resourceId: wallet.id,
          data: view,
        });
        if (!live && makeDefault) {
          wallet = await becomeDefault(trx, wallet, now);
          return ok(walletView(wallet, undefined));
        }
        return ok(view);
      });
      return nudgeAfter(result);
    },

    async list(owner, { limit, cursor, status }) {
      const pages = deps.cursors.for({
        list: 'wallets',
        organizationId: owner.organizationId,
        environment: owner.environment,
        filter: status ?? null,
      });
      const after = cursor === undefined ? undefined : pages.decode(cursor);
      if (after && !after.ok) return after;
      const rows = await repo.listWallets(db, owner, {
        limit,
        ...(after ? { after: after.value } : {}),
        ...(status ? { status } : {}),
      });
      const page = toPage(rows, limit, (row) => pages.encode(row.created_at, row.id));
      const changes = await repo.openChangesOf(
        db,
        page.data.map((row) => row.id),
      );
      return ok({
        data: page.data.map((row) =>
          walletView(
            row,
            changes.find((change) => change.wallet_id === row.id),
          ),
        ),
        nextCursor: page.nextCursor,
      });
    },

    async get(owner, id) {
      const wallet = await repo.findWallet(db, owner, id);
      return wallet ? ok(await viewOf(db, wallet)) : err({ code: 'wallet_not_found' });
    },

    async defaultWallet(owner) {
      const wallet = await repo.defaultWallet(db, owner);
      return wallet ? viewOf(db, wallet) : undefined;
    },

    async makeDefault(owner, id, by) {
      const result = await db.transaction().execute(async (trx): Promise<Result<WalletView, WalletError>> => {
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
          const change = await requestChange(trx, wallet, 'make_default', true, by);
          return ok(walletView(wallet, change));
        }
        const moved = await becomeDefault(trx, wallet, clock.now());
        await auditEntry(trx, by, 'wallet.default_changed', moved, { isDefault: true });
        return ok(walletView(moved, undefined));
      });
      return nudgeAfter(result);
    },

    async archive(owner, id, by) {
      return db.transaction().execute(async (trx): Promise<Result<WalletView, WalletError>> => {
        const wallet = await repo.lockWallet(trx, owner, id);
        if (!wallet) return err({ code: 'wallet_not_found' });
        if (wallet.status === 'archived') return ok(walletView(wallet, undefined));
        if (wallet.status !== 'active') return err({ code: 'wallet_not_active', status: wallet.status });
        if (wallet.is_default) return err({ code: 'default_not_archivable' });
        const open = await repo.openChangeOf(trx, wallet.id);
        if (open) return err({ code: 'change_open', changeId: open.id });
        const now = clock.now();
        const archived = await repo.transitionWallet(trx, wallet.id, ['active'], 'archived', {
          archived_at: now,
          updated_at: now,
        });
        if (!archived) throw new Error(`wallet ${wallet.id} moved under its lock`);
        await auditEntry(trx, by, 'wallet.archived', archived, { status: 'archived' });
        return ok(walletView(archived, undefined));
      });
    },

    async cancelChange(owner, changeId, by) {
      return db.transaction().execute((trx) => cancelLocked(trx, changeId, owner, by, null));
    },

    async overview(owner, limit) {
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
    },

    async inspectConfirmation(token) {
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
    },

    async confirm(token, user, code, by) {
      if (!TOKEN_SHAPE.test(token)) return err({ code: 'invalid_link' });
      const tokenHash = sha256Hex(token);
      const result = await db
        .transaction()
        .execute(async (trx): Promise<Result<WalletChangeView, ConfirmRefusal>> => {
          const found = await repo.findChangeByTokenHash(trx, tokenHash);
          if (!found) return err({ code: 'invalid_link' });
          const change = await repo.lockChange(trx, found.id);
          if (!change || change.confirm_token_hash !== tokenHash) return err({ code: 'used_link' });
          if (change.status !== 'awaiting_confirmation') return err({ code: 'used_link' });
          const now = clock.now();
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
          const effectiveAt = new Date(now.getTime() + (await cooldownMs(trx, change.organization_id)));
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
          await auditEntry(trx, by, 'wallet_change.confirmed', confirmed, {
            effectiveAt: effectiveAt.toISOString(),
            secondFactor: user.totp === 'on',
          });
          const wallet = await repo.findWalletById(trx, confirmed.wallet_id);
          if (!wallet) throw new Error(`wallet change ${confirmed.id} has no wallet`);
          await notify(trx, 'confirmed', confirmed, wallet);
          if (effectiveAt.getTime() <= now.getTime()) {
            const applied = await apply(trx, confirmed);
            const after = await repo.findWalletById(trx, applied.wallet_id);
            return ok(changeView(applied, after ?? wallet));
          }
          return ok(changeView(confirmed, wallet));
        });
      return nudgeAfter(result);
    },

    async applyDue(limit = 50) {
      const now = clock.now();
      const counts = await db.transaction().execute(async (trx) => {
        let applied = 0;
        let expired = 0;
        const due = await repo.lockDueChanges(trx, now, limit);
        // Every owner's lock before the first change applies, in one order: two runs (or a run and one
        // owner's `destination`) never hold one owner's lock each while waiting for the other's.
        for (const owner of ownerLockOrder(due)) await repo.lockOwner(trx, owner);
        for (const change of due) {
          await apply(trx, change);
          applied++;
        }
        for (const change of await repo.lockExpiredChanges(trx, now, limit)) {
          await close(trx, change, 'expired', { actor: 'system' }, null);
          expired++;
        }
        return { applied, expired };
      });
      if (counts.applied > 0) deps.mailer.nudge();
      return counts;
    },

    async destination(trx, owner, walletId) {
      // A change whose cool-down has passed applies here, so a payout never waits for the job; one that
      // another transaction is applying is skipped (that transaction has not committed, so it has not
      // taken effect).
      for (const change of await repo.lockDueChanges(trx, clock.now(), 10, owner)) await apply(trx, change);
      const wallet =
        walletId === undefined
          ? await repo.defaultWallet(trx, owner)
          : await repo.findWallet(trx, owner, walletId);
      if (!wallet)
        return { ok: false, reason: walletId === undefined ? 'no_default_wallet' : 'wallet_not_found' };
      if (wallet.status !== 'active') return { ok: false, reason: 'wallet_not_active' };
      return { ok: true, wallet: { walletId: wallet.id, network: wallet.network, address: wallet.address } };
    },

    async defaultDestinations(trx, owners) {
      const { changeDue, defaults } = await repo.defaultWalletsOf(trx, owners, clock.now());
      const wanted = new Set(owners.map((owner) => `${owner.organizationId}:${owner.environment}`));
      const found = new Map<string, { walletId: string; network: WalletRow['network']; address: string }>();
      for (const wallet of defaults) {
        const key = `${wallet.organization_id}:${wallet.environment}`;
        if (!wanted.has(key) || changeDue.has(key) || wallet.status !== 'active') continue;
        found.set(key, { walletId: wallet.id, network: wallet.network, address: wallet.address });
      }
      return found;
    },

    async listChanges({ status, limit }) {
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
    },

    async operatorCancel(changeId, reason, by) {
      const trimmed = reason.trim();
      if (trimmed === '') return err({ code: 'reason_required' });
      return db.transaction().execute((trx) => cancelLocked(trx, changeId, undefined, by, trimmed));
    },

    async setCooldown(organizationId, hours, by) {
      if (!Number.isInteger(hours) || hours < 0 || hours > MAX_COOLDOWN_HOURS) {
        return err({
          code: 'invalid_cooldown',
          message: `must be a whole number of hours from 0 to ${MAX_COOLDOWN_HOURS}`,
        });
      }
      await db.transaction().execute(async (trx) => {
        const now = clock.now();
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
    },
  };
}
