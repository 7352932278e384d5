import type { Kdb } from '../../db/database.js';

/** What another module may read of recorded events: the events module keeps its table. */
export interface EventLookup {
  /** Type and payload of each event asked for that exists. */
  byIds(ids: readonly string[]): Promise<Map<string, { type: string; payload: Record<string, unknown> }>>;
  /**
   * The events of an organization about a charge (spec section 4: the payload's `data.id` is the charge):
   * those recorded with the charge as their resource, the charge's own and its refunds' (ADR 0036).
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
      // The charge's own events and its refunds' are recorded with the charge as their resource (and carry
      // it as `data.id` and `payment.id`): one probe of `events_resource_idx`, whatever the table's size.
      const rows = await deps.db
        .selectFrom('events')
        .select('id')
        .where('resource_id', '=', chargeId)
        .where('organization_id', '=', organizationId)
        .execute();
      return rows.map((row) => row.id);
    },
  };
}
