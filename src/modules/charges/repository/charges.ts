import { sql, type Insertable, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type { ChargesTable, Environment } from '../../../db/schema.js';
import { findOne, lockOne } from '../../../db/rows.js';
import { ownedBy } from '../../../db/scopes.js';
import { rowTransition, type RowTransition } from '../../../shared/row-transition.js';
import {
  CREATION_TRANSITIONS,
  TRANSITIONS,
  type ChargeCreationState,
  type ChargeRow,
  type ChargeStatus,
} from '../model.js';
import type { Owner } from '../../../shared/owner.js';

/**
 * The only writer of the `charges` table (docs/decisions/0022-state-machines.md). Its two states move
 * only through `transition` (status) and `transitionCreation` (creation_state); the other writes change
 * neither.
 */

export type ChargeInsert = Insertable<ChargesTable>;
/** Columns that change without a change of state. */
export type ChargePatch = Omit<Updateable<ChargesTable>, 'id' | 'status' | 'creation_state'>;

export async function findById(db: Kdb, id: string): Promise<ChargeRow | undefined> {
  return db.selectFrom('charges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The charges their owner can see: created, in the owner's organization and environment. */
export function visibleCharges(db: Kdb, owner: Owner) {
  return db.selectFrom('charges').selectAll().$call(ownedBy(owner)).where('creation_state', '=', 'created');
}

/** A charge its owner can see. */
export async function findVisible(db: Kdb, owner: Owner, id: string): Promise<ChargeRow | undefined> {
  return visibleCharges(db, owner).where('id', '=', id).executeTakeFirst();
}

/** The same, under the row lock until the caller's transaction ends. */
export async function lockVisible(trx: Trx, owner: Owner, id: string): Promise<ChargeRow | undefined> {
  return visibleCharges(trx, owner).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function lockById(trx: Trx, id: string): Promise<ChargeRow> {
  return trx.selectFrom('charges').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

export async function findByPaymentId(db: Kdb, paymentId: string): Promise<ChargeRow | undefined> {
  return findOne(db, 'charges', { provider_payment_id: paymentId, creation_state: 'created' });
}

/** The created charge of an acquirer payment in one environment, under the row lock. */
export async function lockByPaymentId(
  trx: Trx,
  environment: Environment,
  paymentId: string,
): Promise<ChargeRow | undefined> {
  return lockOne(trx, 'charges', { provider_payment_id: paymentId, environment, creation_state: 'created' });
}

/**
 * Moves `creation_state` from one of `from` to `to` with `patch`, in one statement; undefined when the
 * charge was in none of `from` (someone else moved it first). A single statement, so it takes the
 * database or a transaction.
 */
export const transitionCreation: RowTransition<Kdb, ChargeCreationState, ChargePatch, ChargeRow> =
  rowTransition('charges', 'creation_state', CREATION_TRANSITIONS, (id) => `charge ${id} creation`);

/**
 * Moves `status` from one of `from` to `to` with `patch`; undefined when the charge was in none of
 * `from`. In the caller's transaction: a final status is written with its ledger entry and event.
 */
export const transition: RowTransition<Trx, ChargeStatus, ChargePatch, ChargeRow> = rowTransition(
  'charges',
  'status',
  TRANSITIONS,
  (id) => `charge ${id}`,
);

/** Writes what the acquirer reported without a change of status. */
export async function update(trx: Trx, id: string, patch: ChargePatch): Promise<ChargeRow> {
  return trx.updateTable('charges').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The merchant references of charges, by id (settlement's items). */
export async function referencesOf(trx: Trx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  // One array parameter, not a parameter per id: a settlement chunk asks for tens of thousands.
  const rows = await trx
    .selectFrom('charges')
    .select(['id', 'merchant_reference'])
    .where('id', '=', sql<string>`any(${[...ids]}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.merchant_reference]));
}
