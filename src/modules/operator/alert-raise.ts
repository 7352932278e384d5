import type { Logger } from 'pino';
import type { Trx } from '../../db/database.js';
import type { NewOperatorAlert } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditLog } from '../audit/service.js';

/**
 * Raises an alert inside the transaction that found the problem, once per kind and subject, with an
 * audit entry and a log line at `warn`. True when this call raised it.
 */
export async function raiseAlert(
  { clock, audit, logger }: { clock: Clock; audit: AuditLog; logger: Logger },
  trx: Trx,
  alert: NewOperatorAlert,
): Promise<boolean> {
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
}
