import { sql, type ExpressionBuilder } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type { DB, Environment } from '../../../db/schema.js';
import { ownedBy } from '../../../db/scopes.js';
import type { EntryCharge } from './entries.js';
import type { Owner } from '../../../shared/owner.js';

/**
 * The kinds of entry a settlement batch releases: charges and refunds, and since migration 0039 the
 * dispute entries (funds withdrawn and reinstated, fees and their return), so that a dispute's debit is
 * netted in the batch like a refund's, never paid out around.
 */
export const CREDIT_KINDS = [
  'charge_succeeded',
  'refund',
  'dispute_funds_withdrawn',
  'dispute_funds_reinstated',
  'dispute_fee',
  'dispute_fee_returned',
  'debt_recovered',
] as const;

/** A charge, refund or dispute entry as settlement releases it (TRY minor units, decimal text). */
export interface PendingCredit {
  kind: (typeof CREDIT_KINDS)[number];
  sourceId: string;
  createdAt: Date;
  /** Gross: the charge amount, or minus the refund. */
  gross: string;
  fee: string;
  /** What the entry credited to pending (negative for a refund). */
  net: string;
  /** The charge, as the entry recorded it; absent on entries written before migration 0029. */
  charge?: EntryCharge;
}

/** `PendingCredit.charge` from an entry's columns. */
const chargeOfEntry = (row: {
  charge_id: string | null;
  merchant_reference: string | null;
}): { charge?: EntryCharge } =>
  row.charge_id === null ? {} : { charge: { id: row.charge_id, merchantReference: row.merchant_reference } };

/** A `PendingCredit` from an entry's columns and its sums. */
const creditOfRow = (row: {
  kind: string;
  source_id: string;
  created_at: Date | string;
  charge_id: string | null;
  merchant_reference: string | null;
  gross: string;
  fee: string;
  net: string;
}): PendingCredit => ({
  kind: row.kind as PendingCredit['kind'],
  sourceId: row.source_id,
  createdAt: new Date(row.created_at),
  gross: row.gross,
  fee: row.fee,
  net: row.net,
  ...chargeOfEntry(row),
});

/**
 * The charge and refund entries (`e`) created in (after, upTo]: what a settlement batch of that window
 * releases, and so the owners its run visits.
 */
const creditsIn =
  (after: Date, upTo: Date) => (eb: ExpressionBuilder<DB & { e: DB['journal_entries'] }, 'e'>) =>
    eb.and([
      eb('e.kind', 'in', CREDIT_KINDS),
      eb('e.created_at', '>', after),
      eb('e.created_at', '<=', upTo),
    ]);

/** The owner's charge and refund entries created in (after, upTo], oldest first. */
export async function findPendingCredits(
  trx: Trx,
  owner: Owner,
  after: Date,
  upTo: Date,
): Promise<PendingCredit[]> {
  const rows = await trx
    .selectFrom('journal_entries as e')
    .innerJoin('ledger_postings as p', 'p.entry_id', 'e.id')
    .select(['e.kind', 'e.source_id', 'e.created_at', 'e.charge_id', 'e.merchant_reference'])
    .select(
      sql<string>`(coalesce(sum(p.amount) filter (where p.account = 'acquirer_clearing'), 0))::text`.as(
        'gross',
      ),
    )
    .select(
      sql<string>`(coalesce(-sum(p.amount) filter (where p.account = 'fee_revenue'), 0))::text`.as('fee'),
    )
    .select(
      sql<string>`(coalesce(-sum(p.amount) filter (where p.account = 'merchant_pending'), 0))::text`.as(
        'net',
      ),
    )
    .$call(ownedBy(owner, 'e'))
    .where(creditsIn(after, upTo))
    .groupBy(['e.id', 'e.kind', 'e.source_id', 'e.created_at', 'e.charge_id', 'e.merchant_reference'])
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  return rows.map(creditOfRow);
}

/** The owners with charge or refund entries created in (after, upTo]: whom a settlement batch run visits. */
export async function findOwnersWithCredits(db: Kdb, after: Date, upTo: Date): Promise<Owner[]> {
  const rows = await db
    .selectFrom('journal_entries as e')
    .select(['e.organization_id', 'e.environment'])
    .distinct()
    .where(creditsIn(after, upTo))
    .orderBy('e.organization_id')
    .orderBy('e.environment')
    .execute();
  return rows.map((row) => ({ organizationId: row.organization_id, environment: row.environment }));
}

/** The fee and net of a succeeded charge as its entry recorded them, decimal text of TRY minor units. */
export interface ChargeFee {
  fee: string;
  net: string;
}

/**
 * The fee and net of each of these charges of one owner that has a `charge_succeeded` entry (a charge that
 * never succeeded has none), by charge id.
 */
export async function findChargeFees(
  db: Kdb,
  owner: Owner,
  chargeIds: readonly string[],
): Promise<Map<string, ChargeFee>> {
  if (chargeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('journal_entries as e')
    .innerJoin('ledger_postings as p', 'p.entry_id', 'e.id')
    .select('e.source_id')
    .select(
      sql<string>`(coalesce(-sum(p.amount) filter (where p.account = 'fee_revenue'), 0))::text`.as('fee'),
    )
    .select(
      sql<string>`(coalesce(-sum(p.amount) filter (where p.account = 'merchant_pending'), 0))::text`.as(
        'net',
      ),
    )
    .where('e.kind', '=', 'charge_succeeded')
    .where('e.source_id', 'in', [...chargeIds])
    .$call(ownedBy(owner, 'e'))
    .groupBy('e.source_id')
    .execute();
  return new Map(rows.map((row) => [row.source_id, { fee: row.fee, net: row.net }]));
}

/** Each owner's charge and refund entries created in (its `after`, upTo], oldest first, with the owner. */
export async function findPendingCreditsOf(
  trx: Trx,
  owners: ReadonlyArray<Owner & { after: Date }>,
  upTo: Date,
): Promise<Array<PendingCredit & Owner>> {
  if (owners.length === 0) return [];
  const list = JSON.stringify(
    owners.map((owner) => ({ o: owner.organizationId, e: owner.environment, a: owner.after.toISOString() })),
  );
  const rows = await sql<{
    organization_id: string;
    environment: Environment;
    kind: PendingCredit['kind'];
    source_id: string;
    created_at: Date;
    charge_id: string | null;
    merchant_reference: string | null;
    gross: string;
    fee: string;
    net: string;
  }>`
    select e.organization_id, e.environment, e.kind, e.source_id, e.created_at, e.charge_id,
      e.merchant_reference, s.gross, s.fee, s.net
    from jsonb_to_recordset(${list}::jsonb) as w (o text, e text, a timestamptz)
    join journal_entries e on e.organization_id = w.o and e.environment = w.e
      and e.created_at > w.a and e.created_at <= ${upTo}
    -- Each entry's own postings summed beside it: no sort and grouping of every posting of the chunk
    -- (60 000 rows for 200 owners of 100 charges, spilled to disk at the default work_mem).
    cross join lateral (
      select (coalesce(sum(p.amount) filter (where p.account = 'acquirer_clearing'), 0))::text as gross,
        (coalesce(-sum(p.amount) filter (where p.account = 'fee_revenue'), 0))::text as fee,
        (coalesce(-sum(p.amount) filter (where p.account = 'merchant_pending'), 0))::text as net
      from ledger_postings p where p.entry_id = e.id
    ) s
    where e.kind in (${sql.join([...CREDIT_KINDS])})
    order by e.created_at, e.id`.execute(trx);
  return rows.rows.map((row) => ({
    organizationId: row.organization_id,
    environment: row.environment,
    ...creditOfRow(row),
  }));
}
