import { sql, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Kdb } from './database.js';
import type { OwnerKey } from './scopes.js';

/** A list position: the (createdAt, id) of the last item of the previous page. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/** A window of creation times, `from` included and `to` excluded (an export's date range). */
export interface CreatedWindow {
  from: Date;
  to: Date;
}

/**
 * Rows after the cursor in `created_at DESC, id DESC` order, as one row comparison that the
 * `(created_at DESC, id DESC)` indexes serve. New rows arriving while a client pages never shift it.
 */
export function olderThan(cursor: Cursor, id: string = cursor.id): RawBuilder<boolean> {
  return sql<boolean>`(created_at, id) < (${cursor.createdAt}::timestamptz, ${id})`;
}

/**
 * Rows after the key in `created_at ASC, id ASC` order (an export's next page, oldest first): the same
 * row comparison, which the `(created_at DESC, id DESC)` indexes serve read backwards.
 */
export function newerThan(key: Cursor): RawBuilder<boolean> {
  return sql<boolean>`(created_at, id) > (${key.createdAt}::timestamptz, ${key.id})`;
}

/** `unknown` for a select of rows with `created_at` and `id`; a type no query has, naming the fault, otherwise. */
type OnKeyedRows<Query> =
  Query extends SelectQueryBuilder<infer D, infer TB, infer _O>
    ? Selectable<D[TB]> extends { created_at: Date; id: string }
      ? unknown
      : { error: 'the table has no created_at and id' }
    : { error: 'not a select' };

/** What the helpers below call of a select. */
interface KeyedSelect {
  where(condition: RawBuilder<boolean>): KeyedSelect;
  where(column: 'created_at', operator: '>=' | '<', value: Date): KeyedSelect;
  orderBy(column: 'created_at' | 'id', direction: 'asc' | 'desc'): KeyedSelect;
  limit(limit: number): KeyedSelect;
}

function pageOf(query: KeyedSelect, after: Cursor | undefined, limit: number, direction: 'asc' | 'desc') {
  const past = after ? query.where(direction === 'desc' ? olderThan(after) : newerThan(after)) : query;
  return past.orderBy('created_at', direction).orderBy('id', direction).limit(limit);
}

function createdInPageOf(
  query: KeyedSelect,
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
) {
  const inWindow = query.where('created_at', '>=', window.from).where('created_at', '<', window.to);
  return pageOf(inWindow, after, limit, 'asc');
}

/**
 * One page of a list in `created_at, id` order (`desc`: newest first, the lists; `asc`: oldest first,
 * the exports), after the row `after` of the previous page, at most `limit` rows; for `.$call(...)` on
 * a select of rows with `created_at` and `id`.
 */
export function keysetPage(after: Cursor | undefined, limit: number, direction: 'asc' | 'desc' = 'desc') {
  return <Query>(query: Query & OnKeyedRows<Query>): Query =>
    pageOf(query as unknown as KeyedSelect, after, limit, direction) as unknown as Query;
}

/**
 * One page of an export: the rows made in `window`, oldest first, after `after` (`keysetPage` in `asc`
 * order); the `(created_at DESC, id DESC)` indexes serve it read backwards.
 */
export function exportPage(window: CreatedWindow, after: Cursor | undefined, limit: number) {
  return <Query>(query: Query & OnKeyedRows<Query>): Query =>
    createdInPageOf(query as unknown as KeyedSelect, window, after, limit) as unknown as Query;
}

/** A repository's export page: the owner's rows made in `window`, oldest first, after `after`. */
export type ExportPageRead<Row> = (
  db: Kdb,
  owner: OwnerKey,
  window: CreatedWindow,
  after: Cursor | undefined,
  limit: number,
) => Promise<Row[]>;

/** The export page (`exportPage`) of the rows of an owner that `rowsOf` selects. */
export function exportPageOf<D, TB extends keyof D, Row extends { created_at: Date; id: string }>(
  rowsOf: (db: Kdb, owner: OwnerKey) => SelectQueryBuilder<D, TB, Row>,
): ExportPageRead<Row> {
  return (db, owner, window, after, limit) => {
    const page = createdInPageOf(rowsOf(db, owner) as unknown as KeyedSelect, window, after, limit);
    return (page as unknown as SelectQueryBuilder<D, TB, Row>).execute();
  };
}
