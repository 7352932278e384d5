import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import type { Kdb } from '../../db/database.js';
import type { Environment, OperatorAlertKind } from '../../db/schema.js';
import type { AlertRaiser, NewOperatorAlert } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import type { AlertError } from './errors.js';

export const OperatorAlertViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.Enum([
    'notification_mismatch',
    'negative_pending_balance',
    'job_parked',
    'settlement_held',
    'reconciliation_differences',
    'refund_mismatch',
    'payout_sent_not_pending',
  ]),
  organizationId: Type.Union([Type.String(), Type.Null()]),
  environment: Type.Union([Type.Enum(['sandbox', 'live']), Type.Null()]),
  subjectId: Type.String(),
  chargeId: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  details: Type.Unknown(),
  createdAt: Type.String({ format: 'date-time' }),
  acknowledgedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  acknowledgedBy: Type.Union([Type.String(), Type.Null()]),
});
export type OperatorAlertView = Static<typeof OperatorAlertViewSchema>;

/**
 * Money problems an operator must look at (docs/decisions/0013 and 0014): a refused provider
 * notification, a pending balance driven below zero. Raised inside the transaction that found the
 * problem, once per kind and subject, with an audit entry and a log line at `warn`.
 */
export interface OperatorAlerts extends AlertRaiser {
  list(filter: {
    limit: number;
    cursor?: string | undefined;
    open?: boolean | undefined;
  }): Promise<Result<{ data: OperatorAlertView[]; nextCursor: string | null }, AlertError>>;
  acknowledge(
    id: string,
    by: { actor: string; requestId?: string | null; ip?: string | null },
  ): Promise<Result<OperatorAlertView, AlertError>>;
}

export function createOperatorAlerts(deps: {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  logger: Logger;
}): OperatorAlerts {
  const { db, clock, audit, logger } = deps;

  const view = (row: {
    id: string;
    kind: OperatorAlertKind;
    organization_id: string | null;
    environment: Environment | null;
    subject_id: string;
    charge_id: string | null;
    message: string;
    details: unknown;
    created_at: Date;
    acknowledged_at: Date | null;
    acknowledged_by: string | null;
  }): OperatorAlertView => ({
    id: String(row.id),
    kind: row.kind,
    organizationId: row.organization_id,
    environment: row.environment,
    subjectId: row.subject_id,
    chargeId: row.charge_id,
    message: row.message,
    details: row.details,
    createdAt: row.created_at.toISOString(),
    acknowledgedAt: row.acknowledged_at?.toISOString() ?? null,
    acknowledgedBy: row.acknowledged_by,
  });

  return {
    async raise(trx, alert) {
      const inserted = await trx
        .insertInto('operator_alerts')
        .values({
          kind: alert.kind,
          organization_id: alert.organizationId,
          environment: alert.environment,
          subject_id: alert.subjectId,
          charge_id: alert.chargeId ?? null,
          message: alert.message,
          details: JSON.stringify(alert.details),
          created_at: clock.now(),
          acknowledged_at: null,
          acknowledged_by: null,
        })
        .onConflict((conflict) => conflict.columns(['kind', 'subject_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      await audit.record(trx, {
        actor: 'system',
        action: `alert.${alert.kind}`,
        targetType: alert.chargeId ? 'charge' : 'alert',
        targetId: alert.chargeId ?? String(inserted.id),
        organizationId: alert.organizationId,
        after: { alertId: String(inserted.id), subjectId: alert.subjectId, ...alert.details },
      });
      logger.warn(
        {
          alertId: String(inserted.id),
          kind: alert.kind,
          organizationId: alert.organizationId,
          environment: alert.environment,
          subjectId: alert.subjectId,
          chargeId: alert.chargeId ?? null,
          details: alert.details,
        },
        `operator alert: ${alert.message}`,
      );
      return true;
    },

    async list({ limit, cursor, open }) {
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
    },

    async acknowledge(id, by) {
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
    },
  };
}
