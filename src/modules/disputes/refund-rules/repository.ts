import { sql, type RawBuilder } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type {
  DisputeAutoRefundOutcome,
  DisputeAutoRefundRow,
  DisputeRefundRuleKind,
  DisputeRefundRuleRow,
} from '../../../db/schema.js';
import { ownedBy } from '../../../db/scopes.js';
import type { Owner } from '../../../shared/owner.js';

// The auto-refund rules and their queue (migration 0043), and the refund they record on an alert or a
// fraud warning. Only the disputes module reads or writes them.

/** A warning older than this when first seen by the poll (the worker was down) is left to the merchant. */
const WARNING_LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** Rows queued per poll and kind: the rest wait for the next one. */
const QUEUED_PER_POLL = 500;

export function rulesOf(db: Kdb, owner: Owner): Promise<DisputeRefundRuleRow[]> {
  return db.selectFrom('dispute_refund_rules').selectAll().$call(ownedBy(owner)).execute();
}

/** The owner's rule of `kind`; with `lock` (in a transaction), its row locked until the transaction ends. */
export function findRule(
  db: Kdb,
  owner: Owner,
  kind: DisputeRefundRuleKind,
  { lock = false }: { lock?: boolean } = {},
): Promise<DisputeRefundRuleRow | undefined> {
  return db
    .selectFrom('dispute_refund_rules')
    .selectAll()
    .$call(ownedBy(owner))
    .where('kind', '=', kind)
    .$if(lock, (query) => query.forUpdate())
    .executeTakeFirst();
}

export function upsertRule(
  trx: Trx,
  row: {
    organization_id: string;
    environment: Owner['environment'];
    kind: DisputeRefundRuleKind;
    enabled: boolean;
    max_amount: string | null;
    enabled_at: Date | null;
    updated_by: string;
    now: Date;
  },
): Promise<DisputeRefundRuleRow> {
  const { now, ...values } = row;
  const changes = {
    enabled: values.enabled,
    max_amount: values.max_amount,
    enabled_at: values.enabled_at,
    updated_by: values.updated_by,
    updated_at: now,
  };
  return trx
    .insertInto('dispute_refund_rules')
    .values({ ...values, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['organization_id', 'environment', 'kind']).doUpdateSet(changes))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Queues what a rule covers and nothing queued yet, oldest first: the alerts open and not refunded,
 * arrived since the rule was switched on, before their `refundBy` and within the rule's amount; the
 * fraud warnings not refunded, arrived since then and within the lookback. One statement per kind; a row
 * already queued (by another worker) is left as it is.
 */
export async function queueCovered(db: Kdb, now: Date): Promise<number> {
  const queue = async (kind: DisputeRefundRuleKind, covered: RawBuilder<unknown>) => {
    const result = await sql`
      insert into dispute_auto_refunds
        (id, organization_id, environment, kind, charge_id, max_amount, next_attempt_at, created_at, updated_at)
      select s.id, s.organization_id, s.environment, ${kind}, s.charge_id, r.max_amount, ${now}, ${now}, ${now}
      ${covered}
        and not exists (select 1 from dispute_auto_refunds d where d.id = s.id)
      order by s.created_at, s.id
      limit ${QUEUED_PER_POLL}
      on conflict (id) do nothing`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  };
  const alerts = await queue(
    'dispute_alert',
    sql`from dispute_refund_rules r
      join dispute_alerts s
        on s.organization_id = r.organization_id and s.environment = r.environment
        and s.status = 'open' and s.refund_id is null and s.created_at >= r.enabled_at
      where r.kind = 'dispute_alert' and r.enabled and s.refund_by > ${now}
        and (r.max_amount is null or s.amount <= r.max_amount)`,
  );
  const since = new Date(now.getTime() - WARNING_LOOKBACK_MS);
  const warnings = await queue(
    'fraud_warning',
    sql`from dispute_refund_rules r
      join fraud_warnings s
        on s.organization_id = r.organization_id and s.environment = r.environment
        and s.created_at >= greatest(r.enabled_at, ${since}) and s.refund_id is null
      where r.kind = 'fraud_warning' and r.enabled`,
  );
  return alerts + warnings;
}

export function findQueued(db: Kdb, id: string): Promise<DisputeAutoRefundRow | undefined> {
  return db.selectFrom('dispute_auto_refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The end of a queued row: what the rule did, in the transaction that ends its claim. */
export async function recordOutcome(
  trx: Trx,
  id: string,
  outcome: {
    outcome: DisputeAutoRefundOutcome;
    refundId: string | null;
    skipReason: string | null;
    now: Date;
  },
): Promise<void> {
  await trx
    .updateTable('dispute_auto_refunds')
    .set({
      outcome: outcome.outcome,
      refund_id: outcome.refundId,
      skip_reason: outcome.skipReason,
      next_attempt_at: null,
      updated_at: outcome.now,
    })
    .where('id', '=', id)
    .execute();
}

/** The refund made because of an alert or a warning, on its row (the first one recorded stays). */
export async function recordRefundOn(
  trx: Trx,
  subject: { kind: DisputeRefundRuleKind; id: string },
  refundId: string,
  now: Date,
): Promise<void> {
  const table = subject.kind === 'dispute_alert' ? 'dispute_alerts' : 'fraud_warnings';
  await trx
    .updateTable(table)
    .set({ refund_id: refundId, updated_at: now })
    .where('id', '=', subject.id)
    .where('refund_id', 'is', null)
    .execute();
}
