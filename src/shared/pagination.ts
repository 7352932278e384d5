import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Cursor } from '../db/keyset.js';
import type { Environment } from '../db/schema.js';
import { err, ok, type Result } from './result.js';

// A list position, the row comparisons that page after one and an export's window live with the
// queries that use them (src/db/keyset.ts), and stay importable from here.
export { newerThan, olderThan, type CreatedWindow, type Cursor } from '../db/keyset.js';

/** Every list that pages with cursors; a cursor of one is refused by every other. */
export type CursorList =
  | 'charges'
  | 'customers'
  | 'api_keys'
  | 'api_key_requests'
  | 'webhook_endpoints'
  | 'events'
  | 'audit'
  | 'applications'
  | 'organizations'
  | 'emails'
  | 'payouts'
  | 'refunds'
  | 'operator_payouts'
  | 'operator_disputes'
  | 'payout_transactions'
  | 'settlement_batches'
  | 'reconciliation_runs'
  | 'wallets'
  | 'files'
  | 'disputes'
  | 'fraud_warnings'
  | 'dispute_alerts'
  | 'bins';

/**
 * What a cursor is bound to: its list, and the organization and environment (or, for the operator's
 * lists, the filters) it was issued for. Operator-wide lists leave the organization and environment out.
 */
export interface CursorScope {
  list: CursorList;
  organizationId?: string | null;
  environment?: Environment | null;
  /** Other filters of the list that the cursor must come back with (audit: the target). */
  filter?: string | null;
}

/** A cursor this API did not issue for this list and scope (the edge answers 400 `validation_failed`). */
export interface CursorError {
  readonly code: 'invalid_cursor';
}

/** The cursors of one list in one scope. */
export interface ListCursors {
  encode(createdAt: Date, id: string): string;
  decode(cursor: string): Result<Cursor, CursorError>;
}

/**
 * Encodes and checks list cursors. A cursor is opaque to clients: base64url of `<createdAt ISO>|<id>`, a
 * period, and a truncated HMAC-SHA256 under a server key of that and of the cursor's scope (list,
 * organization, environment, filter). A cursor this API did not issue (edited, forged, from another
 * deployment) or issued for another list, merchant or environment is refused (`invalid_cursor`, 400
 * `validation_failed` at the edge) instead of silently moving the page. The scope is signed, not carried: it comes
 * from the request, so a cursor tells nobody which merchant it was issued to.
 */
export interface CursorCodec {
  for(scope: CursorScope): ListCursors;
}

const MAC_BYTES = 16;

export function createCursorCodec(key: Buffer): CursorCodec {
  const mac = (scope: CursorScope, payload: string) =>
    createHmac('sha256', key)
      .update(
        JSON.stringify([
          'cursor-v2',
          scope.list,
          scope.organizationId ?? null,
          scope.environment ?? null,
          scope.filter ?? null,
          payload,
        ]),
      )
      .digest()
      .subarray(0, MAC_BYTES);
  const refuse = () => err<CursorError>({ code: 'invalid_cursor' });
  return {
    for(scope) {
      return {
        encode(createdAt, id) {
          const payload = Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
          return `${payload}.${mac(scope, payload).toString('base64url')}`;
        },
        decode(cursor) {
          const [payload, signature, ...extra] = cursor.split('.');
          if (payload === undefined || signature === undefined || extra.length > 0) return refuse();
          // Compared as text: a signature in another spelling of the same bytes (base64url's unused low
          // bits of its last character) is not the one this API issued.
          const given = Buffer.from(signature);
          const expected = Buffer.from(mac(scope, payload).toString('base64url'));
          if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse();
          const [iso, id, ...rest] = Buffer.from(payload, 'base64url').toString('utf8').split('|');
          const createdAt = new Date(iso ?? '');
          if (
            !iso ||
            !id ||
            rest.length > 0 ||
            Number.isNaN(createdAt.getTime()) ||
            !/^[a-z]+_[0-9a-z]+$/.test(id)
          ) {
            return refuse();
          }
          return ok({ createdAt, id });
        },
      };
    },
  };
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
