import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { lockUntilCommit } from '../../db/locks.js';
import type { DB, Environment } from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { findOne } from '../../db/rows.js';
import { ownedBy, ownerColumns } from '../../db/scopes.js';
import { assertAllowed } from '../../shared/state-machine.js';
import { rowTransition, type RowTransition } from '../../shared/row-transition.js';
import { DELIVERY_TRANSITIONS, type DeliveryStatus } from './model.js';
import type { Owner } from '../../shared/owner.js';

export type EndpointRow = Selectable<DB['webhook_endpoints']>;
export type DeliveryRow = Selectable<DB['webhook_deliveries']>;
export type AttemptRow = Selectable<DB['webhook_attempts']>;

/** The owner's endpoints, not deleted. */
function liveEndpoints(db: Kdb, owner: Owner) {
  return db.selectFrom('webhook_endpoints').$call(ownedBy(owner)).where('deleted_at', 'is', null);
}

export function findEndpoint(db: Kdb, owner: Owner, id: string, lock = false) {
  let query = liveEndpoints(db, owner).selectAll().where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * Serialises, until the end of the caller's transaction, the creations of one owner's endpoints, so that
 * each counts the ones the previous created (the limit of WEBHOOK_ENDPOINT_LIMIT per owner).
 */
export async function lockEndpointsOf(trx: Trx, owner: Owner): Promise<void> {
  await lockUntilCommit(trx, `webhook-endpoints:${owner.organizationId}:${owner.environment}`);
}

/** How many endpoints the owner has, not deleted. */
export async function countEndpoints(trx: Trx, owner: Owner): Promise<number> {
  const row = await liveEndpoints(trx, owner)
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Sets columns of one of the owner's endpoints, not deleted; undefined when it has none of that id. */
export function updateLiveEndpoint(
  db: Kdb,
  owner: Owner,
  id: string,
  values: Updateable<DB['webhook_endpoints']>,
) {
  return db
    .updateTable('webhook_endpoints')
    .set(values)
    .where('id', '=', id)
    .$call(ownedBy(owner))
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function insertEndpoint(trx: Trx, values: Insertable<DB['webhook_endpoints']>) {
  return trx.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow();
}

/** An organization's endpoints of both environments, not deleted, newest first (at most `limit`). */
export function endpointsOfOrganization(db: Kdb, organizationId: string, limit: number) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .$call(keysetPage(undefined, limit))
    .execute();
}

export function listEndpoints(db: Kdb, owner: Owner, page: { limit: number; after?: Cursor }) {
  return liveEndpoints(db, owner)
    .selectAll()
    .$call(keysetPage(page.after, page.limit + 1))
    .execute();
}

export type AttemptWithDelivery = AttemptRow & {
  delivery_status: DeliveryRow['status'];
  next_attempt_at: Date;
};

/** Events of one charge, and how many of their rows a read returns at the most. */
export interface EventsPage {
  /** Not empty. */
  eventIds: readonly string[];
  limit: number;
}

/** What `newestOfEvents` calls of a select. */
interface EventRowsSelect {
  where(column: string, operator: 'in', values: string[]): EventRowsSelect;
  orderBy(column: string, direction: 'desc'): EventRowsSelect;
  limit(limit: number): EventRowsSelect;
}

/**
 * The rows (of the table `alias`) of the page's events, newest by `time` first (then by id), at most its
 * `limit`, for `.$call(...)` on a select.
 */
function newestOfEvents(alias: 'a' | 'd', time: 'attempted_at' | 'created_at', page: EventsPage) {
  return <Query>(query: Query): Query =>
    (query as unknown as EventRowsSelect)
      .where(`${alias}.event_id`, 'in', [...page.eventIds])
      .orderBy(`${alias}.${time}`, 'desc')
      .orderBy(`${alias}.id`, 'desc')
      .limit(page.limit) as unknown as Query;
}

/** The last attempts of the given events (those about one charge), newest first. */
export function attemptsOfEvents(db: Kdb, owner: Owner, page: EventsPage): Promise<AttemptWithDelivery[]> {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .selectAll('a')
    .select(['d.status as delivery_status', 'd.next_attempt_at'])
    .$call(ownedBy(owner, 'a'))
    .$call(newestOfEvents('a', 'attempted_at', page))
    .execute();
}

/**
 * A delivery of one of the given events, with its endpoint's URL, the kinds it selects now and whether it
 * is deleted.
 */
export type DeliveryWithEndpoint = DeliveryRow & {
  url: string;
  enabled_events: string[];
  endpoint_deleted: boolean;
};

/** The deliveries of the given events (those about one charge), newest first. */
export function deliveriesOfEvents(db: Kdb, owner: Owner, page: EventsPage): Promise<DeliveryWithEndpoint[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['w.url', 'w.enabled_events', sql<boolean>`w.deleted_at is not null`.as('endpoint_deleted')])
    .$call(ownedBy(owner, 'd'))
    .$call(newestOfEvents('d', 'created_at', page))
    .execute();
}

/**
 * A delivery of an endpoint that still exists, by its id or by the id of one of its attempts, with the
 * kinds that endpoint selects now.
 */
export async function findDelivery(db: Kdb, owner: Owner, id: string) {
  const byAttempt = await db
    .selectFrom('webhook_attempts')
    .select('delivery_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select('w.enabled_events')
    .where('d.id', '=', byAttempt?.delivery_id ?? id)
    .$call(ownedBy(owner, 'd'))
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Columns of a delivery that change with its status. */
export type DeliveryPatch = Omit<Updateable<DB['webhook_deliveries']>, 'id' | 'status'>;

/**
 * Moves a delivery's `status` from one of `from` to `to` with `patch`; undefined when it was in none of
 * `from`. A single statement: the database or the caller's transaction.
 */
export const transitionDelivery: RowTransition<Kdb, DeliveryStatus, DeliveryPatch, DeliveryRow> =
  rowTransition('webhook_deliveries', 'status', DELIVERY_TRANSITIONS, (id) => `webhook delivery ${id}`);

/** The pending deliveries of a deleted endpoint fail: it never receives again. */
export async function failPendingDeliveries(db: Kdb, endpointId: string, now: Date): Promise<void> {
  assertAllowed(DELIVERY_TRANSITIONS, ['pending'], 'failed', `webhook deliveries of ${endpointId}`);
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', lease_token: null, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** One attempt as the endpoint page lists it. */
export interface EndpointAttempt {
  id: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attemptedAt: Date;
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  deliveryStatus: 'pending' | 'succeeded' | 'failed';
}

/** The last attempts of one endpoint, newest first, scoped to the organization and the environment. */
export async function attemptsOfEndpoint(
  db: Kdb,
  owner: Owner,
  endpointId: string,
  limit: number,
): Promise<Omit<EndpointAttempt, 'eventType'>[]> {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .selectAll('a')
    .select('d.status as delivery_status')
    .where('a.endpoint_id', '=', endpointId)
    .$call(ownedBy(owner, 'a'))
    .where('d.organization_id', '=', owner.organizationId)
    .orderBy('a.attempted_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...attemptIds(row), attemptedAt: row.attempted_at, ...attemptOutcome(row) }));
}

/** An attempt's id and those of its delivery and event, as the views name them. */
export function attemptIds(row: AttemptRow) {
  return { id: row.id, deliveryId: row.delivery_id, eventId: row.event_id };
}

/** An attempt's outcome and its delivery's status now, as the views name them. */
export function attemptOutcome(row: AttemptRow & { delivery_status: DeliveryRow['status'] }) {
  return {
    succeeded: row.succeeded,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    deliveryStatus: row.delivery_status,
  };
}

/** Whether a delivery (by its id) belongs to this endpoint of the organization and environment. */
export async function deliveryOfEndpoint(
  db: Kdb,
  owner: Owner,
  endpointId: string,
  deliveryId: string,
): Promise<boolean> {
  const match = { id: deliveryId, endpoint_id: endpointId, ...ownerColumns(owner) };
  return (await findOne(db, 'webhook_deliveries', match)) !== undefined;
}

/**
 * Per endpoint: its pending deliveries, those due by `now`, and the oldest one's creation (the metrics);
 * only the endpoints named when `endpointIds` is given (the operator's view of one organization).
 */
export async function pendingByEndpoint(
  db: Kdb,
  now: Date,
  endpointIds?: readonly string[],
): Promise<
  Array<{ endpoint_id: string; environment: Environment; pending: string; due: string; oldest: Date }>
> {
  if (endpointIds !== undefined && endpointIds.length === 0) return [];
  let query = db.selectFrom('webhook_deliveries');
  if (endpointIds !== undefined) query = query.where('endpoint_id', 'in', [...endpointIds]);
  return query
    .select(['endpoint_id', 'environment'])
    .select((eb) => [
      eb.fn.countAll<string>().as('pending'),
      sql<string>`count(*) filter (where next_attempt_at <= ${now})`.as('due'),
      eb.fn.min('created_at').as('oldest'),
    ])
    .where('status', '=', 'pending')
    .groupBy(['endpoint_id', 'environment'])
    .execute();
}
