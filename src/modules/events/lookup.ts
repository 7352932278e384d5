import { sql } from 'kysely';
import type { Kdb } from '../../db/database.js';

/** What another module may read of recorded events: the events module keeps its table. */
export interface EventLookup {
  /** Type and payload of each event asked for that exists. */
  byIds(ids: readonly string[]): Promise<Map<string, { type: string; payload: Record<string, unknown> }>>;
  /**
   * The events of an organization about a charge (spec section 4): the event's resource is the charge,
   * or the payload's `id`, `paymentId`, `payment.paymentId` or `data.id` equals its id.
   */
  idsAboutCharge(organizationId: string, chargeId: string): Promise<string[]>;
}

export function createEventLookup(deps: { db: Kdb }): EventLookup {
  return {
    async byIds(ids) {
      if (ids.length === 0) return new Map();
      const rows = await deps.db
        .selectFrom('events')
        .select(['id', 'type', 'payload'])
        .where('id', 'in', [...new Set(ids)])
        .execute();
      return new Map(rows.map((row) => [row.id, { type: row.type, payload: row.payload }]));
    },

    async idsAboutCharge(organizationId, chargeId) {
      const rows = await deps.db
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where((eb) =>
          eb.or([
            eb('resource_id', '=', chargeId),
            eb(sql`payload->>'id'`, '=', chargeId),
            eb(sql`payload->>'paymentId'`, '=', chargeId),
            eb(sql`payload->'payment'->>'paymentId'`, '=', chargeId),
            eb(sql`payload->'data'->>'id'`, '=', chargeId),
          ]),
        )
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
