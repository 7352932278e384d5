import { err, ok } from '../../shared/result.js';
import { selectsKind } from './model.js';
import { findDelivery, transitionDelivery } from './repository.js';
import type { WebhookDeliveryView } from './schemas.js';
import type { ByIdUseCase } from './endpoint-types.js';
import { deliveryView } from './views.js';

export const retryDelivery: ByIdUseCase<WebhookDeliveryView> = async (deps, owner, id) => {
  const { db, clock } = deps;
  const delivery = await findDelivery(db, owner, id);
  if (!delivery) return err({ code: 'delivery_not_found' });
  // An endpoint never receives a kind it does not select: not even by hand (the claim checks again).
  const eventType = (await deps.events.byIds([delivery.event_id])).get(delivery.event_id)?.type;
  if (eventType !== undefined && !selectsKind(delivery.enabled_events, eventType)) {
    return err({ code: 'event_type_not_selected', eventType });
  }
  const now = clock.now();
  // Due now. A worker sending it this instant loses its claim: its attempt is logged, and it goes again.
  const row = await transitionDelivery(db, delivery.id, ['pending', 'succeeded', 'failed'], 'pending', {
    next_attempt_at: now,
    lease_token: null,
    updated_at: now,
  });
  if (!row) throw new Error(`webhook delivery ${delivery.id} has a status outside its union`);
  return ok(deliveryView(row));
};
