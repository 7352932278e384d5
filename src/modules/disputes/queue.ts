import type { ExpressionBuilder } from 'kysely';
import type { Kdb } from '../../db/database.js';
import type { Cursor } from '../../db/keyset.js';
import type { DB, DisputeStatus, Environment } from '../../db/schema.js';
import { cursorPageBy } from '../../shared/cursor-page.js';
import type { CursorCodec, CursorError, ListCursors } from '../../shared/pagination.js';
import { ok, type Result } from '../../shared/result.js';
import { OPEN_STATUSES, type DisputeRow } from './model.js';

/** What the operator's queue is filtered by. */
export interface DisputeQueueFilter {
  /** Default: the statuses in which the merchant can still answer. */
  status?: DisputeStatus | undefined;
  organizationId?: string | undefined;
  environment?: Environment | undefined;
}

/**
 * Which page of the queue: the first, the one after `cursor` (a `nextCursor`), or, without `cursor`, the
 * one before `before` (a `previousCursor`: the console's way back).
 */
export interface DisputeQueuePage {
  limit: number;
  cursor?: string | undefined;
  before?: string | undefined;
}

/** A dispute as the operator's queue lists it: whose, how much, and how long the merchant has left. */
export interface QueuedDispute {
  id: string;
  organizationId: string;
  environment: Environment;
  chargeId: string;
  amount: string;
  currency: 'TRY';
  reason: DisputeRow['reason'];
  reasonCode: string;
  network: DisputeRow['network'];
  status: DisputeStatus;
  stage: DisputeRow['stage'];
  evidenceDueBy: string | null;
  evidenceSubmittedAt: string | null;
  amountWithdrawn: string;
  createdAt: string;
}

/** A page of the queue; `previousCursor` is null on the first page. */
export interface DisputeQueueResult {
  data: QueuedDispute[];
  nextCursor: string | null;
  previousCursor: string | null;
}

export interface DisputeQueueDeps {
  db: Kdb;
  readDb?: Kdb | undefined;
  cursors: CursorCodec;
}

/**
 * Where a dispute without a deadline sits in a cursor: the latest time a Date holds, after every real
 * deadline, as the order puts those disputes last. It never reaches SQL: `afterPosition` and
 * `beforePosition` read it as the group whose deadline is null.
 */
const NO_DEADLINE = new Date(8.64e15);

const positionOf = (row: DisputeRow): [Date, string] => [row.evidence_due_by ?? NO_DEADLINE, row.id];
const inNullGroup = (position: Cursor) => position.createdAt.getTime() === NO_DEADLINE.getTime();

type Where = ExpressionBuilder<DB, 'disputes'>;

/** The rows after `position` in `evidence_due_by ASC NULLS LAST, id ASC` order. */
function afterPosition(position: Cursor) {
  return (eb: Where) =>
    inNullGroup(position)
      ? eb.and([eb('evidence_due_by', 'is', null), eb('id', '>', position.id)])
      : eb.or([
          eb(eb.refTuple('evidence_due_by', 'id'), '>', eb.tuple(position.createdAt, position.id)),
          eb('evidence_due_by', 'is', null),
        ]);
}

/** The rows before `position` in that order (read backwards, nearest first). */
function beforePosition(position: Cursor) {
  return (eb: Where) =>
    inNullGroup(position)
      ? eb.or([eb('evidence_due_by', 'is not', null), eb('id', '<', position.id)])
      : eb(eb.refTuple('evidence_due_by', 'id'), '<', eb.tuple(position.createdAt, position.id));
}

/** The filtered queue's rows from `from` on, `limit` of them, forwards or (toward the first) backwards. */
function queueRows(
  db: Kdb,
  filter: DisputeQueueFilter,
  from: { after: Cursor } | { before: Cursor } | undefined,
  limit: number,
): Promise<DisputeRow[]> {
  let query = db.selectFrom('disputes').selectAll();
  query =
    filter.status === undefined
      ? query.where('status', 'in', OPEN_STATUSES)
      : query.where('status', '=', filter.status);
  if (filter.organizationId !== undefined) query = query.where('organization_id', '=', filter.organizationId);
  if (filter.environment !== undefined) query = query.where('environment', '=', filter.environment);
  if (from && 'before' in from) {
    return query
      .where(beforePosition(from.before))
      .orderBy('evidence_due_by', (order) => order.desc().nullsFirst())
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
  if (from) query = query.where(afterPosition(from.after));
  return query
    .orderBy('evidence_due_by', (order) => order.asc().nullsLast())
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The cursor of `row`'s position, or null without a row. */
const cursorAt = (cursors: ListCursors, row: DisputeRow | undefined) =>
  row === undefined ? null : cursors.encode(...positionOf(row));

/**
 * The page that ends just before `before`, or undefined when less than a page precedes it: that is the
 * first page, which the caller reads forwards so that it is full.
 */
async function pageBefore(
  db: Kdb,
  filter: DisputeQueueFilter,
  cursors: ListCursors,
  before: Cursor,
  limit: number,
): Promise<DisputeQueueResult | undefined> {
  const rows = await queueRows(db, filter, { before }, limit + 1);
  if (rows.length <= limit) return undefined;
  const shown = rows.slice(0, limit).reverse();
  return {
    data: shown.map(queuedView),
    nextCursor: cursorAt(cursors, shown[shown.length - 1]),
    previousCursor: cursorAt(cursors, shown[0]),
  };
}

/**
 * The disputes of every merchant, the nearest deadline first (those without one last, then by id), a
 * page at a time: the operator's queue. A cursor is bound to the queue and its filters (another's is
 * `invalid_cursor`).
 */
export async function disputeQueue(
  deps: DisputeQueueDeps,
  filter: DisputeQueueFilter,
  page: DisputeQueuePage,
): Promise<Result<DisputeQueueResult, CursorError>> {
  const db = deps.readDb ?? deps.db;
  const scope = {
    list: 'operator_disputes' as const,
    filter: JSON.stringify([
      filter.status ?? null,
      filter.organizationId ?? null,
      filter.environment ?? null,
    ]),
  };
  const cursors = deps.cursors.for(scope);
  if (page.before !== undefined && page.cursor === undefined) {
    const before = cursors.decode(page.before);
    if (!before.ok) return before;
    const earlier = await pageBefore(db, filter, cursors, before.value, page.limit);
    if (earlier) return ok(earlier);
  }
  const forward = await cursorPageBy(
    deps.cursors,
    {
      ...scope,
      query: page,
      rows: (after) => queueRows(db, filter, after && { after }, page.limit + 1),
      view: (rows) => rows,
    },
    positionOf,
  );
  if (!forward.ok) return forward;
  return ok({
    data: forward.value.data.map(queuedView),
    nextCursor: forward.value.nextCursor,
    previousCursor: page.cursor === undefined ? null : cursorAt(cursors, forward.value.data[0]),
  });
}

function queuedView(row: DisputeRow): QueuedDispute {
  return {
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    chargeId: row.charge_id,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    reasonCode: row.reason_code,
    network: row.network,
    status: row.status,
    stage: row.stage,
    evidenceDueBy: row.evidence_due_by?.toISOString() ?? null,
    evidenceSubmittedAt: row.evidence_submitted_at?.toISOString() ?? null,
    amountWithdrawn: row.amount_withdrawn,
    createdAt: row.created_at.toISOString(),
  };
}
