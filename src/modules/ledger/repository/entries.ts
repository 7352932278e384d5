/** Journal entries and their postings: written once per (kind, source), read back whole. */
import { sql } from 'kysely';
import type { Kdb, Trx } from '../../../db/database.js';
import type { JournalEntryKind, LedgerAccount } from '../../../db/schema.js';
import { ownedBy, ownerColumns } from '../../../db/scopes.js';
import type { Owner } from '../../../shared/owner.js';

export interface NewEntry {
  owner: Owner;
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
  owner: Owner;
  currency: 'TRY';
  postings: Posting[];
}

/**
 * Inserts the entry unless one with its kind and source exists: returns the new id, or undefined when
 * the entry was already there. A concurrent insert of the same entry waits for the first to commit or
 * roll back, so exactly one transaction ever writes it.
 */
export async function insertEntryOnce(trx: Trx, entry: NewEntry, now: Date): Promise<string | undefined> {
  const row = await trx
    .insertInto('journal_entries')
    .values({
      ...ownerColumns(entry.owner),
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
        ...ownerColumns(entry.owner),
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
  owner: Owner,
  sources: ReadonlyArray<{ kind: JournalEntryKind; sourceId: string }>,
): Promise<EntryLines[]> {
  if (sources.length === 0) return [];
  const entries = await db
    .selectFrom('journal_entries')
    .select(['id', 'kind', 'source_id', 'currency', 'created_at'])
    .$call(ownedBy(owner))
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
 * New entries of one kind with their postings, set-based: each entry is inserted unless one with its kind
 * and source exists. Returns the sources whose entry this call wrote (the caller checks it wrote all).
 */
export async function insertEntriesWithPostings(
  trx: Trx,
  kind: JournalEntryKind,
  entries: ReadonlyArray<{ owner: Owner; sourceId: string; postings: Posting[] }>,
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
