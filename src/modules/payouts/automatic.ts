import type { Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import { payoutsCreated } from '../../metrics/registry.js';
import { newId } from '../../shared/ids.js';
import type { Minor } from '../../shared/money.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutDestination } from './ports.js';
import { conversion, spreadOf, type RateQuote } from './rates.js';
import * as payouts from './repository.js';
import { payoutView, type PayoutView } from './schemas.js';
import { arrivalDateOf, debitNewPayout, insertPayout, payoutForLedger, payoutRowOf } from './new-payout.js';
import { eventOfRow, ownerOfRow } from './views.js';
import type { Owner } from '../../shared/owner.js';

/** The settlement batch's automatic payouts: an owner's whole available balance to its default wallet. */

/**
 * A settlement chunk's automatic payout, planned under the owner's available-balance lock before the
 * chunk writes anything (`planAutomatic`), then made with the others of the chunk (`createPlanned`).
 */
export interface AutomaticPayoutPlan {
  owner: Owner;
  wallet: PayoutDestination;
  /** TRY minor units leaving the available balance, USDT sent, the spread kept; the applied rate. */
  covered: Minor<'TRY'>;
  converted: Minor<'USDT'>;
  spread: bigint;
  spreadBps: number;
  rate: string;
}

/** Why the settlement batch made no automatic payout. */
export type AutomaticPayoutRefusal = 'no_default_wallet' | 'below_minimum' | 'nothing_available';

/**
 * In the caller's transaction (the settlement batch's payout phase): an automatic payout of the owner's
 * whole available balance to its default wallet at `quote`, or why none was made (the funds stay
 * available).
 */
export async function createAutomatic(
  deps: PayoutServiceDeps,
  trx: Trx,
  owner: Owner,
  options: { quote: RateQuote; description: string },
): Promise<
  { ok: true; payout: PayoutView } | { ok: false; reason: AutomaticPayoutRefusal; minimum?: string }
> {
  const destination = await deps.wallets.destination(trx, owner, undefined);
  if (!destination.ok) return { ok: false, reason: 'no_default_wallet' };
  const { wallet } = destination;
  const available = BigInt(await deps.ledger.lockedAvailable(trx, owner));
  if (available <= 0n) return { ok: false, reason: 'nothing_available' };
  const minimum = BigInt(await payouts.minimumFor(trx, wallet.network, owner.environment));
  // USDT rounded down to 6 decimals: only the TRY it accounts for leaves; the remainder stays available.
  const converted = conversion(available, options.quote, await spreadOf(deps, trx, owner.environment));
  if (available < minimum || converted.converted === 0n) {
    return { ok: false, reason: 'below_minimum', minimum: minimum.toString() };
  }
  const { id, now, debit } = await debitNewPayout(deps, trx, owner, converted);
  if (!debit.ok) throw new Error(`payout ${id}: the available balance moved under its lock`);
  const row = await insertPayout(deps, trx, owner, {
    id,
    now,
    wallet,
    quote: options.quote,
    conversion: converted,
    automatic: true,
    description: options.description,
    metadata: {},
  });
  return { ok: true, payout: payoutView(row) };
}

/**
 * The set-based form of `createAutomatic` for a settlement chunk (docs/decisions/0041), in the caller's
 * transaction, which holds the owners' available-balance locks: for each owner (key
 * `organizationId:environment`) with `available` TRY (its balance under the lock plus what the chunk
 * releases into it), the payout `createAutomatic` would make, or why it would make none. Writes
 * nothing.
 */
export async function planAutomatic(
  deps: PayoutServiceDeps,
  trx: Trx,
  requests: ReadonlyArray<{ owner: Owner; available: bigint }>,
  quote: RateQuote,
): Promise<
  Map<string, { ok: true; plan: AutomaticPayoutPlan } | { ok: false; reason: AutomaticPayoutRefusal }>
> {
  const owners = requests.map((request) => request.owner);
  const wallets = await deps.wallets.defaultDestinations(trx, owners);
  const minimums = new Map<string, bigint>();
  const spreads = new Map<Environment, number>();
  const plans = new Map<
    string,
    { ok: true; plan: AutomaticPayoutPlan } | { ok: false; reason: AutomaticPayoutRefusal }
  >();
  for (const { owner, available } of requests) {
    const key = `${owner.organizationId}:${owner.environment}`;
    const wallet = wallets.get(key);
    if (!wallet) {
      plans.set(key, { ok: false, reason: 'no_default_wallet' });
      continue;
    }
    if (available <= 0n) {
      plans.set(key, { ok: false, reason: 'nothing_available' });
      continue;
    }
    const minimumKey = `${wallet.network}:${owner.environment}`;
    let minimum = minimums.get(minimumKey);
    if (minimum === undefined) {
      minimum = BigInt(await payouts.minimumFor(trx, wallet.network, owner.environment));
      minimums.set(minimumKey, minimum);
    }
    let spreadBps = spreads.get(owner.environment);
    if (spreadBps === undefined) {
      spreadBps = await spreadOf(deps, trx, owner.environment);
      spreads.set(owner.environment, spreadBps);
    }
    const converted = conversion(available, quote, spreadBps);
    if (available < minimum || converted.converted === 0n) {
      plans.set(key, { ok: false, reason: 'below_minimum' });
      continue;
    }
    plans.set(key, {
      ok: true,
      plan: {
        owner,
        wallet,
        covered: converted.covered,
        converted: converted.converted,
        spread: converted.spread,
        spreadBps: converted.spreadBps,
        rate: converted.rate,
      },
    });
  }
  return plans;
}

/**
 * Makes the planned payouts (ledger entries, payout rows, their contents attached, `payout.created`)
 * in a few statements; throws (the caller's transaction rolls back) unless every one is new.
 */
export async function createPlanned(
  deps: PayoutServiceDeps,
  trx: Trx,
  plans: ReadonlyArray<AutomaticPayoutPlan & { description: string }>,
  quote: RateQuote,
): Promise<Map<string, PayoutView>> {
  if (plans.length === 0) return new Map();
  const now = deps.clock.now();
  const made = plans.map((plan) => ({ ...plan, id: newId('po', now) }));
  await deps.ledger.postPayoutsCreated(
    trx,
    made.map((plan) => payoutForLedger(plan.id, plan, plan.owner)),
  );
  const arrivalDate = await arrivalDateOf(deps, trx, now);
  const rows = await payouts.insertMany(
    trx,
    made.map((plan) =>
      payoutRowOf(plan.owner, {
        id: plan.id,
        now,
        wallet: plan.wallet,
        quote,
        conversion: plan,
        automatic: true,
        description: plan.description,
        metadata: {},
        arrivalDate,
      }),
    ),
  );
  if (rows.length !== made.length) throw new Error('a planned payout was not inserted');
  await deps.contents.attachMany(
    trx,
    rows.map((row) => ({ ...ownerOfRow(row), payoutId: row.id })),
  );
  const views = new Map(rows.map((row) => [`${row.organization_id}:${row.environment}`, payoutView(row)]));
  await deps.events.recordMany(
    trx,
    rows.map((row) =>
      eventOfRow(
        row,
        'payout.created',
        views.get(`${row.organization_id}:${row.environment}`) ?? payoutView(row),
      ),
    ),
  );
  for (const row of rows) payoutsCreated.inc({ environment: row.environment, kind: 'automatic' });
  return views;
}
