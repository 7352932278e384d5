import { sql } from 'kysely';
import type { Kdb } from '../../../db/database.js';
import type { Environment, LedgerAccount } from '../../../db/schema.js';
import type { Balance } from '../model.js';
import type { Owner } from '../../../shared/owner.js';

/**
 * The signed balances (debits positive) of an owner's accounts in one currency: each account's checkpoint
 * plus its postings written at or above the checkpoint's horizon (migration 0017), in one statement, so
 * one snapshot sees both. The cost is the postings since the last checkpoint, not the owner's history.
 * An account without a checkpoint has no posting below the last run's horizon (each run writes a
 * checkpoint for every account with postings below it), so its postings are read from that horizon.
 */
async function accountBalances(
  db: Kdb,
  owner: Owner,
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
async function owed(db: Kdb, owner: Owner, account: LedgerAccount, currency: 'TRY'): Promise<string> {
  const balances = await accountBalances(db, owner, [account], currency);
  return (-(balances.get(account) ?? 0n)).toString();
}

/** The owner's available balance in one currency (what `merchant_available` owes it), as decimal text. */
export async function sumAvailable(db: Kdb, owner: Owner, currency: 'TRY'): Promise<string> {
  return owed(db, owner, 'merchant_available', currency);
}

/** The owner's pending balance in one currency (what the merchant is owed), as decimal text. */
export async function sumPending(db: Kdb, owner: Owner, currency: 'TRY'): Promise<string> {
  return owed(db, owner, 'merchant_pending', currency);
}

/** Every owner whose pending balance is below zero, deepest debt first. */
export async function findNegativePending(
  db: Kdb,
  limit: number,
): Promise<Array<Owner & { currency: 'TRY'; pending: string }>> {
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
  owner: Owner,
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

/**
 * Each owner's balance of one account (signed, debits positive) from its checkpoint and the postings
 * since, as `accountBalances` reads one owner's, in one statement (one snapshot).
 */
export async function accountBalanceOf(
  db: Kdb,
  owners: readonly Owner[],
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
