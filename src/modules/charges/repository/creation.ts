import { sql, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import { definedColumns, precompiled } from '../../../db/precompiled.js';
import { findOne } from '../../../db/rows.js';
import { ownedBy, ownerColumns } from '../../../db/scopes.js';
import type { Companion } from '../../../shared/idempotent-write.js';
import type { ChargesTable } from '../../../db/schema.js';
import { assertAllowed } from '../../../shared/state-machine.js';
import { CREATION_TRANSITIONS, type ChargeRow } from '../model.js';
import type { ChargeInsert, ChargePatch } from './charges.js';
import type { Owner } from '../../../shared/owner.js';

/** The statements of two-phase charge creation (ADRs 0007, 0046) and of its recovery. */

/** The `creating` or `created` charge of the owner holding an idempotency key (at most one), of any age. */
export function findByIdempotencyKey(db: Kdb, owner: Owner, key: string): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .$call(ownedBy(owner))
    .where('idempotency_key', '=', key)
    .where('creation_state', 'in', ['creating', 'created'])
    .executeTakeFirst();
}

/** The created charge holding a merchant reference, if any. */
export async function findReferenceHolder(
  db: Kdb,
  owner: Owner,
  merchantReference: string,
): Promise<string | undefined> {
  const match = { merchant_reference: merchantReference, creation_state: 'created' } as const;
  return (await findOne(db, 'charges', { ...ownerColumns(owner), ...match }))?.id;
}

/** Creations whose requests are over (created before `createdBefore`) and whose lease has lapsed. */
export async function interruptedCreations(
  db: Kdb,
  now: Date,
  createdBefore: Date,
  limit: number,
): Promise<Array<{ id: string }>> {
  return db
    .selectFrom('charges')
    .select('id')
    .where('creation_state', '=', 'creating')
    .where('creation_locked_until', '<=', now)
    .where('created_at', '<=', createdBefore)
    .orderBy('creation_locked_until')
    .limit(limit)
    .execute();
}

/**
 * A key forgotten after the idempotency window may name a new charge; the old one lets go of it. Only a
 * `creating` or `created` charge can hold a key (the unique index covers no other), and saying so lets
 * this statement use that partial index instead of scanning every charge.
 */
export async function releaseForgottenKey(
  trx: Trx,
  owner: Owner,
  key: string,
  forgottenBefore: Date,
): Promise<void> {
  await trx
    .updateTable('charges')
    .set({ idempotency_key: null })
    .$call(ownedBy(owner))
    .where('idempotency_key', '=', key)
    .where('creation_state', 'in', ['creating', 'created'])
    .where('created_at', '<=', forgottenBefore)
    .execute();
}

/**
 * Phase 1 of a creation in one statement: the new charge, unless a `creating` or `created` charge of the
 * owner already holds its idempotency key (`charges_idempotency_key` is the arbiter); undefined then, and
 * nothing is written. Any other uniqueness (the merchant reference) still raises its violation.
 */
export async function insertUnlessKeyHeld(db: Kdb, values: ChargeInsert): Promise<ChargeRow | undefined> {
  return (await insertUnlessKeyHeldStatement.execute(db, values)).rows[0];
}

/** Precompiled (ADR 0060): phase 1 of every charge creation. */
const insertUnlessKeyHeldStatement = precompiled<ChargeInsert, ChargeRow>({
  name: 'charge insert',
  shapeOf: (values) => definedColumns(values).join(','),
  build: (db, values) =>
    db
      .insertInto('charges')
      .values(values)
      .onConflict((oc) =>
        oc
          .columns(['organization_id', 'environment', 'idempotency_key'])
          // The index's own predicate, in literals: PostgreSQL infers a partial arbiter index only from a
          // predicate it can prove implies the index's, which a bound parameter never does.
          .where(sql<boolean>`idempotency_key IS NOT NULL AND creation_state IN ('creating', 'created')`)
          .doNothing(),
      )
      .returningAll(),
  parameters: (values) => definedColumns(values).map((column) => values[column]),
});

/** Takes the creation lease of a `creating` charge whose lease has lapsed; undefined when someone holds it. */
export async function takeLease(db: Kdb, id: string, now: Date, until: Date): Promise<ChargeRow | undefined> {
  return db
    .updateTable('charges')
    .set({ creation_locked_until: until })
    .where('id', '=', id)
    .where('creation_state', '=', 'creating')
    .where('creation_locked_until', '<=', now)
    .returningAll()
    .executeTakeFirst();
}

export async function releaseLease(db: Kdb, id: string, now: Date): Promise<void> {
  await db
    .updateTable('charges')
    .set({ creation_locked_until: now })
    .where('id', '=', id)
    .where('creation_state', '=', 'creating')
    .execute();
}

/**
 * Phase 2 as a statement not yet run (for IdempotencyStore.completeWith, ADR 0046): `creating` ->
 * `created` with `patch`, only while the creation lease is still `lease` (nobody took it over).
 * Precompiled with the outcome's statement (ADR 0060).
 */
export function finishCreationHolding(
  id: string,
  lease: Date | null,
  patch: ChargePatch,
): Companion<{ id: string }> {
  assertAllowed(CREATION_TRANSITIONS, ['creating'], 'created', `charge ${id} creation`);
  const set: Updateable<ChargesTable> = { ...patch, creation_state: 'created' };
  const columns = definedColumns(set);
  return {
    shape: `charges.finishCreationHolding:${lease === null ? 'no lease' : 'lease'}:${columns.join(',')}`,
    parameters: [...columns.map((column) => set[column]), id, 'creating', ...(lease === null ? [] : [lease])],
    statement: (on) =>
      on
        .updateTable('charges')
        .set(set)
        .where('id', '=', id)
        .where('creation_state', '=', 'creating')
        .where('creation_locked_until', lease === null ? 'is' : '=', lease)
        .returning('id'),
  };
}
