import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { definedColumns, precompiled } from '../../db/precompiled.js';
import type { Companion } from '../../http/idempotency-store.js';
import type { ChargeCardAttemptsTable, ChargesTable, Environment, PaymentMethod } from '../../db/schema.js';
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

/** The `creating` or `created` charge of the owner holding an idempotency key (at most one), of any age. */
export async function findByIdempotencyKey(
  db: Kdb,
  owner: ChargeOwner,
  key: string,
): Promise<ChargeRow | undefined> {
  return db
    .selectFrom('charges')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('idempotency_key', '=', key)
    .where('creation_state', 'in', ['creating', 'created'])
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

/** What the operator console's payment search matches on (issue 15 item 7). */
export type OperatorChargeMatch =
  | { kind: 'id'; value: string }
  | { kind: 'reference'; value: string }
  | { kind: 'last4'; value: string }
  | { kind: 'email'; value: string };

/**
 * Created charges of every organization and environment matching one exact key, newest first, at most
 * `limit`: the id by its primary key, the others by their search indexes (migration 0022).
 */
export async function searchAcrossOrganizations(
  db: Kdb,
  match: OperatorChargeMatch,
  limit: number,
): Promise<ChargeRow[]> {
  let query = db.selectFrom('charges').selectAll().where('creation_state', '=', 'created');
  switch (match.kind) {
    case 'id':
      query = query.where('id', '=', match.value);
      break;
    case 'reference':
      query = query.where('merchant_reference', '=', match.value);
      break;
    case 'last4':
      query = query.where('card_last4', 'is not', null).where('card_last4', '=', match.value);
      break;
    case 'email':
      query = query
        .where('customer_email', 'is not', null)
        .where(sql`lower(customer_email)`, '=', match.value.toLowerCase());
      break;
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** How the dashboard's Payments list orders charges; each has an index (migration 0020). */
export type ChargeSort = 'newest' | 'oldest' | 'amount_desc' | 'amount_asc';

/** The filters of the dashboard's Payments list; every one optional, all of them together. */
export interface ChargeSearch {
  status?: ChargeStatus;
  method?: PaymentMethod;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
  /** Minor units, decimal strings, inclusive. */
  amountMin?: string;
  amountMax?: string;
  /** The merchant reference, exactly. */
  reference?: string;
  /**
   * By what succeeded refunds gave back (the status stays `succeeded`): some of it or all (`any`), all
   * (`full`), some but not all (`partial`), or nothing (`none`).
   */
  refunded?: 'any' | 'full' | 'partial' | 'none';
  /** The customer's e-mail address, exactly but for case. */
  email?: string;
  /**
   * The list's search box: one charge id, the card's last four digits, a customer's e-mail (any case) or
   * a merchant reference, each exactly.
   */
  search?: { kind: 'id' | 'last4' | 'email' | 'reference'; value: string };
}

/**
 * A page of the owner's created charges matching `filter` in `sort` order, after the row `after` (the
 * last of the previous page). Amount orders continue from the cursor row's own amount, read by its id:
 * an amount never changes, so the cursor needs nothing more than the list's usual (createdAt, id).
 */
export async function searchVisible(
  db: Kdb,
  owner: ChargeOwner,
  filter: ChargeSearch,
  sort: ChargeSort,
  after: Cursor | undefined,
  limit: number,
): Promise<ChargeRow[]> {
  let query = db
    .selectFrom('charges')
    .selectAll()
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where('creation_state', '=', 'created');
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.method !== undefined) query = query.where('payment_method', '=', filter.method);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  if (filter.amountMin !== undefined) query = query.where('amount', '>=', filter.amountMin);
  if (filter.amountMax !== undefined) query = query.where('amount', '<=', filter.amountMax);
  if (filter.reference !== undefined) query = query.where('merchant_reference', '=', filter.reference);
  if (filter.refunded === 'any') query = query.where('refunded_amount', '>', '0');
  else if (filter.refunded === 'none') query = query.where('refunded_amount', '=', '0');
  else if (filter.refunded === 'full')
    query = query.where('refunded_amount', '>', '0').whereRef('refunded_amount', '=', 'amount');
  else if (filter.refunded === 'partial')
    query = query.where('refunded_amount', '>', '0').whereRef('refunded_amount', '<', 'amount');
  if (filter.search !== undefined) {
    const { kind, value } = filter.search;
    if (kind === 'id') query = query.where('id', '=', value);
    else if (kind === 'reference') query = query.where('merchant_reference', '=', value);
    else if (kind === 'last4')
      query = query.where('card_last4', 'is not', null).where('card_last4', '=', value);
    else
      query = query
        .where('customer_email', 'is not', null)
        .where(sql<string>`lower(customer_email)`, '=', value.toLowerCase());
  }
  if (filter.email !== undefined) {
    // Spelled as charges_customer_email_idx is (migration 0020), its predicate too.
    query = query
      .where('customer_email', 'is not', null)
      .where(sql<string>`lower(customer_email)`, '=', filter.email.toLowerCase());
  }
  if (after) {
    const amountOf = sql`(select c.amount from charges c where c.id = ${after.id})`;
    query = query.where(
      sort === 'newest'
        ? olderThan(after)
        : sort === 'oldest'
          ? sql<boolean>`(created_at, id) > (${after.createdAt}::timestamptz, ${after.id})`
          : sort === 'amount_desc'
            ? sql<boolean>`(amount, id) < (${amountOf}, ${after.id})`
            : sql<boolean>`(amount, id) > (${amountOf}, ${after.id})`,
    );
  }
  const direction = sort === 'newest' || sort === 'amount_desc' ? 'desc' : 'asc';
  const first = sort === 'newest' || sort === 'oldest' ? 'created_at' : 'amount';
  return query.orderBy(first, direction).orderBy('id', direction).limit(limit).execute();
}

/** What the acquirer's notifications about a charge said, oldest first (the charge page's timeline). */
export interface ChargeNotificationRow {
  id: string;
  type: string;
  outcome: string;
  received_at: Date;
  payment_status: string | null;
  card_brand: string | null;
  card_last4: string | null;
  refund_amount: string | null;
}

export async function notificationsOf(db: Kdb, chargeId: string): Promise<ChargeNotificationRow[]> {
  return db
    .selectFrom('provider_notifications')
    .select([
      'id',
      'type',
      'outcome',
      'received_at',
      sql<string | null>`body->'payment'->>'status'`.as('payment_status'),
      sql<string | null>`body->'payment'->'card'->>'brand'`.as('card_brand'),
      sql<string | null>`body->'payment'->'card'->>'last4'`.as('card_last4'),
      sql<string | null>`body->'refund'->>'amount'`.as('refund_amount'),
    ])
    .where('charge_id', '=', chargeId)
    .orderBy('received_at')
    .orderBy('id')
    .limit(100)
    .execute();
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

/**
 * Counts and claims one card attempt of a pending charge until `claimedUntil` (ADR 0065): its number, or
 * undefined when its attempts are used up or another attempt's claim is live at `now`. One statement,
 * committed before the acquirer is called: concurrent claims serialize on the row, and each sees the
 * winner's claim.
 */
export async function takeCardAttempt(
  db: Kdb,
  id: string,
  claim: { maxAttempts: number; now: Date; claimedUntil: Date },
): Promise<number | undefined> {
  const taken = await db
    .updateTable('charges')
    .set((eb) => ({
      card_attempts: eb('card_attempts', '+', 1),
      card_attempt_claimed_until: claim.claimedUntil,
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('card_attempts', '<', claim.maxAttempts)
    .where((eb) =>
      eb.or([
        eb('card_attempt_claimed_until', 'is', null),
        eb('card_attempt_claimed_until', '<=', claim.now),
      ]),
    )
    .returning('card_attempts')
    .executeTakeFirst();
  return taken?.card_attempts;
}

/**
 * Ends the claim of attempt `number`, if it is still that attempt's: a later attempt's claim (taken
 * after this one's lease ran out) is left alone. `staleAt`: only a claim whose lease ended by then.
 * The charge, or undefined when there was no such claim.
 */
export async function endCardAttemptClaim(
  db: Kdb,
  id: string,
  number: number,
  staleAt?: Date,
): Promise<ChargeRow | undefined> {
  let query = db
    .updateTable('charges')
    .set({ card_attempt_claimed_until: null })
    .where('id', '=', id)
    .where('card_attempts', '=', number)
    .where('card_attempt_claimed_until', 'is not', null);
  if (staleAt !== undefined) query = query.where('card_attempt_claimed_until', '<=', staleAt);
  return query.returningAll().executeTakeFirst();
}

export type CardAttemptRow = Selectable<ChargeCardAttemptsTable>;

/** What the acquirer answered to attempt `number` (once: a second write of the same attempt is ignored). */
export async function recordCardAttempt(db: Kdb, row: CardAttemptRow): Promise<void> {
  await db
    .insertInto('charge_card_attempts')
    .values(row)
    .onConflict((oc) => oc.columns(['charge_id', 'number']).doNothing())
    .execute();
}

/** A charge's card attempts, in order. */
export async function cardAttemptsOf(db: Kdb, chargeId: string): Promise<CardAttemptRow[]> {
  return db
    .selectFrom('charge_card_attempts')
    .selectAll()
    .where('charge_id', '=', chargeId)
    .orderBy('number')
    .execute();
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
