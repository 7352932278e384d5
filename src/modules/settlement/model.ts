import type { Selectable } from 'kysely';
import type {
  BusinessClosuresTable,
  SettlementBatchesTable,
  SettlementBatchStatus,
  SettlementItemsTable,
  SettlementSettingsTable,
} from '../../db/schema.js';
import type { Transitions } from '../../shared/state-machine.js';

export type { SettlementBatchStatus };

export type BatchRow = Selectable<SettlementBatchesTable>;
export type ItemRow = Selectable<SettlementItemsTable>;
export type SettingsRow = Selectable<SettlementSettingsTable>;
export type ClosureRow = Selectable<BusinessClosuresTable>;

/**
 * A batch's payout phase (docs/decisions/0022-state-machines.md, `settlement_batches_guard` of migration
 * 0015): a `released` batch is paid out, carried or held; a `held` one (no usable rate, or its
 * organization frozen) is held again with one more attempt, or paid out or carried; `paid_out` and
 * `carried` end it, and its statement is recorded then. It never moves backwards.
 */
export const TRANSITIONS: Transitions<SettlementBatchStatus> = {
  released: ['held', 'paid_out', 'carried'],
  held: ['held', 'paid_out', 'carried'],
  paid_out: [],
  carried: [],
};

/**
 * The hold reason of a batch whose organization an operator froze: no money leaves it automatically; a
 * later run pays it out once the organization is unfrozen.
 */
export const FROZEN_HOLD = 'organization_frozen';
