import { sql } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { Environment } from '../../../db/schema.js';

/**
 * The entries that move acquirer clearing, each a line of the acquirer's settlement report: charges,
 * refunds, and the funds a dispute withdrew or reinstated (migration 0039; a dispute's fee is ours alone).
 */
export const CLEARING_KINDS = [
  'charge_succeeded',
  'refund',
  'dispute_funds_withdrawn',
  'dispute_funds_reinstated',
] as const;

/**
 * What went through acquirer clearing: each charge credit, refund and dispute funds entry, with its gross
 * amount (positive: the charge, the refunded, withdrawn or reinstated amount) and when it was booked.
 * Reconciliation's ledger side.
 */
export interface ClearingMovement {
  kind: (typeof CLEARING_KINDS)[number];
  sourceId: string;
  organizationId: string;
  environment: Environment;
  amount: bigint;
  bookedAt: Date;
}

const clearingMovements = (db: Kdb) =>
  db
    .selectFrom('journal_entries as e')
    .innerJoin('ledger_postings as p', 'p.entry_id', 'e.id')
    .select(['e.kind', 'e.source_id', 'e.organization_id', 'e.environment', 'e.created_at'])
    .select(sql<string>`(abs(sum(p.amount)))::text`.as('amount'))
    .where('p.account', '=', 'acquirer_clearing')
    .groupBy(['e.id', 'e.kind', 'e.source_id', 'e.organization_id', 'e.environment', 'e.created_at']);

function movementOf(row: {
  kind: string;
  source_id: string;
  organization_id: string;
  environment: Environment;
  created_at: Date;
  amount: string;
}): ClearingMovement {
  return {
    kind: row.kind as ClearingMovement['kind'],
    sourceId: row.source_id,
    organizationId: row.organization_id,
    environment: row.environment,
    amount: BigInt(row.amount),
    bookedAt: new Date(row.created_at),
  };
}

/** An environment's clearing movements booked in [from, to), oldest first. */
export async function findClearingMovements(
  db: Kdb,
  environment: Environment,
  from: Date,
  to: Date,
): Promise<ClearingMovement[]> {
  const rows = await clearingMovements(db)
    .where('e.environment', '=', environment)
    .where('e.kind', 'in', CLEARING_KINDS)
    .where('e.created_at', '>=', from)
    .where('e.created_at', '<', to)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  return rows.map(movementOf);
}

/** The clearing movements of these charges or refunds, whenever they were booked. */
export async function findClearingMovementsOf(
  db: Kdb,
  kind: ClearingMovement['kind'],
  sourceIds: readonly string[],
): Promise<ClearingMovement[]> {
  if (sourceIds.length === 0) return [];
  const rows = await clearingMovements(db)
    .where('e.kind', '=', kind)
    .where('e.source_id', 'in', [...sourceIds])
    .execute();
  return rows.map(movementOf);
}
