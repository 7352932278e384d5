import type { Kdb } from '../../../db/database.js';
import { acquirerLookup } from '../../../db/at-acquirer.js';

/**
 * Charges as reconciliation matches them: their owner, status and the acquirer's payment id, unique
 * within one acquirer (`provider`).
 */
export function chargesAtAcquirer(db: Kdb) {
  return acquirerLookup(db, 'charges', { providerId: 'provider_payment_id', scope: 'provider' });
}
