import type { Kdb } from '../../db/database.js';
import type { AcquirerLookup, RowAtAcquirer } from '../../db/at-acquirer.js';
import { chargesAtAcquirer } from './repository/at-acquirer.js';

/** A charge as a reconciliation against an acquirer's report matches it. */
export type ChargeAtAcquirerView = RowAtAcquirer;

/** The charges module's lookups for reconciliation: by our ids, and by one acquirer's payment ids. */
export type ChargeAcquirerLookup = AcquirerLookup<string>;

export function createChargeAcquirerLookup(db: Kdb): ChargeAcquirerLookup {
  return chargesAtAcquirer(db);
}
