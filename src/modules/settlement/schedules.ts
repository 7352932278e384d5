import type { PayoutSchedule } from '../../db/schema.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { Actor, BatchDeps, SettlementCommandError } from './batch-types.js';
import * as settlement from './repository.js';

/**
 * An organization's payout schedule (`daily`: each batch is paid out; `manual`: carried, the funds stay
 * available) and its rolling reserve, read and set by an operator (audited).
 */

export async function scheduleOf(
  deps: Pick<BatchDeps, 'db'>,
  organizationId: string,
): Promise<PayoutSchedule> {
  return (await settlement.findSettings(deps.db, organizationId))?.payout_schedule ?? 'daily';
}

export async function setSchedule(
  deps: BatchDeps,
  organizationId: string,
  schedule: PayoutSchedule,
  by: Actor,
): Promise<Result<PayoutSchedule, SettlementCommandError>> {
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const before = await settlement.lockSettings(trx, organizationId);
      const now = deps.clock.now();
      const row = await settlement.upsertSettings(
        trx,
        {
          organization_id: organizationId,
          payout_schedule: schedule,
          updated_by: by.actor,
          updated_at: now,
        },
        { payout_schedule: schedule, updated_by: by.actor, updated_at: now },
      );
      await deps.audit.record(trx, {
        actor: by.actor,
        action: 'settlement.payout_schedule_set',
        targetType: 'organization',
        targetId: organizationId,
        organizationId,
        before: { payoutSchedule: before?.payout_schedule ?? 'daily' },
        after: { payoutSchedule: row.payout_schedule },
        requestId: by.requestId ?? null,
        ip: by.ip ?? null,
      });
      return ok(row.payout_schedule);
    })
    .catch((error: unknown) => {
      // The settings row references the organization: an unknown one is refused by the database.
      if (isForeignKeyViolation(error)) return err({ code: 'organization_not_found' as const });
      throw error;
    });
}

/** The organization's rolling reserve: basis points of each batch's net, held for `days` days. */
export async function reserveOf(
  deps: Pick<BatchDeps, 'db'>,
  organizationId: string,
): Promise<{ reserveBps: number; days: number }> {
  const settings = await settlement.findSettings(deps.db, organizationId);
  return { reserveBps: settings?.reserve_bps ?? 0, days: settings?.reserve_days ?? 0 };
}

export async function setReserve(
  deps: BatchDeps,
  organizationId: string,
  reserve: { reserveBps: number; days: number },
  by: Actor,
): Promise<Result<{ reserveBps: number; days: number }, SettlementCommandError>> {
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const before = await settlement.lockSettings(trx, organizationId);
      const now = deps.clock.now();
      const changes = {
        reserve_bps: reserve.reserveBps,
        reserve_days: reserve.days,
        updated_by: by.actor,
        updated_at: now,
      };
      const row = await settlement.upsertSettings(
        trx,
        { organization_id: organizationId, ...changes },
        changes,
      );
      await deps.audit.record(trx, {
        actor: by.actor,
        action: 'settlement.reserve_set',
        targetType: 'organization',
        targetId: organizationId,
        organizationId,
        before: { reserveBps: before?.reserve_bps ?? 0, days: before?.reserve_days ?? 0 },
        after: { reserveBps: row.reserve_bps, days: row.reserve_days },
        requestId: by.requestId ?? null,
        ip: by.ip ?? null,
      });
      return ok({ reserveBps: row.reserve_bps, days: row.reserve_days });
    })
    .catch((error: unknown) => {
      if (isForeignKeyViolation(error)) return err({ code: 'organization_not_found' as const });
      throw error;
    });
}
