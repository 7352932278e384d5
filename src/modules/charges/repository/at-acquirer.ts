import type { Kdb } from '../../../db/database.js';

/** What reconciliation needs of a charge: its owner, status and the acquirer's payment id. */
export interface ChargeAtAcquirer {
  id: string;
  organizationId: string;
  status: string;
  providerPaymentId: string | null;
}

const atAcquirer = (row: {
  id: string;
  organization_id: string;
  status: string;
  provider_payment_id: string | null;
}): ChargeAtAcquirer => ({
  id: row.id,
  organizationId: row.organization_id,
  status: row.status,
  providerPaymentId: row.provider_payment_id,
});

/** Charges by id, with their acquirer payment ids. */
export async function atAcquirerByIds(db: Kdb, ids: readonly string[]): Promise<ChargeAtAcquirer[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('charges')
    .select(['id', 'organization_id', 'status', 'provider_payment_id'])
    .where('id', 'in', [...ids])
    .execute();
  return rows.map(atAcquirer);
}

/** The charges of one acquirer (`provider`) made for these payment ids. */
export async function atAcquirerByPaymentIds(
  db: Kdb,
  provider: string,
  paymentIds: readonly string[],
): Promise<ChargeAtAcquirer[]> {
  if (paymentIds.length === 0) return [];
  const rows = await db
    .selectFrom('charges')
    .select(['id', 'organization_id', 'status', 'provider_payment_id'])
    .where('provider', '=', provider)
    .where('provider_payment_id', 'in', [...paymentIds])
    .execute();
  return rows.map(atAcquirer);
}
