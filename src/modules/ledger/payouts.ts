import type { Trx } from '../../db/database.js';
import {
  assertAmount,
  assertSameOwner,
  checkedPost,
  CURRENCY,
  newEntry,
  moveOnce,
  movesAtOnce,
  parseAmount,
  postOnce,
  type Move,
} from './journal.js';
import { sumAvailable } from './repository/balances.js';
import { findEntry } from './repository/entries.js';
import { lockAvailableBalance } from './repository/locks.js';
import type { LedgerDeps, PayoutDebit, PayoutForLedger } from './types.js';
import type { Owner } from '../../shared/owner.js';

/** A payout's amount, in transit from its creation until it is paid or returned. */
const PAYOUT_CREATED: Move = {
  kind: 'payout_created',
  from: 'merchant_available',
  to: 'merchant_in_transit',
};
const PAYOUT_RETURNED: Move = {
  kind: 'payout_returned',
  from: 'merchant_in_transit',
  to: 'merchant_available',
};

export async function postPayoutCreated(
  deps: LedgerDeps,
  trx: Trx,
  payout: PayoutForLedger,
): Promise<PayoutDebit> {
  const amount = checkedPost(trx, payout, `payout ${payout.id}`);
  await lockAvailableBalance(trx, payout, CURRENCY);
  const existing = await findEntry(trx, 'payout_created', payout.id);
  if (existing) {
    assertSameOwner(existing, newEntry(payout, 'payout_created', payout.id));
    assertAmount(existing, 'merchant_available', amount, `payout ${payout.id}`);
    return { ok: true, created: false, availableAfter: await sumAvailable(trx, payout, CURRENCY) };
  }
  const available = BigInt(await sumAvailable(trx, payout, CURRENCY));
  if (available < amount) return { ok: false, available: available.toString() };
  await postOnce(deps, trx, newEntry(payout, 'payout_created', payout.id), async () => [
    { account: 'merchant_available', amount },
    { account: 'merchant_in_transit', amount: -amount },
  ]);
  return { ok: true, created: true, availableAfter: (available - amount).toString() };
}

export async function postPayoutPaid(
  deps: LedgerDeps,
  trx: Trx,
  payout: PayoutForLedger,
): Promise<{ created: boolean }> {
  const amount = parseAmount(payout.amount, `payout ${payout.id}`);
  // The FX spread is revenue once the payout is paid: the rest of it is what left for the wallet.
  const { sent, spread } = splitOf(payout, amount);
  const outcome = await postOnce(deps, trx, newEntry(payout, 'payout_paid', payout.id), async () => [
    { account: 'merchant_in_transit', amount },
    { account: 'payout_clearing', amount: -sent },
    ...(spread > 0n ? [{ account: 'fx_revenue' as const, amount: -spread }] : []),
  ]);
  if (!outcome.created) assertAmount(outcome.existing, 'merchant_in_transit', amount, `payout ${payout.id}`);
  return { created: outcome.created };
}

export const postPayoutReturned = moveOnce(
  PAYOUT_RETURNED,
  (payout) => `payout ${payout.id}`,
  async (trx, payout) => {
    if (await findEntry(trx, 'payout_paid', payout.id))
      throw new Error(`payout ${payout.id} was paid out; it cannot be returned`);
  },
);

export async function lockedAvailable(trx: Trx, owner: Owner): Promise<string> {
  if (!trx.isTransaction) throw new Error('the available balance is locked inside the caller transaction');
  await lockAvailableBalance(trx, owner, CURRENCY);
  return sumAvailable(trx, owner, CURRENCY);
}

export const postPayoutsCreated = movesAtOnce(PAYOUT_CREATED, {
  whatOf: (payout) => `payout ${payout.id}`,
  plural: 'payout entries',
});

/** A paid payout's amount as it splits: what was sent (at the market rate), and the FX spread kept. */
function splitOf(payout: PayoutForLedger, amount: bigint): { sent: bigint; spread: bigint } {
  const spread = payout.spread === undefined || payout.spread === '0' ? 0n : BigInt(payout.spread);
  if (spread < 0n || spread >= amount)
    throw new RangeError(`payout ${payout.id}: a spread of ${spread} does not fit its amount ${amount}`);
  return { sent: amount - spread, spread };
}
