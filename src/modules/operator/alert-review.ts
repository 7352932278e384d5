import type { Kdb } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { alertView as view, type OperatorAlertView } from './alert-view.js';
import type { AlertError } from './errors.js';

/** The alerts, newest first (only the open ones with `open`), cursor paged by id. */
export async function listAlerts(
  { db }: { db: Kdb },
  { limit, cursor, open }: { limit: number; cursor?: string | undefined; open?: boolean | undefined },
): Promise<Result<{ data: OperatorAlertView[]; nextCursor: string | null }, AlertError>> {
  let query = db
    .selectFrom('operator_alerts')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1);
  if (open) query = query.where('acknowledged_at', 'is', null);
  if (cursor !== undefined) {
    if (!/^\d{1,18}$/.test(cursor)) return err({ code: 'invalid_alert_cursor' });
    // Alert ids grow with time; the page after an id holds the older ones.
    query = query.where('id', '<', cursor);
  }
  const rows = await query.execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return ok({
    data: page.map(view),
    nextCursor: rows.length > limit && last ? String(last.id) : null,
  });
}

/** Acknowledges an open alert (audited); an acknowledged one answers as it is. */
export async function acknowledgeAlert(
  { db, clock, audit }: { db: Kdb; clock: Clock; audit: AuditLog },
  id: string,
  by: { actor: string; requestId?: string | null; ip?: string | null },
): Promise<Result<OperatorAlertView, AlertError>> {
  if (!/^\d{1,18}$/.test(id)) return err({ code: 'alert_not_found', id });
  return db.transaction().execute(async (trx): Promise<Result<OperatorAlertView, AlertError>> => {
    const row = await trx
      .updateTable('operator_alerts')
      .set({ acknowledged_at: clock.now(), acknowledged_by: by.actor })
      .where('id', '=', id)
      .where('acknowledged_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      const existing = await trx
        .selectFrom('operator_alerts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!existing) return err({ code: 'alert_not_found', id });
      return ok(view(existing));
    }
    await audit.record(trx, {
      ...by,
      action: 'alert.acknowledged',
      targetType: 'alert',
      targetId: String(row.id),
      organizationId: row.organization_id,
      after: { kind: row.kind, subjectId: row.subject_id },
    });
    return ok(view(row));
  });
}
