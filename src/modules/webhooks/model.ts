import type { Transitions } from '../../shared/state-machine.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * A delivery is `pending` until an attempt succeeds or the attempts run out (`failed`); a pending one
 * may be rescheduled (`pending` again), and a manual retry makes any delivery `pending` and due now.
 * A deleted endpoint's pending deliveries fail.
 */
export const DELIVERY_TRANSITIONS: Transitions<DeliveryStatus> = {
  pending: ['pending', 'succeeded', 'failed'],
  succeeded: ['pending'],
  failed: ['pending'],
};

/**
 * Whether an endpoint's `enabled_events` selects an event kind (spec section 6: "Each endpoint selects the
 * event kinds it receives"), `*` being every kind. Checked at fan-out, again when a delivery is claimed
 * (the selection may have changed since), and before a manual retry.
 */
export function selectsKind(enabledEvents: readonly string[], eventType: string): boolean {
  return enabledEvents.includes(eventType) || enabledEvents.includes('*');
}
