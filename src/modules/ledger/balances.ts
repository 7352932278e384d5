import { CURRENCY } from './journal.js';
import type { Balance } from './model.js';
import { findNegativePending, sumMerchantBalances } from './repository/balances.js';
import { advanceCheckpoints } from './repository/checkpoints.js';
import type { LedgerDeps, PendingDebt } from './types.js';
import type { Owner } from '../../shared/owner.js';

export async function balance(deps: LedgerDeps, owner: Owner): Promise<Balance[]> {
  const row = await sumMerchantBalances(deps.db, owner, CURRENCY);
  // The pending account's sum below zero is a debt, not a negative amount waiting to settle: shown
  // once, as `debt`, never also in `pending` (docs/decisions/0069-money-pages.md).
  const pending = BigInt(row.pending);
  return [{ ...row, pending: (pending > 0n ? pending : 0n).toString(), debt: debtOf(row.pending) }];
}

/** The `ledger-checkpoints` job's run: one transaction, under the checkpoints' lock. */
export async function advanceBalanceCheckpoints(deps: LedgerDeps): Promise<number> {
  return deps.db.transaction().execute((trx) => advanceCheckpoints(trx, deps.clock.now()));
}

export async function negativePendingBalances(deps: LedgerDeps, limit = 100): Promise<PendingDebt[]> {
  return (await findNegativePending(deps.db, limit)).map((row) => ({ ...row, debt: debtOf(row.pending) }));
}

/** What a pending balance below zero means: the merchant owes its opposite. */
function debtOf(pending: string): string {
  return BigInt(pending) < 0n ? (-BigInt(pending)).toString() : '0';
}
