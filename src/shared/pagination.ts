import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { ApiError } from '../http/errors.js';

/** A list position: the (createdAt, id) of the last item of the previous page. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/**
 * Encodes and checks list cursors. A cursor is opaque to clients: base64url of `<createdAt ISO>|<id>`, a
 * period, and a truncated HMAC-SHA256 of that under a server key, so that a cursor this API did not issue
 * (edited, forged or from another deployment) is refused with 400 instead of silently moving the page.
 */
export interface CursorCodec {
  encode(createdAt: Date, id: string): string;
  decode(cursor: string): Cursor;
}

const MAC_BYTES = 16;

export function createCursorCodec(key: Buffer): CursorCodec {
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  const refuse = () =>
    ApiError.validation([
      { path: 'cursor', in: 'query', code: 'invalid_value', message: 'is not a cursor this API issued' },
    ]);
  return {
    encode(createdAt, id) {
      const payload = Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(cursor) {
      const [payload, signature, ...extra] = cursor.split('.');
      if (payload === undefined || signature === undefined || extra.length > 0) throw refuse();
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
      const [iso, id, ...rest] = Buffer.from(payload, 'base64url').toString('utf8').split('|');
      const createdAt = new Date(iso ?? '');
      if (
        !iso ||
        !id ||
        rest.length > 0 ||
        Number.isNaN(createdAt.getTime()) ||
        !/^[a-z]+_[0-9a-z]+$/.test(id)
      ) {
        throw refuse();
      }
      return { createdAt, id };
    },
  };
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
