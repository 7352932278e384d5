import type { Kdb } from '../../db/database.js';
import { atAcquirerByIds, atAcquirerByPaymentIds, type ChargeAtAcquirer } from './repository/at-acquirer.js';

/** A charge as a reconciliation against an acquirer's report matches it. */
export interface ChargeAtAcquirerView {
  id: string;
  organizationId: string;
  status: string;
  providerId: string | null;
}

/** The charges module's lookups for reconciliation: by our ids, and by the acquirer's payment ids. */
export interface ChargeAcquirerLookup {
  byIds(ids: readonly string[]): Promise<ChargeAtAcquirerView[]>;
  byProviderIds(provider: string, providerIds: readonly string[]): Promise<ChargeAtAcquirerView[]>;
}

export function createChargeAcquirerLookup(db: Kdb): ChargeAcquirerLookup {
  return {
    byIds: async (ids) => (await atAcquirerByIds(db, ids)).map(view),
    byProviderIds: async (provider, ids) => (await atAcquirerByPaymentIds(db, provider, ids)).map(view),
  };
}

const view = (charge: ChargeAtAcquirer): ChargeAtAcquirerView => ({
  id: charge.id,
  organizationId: charge.organizationId,
  status: charge.status,
  providerId: charge.providerPaymentId,
});
