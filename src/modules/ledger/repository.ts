import { sql } from 'kysely';
import type { Kdb, Trx } from '../../db/database.js';
import { lockUntilCommit } from '../../db/locks.js';
import type { Environment, JournalEntryKind, LedgerAccount } from '../../db/schema.js';
import type { Balance, LedgerOwner } from './model.js';

export interface NewEntry {
  owner: LedgerOwner;
  kind: JournalEntryKind;
  sourceId: string;
  currency: 'TRY';
  /** A charge's or refund's entry: the charge it is about, with its merchant reference. */
  charge?: EntryCharge;
}

/** The charge a credit is about, as its entry recorded it (the settlement's items show both). */
export interface EntryCharge {
  id: string;
  merchantReference: string | null;
}

export interface Posting {
  account: LedgerAccount;
  /** Debit positive, credit negative. */
  amount: bigint;
}

export interface StoredEntry {
  id: string;
  owner: LedgerOwner;
  currency: 'TRY';
  postings: Posting[];
}

/** The organization's own rate for a payment method, or undefined when it has none. */
/**
 * Inserts the entry unless one with its kind and source exists: returns the new id, or undefined when
 * the entry was already there. A concurrent insert of the same entry waits for the first to commit or
 * roll back, so exactly one transaction ever writes it.
 */
export async function insertEntryOnce(trx: Trx, entry: NewEntry, now: Date): Promise<string | undefined> {
  const row = await trx
    .insertInto('journal_entries')
    .values({
      organization_id: entry.owner.organizationId,
      environment: entry.owner.environment,
      kind: entry.kind,
      source_id: entry.sourceId,
      currency: entry.currency,
      created_at: now,
      charge_id: entry.charge?.id ?? null,
      merchant_reference: entry.charge?.merchantReference ?? null,
    })
    .onConflict((oc) => oc.columns(['kind', 'source_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function insertPostings(
  trx: Trx,
  entryId: string,
  entry: NewEntry,
  postings: Posting[],
  now: Date,
): Promise<void> {
  await trx
    .insertInto('ledger_postings')
    .values(
      postings.map((posting) => ({
        entry_id: entryId,
        organization_id: entry.owner.organizationId,
        environment: entry.owner.environment,
        account: posting.account,
        currency: entry.currency,
        amount: posting.amount.toString(),
        created_at: now,
      })),
    )
    .execute();
}

export async function findEntry(
  trx: Trx,
  kind: JournalEntryKind,
  sourceId: string,
): Promise<StoredEntry | undefined> {
  const entry = await trx
    .selectFrom('journal_entries')
    .select(['id', 'organization_id', 'environment', 'currency'])
    .where('kind', '=', kind)
    .where('source_id', '=', sourceId)
    .executeTakeFirst();
  if (!entry) return undefined;
  const postings = await trx
    .selectFrom('ledger_postings')
    .select(['account', 'amount'])
    .where('entry_id', '=', entry.id)
    .orderBy('id')
    .execute();
  return {
    id: entry.id,
    owner: { organizationId: entry.organization_id, environment: entry.environment },
    currency: entry.currency,
    postings: postings.map((posting) => ({ account: posting.account, amount: BigInt(posting.amount) })),
  };
}

/** An entry with its postings, as the dashboard's charge page lists them. */
export interface EntryLines {
  id: string;
  kind: JournalEntryKind;
  sourceId: string;
  currency: 'TRY';
  createdAt: Date;
  postings: Array<{ account: LedgerAccount; amount: string }>;
}

/**
 * The owner's entries of these (kind, source) pairs, oldest first, with their postings in the order they
 * were written. An entry of another owner is never returned, whatever its source.
 */
export async function findEntriesOf(
  db: Kdb,
  owner: LedgerOwner,
  sources: ReadonlyArray<{ kind: JournalEntryKind; sourceId: string }>,
): Promise<EntryLines[]> {
  if (sources.length === 0) return [];
  const entries = await db
    .selectFrom('journal_entries')
    .select(['id', 'kind', 'source_id', 'currency', 'created_at'])
    .where('organization_id', '=', owner.organizationId)
    .where('environment', '=', owner.environment)
    .where((eb) =>
      eb.or(
        sources.map((source) =>
          eb.and([eb('kind', '=', source.kind), eb('source_id', '=', source.sourceId)]),
        ),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (entries.length === 0) return [];
  const postings = await db
    .selectFrom('ledger_postings')
    .select(['entry_id', 'account', 'amount'])
    .where(
      'entry_id',
      'in',
      entries.map((entry) => entry.id),
    )
    .orderBy('id')
    .execute();
  return entries.map((entry) => ({
    id: entry.id,
    kind: entry.kind,
    sourceId: entry.source_id,
    currency: entry.currency,
    createdAt: entry.created_at,
    postings: postings
      .filter((posting) => posting.entry_id === entry.id)
      .map((posting) => ({ account: posting.account, amount: String(posting.amount) })),
  }));
}

/**
 * Serialises, until the end of the caller's transaction, the writers that can lower one owner's pending
 * balance (refunds today, settlement later), so that each sees the balance the previous one left.
 */
export async function lockPendingBalance(trx: Trx, owner: LedgerOwner, currency: 'TRY'): Promise<void> {
  await lockUntilCommit(trx, `ledger-pending:${owner.organizationId}:${owner.environment}:${currency}`);
}

/**
 * Serialises, until the end of the caller's transaction, the writers that lower one owner's available
 * balance (payouts), so that concurrent payouts can never together spend more than is available.
 */
export async function lockAvailableBalance(trx: Trx, owner: LedgerOwner, currency: 'TRY'): Promise<void> {
  await lockUntilCommit(trx, `ledger-available:${owner.organizationId}:${owner.environment}:${currency}`);
}

/**
 * The signed balances (debits positive) of an owner's accounts in one currency: each account's checkpoint
 * plus its postings written at or above the checkpoint's horizon (migration 0017), in one statement, so
 * one snapshot sees both. The cost is the postings since the last checkpoint, not the owner's history.
 * An account without a checkpoint has no posting below the last run's horizon (each run writes a
 * checkpoint for every account with postings below it), so its postings are read from that horizon.
 */
async function accountBalances(
  db: Kdb,
  owner: LedgerOwner,
  accounts: readonly LedgerAccount[],
  currency: 'TRY',
): Promise<Map<LedgerAccount, bigint>> {
  // Each account's checkpoint, and where its postings since start (two statements: any checkpoint run
  // committing between them leaves a correct answer, since postings are only ever added and a checkpoint
  // row's balance and horizon change together).
  const keys = sql.join(accounts.map((account) => sql`(${account})`));
  const starts = await sql<{ account: LedgerAccount; balance: string | null; since: string }>`
    select a.account, c.balance::text as balance,
      coalesce(c.covers_before, h.covers_before, '0'::xid8)::text as since
    from (values ${keys}) as a (account)
    left join ledger_checkpoint_horizon h on true
    left join ledger_balance_checkpoints c
      on c.organization_id = ${owner.organizationId} and c.environment = ${owner.environment}
        and c.account = a.account and c.currency = ${currency}`.execute(db);
  const balances = new Map<LedgerAccount, bigint>(
    starts.rows.map((row) => [row.account, BigInt(row.balance ?? '0')]),
  );
  // The postings since, each account from its own horizon: one range of the balance index per account.
  const ranges = sql.join(
    starts.rows.map((row) => sql`(account = ${row.account} and written_by >= ${row.since}::xid8)`),
    sql` or `,
  );
  const tails = await sql<{ account: LedgerAccount; amount: string }>`
    select account, sum(amount)::text as amount from ledger_postings
    where organization_id = ${owner.organizationId} and environment = ${owner.environment}
      and currency = ${currency} and (${ranges})
    group by account`.execute(db);
  for (const row of tails.rows)
    balances.set(row.account, (balances.get(row.account) ?? 0n) + BigInt(row.amount));
  return balances;
}

/** What the merchant is owed on one of its accounts (credit balances, shown positive), as decimal text. */
async function owed(db: Kdb, owner: LedgerOwner, account: LedgerAccount, currency: 'TRY'): Promise<string> {
  const balances = await accountBalances(db, owner, [account], currency);
  return (-(balances.get(account) ?? 0n)).toString();
}

/** The owner's available balance in one currency (what `merchant_available` owes it), as decimal text. */
export async function sumAvailable(db: Kdb, owner: LedgerOwner, currency: 'TRY'): Promise<string> {
  return owed(db, owner, 'merchant_available', currency);
}

/** The owner's pending balance in one currency (what the merchant is owed), as decimal text. */
export async function sumPending(db: Kdb, owner: LedgerOwner, currency: 'TRY'): Promise<string> {
  return owed(db, owner, 'merchant_pending', currency);
}

/**
 * Moves every checkpoint to the oldest transaction still running: the postings written since the last
 * horizon are added to their accounts' checkpoints, in the caller's transaction (one run at a time, under
 * its lock). Returns the number of accounts moved. A key with no posting since the last horizon keeps its
 * checkpoint: nothing lies between it and the new horizon.
 */
export async function advanceCheckpoints(trx: Trx, now: Date): Promise<number> {
  await lockUntilCommit(trx, 'ledger-checkpoints');
  const horizon = (
    await sql<{ h: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as h`.execute(trx)
  ).rows[0]?.h;
  if (horizon === undefined) throw new Error('no snapshot horizon');
  const previous =
    (await trx.selectFrom('ledger_checkpoint_horizon').select('covers_before').executeTakeFirst())
      ?.covers_before ?? '0';
  if (BigInt(previous) >= BigInt(horizon)) return 0;
  const moved = await sql`
    insert into ledger_balance_checkpoints as c
      (organization_id, environment, account, currency, balance, covers_before, updated_at)
    select organization_id, environment, account, currency, sum(amount), ${horizon}::xid8, ${now}
    from ledger_postings
    where written_by >= ${previous}::xid8 and written_by < ${horizon}::xid8
    group by organization_id, environment, account, currency
    on conflict (organization_id, environment, account, currency) do update
      set balance = c.balance + excluded.balance,
          covers_before = excluded.covers_before,
          updated_at = excluded.updated_at`.execute(trx);
  await trx
    .insertInto('ledger_checkpoint_horizon')
    .values({ covers_before: horizon, updated_at: now })
    .onConflict((oc) => oc.column('singleton').doUpdateSet({ covers_before: horizon, updated_at: now }))
    .execute();
  return Number(moved.numAffectedRows ?? 0n);
}

/** Every owner whose pending balance is below zero, deepest debt first. */
export async function findNegativePending(
  db: Kdb,
  limit: number,
): Promise<Array<LedgerOwner & { currency: 'TRY'; pending: string }>> {
  const rows = await db
    .selectFrom('ledger_postings')
    .select(['organization_id', 'environment', 'currency'])
    .select(sql<string>`(-sum(amount))::text`.as('pending'))
    .where('account', '=', 'merchant_pending')
    .groupBy(['organization_id', 'environment', 'currency'])
    .having(sql<boolean>`sum(amount) > 0`)
    .orderBy(sql`sum(amount)`, 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    organizationId: row.organization_id,
    environment: row.environment,
    currency: row.currency,
    pending: row.pending,
  }));
}

/**
 * What the merchant is owed, in each of its accounts. Those accounts carry credit balances (negative
 * sums), shown positive; decimal text. From the checkpoints and the postings since (`accountBalances`).
 */
export async function sumMerchantBalances(
  db: Kdb,
  owner: LedgerOwner,
  currency: 'TRY',
): Promise<Omit<Balance, 'debt'>> {
  const balances = await accountBalances(
    db,
    owner,
    ['merchant_pending', 'merchant_available', 'merchant_in_transit', 'merchant_reserve'],
    currency,
  );
  const shown = (account: LedgerAccount) => (-(balances.get(account) ?? 0n)).toString();
  return {
    currency,
    pending: shown('merchant_pending'),
    available: shown('merchant_available'),
    inTransit: shown('merchant_in_transit'),
    reserve: shown('merchant_reserve'),
  };
}

/** A charge or refund entry as settlement releases it (TRY minor units, decimal text). */
export interface PendingCredit {
  kind: 'charge_succeeded' | 'refund';
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

/** The owner's charge and refund entries created in (after, upTo], oldest first. */
export async function findPendingCredits(
  trx: Trx,
  owner: LedgerOwner,
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
    .where('e.organization_id', '=', owner.organizationId)
    .where('e.environment', '=', owner.environment)
    .where('e.kind', 'in', ['charge_succeeded', 'refund'])
    .where('e.created_at', '>', after)
    .where('e.created_at', '<=', upTo)
    .groupBy(['e.id', 'e.kind', 'e.source_id', 'e.created_at', 'e.charge_id', 'e.merchant_reference'])
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
  return rows.map((row) => ({
    kind: row.kind as PendingCredit['kind'],
    sourceId: row.source_id,
    createdAt: new Date(row.created_at),
    gross: row.gross,
    fee: row.fee,
    net: row.net,
    ...chargeOfEntry(row),
  }));
}

/** The owners with charge or refund entries created in (after, upTo]: whom a settlement batch run visits. */
export async function findOwnersWithCredits(db: Kdb, after: Date, upTo: Date): Promise<LedgerOwner[]> {
  const rows = await db
    .selectFrom('journal_entries')
    .select(['organization_id', 'environment'])
    .distinct()
    .where('kind', 'in', ['charge_succeeded', 'refund'])
    .where('created_at', '>', after)
    .where('created_at', '<=', upTo)
    .orderBy('organization_id')
    .orderBy('environment')
    .execute();
  return rows.map((row) => ({ organizationId: row.organization_id, environment: row.environment }));
}

/**
 * What went through acquirer clearing: each charge credit and refund entry, with its gross amount
 * (positive: the charge, or the refunded amount) and when it was booked. Reconciliation's ledger side.
 */
export interface ClearingMovement {
  kind: 'charge_succeeded' | 'refund';
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
    .where('e.kind', 'in', ['charge_succeeded', 'refund'])
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
  owner: LedgerOwner,
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
    .where('e.organization_id', '=', owner.organizationId)
    .where('e.environment', '=', owner.environment)
    .groupBy('e.source_id')
    .execute();
  return new Map(rows.map((row) => [row.source_id, { fee: row.fee, net: row.net }]));
}

// The set-based forms the settlement batch uses for a chunk of owners (docs/decisions/0041).

/**
 * Takes advisory locks of these keys until the end of the caller's transaction, in the order given (the
 * caller sorts them: two transactions taking overlapping sets in the same order never deadlock).
 */
export async function lockKeys(trx: Trx, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql`select count(pg_advisory_xact_lock(hashtextextended(t.key, 0)))
    from jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) with ordinality as t (key, n)`.execute(
    trx,
  );
}

export const pendingLockKey = (owner: LedgerOwner, currency: 'TRY') =>
  `ledger-pending:${owner.organizationId}:${owner.environment}:${currency}`;
export const availableLockKey = (owner: LedgerOwner, currency: 'TRY') =>
  `ledger-available:${owner.organizationId}:${owner.environment}:${currency}`;

/**
 * Each owner's balance of one account (signed, debits positive) from its checkpoint and the postings
 * since, as `accountBalances` reads one owner's, in one statement (one snapshot).
 */
export async function accountBalanceOf(
  db: Kdb,
  owners: readonly LedgerOwner[],
  account: LedgerAccount,
  currency: 'TRY',
): Promise<Map<string, bigint>> {
  if (owners.length === 0) return new Map();
  const list = JSON.stringify(owners.map((owner) => ({ o: owner.organizationId, e: owner.environment })));
  const rows = await sql<{ o: string; e: Environment; balance: string }>`
    select w.o, w.e, (coalesce(c.balance, 0) + coalesce((
      select sum(p.amount) from ledger_postings p
      where p.organization_id = w.o and p.environment = w.e and p.currency = ${currency}
        and p.account = ${account}
        and p.written_by >= coalesce(c.covers_before, h.covers_before, '0'::xid8)
    ), 0))::text as balance
    from jsonb_to_recordset(${list}::jsonb) as w (o text, e text)
    left join ledger_checkpoint_horizon h on true
    left join ledger_balance_checkpoints c
      on c.organization_id = w.o and c.environment = w.e and c.account = ${account}
        and c.currency = ${currency}`.execute(db);
  return new Map(rows.rows.map((row) => [`${row.o}:${row.e}`, BigInt(row.balance)]));
}

/**
 * New entries of one kind with their postings, set-based: each entry is inserted unless one with its kind
 * and source exists. Returns the sources whose entry this call wrote (the caller checks it wrote all).
 */
export async function insertEntriesWithPostings(
  trx: Trx,
  kind: JournalEntryKind,
  entries: ReadonlyArray<{ owner: LedgerOwner; sourceId: string; postings: Posting[] }>,
  currency: 'TRY',
  now: Date,
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const list = JSON.stringify(
    entries.map((entry) => ({
      o: entry.owner.organizationId,
      e: entry.owner.environment,
      s: entry.sourceId,
      p: entry.postings
        .filter((posting) => posting.amount !== 0n)
        .map((posting) => ({ a: posting.account, m: posting.amount.toString() })),
    })),
  );
  const rows = await sql<{ source_id: string }>`
    with w as (
      select * from jsonb_to_recordset(${list}::jsonb) as w (o text, e text, s text, p jsonb)
    ),
    e as (
      insert into journal_entries (organization_id, environment, kind, source_id, currency, created_at)
      select w.o, w.e, ${kind}, w.s, ${currency}, ${now} from w
      on conflict (kind, source_id) do nothing
      returning id, source_id
    ),
    p as (
      insert into ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
      select e.id, w.o, w.e, l.v ->> 'a', ${currency}, (l.v ->> 'm')::bigint, ${now}
      from e join w on w.s = e.source_id
      cross join lateral jsonb_array_elements(w.p) with ordinality as l (v, n)
      order by e.id, l.n
    )
    select source_id from e`.execute(trx);
  return new Set(rows.rows.map((row) => row.source_id));
}

/** Each owner's charge and refund entries created in (its `after`, upTo], oldest first, with the owner. */
export async function findPendingCreditsOf(
  trx: Trx,
  owners: ReadonlyArray<LedgerOwner & { after: Date }>,
  upTo: Date,
): Promise<Array<PendingCredit & LedgerOwner>> {
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
    where e.kind in ('charge_succeeded', 'refund')
    order by e.created_at, e.id`.execute(trx);
  return rows.rows.map((row) => ({
    organizationId: row.organization_id,
    environment: row.environment,
    kind: row.kind,
    sourceId: row.source_id,
    createdAt: new Date(row.created_at),
    gross: row.gross,
    fee: row.fee,
    net: row.net,
    ...chargeOfEntry(row),
  }));
}
