import { randomBytes } from 'node:crypto';
import type { Trx } from '../../db/database.js';
import { sha256Hex } from '../../shared/crypto.js';
import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { WalletError } from './errors.js';
import type { WalletChangeRow, WalletRow } from './model.js';
import { auditEntry, notify } from './notices.js';
import * as repo from './repository.js';
import { changeView, type WalletChangeView } from './schemas.js';
import type { WalletServiceDeps } from './deps.js';
import type { WalletActor } from './types.js';
import { reasonOf } from '../../shared/reasons.js';
import type { Owner } from '../../shared/owner.js';

/** Opens a live change: `awaiting_confirmation`, a single-use link to the owners, everyone told. */
export async function requestChange(
  deps: WalletServiceDeps,
  trx: Trx,
  wallet: WalletRow,
  kind: WalletChangeRow['kind'],
  makeDefault: boolean,
  by: WalletActor,
): Promise<WalletChangeRow> {
  const now = deps.clock.now();
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
  await auditEntry(deps, trx, by, 'wallet_change.requested', change, {
    walletId: wallet.id,
    kind,
    makeDefault,
  });
  await notify(deps, trx, 'requested', change, wallet, token);
  return change;
}

/** Closes an open change (canceled or expired); an added wallet is canceled with it. */
export async function close(
  deps: WalletServiceDeps,
  trx: Trx,
  change: WalletChangeRow,
  to: 'canceled' | 'expired',
  by: WalletActor,
  reason: string | null,
): Promise<WalletChangeRow> {
  const now = deps.clock.now();
  const closed = await repo.transitionChange(trx, change.id, [change.status], to, {
    updated_at: now,
    ...(to === 'canceled' ? { canceled_at: now, canceled_by: by.actor, cancel_reason: reason } : {}),
  });
  if (!closed) throw new Error(`wallet change ${change.id} moved under its lock`);
  if (change.kind === 'add') {
    await repo.transitionWallet(trx, change.wallet_id, ['pending'], 'canceled', { updated_at: now });
  }
  await auditEntry(
    deps,
    trx,
    by,
    `wallet_change.${to}`,
    closed,
    reason === null ? { status: to } : { status: to, reason },
  );
  return closed;
}

const isOpen = (change: WalletChangeRow) =>
  change.status === 'awaiting_confirmation' || change.status === 'cooling_down';

async function cancelLocked(
  deps: WalletServiceDeps,
  trx: Trx,
  changeId: string,
  owner: Owner | undefined,
  by: WalletActor,
  reason: string | null,
): Promise<Result<WalletChangeView, WalletError>> {
  const change = await repo.lockChange(trx, changeId);
  if (
    !change ||
    (owner && (change.organization_id !== owner.organizationId || change.environment !== owner.environment))
  ) {
    return err({ code: 'change_not_found' });
  }
  if (!isOpen(change)) return err({ code: 'change_closed', status: change.status });
  const closed = await close(deps, trx, change, 'canceled', by, reason);
  const wallet = await repo.findWalletById(trx, closed.wallet_id);
  if (!wallet) throw new Error(`wallet change ${closed.id} has no wallet`);
  return ok(changeView(closed, wallet));
}

/** The merchant cancels its own open change (an added wallet is canceled with it). */
export async function cancelChange(
  deps: WalletServiceDeps,
  owner: Owner,
  changeId: string,
  by: WalletActor,
): Promise<Result<WalletChangeView, WalletError>> {
  return deps.db.transaction().execute((trx) => cancelLocked(deps, trx, changeId, owner, by, null));
}

/** Operator: cancels an open change with a reason, audited. */
export async function operatorCancel(
  deps: WalletServiceDeps,
  changeId: string,
  reason: string,
  by: WalletActor,
): Promise<Result<WalletChangeView, WalletError>> {
  const trimmed = reasonOf(reason);
  if (trimmed === undefined) return err({ code: 'reason_required' });
  return deps.db.transaction().execute((trx) => cancelLocked(deps, trx, changeId, undefined, by, trimmed));
}
