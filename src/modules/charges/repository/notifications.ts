import { sql } from 'kysely';
import type { Kdb } from '../../../db/database.js';

/** What the acquirer's notifications about a charge said, oldest first (the charge page's timeline). */
export interface ChargeNotificationRow {
  id: string;
  type: string;
  outcome: string;
  received_at: Date;
  payment_status: string | null;
  card_brand: string | null;
  card_last4: string | null;
  refund_amount: string | null;
}

export async function notificationsOf(db: Kdb, chargeId: string): Promise<ChargeNotificationRow[]> {
  return db
    .selectFrom('provider_notifications')
    .select([
      'id',
      'type',
      'outcome',
      'received_at',
      sql<string | null>`body->'payment'->>'status'`.as('payment_status'),
      sql<string | null>`body->'payment'->'card'->>'brand'`.as('card_brand'),
      sql<string | null>`body->'payment'->'card'->>'last4'`.as('card_last4'),
      sql<string | null>`body->'refund'->>'amount'`.as('refund_amount'),
    ])
    .where('charge_id', '=', chargeId)
    .orderBy('received_at')
    .orderBy('id')
    .limit(100)
    .execute();
}
