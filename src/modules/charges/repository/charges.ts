import { sql, type Insertable, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type { ChargesTable, Environment } from '../../../db/schema.js';
import { assertAllowed } from '../../../shared/state-machine.js';
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

/** A charge its owner can see: created, in the owner's organization and environment. */
export async function findVisible(db: Kdb, owner: Owner, id: string): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('creation_state', '=', 'created')
    .executeTakeFirst();
}

/** The same, under the row lock until the caller's transaction ends. */
export async function lockVisible(trx: Trx, owner: Owner, id: string): Promise<ChargeRow | undefined> {
  return trx
    .selectFrom('charges')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('creation_state', '=', 'created')
    .forUpdate()
    .executeTakeFirst();
}

export async function lockById(trx: Trx, id: string): Promise<ChargeRow> {
  return trx.selectFrom('charges').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

export async function findByPaymentId(db: Kdb, paymentId: string): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('provider_payment_id', '=', paymentId)
    .where('creation_state', '=', 'created')
    .executeTakeFirst();
}

/** The created charge of an acquirer payment in one environment, under the row lock. */
export async function lockByPaymentId(
  trx: Trx,
  environment: Environment,
  paymentId: string,
): Promise<ChargeRow | undefined> {
  return trx
    .selectFrom('charges')
    .selectAll()
    .where('provider_payment_id', '=', paymentId)
    .where('environment', '=', environment)
    .where('creation_state', '=', 'created')
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Moves `creation_state` from one of `from` to `to` with `patch`, in one statement; undefined when the
 * charge was in none of `from` (someone else moved it first). A single statement, so it takes the
 * database or a transaction.
 */
export async function transitionCreation(
  db: Kdb,
  id: string,
  from: readonly ChargeCreationState[],
  to: ChargeCreationState,
  patch: ChargePatch = {},
): Promise<ChargeRow | undefined> {
  assertAllowed(CREATION_TRANSITIONS, from, to, `charge ${id} creation`);
  return db
    .updateTable('charges')
    .set({ ...patch, creation_state: to })
    .where('id', '=', id)
    .where('creation_state', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
}

/**
 * Moves `status` from one of `from` to `to` with `patch`; undefined when the charge was in none of
 * `from`. In the caller's transaction: a final status is written with its ledger entry and event.
 */
export async function transition(
  trx: Trx,
  id: string,
  from: readonly ChargeStatus[],
  to: ChargeStatus,
  patch: ChargePatch = {},
): Promise<ChargeRow | undefined> {
  assertAllowed(TRANSITIONS, from, to, `charge ${id}`);
  return trx
    .updateTable('charges')
    .set({ ...patch, status: to })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();
}

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
