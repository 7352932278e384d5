import type { Insertable, Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { RefundsTable } from '../../db/schema.js';
import { acquirerLookup } from '../../db/at-acquirer.js';
import { exportPageOf, keysetPage, type Cursor } from '../../db/keyset.js';
import { findOne } from '../../db/rows.js';
import { ownedBy } from '../../db/scopes.js';
import { rowTransition } from '../../shared/row-transition.js';
import { TRANSITIONS, type RefundRow } from './model.js';

/** The only writer of the `refunds` table; `status` moves only through `transition`. */

export type RefundPatch = Omit<Updateable<RefundsTable>, 'id' | 'status'>;

export async function lockById(trx: Trx, id: string): Promise<RefundRow> {
  const row = await lockIfExists(trx, id);
  if (!row) throw new Error(`refund ${id} does not exist`);
  return row;
}

/** The refund under its row lock, or undefined when there is none. */
export async function lockIfExists(trx: Trx, id: string): Promise<RefundRow | undefined> {
  return trx.selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The refund the acquirer knows by `providerRefundId` (unique), if any. */
export function findByProviderRefundId(db: Kdb, providerRefundId: string): Promise<RefundRow | undefined> {
  return findOne(db, 'refunds', { provider_refund_id: providerRefundId });
}

export async function findById(db: Kdb, id: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findByIdempotencyKey(
  trx: Trx,
  chargeId: string,
  key: string,
): Promise<RefundRow | undefined> {
  return findOne(trx, 'refunds', { charge_id: chargeId, idempotency_key: key });
}

/** A key forgotten after the idempotency window may name a new refund of the charge: its old refund lets go. */
export async function releaseIdempotencyKey(trx: Trx, refundId: string): Promise<void> {
  await trx.updateTable('refunds').set({ idempotency_key: null }).where('id', '=', refundId).execute();
}

/** What the charge's pending refunds hold back, as decimal text of minor units. */
export async function pendingTotal(db: Kdb | Trx, chargeId: string): Promise<string> {
  const row = await db
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('amount'), eb.val('0')).as('total'))
    .where('charge_id', '=', chargeId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return row.total;
}

export async function insert(trx: Trx, values: Insertable<RefundsTable>): Promise<RefundRow> {
  return trx.insertInto('refunds').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * One page of the charge's refunds, newest first (`created_at DESC, id DESC`), after `after`; the
 * `refunds_charge_idx` index (migration 0005) serves it.
 */
export async function pageByCharge(
  db: Kdb,
  chargeId: string,
  after: Cursor | undefined,
  limit: number,
): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('charge_id', '=', chargeId)
    .$call(keysetPage(after, limit))
    .execute();
}

/**
 * One page of an export: the owner's refunds made in `window`, oldest first (`created_at, id`), after
 * `after`; the `refunds_owner_idx` index (migration 0021) serves it read backwards.
 */
export const pageCreatedIn = exportPageOf((db, owner) =>
  db.selectFrom('refunds').selectAll().$call(ownedBy(owner)),
);

/**
 * Takes a pending refund out of the retry queue for an operator, parked as the queue parks a row after
 * its last attempt (src/worker/queue.ts): listed with the job's parked rows, never claimed again.
 */
export async function park(trx: Trx, id: string, now: Date, reason: string): Promise<void> {
  await trx
    .updateTable('refunds')
    .set({ parked_at: now, lease_token: null, last_error: reason.slice(0, 500) })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Moves `status` from one of `from` to `to` with `patch`; undefined when the refund was in none of
 * `from`. A single statement: it takes the database or the caller's transaction.
 */
export const transition = rowTransition('refunds', 'status', TRANSITIONS, (id) => `refund ${id}`);

/** The charge of each refund, by refund id. */
export async function chargeIdsOf(trx: Trx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('refunds')
    .select(['id', 'charge_id'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.charge_id]));
}

/**
 * Refunds as reconciliation matches them: their owner, status and the acquirer's refund id, unique within
 * one environment.
 */
export function refundsAtAcquirer(db: Kdb) {
  return acquirerLookup(db, 'refunds', { providerId: 'provider_refund_id', scope: 'environment' });
}
