import type { Selectable } from 'kysely';
import type {
  WalletChangeKind,
  WalletChangesTable,
  WalletChangeStatus,
  WalletsTable,
  WalletStatus,
} from '../../db/schema.js';
import { endStates, type Transitions } from '../../shared/state-machine.js';

export type { WalletChangeKind, WalletChangeStatus, WalletStatus };

export type WalletRow = Selectable<WalletsTable>;
export type WalletChangeRow = Selectable<WalletChangesTable>;

/**
 * A wallet is `pending` until its addition is confirmed and has cooled down (live only), then `active`;
 * `archived` by the merchant; `canceled` when its addition was canceled or expired.
 */
export const WALLET_TRANSITIONS: Transitions<WalletStatus> = {
  pending: ['active', 'canceled'],
  active: ['archived'],
  ...endStates('archived', 'canceled'),
};

/**
 * A change of where payouts go: an owner confirms it (e-mailed link, TOTP when on), then it cools down,
 * then it is applied. Canceled by the merchant or an operator while open; expired when nobody confirms.
 */
export const CHANGE_TRANSITIONS: Transitions<WalletChangeStatus> = {
  awaiting_confirmation: ['cooling_down', 'canceled', 'expired'],
  cooling_down: ['applied', 'canceled'],
  ...endStates('applied', 'canceled', 'expired'),
};

export const OPEN_CHANGE_STATUSES: readonly WalletChangeStatus[] = ['awaiting_confirmation', 'cooling_down'];
