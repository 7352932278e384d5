import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { AlertRaiser } from '../../shared/alerts.js';
import type { Clock } from '../../shared/clock.js';
import type { Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { raiseAlert } from './alert-raise.js';
import { acknowledgeAlert, listAlerts } from './alert-review.js';
import type { OperatorAlertView } from './alert-view.js';
import type { AlertError } from './errors.js';

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
  return {
    raise: (trx, alert) => raiseAlert(deps, trx, alert),
    list: (filter) => listAlerts(deps, filter),
    acknowledge: (id, by) => acknowledgeAlert(deps, id, by),
  };
}
