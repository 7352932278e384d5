import { sql } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { keysetPage, type Cursor } from '../../db/keyset.js';
import { toPage, type CursorCodec, type CursorError } from '../../shared/pagination.js';
import { err, ok, type Result } from '../../shared/result.js';

/** The audit log refuses only a cursor it did not issue (docs/decisions/0020-domain-errors.md). */
export type AuditError = CursorError;

export interface AuditEntry {
  /** `staff:stf_…`, `user:usr_…`, `key:key_…`, `system` or `cli`. */
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  organizationId?: string | null;
  before?: unknown;
  after?: unknown;
  requestId?: string | null;
  ip?: string | null;
}

/**
 * An entry about one target (and the organization it belongs to), made by `by`: the actor of a request
 * with its request id and address; `change` is what the target was before and is after.
 */
export function entryAbout(
  by: Pick<AuditEntry, 'actor' | 'requestId' | 'ip'>,
  action: string,
  target: { type: string; id: string; organizationId?: string },
  change: { before?: unknown; after?: unknown } = {},
): AuditEntry {
  return {
    ...by,
    action,
    targetType: target.type,
    targetId: target.id,
    organizationId: target.organizationId,
    ...change,
  };
}

export interface AuditEntryView {
  id: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  organizationId: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
  ip: string | null;
  createdAt: string;
}

export interface AuditLog {
  /** Appends one entry, inside the caller's transaction when one is given. */
  record(db: Kdb, entry: AuditEntry): Promise<void>;
  /** Newest first, optionally for one organization or one target. */
  list(
    db: Kdb,
    filter: { limit: number; cursor?: string; organizationId?: string; targetId?: string },
  ): Promise<Result<{ data: AuditEntryView[]; nextCursor: string | null }, AuditError>>;
  /**
   * Deletes the trail of API keys: entries about them and entries they made (the retention of revoked
   * keys' trails, spec 5.8), in the caller's transaction.
   */
  forgetKeys(trx: Trx, keyIds: readonly string[]): Promise<void>;
}

/** Entries about the key or made by it, counted (tests and diagnostics). */
export async function countKeyTrail(db: Kdb, keyId: string): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select(sql<string>`count(*)`.as('count'))
    .where((eb) =>
      eb.or([
        eb.and([eb('target_type', '=', 'api_key'), eb('target_id', '=', keyId)]),
        eb('actor', '=', `key:${keyId}`),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function createAuditLog(deps: { clock: Clock; cursors: CursorCodec }): AuditLog {
  return {
    async forgetKeys(trx, keyIds) {
      if (keyIds.length === 0) return;
      await trx
        .deleteFrom('audit_log')
        .where((eb) =>
          eb.or([
            eb.and([eb('target_type', '=', 'api_key'), eb('target_id', 'in', [...keyIds])]),
            eb(
              'actor',
              'in',
              keyIds.map((id) => `key:${id}`),
            ),
          ]),
        )
        .execute();
    },

    async record(db, entry) {
      await db
        .insertInto('audit_log')
        .values({
          actor: entry.actor,
          action: entry.action,
          target_type: entry.targetType,
          target_id: entry.targetId,
          organization_id: entry.organizationId ?? null,
          before: entry.before === undefined ? null : JSON.stringify(entry.before),
          after: entry.after === undefined ? null : JSON.stringify(entry.after),
          request_id: entry.requestId ?? null,
          ip: entry.ip ?? null,
          created_at: deps.clock.now(),
        })
        .execute();
    },

    async list(db, { limit, cursor, organizationId, targetId }) {
      let query = db.selectFrom('audit_log').selectAll();
      if (organizationId) query = query.where('organization_id', '=', organizationId);
      if (targetId) query = query.where('target_id', '=', targetId);
      const pages = deps.cursors.for({
        list: 'audit',
        organizationId: organizationId ?? null,
        filter: targetId ?? null,
      });
      let after: Cursor | undefined;
      if (cursor !== undefined) {
        // Entries are numbered, not prefixed ids; the cursor carries them as `aud_<n>`.
        const decoded = pages.decode(cursor);
        if (!decoded.ok) return decoded;
        const number = decoded.value.id.replace(/^aud_/, '');
        if (!/^\d{1,18}$/.test(number)) return err({ code: 'invalid_cursor' });
        after = { createdAt: decoded.value.createdAt, id: number };
      }
      const rows = await query.$call(keysetPage(after, limit + 1)).execute();
      const page = toPage(rows, limit, (row) => pages.encode(row.created_at, `aud_${row.id}`));
      return ok({
        data: page.data.map((row) => ({
          id: String(row.id),
          actor: row.actor,
          action: row.action,
          targetType: row.target_type,
          targetId: row.target_id,
          organizationId: row.organization_id,
          before: row.before,
          after: row.after,
          requestId: row.request_id,
          ip: row.ip,
          createdAt: row.created_at.toISOString(),
        })),
        nextCursor: page.nextCursor,
      });
    },
  };
}
