import type { Trx } from '../../db/database.js';
import type { JournalEntryKind } from '../../db/schema.js';
import {
  findEntry,
  insertEntriesWithPostings,
  insertEntryOnce,
  insertPostings,
  type NewEntry,
  type Posting,
  type StoredEntry,
} from './repository/entries.js';
import type { LedgerDeps } from './types.js';
import type { Owner } from '../../shared/owner.js';

// The helpers every posting use case of the ledger shares.

export const CURRENCY = 'TRY';
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * Writes the entry and its postings unless the entry exists. The postings are built only once the
 * entry is ours, so a repeated call costs one conflicting insert and one read.
 */
export async function postOnce(
  deps: Pick<LedgerDeps, 'clock'>,
  trx: Trx,
  entry: NewEntry,
  postings: () => Promise<Posting[]>,
): Promise<{ created: true; postings: Posting[] } | { created: false; existing: StoredEntry }> {
  if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
  const now = deps.clock.now();
  const entryId = await insertEntryOnce(trx, entry, now);
  if (entryId === undefined) {
    const existing = await findEntry(trx, entry.kind, entry.sourceId);
    if (!existing)
      throw new Error(`journal entry ${entry.kind} ${entry.sourceId} conflicted but is not visible`);
    assertSameOwner(existing, entry);
    return { created: false, existing };
  }
  const lines = (await postings()).filter((posting) => posting.amount !== 0n);
  await insertPostings(trx, entryId, entry, lines, now);
  return { created: true, postings: lines };
}

export function newEntry(owner: Owner, kind: JournalEntryKind, sourceId: string): NewEntry {
  return {
    owner: { organizationId: owner.organizationId, environment: owner.environment },
    kind,
    sourceId,
    currency: CURRENCY,
  };
}

/**
 * What a post checks before it takes a lock: `item`'s amount (`parseAmount`), and that it runs in the
 * caller's transaction.
 */
export function checkedPost(trx: Trx, item: { amount: string }, what: string): bigint {
  const amount = parseAmount(item.amount, what);
  if (!trx.isTransaction) throw new Error('ledger entries must be written inside the caller transaction');
  return amount;
}

/** Amounts arrive as the decimal strings of bigint columns; anything else is a caller's bug. */
export function parseAmount(value: string, what: string): bigint {
  if (!/^[1-9][0-9]*$/.test(value)) throw new TypeError(`${what}: amount must be a positive decimal string`);
  const amount = BigInt(value);
  if (amount > MAX_BIGINT) throw new RangeError(`${what}: amount ${value} exceeds a PostgreSQL bigint`);
  return amount;
}

export function sumOf(postings: Posting[], account: Posting['account']): bigint {
  return postings.reduce(
    (total, posting) => (posting.account === account ? total + posting.amount : total),
    0n,
  );
}

/** A repeated entry must carry the amount it was first recorded with on `account` (a debit there). */
export function assertAmount(
  existing: StoredEntry,
  account: Posting['account'],
  amount: bigint,
  what: string,
): void {
  if (sumOf(existing.postings, account) !== amount)
    throw new Error(`${what} was recorded with another amount than ${amount}`);
}

export function assertSameOwner(existing: StoredEntry, entry: NewEntry): void {
  const { organizationId, environment } = existing.owner;
  if (organizationId !== entry.owner.organizationId || environment !== entry.owner.environment)
    throw new Error(
      `journal entry ${entry.kind} ${entry.sourceId} belongs to another organization or environment`,
    );
}

/** An amount moved from one of the merchant's accounts (`from`, debited) to another, as one kind of entry. */
export interface Move {
  kind: JournalEntryKind;
  from: Posting['account'];
  to: Posting['account'];
}

/** What a move carries: whose it is, its source (the entry is written once per source) and its amount. */
export interface MoveOf extends Owner {
  id: string;
  /** Minor units, decimal string, positive. */
  amount: string;
}

/**
 * Posts `item`'s move once: a second post of the same source writes nothing and must carry the amount the
 * first one moved. `what` names the item in errors ("release stl_…").
 */
export async function postMoveOnce(
  deps: Pick<LedgerDeps, 'clock'>,
  trx: Trx,
  item: MoveOf,
  move: Move,
  what: string,
): Promise<{ created: boolean }> {
  const amount = parseAmount(item.amount, what);
  const outcome = await postOnce(deps, trx, newEntry(item, move.kind, item.id), async () => [
    { account: move.from, amount },
    { account: move.to, amount: -amount },
  ]);
  if (!outcome.created) assertAmount(outcome.existing, move.from, amount, what);
  return { created: outcome.created };
}

/**
 * The ledger's post of `move` once per item (`postMoveOnce`), `what` naming the item in errors. With
 * `before` (a lock to take, a check to make), the item is checked first (`checkedPost`), then `before`
 * runs, then the move is posted.
 */
export function moveOnce(
  move: Move,
  what: (item: MoveOf) => string,
  before?: (trx: Trx, item: MoveOf) => Promise<void>,
) {
  return async (deps: Pick<LedgerDeps, 'clock'>, trx: Trx, item: MoveOf): Promise<{ created: boolean }> => {
    if (before) {
      checkedPost(trx, item, what(item));
      await before(trx, item);
    }
    return postMoveOnce(deps, trx, item, move, what(item));
  };
}

/** The ledger's set-based post of `move` (`postMovesAtOnce`), of items none of which was posted before. */
export function movesAtOnce(move: Move, names: { whatOf: (item: MoveOf) => string; plural: string }) {
  return (deps: Pick<LedgerDeps, 'clock'>, trx: Trx, items: readonly MoveOf[]): Promise<void> =>
    postMovesAtOnce(deps, trx, items, move, names);
}

/**
 * The set-based form (a settlement chunk's): every item's move in one statement; none of them may have
 * been posted before. `whatOf` names an item in errors, `plural` the items ("release entries").
 */
export async function postMovesAtOnce(
  deps: Pick<LedgerDeps, 'clock'>,
  trx: Trx,
  items: readonly MoveOf[],
  move: Move,
  names: { whatOf: (item: MoveOf) => string; plural: string },
): Promise<void> {
  const entries = items.map((item) => {
    const amount = parseAmount(item.amount, names.whatOf(item));
    return {
      owner: { organizationId: item.organizationId, environment: item.environment },
      sourceId: item.id,
      postings: [
        { account: move.from, amount },
        { account: move.to, amount: -amount },
      ],
    };
  });
  const written = await insertEntriesWithPostings(trx, move.kind, entries, CURRENCY, deps.clock.now());
  if (written.size !== entries.length)
    throw new Error(`${entries.length - written.size} ${names.plural} existed already`);
}
