import type { Insertable, Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { ChargesTable, Environment } from '../../db/schema.js';
import { newerThan, olderThan, type CreatedWindow, type Cursor } from '../../shared/pagination.js';
import { assertAllowed } from '../../shared/state-machine.js';
import {
  CREATION_TRANSITIONS,
  TRANSITIONS,
  type ChargeCreationState,
  type ChargeOwner,
  type ChargeRow,
  type ChargeStatus,
} from './model.js';

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
export async function findVisible(db: Kdb, owner: ChargeOwner, id: string): Promise<ChargeRow | undefined> {
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
export async function lockVisible(trx: Trx, owner: ChargeOwner, id: string): Promise<ChargeRow | undefined> {
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

export async function findByIdempotencyKey(
  db: Kdb,
  owner: ChargeOwner,
  key: string,
  rememberedSince: Date,
): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('idempotency_key', '=', key)
    .where('creation_state', 'in', ['creating', 'created'])
    .where('created_at', '>', rememberedSince)
    .executeTakeFirst();
}

/** The created charge holding a merchant reference, if any. */
export async function findReferenceHolder(
  db: Kdb,
  owner: ChargeOwner,
  merchantReference: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('charges')
    .select('id')
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('merchant_reference', '=', merchantReference)
    .where('creation_state', '=', 'created')
    .executeTakeFirst();
  return row?.id;
}

export async function listVisible(
  db: Kdb,
  owner: ChargeOwner,
  filter: { customerId?: string | undefined },
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeRow[]> {
  let query = db
    .selectFrom('charges')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('creation_state', '=', 'created');
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (after) query = query.where(olderThan(after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * One page of an export: the owner's created charges made in `window`, oldest first (`created_at, id`),
 * after `after`; the `charges_list_idx` index serves it read backwards.
 */
export async function pageCreatedIn(
  db: Kdb,
  owner: ChargeOwner,
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeRow[]> {
  let query = db
    .selectFrom('charges')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('created_at', '>=', window.from)
    .where('created_at', '<', window.to)
    .where('creation_state', '=', 'created');
  if (after) query = query.where(newerThan(after));
  return query.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
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
  owner: ChargeOwner,
  key: string,
  forgottenBefore: Date,
): Promise<void> {
  await trx
    .updateTable('charges')
    .set({ idempotency_key: null })
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('idempotency_key', '=', key)
    .where('creation_state', 'in', ['creating', 'created'])
    .where('created_at', '<=', forgottenBefore)
    .execute();
}

export async function insert(trx: Trx, values: ChargeInsert): Promise<ChargeRow> {
  return trx.insertInto('charges').values(values).returningAll().executeTakeFirstOrThrow();
}

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

/** Counts one card attempt of a pending charge; false when its attempts are used up. */
export async function takeCardAttempt(db: Kdb, id: string, maxAttempts: number): Promise<boolean> {
  const taken = await db
    .updateTable('charges')
    .set((eb) => ({ card_attempts: eb('card_attempts', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('card_attempts', '<', maxAttempts)
    .returning('card_attempts')
    .executeTakeFirst();
  return taken !== undefined;
}

/** The merchant references of charges, by id (settlement's items). */
export async function referencesOf(trx: Trx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('charges')
    .select(['id', 'merchant_reference'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.merchant_reference]));
}

/** What reconciliation needs of a charge: its owner, status and the acquirer's payment id. */
export interface ChargeAtAcquirer {
  id: string;
  organizationId: string;
  status: string;
  providerPaymentId: string | null;
}

const atAcquirer = (row: {
  id: string;
  organization_id: string;
  status: string;
  provider_payment_id: string | null;
}): ChargeAtAcquirer => ({
  id: row.id,
  organizationId: row.organization_id,
  status: row.status,
  providerPaymentId: row.provider_payment_id,
});

/** Charges by id, with their acquirer payment ids. */
export async function atAcquirerByIds(db: Kdb, ids: readonly string[]): Promise<ChargeAtAcquirer[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('charges')
    .select(['id', 'organization_id', 'status', 'provider_payment_id'])
    .where('id', 'in', [...ids])
    .execute();
  return rows.map(atAcquirer);
}

/** The charges of one acquirer (`provider`) made for these payment ids. */
export async function atAcquirerByPaymentIds(
  db: Kdb,
  provider: string,
  paymentIds: readonly string[],
): Promise<ChargeAtAcquirer[]> {
  if (paymentIds.length === 0) return [];
  const rows = await db
    .selectFrom('charges')
    .select(['id', 'organization_id', 'status', 'provider_payment_id'])
    .where('provider', '=', provider)
    .where('provider_payment_id', 'in', [...paymentIds])
    .execute();
  return rows.map(atAcquirer);
}
