import { sql } from 'kysely';
import type { Kdb } from '../../src/db/database.js';
import type { Environment } from '../../src/db/schema.js';
import type { LedgerService } from '../../src/modules/ledger/service.js';

/**
 * The money invariants of a whole database, read with SQL and through the ledger's own balance read: for
 * a restored backup (test/backup-restore.test.ts), and for the soak's end. Each check reads every row
 * (no sampling), so it belongs at the end of a test, not in a loop. `violations` says what is wrong, one
 * line each, with the ids; empty when the database is sound.
 */
export interface InvariantReport {
  violations: string[];
  counts: {
    entries: number;
    postings: number;
    owners: number;
    succeededCharges: number;
    succeededRefunds: number;
    payouts: number;
    events: number;
  };
}

const MERCHANT_ACCOUNTS = {
  pending: 'merchant_pending',
  available: 'merchant_available',
  inTransit: 'merchant_in_transit',
  reserve: 'merchant_reserve',
} as const;

type Pairs = Array<{ id: string; detail: string }>;

export async function checkInvariants(
  db: Kdb,
  ledger: Pick<LedgerService, 'balance'>,
): Promise<InvariantReport> {
  const violations: string[] = [];
  const report = (what: string, rows: Pairs) => {
    for (const row of rows.slice(0, 20)) violations.push(`${what}: ${row.id} ${row.detail}`);
    if (rows.length > 20) violations.push(`${what}: ${rows.length - 20} more`);
  };
  const rows = async (query: ReturnType<typeof sql<{ id: string; detail: string }>>) =>
    (await query.execute(db)).rows;

  // Double entry: every journal entry has two postings or more and sums to zero.
  report(
    'journal entry not balanced',
    await rows(sql`
      select e.id::text as id, concat(count(p.id), ' postings summing to ', coalesce(sum(p.amount), 0)) as detail
      from journal_entries e left join ledger_postings p on p.entry_id = e.id
      group by e.id
      having count(p.id) < 2 or coalesce(sum(p.amount), 0) <> 0`),
  );

  // Each succeeded charge is recorded once, for its amount, and only succeeded charges are.
  report(
    'succeeded charge without its one ledger entry',
    await rows(sql`
      select c.id, concat('status ', c.status, ', entries ', count(e.id)) as detail
      from charges c left join journal_entries e on e.kind = 'charge_succeeded' and e.source_id = c.id
      group by c.id, c.status
      having (c.status = 'succeeded') <> (count(e.id) = 1) or count(e.id) > 1`),
  );
  report(
    'charge entry for no succeeded charge, or not for its amount',
    await rows(sql`
      select e.source_id as id, concat('gross ', coalesce(sum(p.amount) filter (where p.account = 'acquirer_clearing'), 0),
        ', charge ', coalesce(c.status, 'missing'), ' ', coalesce(c.amount::text, '')) as detail
      from journal_entries e
      join ledger_postings p on p.entry_id = e.id
      left join charges c on c.id = e.source_id
      where e.kind = 'charge_succeeded'
      group by e.source_id, c.status, c.amount
      having c.status is distinct from 'succeeded'
        or coalesce(sum(p.amount) filter (where p.account = 'acquirer_clearing'), 0) <> c.amount`),
  );

  // Each succeeded refund is recorded once, only succeeded refunds are, and a charge's refunded amount is
  // the sum of its succeeded refunds, each announced by one charge.refunded event.
  report(
    'refund and its ledger entry disagree',
    await rows(sql`
      select r.id, concat('status ', r.status, ', entries ', count(e.id)) as detail
      from refunds r left join journal_entries e on e.kind = 'refund' and e.source_id = r.id
      group by r.id, r.status
      having (r.status = 'succeeded') <> (count(e.id) = 1) or count(e.id) > 1`),
  );
  report(
    'refund entry without its refund',
    await rows(sql`
      select e.source_id as id, 'no refund row' as detail from journal_entries e
      where e.kind = 'refund' and not exists (select 1 from refunds r where r.id = e.source_id)`),
  );
  report(
    'charge refunded amount is not the sum of its refunds',
    await rows(sql`
      select c.id, concat('refunded_amount ', c.refunded_amount, ', refunds ',
        coalesce((select sum(r.amount) from refunds r where r.charge_id = c.id and r.status = 'succeeded'), 0),
        ', charge.refunded events ', (select count(*) from events v where v.type = 'charge.refunded' and v.resource_id = c.id),
        ', succeeded refunds ', (select count(*) from refunds r where r.charge_id = c.id and r.status = 'succeeded')) as detail
      from charges c
      where c.refunded_amount <> coalesce((select sum(r.amount) from refunds r where r.charge_id = c.id and r.status = 'succeeded'), 0)
        or (select count(*) from events v where v.type = 'charge.refunded' and v.resource_id = c.id)
          <> (select count(*) from refunds r where r.charge_id = c.id and r.status = 'succeeded')`),
  );
  report(
    'succeeded charge without its one charge.succeeded event',
    await rows(sql`
      select c.id, concat(count(v.id), ' events') as detail
      from charges c left join events v on v.type = 'charge.succeeded' and v.resource_id = c.id
      group by c.id, c.status
      having (c.status = 'succeeded') <> (count(v.id) = 1)`),
  );

  // Each payout is debited once; paid once when completed; returned once when failed or canceled.
  report(
    'payout and its ledger entries disagree',
    await rows(sql`
      select p.id, concat('status ', p.status, ', created ', count(e.id) filter (where e.kind = 'payout_created'),
        ', paid ', count(e.id) filter (where e.kind = 'payout_paid'),
        ', returned ', count(e.id) filter (where e.kind = 'payout_returned')) as detail
      from payouts p left join journal_entries e on e.source_id = p.id
        and e.kind in ('payout_created', 'payout_paid', 'payout_returned')
      group by p.id, p.status
      having count(e.id) filter (where e.kind = 'payout_created') <> 1
        or count(e.id) filter (where e.kind = 'payout_paid') <> (case when p.status = 'completed' then 1 else 0 end)
        or count(e.id) filter (where e.kind = 'payout_returned')
          <> (case when p.status in ('failed', 'canceled') then 1 else 0 end)`),
  );

  // Every balance the ledger reads (its checkpoints plus the postings since) is the plain sum of the
  // owner's postings.
  const sums = await sql<{
    organization_id: string;
    environment: Environment;
    account: string;
    total: string;
  }>`
    select organization_id, environment, account, sum(amount)::text as total
    from ledger_postings group by organization_id, environment, account`.execute(db);
  const owners = new Map<string, Map<string, bigint>>();
  for (const row of sums.rows) {
    const key = `${row.organization_id}/${row.environment}`;
    const accounts = owners.get(key) ?? new Map<string, bigint>();
    accounts.set(row.account, BigInt(row.total));
    owners.set(key, accounts);
  }
  for (const [key, accounts] of owners) {
    const [organizationId = '', environment = 'sandbox'] = key.split('/') as [string, Environment];
    const [balance] = await ledger.balance({ organizationId, environment });
    for (const [field, account] of Object.entries(MERCHANT_ACCOUNTS)) {
      let sum = -(accounts.get(account) ?? 0n);
      if (field === 'pending') {
        // A refund debt is the pending postings below zero, read as `debt`, never as a negative
        // `pending` (ADR 0069).
        const debt = sum < 0n ? -sum : 0n;
        if (balance?.debt !== debt.toString()) {
          violations.push(
            `balance's debt is not its pending postings below zero: ${key} debt read ${balance?.debt}, postings ${sum}`,
          );
        }
        if (sum < 0n) sum = 0n;
      }
      const expected = sum.toString();
      const read = balance?.[field as keyof typeof MERCHANT_ACCOUNTS];
      if (read !== expected) {
        violations.push(
          `balance is not the sum of postings: ${key} ${field} read ${read}, postings ${expected}`,
        );
      }
    }
  }

  const count = async (table: string, where = sql`true`) =>
    Number(
      (
        await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)} where ${where}`.execute(
          db,
        )
      ).rows[0]?.n ?? 0,
    );
  return {
    violations,
    counts: {
      entries: await count('journal_entries'),
      postings: await count('ledger_postings'),
      owners: owners.size,
      succeededCharges: await count('charges', sql`status = 'succeeded'`),
      succeededRefunds: await count('refunds', sql`status = 'succeeded'`),
      payouts: await count('payouts'),
      events: await count('events'),
    },
  };
}
