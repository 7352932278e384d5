import type { Trx } from '../../db/database.js';
import { assertAmount, CURRENCY, newEntry, parseAmount, postOnce } from './journal.js';
import { accountBalanceOf } from './repository/balances.js';
import { findPendingCredits, type PendingCredit } from './repository/credits.js';
import { insertEntriesWithPostings } from './repository/entries.js';
import { availableLockKey, lockKeys, lockPendingBalance, pendingLockKey } from './repository/locks.js';
import type { LedgerDeps, ReleaseForLedger } from './types.js';
import type { Owner } from '../../shared/owner.js';

// What a settlement batch writes and reads: releases, the rolling reserve, and the set-based forms of a
// chunk (docs/decisions/0041-settlement-chunks.md).

export async function postRelease(
  deps: LedgerDeps,
  trx: Trx,
  release: ReleaseForLedger,
): Promise<{ created: boolean }> {
  const amount = parseAmount(release.amount, `release ${release.id}`);
  if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
  await lockPendingBalance(trx, release, CURRENCY);
  const outcome = await postOnce(deps, trx, newEntry(release, 'settlement_batch', release.id), async () => [
    { account: 'merchant_pending', amount },
    { account: 'merchant_available', amount: -amount },
  ]);
  if (!outcome.created) assertAmount(outcome.existing, 'merchant_pending', amount, `release ${release.id}`);
  return { created: outcome.created };
}

export async function postReserveHeld(
  deps: LedgerDeps,
  trx: Trx,
  reserve: ReleaseForLedger,
): Promise<{ created: boolean }> {
  const amount = parseAmount(reserve.amount, `reserve of ${reserve.id}`);
  const outcome = await postOnce(deps, trx, newEntry(reserve, 'reserve_held', reserve.id), async () => [
    { account: 'merchant_available', amount },
    { account: 'merchant_reserve', amount: -amount },
  ]);
  if (!outcome.created)
    assertAmount(outcome.existing, 'merchant_available', amount, `reserve of ${reserve.id}`);
  return { created: outcome.created };
}

export async function postReserveReleased(
  deps: LedgerDeps,
  trx: Trx,
  reserve: ReleaseForLedger,
): Promise<{ created: boolean }> {
  const amount = parseAmount(reserve.amount, `reserve release of ${reserve.id}`);
  const outcome = await postOnce(deps, trx, newEntry(reserve, 'reserve_released', reserve.id), async () => [
    { account: 'merchant_reserve', amount },
    { account: 'merchant_available', amount: -amount },
  ]);
  if (!outcome.created)
    assertAmount(outcome.existing, 'merchant_reserve', amount, `reserve release of ${reserve.id}`);
  return { created: outcome.created };
}

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

export async function postReleases(
  deps: LedgerDeps,
  trx: Trx,
  releases: readonly ReleaseForLedger[],
): Promise<void> {
  const entries = releases.map((release) => {
    const amount = parseAmount(release.amount, `release ${release.id}`);
    return {
      owner: { organizationId: release.organizationId, environment: release.environment },
      sourceId: release.id,
      postings: [
        { account: 'merchant_pending' as const, amount },
        { account: 'merchant_available' as const, amount: -amount },
      ],
    };
  });
  const written = await insertEntriesWithPostings(
    trx,
    'settlement_batch',
    entries,
    CURRENCY,
    deps.clock.now(),
  );
  if (written.size !== entries.length)
    throw new Error(`${entries.length - written.size} release entries existed already`);
}
