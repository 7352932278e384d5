import type { Selectable } from 'kysely';
import type { ChargeCreationState, ChargesTable, ChargeStatus } from '../../db/schema.js';
import type { Transitions } from '../../shared/state-machine.js';

export type { ChargeCreationState, ChargeStatus };

export type ChargeRow = Selectable<ChargesTable>;

/**
 * The merchant-visible state (product decisions 13 and 20): a `pending` charge becomes `succeeded`,
 * `failed` or `expired` on what the acquirer says, and a final status never changes.
 */
export const TRANSITIONS: Transitions<ChargeStatus> = {
  pending: ['succeeded', 'failed', 'expired'],
  succeeded: [],
  failed: [],
  expired: [],
};

/**
 * Two-phase creation (ADR 0007): a `creating` charge is `created` once the acquirer has its payment,
 * `rejected` when the acquirer refused it, `abandoned` when recovery finds the acquirer never received it.
 */
export const CREATION_TRANSITIONS: Transitions<ChargeCreationState> = {
  creating: ['created', 'rejected', 'abandoned'],
  created: [],
  rejected: [],
  abandoned: [],
};
