import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment, FxRatesTable, Network, PayoutsTable } from '../../db/schema.js';
import { exportPageOf, keysetPage, type Cursor } from '../../db/keyset.js';
import { findOne, lockOne } from '../../db/rows.js';
import { filteredBy, ownedBy, ownerColumns } from '../../db/scopes.js';
import { rowTransition, type RowTransition } from '../../shared/row-transition.js';
import { TRANSITIONS, type PayoutRow, type PayoutStatus } from './model.js';
import type { Owner } from '../../shared/owner.js';

/** The only writer of the `payouts` table; `status` moves only through `transition`. */

export type PayoutPatch = Omit<Updateable<PayoutsTable>, 'id' | 'status'>;

export async function insert(trx: Trx, values: Insertable<PayoutsTable>): Promise<PayoutRow> {
  return trx.insertInto('payouts').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Many new payouts in one statement (a settlement chunk's automatic payouts). */
export async function insertMany(trx: Trx, values: Insertable<PayoutsTable>[]): Promise<PayoutRow[]> {
  if (values.length === 0) return [];
  return trx.insertInto('payouts').values(values).returningAll().execute();
}

export async function findVisible(db: Kdb, owner: Owner, id: string): Promise<PayoutRow | undefined> {
  return findOne(db, 'payouts', { id, ...ownerColumns(owner) });
}

export async function findById(db: Kdb, id: string): Promise<PayoutRow | undefined> {
  return findOne(db, 'payouts', { id });
}

export async function lockById(trx: Trx, id: string): Promise<PayoutRow | undefined> {
  return lockOne(trx, 'payouts', { id });
}

/** The owner's payout that holds an idempotency key (at most one: `payouts_idempotency_key`), of any age. */
export async function findByIdempotencyKey(
  db: Kdb,
  owner: Owner,
  key: string,
): Promise<PayoutRow | undefined> {
  return findOne(db, 'payouts', { ...ownerColumns(owner), idempotency_key: key });
}

/**
 * A key forgotten after the idempotency window may name a new payout: the owner's payout made with it
 * before `before` lets go of it (a younger holder keeps it).
 */
export async function releaseIdempotencyKey(
  trx: Trx,
  owner: Owner,
  key: string,
  before: Date,
): Promise<void> {
  await trx
    .updateTable('payouts')
    .set({ idempotency_key: null })
    .$call(ownedBy(owner))
    .where('idempotency_key', '=', key)
    .where('created_at', '<', before)
    .execute();
}

/** The payout that holds a transaction hash, if any. */
export async function findByTxHash(db: Kdb, txHash: string): Promise<PayoutRow | undefined> {
  return findOne(db, 'payouts', { tx_hash: txHash });
}

export interface PayoutFilter {
  status?: PayoutStatus | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
}

export async function listVisible(
  db: Kdb,
  owner: Owner,
  filter: PayoutFilter,
  after: Cursor | undefined,
  limit: number,
): Promise<PayoutRow[]> {
  let query = db.selectFrom('payouts').selectAll().$call(ownedBy(owner));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) query = query.where('created_at', '<', filter.createdTo);
  return query.$call(keysetPage(after, limit)).execute();
}

/**
 * One page of an export: the owner's payouts made in `window`, oldest first (`created_at, id`), after
 * `after`; the `payouts_owner_idx` index serves it read backwards.
 */
export const pageCreatedIn = exportPageOf((db, owner) =>
  db.selectFrom('payouts').selectAll().$call(ownedBy(owner)),
);

/** The smallest payout of a network in an environment, TRY minor units as decimal text. */
export async function minimumFor(trx: Trx, network: Network, environment: Environment): Promise<string> {
  const row = await trx
    .selectFrom('payout_minimums')
    .select('amount')
    .where('network', '=', network)
    .where('environment', '=', environment)
    .executeTakeFirstOrThrow();
  return row.amount;
}

/**
 * Moves `status` from one of `from` to `to` with `patch`; undefined when the payout was in none of
 * `from`. The `payouts_guard` trigger refuses the same moves below the code.
 */
export const transition: RowTransition<Trx, PayoutStatus, PayoutPatch, PayoutRow> = rowTransition(
  'payouts',
  'status',
  TRANSITIONS,
  (id) => `payout ${id}`,
);

/** Records, once, that the rail is about to be asked to send this payout. */
export async function markSubmitting(trx: Trx, id: string, now: Date): Promise<PayoutRow | undefined> {
  return trx
    .updateTable('payouts')
    .set({ submitted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('submitted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export interface OperatorPayoutFilter {
  status?: PayoutStatus | undefined;
  rail?: PayoutRow['rail'] | undefined;
  network?: Network | undefined;
  environment?: Environment | undefined;
  organizationId?: string | undefined;
}

/** Every organization's payouts, newest first (the operator's queue). */
export async function listAll(
  db: Kdb,
  filter: OperatorPayoutFilter,
  after: Cursor | undefined,
  limit: number,
): Promise<PayoutRow[]> {
  const { status, rail, network, environment, organizationId } = filter;
  return db
    .selectFrom('payouts')
    .selectAll()
    .$call(filteredBy({ status, rail, network, environment, organization_id: organizationId }))
    .$call(keysetPage(after, limit))
    .execute();
}

/**
 * The treasury's due payouts: live, pending, on the treasury rail, oldest first, locked for the export's
 * transaction (a cancel waits for it, and then sees them handed over).
 */
export async function lockTreasuryDue(
  trx: Trx,
  filter: { network?: Network | undefined },
  limit: number,
): Promise<PayoutRow[]> {
  let query = trx
    .selectFrom('payouts')
    .selectAll()
    .where('rail', '=', 'treasury')
    .where('status', '=', 'pending');
  if (filter.network !== undefined) query = query.where('network', '=', filter.network);
  return query.orderBy('created_at').orderBy('id').limit(limit).forUpdate().execute();
}

/** Marks payouts handed to a rail (the treasury's export) the first time; the others keep their time. */
export async function markHandedOver(trx: Trx, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('payouts')
    .set({ submitted_at: now, updated_at: now })
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending')
    .where('submitted_at', 'is', null)
    .execute();
}

export interface PayoutMinimumRow {
  network: Network;
  environment: Environment;
  amount: string;
  updated_by: string;
  updated_at: Date;
}

export async function listMinimums(db: Kdb): Promise<PayoutMinimumRow[]> {
  return db
    .selectFrom('payout_minimums')
    .select(['network', 'environment', sql<string>`amount::text`.as('amount'), 'updated_by', 'updated_at'])
    .orderBy('environment')
    .orderBy('network')
    .execute();
}

/** Sets one minimum and returns the row as it was before (the audit entry's `before`). */
export async function setMinimum(
  trx: Trx,
  key: { network: Network; environment: Environment },
  amount: bigint,
  by: string,
  now: Date,
): Promise<{ before: string }> {
  const before = await trx
    .selectFrom('payout_minimums')
    .select(sql<string>`amount::text`.as('amount'))
    .where('network', '=', key.network)
    .where('environment', '=', key.environment)
    .forUpdate()
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('payout_minimums')
    .set({ amount: amount.toString(), updated_by: by, updated_at: now })
    .where('network', '=', key.network)
    .where('environment', '=', key.environment)
    .execute();
  return { before: before.amount };
}

export type FxRateRow = Selectable<FxRatesTable>;

export async function insertFxRate(db: Kdb, row: Insertable<FxRatesTable>): Promise<FxRateRow> {
  return db.insertInto('fx_rates').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The operators' latest rates of an environment, newest first. */
export async function latestFxRates(db: Kdb, environment: Environment, limit: number): Promise<FxRateRow[]> {
  return db
    .selectFrom('fx_rates')
    .selectAll()
    .where('environment', '=', environment)
    .orderBy('entered_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The live rate source an operator chose, or undefined (none chosen: `ticker`). */
export async function findRateSource(db: Kdb) {
  return db.selectFrom('fx_rate_sources').selectAll().where('environment', '=', 'live').executeTakeFirst();
}

/** Sets the live rate source; returns the row it replaces (undefined: none was chosen). */
export async function setRateSource(
  trx: Trx,
  row: { source: 'ticker' | 'operator'; reason: string; by: string; now: Date },
) {
  const before = await trx
    .selectFrom('fx_rate_sources')
    .selectAll()
    .where('environment', '=', 'live')
    .forUpdate()
    .executeTakeFirst();
  const values = { source: row.source, reason: row.reason, updated_by: row.by, updated_at: row.now };
  await trx
    .insertInto('fx_rate_sources')
    .values({ environment: 'live', ...values })
    .onConflict((oc) => oc.column('environment').doUpdateSet(values))
    .execute();
  return before;
}

/** The spread an operator set for an environment, or undefined (the configured default applies). */
export async function findSpread(db: Kdb, environment: Environment): Promise<number | undefined> {
  const row = await db
    .selectFrom('fx_spreads')
    .select('spread_bps')
    .where('environment', '=', environment)
    .executeTakeFirst();
  return row?.spread_bps;
}

export async function listSpreads(db: Kdb) {
  return db.selectFrom('fx_spreads').selectAll().orderBy('environment').execute();
}

/** Sets an environment's spread; returns the one it replaces (undefined: the default applied). */
export async function setSpread(
  trx: Trx,
  environment: Environment,
  spreadBps: number,
  by: string,
  now: Date,
): Promise<number | undefined> {
  const before = await trx
    .selectFrom('fx_spreads')
    .select('spread_bps')
    .where('environment', '=', environment)
    .forUpdate()
    .executeTakeFirst();
  await trx
    .insertInto('fx_spreads')
    .values({ environment, spread_bps: spreadBps, updated_by: by, updated_at: now })
    .onConflict((oc) =>
      oc.column('environment').doUpdateSet({ spread_bps: spreadBps, updated_by: by, updated_at: now }),
    )
    .execute();
  return before?.spread_bps;
}
