import type { Kdb } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { atAcquirerByIds, atAcquirerByRefundIds, type RefundAtAcquirer } from './repository.js';

/** A refund as a reconciliation against an acquirer's report matches it. */
export interface RefundAtAcquirerView {
  id: string;
  organizationId: string;
  status: string;
  providerId: string | null;
}

/** The refunds module's lookups for reconciliation: by our ids, and by the acquirer's refund ids. */
export interface RefundAcquirerLookup {
  byIds(ids: readonly string[]): Promise<RefundAtAcquirerView[]>;
  byProviderIds(environment: Environment, providerIds: readonly string[]): Promise<RefundAtAcquirerView[]>;
}

export function createRefundAcquirerLookup(db: Kdb): RefundAcquirerLookup {
  return {
    byIds: async (ids) => (await atAcquirerByIds(db, ids)).map(view),
    byProviderIds: async (environment, ids) => (await atAcquirerByRefundIds(db, environment, ids)).map(view),
  };
}

const view = (refund: RefundAtAcquirer): RefundAtAcquirerView => ({
  id: refund.id,
  organizationId: refund.organizationId,
  status: refund.status,
  providerId: refund.providerRefundId,
});
