import type { Result } from '../../shared/result.js';
import type { PayoutWallets } from '../payouts/ports.js';
import { create } from './add.js';
import { archive } from './archive.js';
import { cancelChange, operatorCancel } from './changes.js';
import { confirm, inspectConfirmation } from './confirm.js';
import { applyDue, setCooldown } from './cooldown.js';
import { defaultWallet, makeDefault } from './default.js';
import type { WalletServiceDeps } from './deps.js';
import { defaultDestinations, destination } from './destination.js';
import type { WalletError } from './errors.js';
import { get, list, listChanges, overview } from './listing.js';
import type { WalletChangeRow, WalletStatus } from './model.js';
import type { WalletChangeView, WalletCreate, WalletView } from './schemas.js';
import type { ConfirmationView, Confirmer, ConfirmRefusal, WalletActor } from './types.js';
import type { Owner } from '../../shared/owner.js';

export type { Owner };

export interface WalletService extends PayoutWallets {
  create(owner: Owner, input: WalletCreate, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  list(
    owner: Owner,
    page: { limit: number; cursor?: string; status?: WalletStatus },
  ): Promise<Result<{ data: WalletView[]; nextCursor: string | null }, WalletError>>;
  get(owner: Owner, id: string): Promise<Result<WalletView, WalletError>>;
  /** The environment's default wallet as it stands (a change still cooling down has not taken effect). */
  defaultWallet(owner: Owner): Promise<WalletView | undefined>;
  makeDefault(owner: Owner, id: string, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  archive(owner: Owner, id: string, by: WalletActor): Promise<Result<WalletView, WalletError>>;
  /** The merchant cancels its own open change (an added wallet is canceled with it). */
  cancelChange(
    owner: Owner,
    changeId: string,
    by: WalletActor,
  ): Promise<Result<WalletChangeView, WalletError>>;
  /** The dashboard's page: every wallet of the environment (newest first) and the open changes. */
  overview(owner: Owner, limit: number): Promise<{ wallets: WalletView[]; changes: WalletChangeView[] }>;
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

/**
 * Wallets and their change controls. A live wallet, or a change of the live default, is a
 * `wallet_changes` row that an owner confirms and that then cools down; it applies in one transaction
 * (wallet active, default moved, `wallet.default_changed`) by the job or, lazily, when a payout asks
 * where to go. Sandbox wallets take effect at once. The factory binds the dependencies to the use cases.
 */
export function createWalletService(deps: WalletServiceDeps): WalletService {
  return {
    create: (owner, input, by) => create(deps, owner, input, by),
    list: (owner, page) => list(deps, owner, page),
    get: (owner, id) => get(deps, owner, id),
    defaultWallet: (owner) => defaultWallet(deps, owner),
    makeDefault: (owner, id, by) => makeDefault(deps, owner, id, by),
    archive: (owner, id, by) => archive(deps, owner, id, by),
    cancelChange: (owner, changeId, by) => cancelChange(deps, owner, changeId, by),
    overview: (owner, limit) => overview(deps, owner, limit),
    inspectConfirmation: (token) => inspectConfirmation(deps, token),
    confirm: (token, user, code, by) => confirm(deps, token, user, code, by),
    applyDue: (limit) => applyDue(deps, limit),
    destination: (trx, owner, walletId) => destination(deps, trx, owner, walletId),
    defaultDestinations: (trx, owners) => defaultDestinations(deps, trx, owners),
    listChanges: (filter) => listChanges(deps, filter),
    operatorCancel: (changeId, reason, by) => operatorCancel(deps, changeId, reason, by),
    setCooldown: (organizationId, hours, by) => setCooldown(deps, organizationId, hours, by),
  };
}
