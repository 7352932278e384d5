import type { Selectable } from 'kysely';
import type { PayoutRailName, PayoutStatus, PayoutsTable } from '../../db/schema.js';
import { endStates, type Transitions } from '../../shared/state-machine.js';

export type { PayoutRailName, PayoutStatus };

export type PayoutRow = Selectable<PayoutsTable>;

/**
 * `pending` until the rail holds a transaction for the payout (its hash recorded: `in_transit`), then
 * `completed` when the chain confirms it, or `failed` (refused, dropped, reverted). Only a pending payout
 * can be `canceled`. Never backwards; the `payouts_guard` trigger enforces the same table.
 */
export const TRANSITIONS: Transitions<PayoutStatus> = {
  pending: ['in_transit', 'failed', 'canceled'],
  in_transit: ['completed', 'failed'],
  ...endStates('completed', 'failed', 'canceled'),
};
