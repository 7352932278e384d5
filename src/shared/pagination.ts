import { sql, type RawBuilder } from 'kysely';
import { ApiError } from '../http/errors.js';

/** A list position: the (createdAt, id) of the last item of the previous page. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/** Opaque to clients: base64url of `<createdAt ISO>|<id>`, checked on the way back in. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): Cursor {
  const [iso, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  if (!iso || !id || rest.length > 0 || Number.isNaN(createdAt.getTime()) || !/^[a-z]+_[0-9a-z]+$/.test(id)) {
    throw ApiError.validation([
      { path: 'cursor', in: 'query', code: 'invalid_value', message: 'is not a cursor this API issued' },
    ]);
  }
  return { createdAt, id };
}

/**
 * Rows after the cursor in `created_at DESC, id DESC` order, as one row comparison that the
 * `(created_at DESC, id DESC)` indexes serve. New rows arriving while a client pages never shift it.
 */
export function olderThan(cursor: Cursor, id: string = cursor.id): RawBuilder<boolean> {
  return sql<boolean>`(created_at, id) < (${cursor.createdAt}::timestamptz, ${id})`;
}

/** The page and the next cursor, from a query that asked for `limit + 1` rows. */
export function toPage<Row>(
  rows: Row[],
  limit: number,
  cursorOf: (row: Row) => string,
): { data: Row[]; nextCursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
