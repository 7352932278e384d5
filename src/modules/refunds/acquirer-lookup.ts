import type { Kdb } from '../../db/database.js';
import type { AcquirerLookup, RowAtAcquirer } from '../../db/at-acquirer.js';
import type { Environment } from '../../db/schema.js';
import { refundsAtAcquirer } from './repository.js';

/** A refund as a reconciliation against an acquirer's report matches it. */
export type RefundAtAcquirerView = RowAtAcquirer;

/** The refunds module's lookups for reconciliation: by our ids, and by an environment's acquirer refund ids. */
export type RefundAcquirerLookup = AcquirerLookup<Environment>;

export function createRefundAcquirerLookup(db: Kdb): RefundAcquirerLookup {
  return refundsAtAcquirer(db);
}
