import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';

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

export interface AuditLog {
  /** Appends one entry, inside the caller's transaction when one is given. */
  record(db: Kdb, entry: AuditEntry): Promise<void>;
}

export function createAuditLog(deps: { clock: Clock }): AuditLog {
  return {
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
  };
}
