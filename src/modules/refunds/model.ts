import type { Selectable } from 'kysely';
import type { RefundsTable, RefundStatus } from '../../db/schema.js';
import type { Transitions } from '../../shared/state-machine.js';

export type { RefundStatus };

export type RefundRow = Selectable<RefundsTable>;

/** `pending` while the acquirer is asked (and retried), then `succeeded`, or `failed` when it refused. */
export const TRANSITIONS: Transitions<RefundStatus> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};
