import type { Selectable } from 'kysely';
import type { DB, SettlementBatchStatus } from '../../db/schema.js';
import { endStates, type Transitions } from '../../shared/state-machine.js';

export type { SettlementBatchStatus };

export type BatchRow = Selectable<DB['settlement_batches']>;
export type ItemRow = Selectable<DB['settlement_items']>;
export type SettingsRow = Selectable<DB['settlement_settings']>;
export type ClosureRow = Selectable<DB['business_closures']>;

/**
 * A batch's payout phase (docs/decisions/0022-state-machines.md, `settlement_batches_guard` of migration
 * 0015): a `released` batch is paid out, carried or held; a `held` one (no usable rate, or its
 * organization frozen) is held again with one more attempt, or paid out or carried; `paid_out` and
 * `carried` end it, and its statement is recorded then. It never moves backwards.
 */
export const TRANSITIONS: Transitions<SettlementBatchStatus> = {
  released: ['held', 'paid_out', 'carried'],
  held: ['held', 'paid_out', 'carried'],
  ...endStates('paid_out', 'carried'),
};

/**
 * The hold reason of a batch whose organization an operator froze: no money leaves it automatically; a
 * later run pays it out once the organization is unfrozen.
 */
export const FROZEN_HOLD = 'organization_frozen';
