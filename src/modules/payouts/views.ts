import type { Trx } from '../../db/database.js';
import type { EventInput, EventType } from '../events/service.js';
import type { Environment } from '../../db/schema.js';
import type { PayoutServiceDeps } from './deps.js';
import type { PayoutRow } from './model.js';
import type { PayoutActor } from './ports.js';
import { payoutView } from './schemas.js';
import type { Owner } from '../../shared/owner.js';

/** A payout row's owner, as the ledger and the settlement contents name it. */
export function ownerOfRow(row: PayoutRow): Owner {
  return {
    organizationId: row.organization_id,
    environment: row.environment,
  };
}

/** A payout row as the ledger posts it. */
export function ledgerPayout(row: PayoutRow) {
  return {
    id: row.id,
    amount: row.amount,
    spread: row.spread_amount,
    ...ownerOfRow(row),
  };
}

/** The event of `type` about a row (a payout, a settlement batch), its owner's: `data` shows the row. */
export function eventOfRow(
  row: { id: string; organization_id: string; environment: Environment },
  type: EventType,
  data: EventInput['data'],
): EventInput {
  return {
    organizationId: row.organization_id,
    environment: row.environment,
    type,
    resourceId: row.id,
    data,
  };
}

/** Records the payout's event (`payout.created`, `payout.failed`, ...) in its transaction. */
export async function announce(
  deps: Pick<PayoutServiceDeps, 'events'>,
  trx: Trx,
  row: PayoutRow,
  type: EventType,
): Promise<void> {
  await deps.events.record(trx, eventOfRow(row, type, payoutView(row)));
}

/** The audit entry of an operator's command on a payout, in the command's transaction. */
export async function audit(
  deps: Pick<PayoutServiceDeps, 'audit'>,
  trx: Trx,
  by: PayoutActor,
  row: PayoutRow,
  action: string,
  after: Record<string, unknown>,
): Promise<void> {
  await deps.audit.record(trx, {
    actor: by.actor,
    action,
    targetType: 'payout',
    targetId: row.id,
    organizationId: row.organization_id,
    after: { status: row.status, ...after },
    requestId: by.requestId ?? null,
    ip: by.ip ?? null,
  });
}
