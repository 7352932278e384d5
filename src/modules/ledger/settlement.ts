import type { Trx } from '../../db/database.js';
import { CURRENCY, moveOnce, movesAtOnce, type Move } from './journal.js';
import { accountBalanceOf } from './repository/balances.js';
import { findPendingCredits, type PendingCredit } from './repository/credits.js';
import { availableLockKey, lockKeys, lockPendingBalance, pendingLockKey } from './repository/locks.js';
import type { Owner } from '../../shared/owner.js';

/** A batch's release: pending to available. */
const RELEASE: Move = { kind: 'settlement_batch', from: 'merchant_pending', to: 'merchant_available' };
/** A batch's rolling reserve, held out of available and given back on its date. */
const RESERVE_HELD: Move = { kind: 'reserve_held', from: 'merchant_available', to: 'merchant_reserve' };
const RESERVE_RELEASED: Move = {
  kind: 'reserve_released',
  from: 'merchant_reserve',
  to: 'merchant_available',
};

/**
 * A debt's recovery (migration 0039): what the merchant owes on pending (dispute debits, refunds beyond
 * what was left) taken back from the available balance before anything is paid out.
 */
const DEBT_RECOVERED: Move = { kind: 'debt_recovered', from: 'merchant_available', to: 'merchant_pending' };

/** The same recovery taken from a batch's rolling reserve (migration 0045), once the available balance is spent. */
const RESERVE_DEBT_RECOVERED: Move = {
  kind: 'debt_recovered',
  from: 'merchant_reserve',
  to: 'merchant_pending',
};

export const postReserveDebtRecovered = moveOnce(
  RESERVE_DEBT_RECOVERED,
  (recovery) => `debt recovery ${recovery.id} from the reserve`,
  (trx, recovery) => lockBalances(trx, [recovery]),
);

export const postDebtRecovered = moveOnce(
  DEBT_RECOVERED,
  (recovery) => `debt recovery ${recovery.id}`,
  // The pending lock then the available one, in the order every writer takes them.
  (trx, recovery) => lockBalances(trx, [recovery]),
);

// What a settlement batch writes and reads: releases, the rolling reserve, and the set-based forms of a
// chunk (docs/decisions/0041-settlement-chunks.md).

export const postRelease = moveOnce(
  RELEASE,
  (release) => `release ${release.id}`,
  (trx, release) => lockPendingBalance(trx, release, CURRENCY),
);

export const postReserveHeld = moveOnce(RESERVE_HELD, (reserve) => `reserve of ${reserve.id}`);

export const postReserveReleased = moveOnce(
  RESERVE_RELEASED,
  (reserve) => `reserve release of ${reserve.id}`,
);

export function pendingCredits(trx: Trx, owner: Owner, after: Date, upTo: Date): Promise<PendingCredit[]> {
  return findPendingCredits(
    trx,
    { organizationId: owner.organizationId, environment: owner.environment },
    after,
    upTo,
  );
}

export async function lockBalances(trx: Trx, owners: readonly Owner[]): Promise<void> {
  if (!trx.isTransaction) throw new Error('balance locks are taken inside the caller transaction');
  await lockKeys(trx, [
    ...owners.map((owner) => pendingLockKey(owner, CURRENCY)),
    ...owners.map((owner) => availableLockKey(owner, CURRENCY)),
  ]);
}

export async function availableOf(trx: Trx, owners: readonly Owner[]): Promise<Map<string, bigint>> {
  const balances = await accountBalanceOf(trx, owners, 'merchant_available', CURRENCY);
  return new Map([...balances].map(([key, balance]) => [key, -balance]));
}

export const postReleases = movesAtOnce(RELEASE, {
  whatOf: (release) => `release ${release.id}`,
  plural: 'release entries',
});
