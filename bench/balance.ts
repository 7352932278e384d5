/**
 * The balance figure of `npm run bench` (issue 16 item 5, ADR 0031, docs/benchmarks.md "Balance"): how
 * long `ledger.balance(owner)` takes as one merchant's history grows, read from the checkpoints
 * (`ledger_balance_checkpoints`) and the postings since, beside the old plain SUM over every posting and a
 * `select 1` round trip, measured the same way in the same run.
 *
 * 1. A fresh database, migrated, with one measured organization and NOISE_ORGANIZATIONS others, seeded as
 *    bench/settlement.ts seeds them. For each size (ascending), the measured owner's live account is grown
 *    to `size` `charge_succeeded` entries with their postings (acquirer_clearing gross, merchant_pending
 *    -net, fee_revenue -fee), set-based (`INSERT … SELECT generate_series`, SEED_CHUNK entries per
 *    transaction so that `written_by` takes many values, as in a real ledger), interleaved with as many
 *    entries of the other organizations; the same database grows from one size to the next. Then VACUUM
 *    ANALYZE (autovacuum may be off on the server), so every read starts from the same visibility map.
 * 2. At each size, with the checkpoints emptied first (they are derived data, ADR 0031):
 *    (a) `balance` with no checkpoint: the first read covers the whole history;
 *    `advanceCheckpoints()` timed: a run from nothing over every posting in the database;
 *    (b) `balance` after it: the normal state;
 *    (c) `balance` after TAIL_ENTRIES more charges posted by the ledger (`postChargeSucceeded`, one
 *    transaction each, as the charge completion writes them): a typical tail since the last run; then a
 *    second `advanceCheckpoints()` timed (the job's usual run);
 *    and the ceilings: the old plain query (the SUM the issue measured) and `select 1`, through the same
 *    Kysely pool, median and p99 of `calls` sequential calls after `warmup` calls.
 * 3. Each state is checked: the balance read equals the plain sums of the four merchant accounts. Beside
 *    the figures: the owner's postings above its checkpoints, and the plan of the ledger's own statement
 *    (captured, then run under EXPLAIN ANALYZE): which index it reads and how many postings it visits.
 */
import os from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type Kdb } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { createLedgerService, type LedgerService } from '../src/modules/ledger/index.js';
import { feeRateIn } from '../src/modules/organizations/fee-rates.js';
import { DEFAULT_FEES } from '../src/modules/organizations/types.js';
import { migrationsDir } from '../src/paths.js';
import { systemClock } from '../src/shared/clock.js';
import { createFreshDatabase, dropDatabase } from '../test/helpers/database.js';
import { round, timed, withClient } from './measure.js';
import type { Owner } from '../src/shared/owner.js';

export interface BalanceBenchOptions {
  /** The measured owner's charge entries at each step, grown in ascending order in one database. */
  sizes: readonly number[];
  /** Sequential calls per figure (default 200), after `warmup` (default 20) unmeasured ones. */
  calls?: number;
  warmup?: number;
}

/** The organizations whose postings sit beside the measured owner's (one entry of theirs per owner entry). */
const NOISE_ORGANIZATIONS = 4;
/** Entries (the owner's and the others') per seeding transaction. */
const SEED_CHUNK = 1_000;
/** Charges posted after the checkpoint run for state (c). */
const TAIL_ENTRIES = 100;
const MERCHANT_ACCOUNTS = [
  'merchant_pending',
  'merchant_available',
  'merchant_in_transit',
  'merchant_reserve',
] as const;
const OWNER: Owner = { organizationId: organizationId(1), environment: 'live' };

const log = (message: string) => console.error(`[bench balance] ${message}`);

function organizationId(k: number): string {
  return `org_${k.toString(16).padStart(29, '0')}`;
}

interface Latency {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  calls: number;
}

/** `once` called `calls` times one after another, after `warmup` unmeasured calls. */
async function latency(once: () => Promise<unknown>, calls: number, warmup: number): Promise<Latency> {
  for (let index = 0; index < warmup; index++) await once();
  const samples: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0);
  return {
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    meanMs: round(samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length)),
    calls: samples.length,
  };
}

/** The organizations, as bench/settlement.ts writes them (no fee schedule: the onboarding fees apply). */
async function seedOrganizations(url: string): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      `INSERT INTO organizations (id, name, application_id, contact_email, kyc_status, feature_flags,
         rate_limit_live, rate_limit_sandbox, created_at, updated_at)
       SELECT 'org_' || lpad(to_hex(k), 29, '0'), 'Balance bench ' || k, NULL,
         'bench' || k || '@merchant.example', 'APPROVED', ARRAY['apiKeys', 'payouts', 'wallets'],
         1000000, 1000000, now(), now()
       FROM generate_series(1, $1::int) k`,
      [1 + NOISE_ORGANIZATIONS],
    ),
  );
}

/**
 * `owned` more charge entries of the measured owner, each followed by one of a noise organization (in
 * turn), with their postings, in one transaction. Written with `session_replication_role = replica`
 * (superuser) so the deferred balanced-entry check does not queue a trigger per row; every new entry's
 * balance is checked after, in one query. Then VACUUM ANALYZE of the two tables.
 */
async function seedEntries(url: string, owned: number): Promise<void> {
  if (owned <= 0) return;
  const fee = DEFAULT_FEES.credit_card_tr;
  await withClient(url, async (client) => {
    let replica = true;
    try {
      await client.query(`SET session_replication_role = replica`);
    } catch {
      replica = false;
      log('not a superuser: seeding with every trigger (slower)');
    }
    await client.query(`SET work_mem = '256MB'`);
    await client.query(`SET synchronous_commit = off`);
    const offset = Number(
      (await client.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM journal_entries`))
        .rows[0]?.id ?? 0,
    );
    // Row n: odd rows are the owner's, even rows the noise organizations' in turn; one minute apart,
    // ending now. Fee of the onboarding card schedule: round-half-up(amount × bps / 10000) + fixed.
    await client.query(
      `CREATE TEMP TABLE bench_seed AS
       SELECT $1::bigint + n AS i,
         'org_' || lpad(to_hex(CASE WHEN n % 2 = 1 THEN 1 ELSE ((n / 2 - 1) % $3::int) + 2 END), 29, '0') AS org,
         now() - ($2::int * 2 - n) * interval '1 minute' AS at,
         x.amount, least(x.amount, (x.amount * $4::int + 5000) / 10000 + $5::bigint) AS fee
       FROM generate_series(1, $2::int * 2) n
       CROSS JOIN LATERAL (SELECT 1000 + ((($1::bigint + n) * 7919) % 99001) * 10 AS amount) x`,
      [offset, owned, NOISE_ORGANIZATIONS, fee.basisPoints, fee.fixedMinor.toString()],
    );
    await client.query(`CREATE INDEX ON bench_seed (i)`);
    // SEED_CHUNK entries per transaction: the postings' `written_by` spread over many transaction ids, as
    // the charge completions' own transactions leave them (one id for the whole history would give the
    // planner statistics no real ledger has).
    for (let from = offset + 1; from <= offset + owned * 2; from += SEED_CHUNK) {
      const to = Math.min(offset + owned * 2, from + SEED_CHUNK - 1);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO journal_entries (id, organization_id, environment, kind, source_id, currency, created_at)
         OVERRIDING SYSTEM VALUE
         SELECT i, org, 'live', 'charge_succeeded', 'ch_balance_bench_' || i, 'TRY', at FROM bench_seed
         WHERE i BETWEEN $1 AND $2 ORDER BY i`,
        [from, to],
      );
      await client.query(
        `INSERT INTO ledger_postings (entry_id, organization_id, environment, account, currency, amount, created_at)
         SELECT s.i, s.org, 'live', p.account, 'TRY', p.amount, s.at
         FROM bench_seed s
         CROSS JOIN LATERAL (VALUES (1, 'acquirer_clearing', s.amount), (2, 'merchant_pending', -(s.amount - s.fee)),
           (3, 'fee_revenue', -s.fee)) p(n, account, amount)
         WHERE s.i BETWEEN $1 AND $2 AND p.amount <> 0
         ORDER BY s.i, p.n`,
        [from, to],
      );
      await client.query('COMMIT');
    }
    await client.query(`DROP TABLE bench_seed`);
    await client.query(
      `SELECT setval(pg_get_serial_sequence('journal_entries', 'id'), (SELECT max(id) FROM journal_entries))`,
    );
    if (replica) await client.query(`SET session_replication_role = origin`);
    // What the skipped trigger checks: every new entry balanced, with at least two postings.
    const unbalanced = await client.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM (
         SELECT e.id FROM journal_entries e LEFT JOIN ledger_postings p ON p.entry_id = e.id
         WHERE e.id > $1 GROUP BY e.id HAVING count(p.id) < 2 OR coalesce(sum(p.amount), 0) <> 0) bad`,
      [offset],
    );
    if (unbalanced.rows[0]?.count !== '0')
      throw new Error(`the seed wrote ${unbalanced.rows[0]?.count} unbalanced journal entries`);
    await client.query('VACUUM ANALYZE journal_entries, ledger_postings');
  });
}

/** The old balance: a SUM over every posting of the owner's pending account (what the issue measured). */
const plainPending = (db: Kdb) =>
  sql<{ pending: string | null }>`
    select -sum(amount) as pending from ledger_postings
    where organization_id = ${OWNER.organizationId} and environment = ${OWNER.environment}
      and account = 'merchant_pending'`.execute(db);

/** Whether the balance read equals the plain sums of the four merchant accounts. */
async function check(db: Kdb, ledger: LedgerService) {
  const sums = await sql<{ account: string; owed: string }>`
    select account, (-sum(amount))::text as owed from ledger_postings
    where organization_id = ${OWNER.organizationId} and environment = ${OWNER.environment}
      and currency = 'TRY' and account in (${sql.join([...MERCHANT_ACCOUNTS])})
    group by account`.execute(db);
  const plain = new Map(sums.rows.map((row) => [row.account, row.owed]));
  const [read] = await ledger.balance(OWNER);
  const expected = {
    pending: plain.get('merchant_pending') ?? '0',
    available: plain.get('merchant_available') ?? '0',
    inTransit: plain.get('merchant_in_transit') ?? '0',
    reserve: plain.get('merchant_reserve') ?? '0',
  };
  const ok =
    read !== undefined &&
    read.pending === expected.pending &&
    read.available === expected.available &&
    read.inTransit === expected.inTransit &&
    read.reserve === expected.reserve;
  if (!ok) log(`MISMATCH: balance ${JSON.stringify(read)}, plain sums ${JSON.stringify(expected)}`);
  return { ok, pending: read?.pending ?? null, plainPending: expected.pending };
}

/** The owner's postings a balance read sums beside the checkpoints (at or above each one's horizon). */
async function postingsRead(db: Kdb): Promise<number> {
  const result = await sql<{ count: string }>`
    select count(*)::text as count from ledger_postings p
    left join ledger_balance_checkpoints c
      on c.organization_id = p.organization_id and c.environment = p.environment
        and c.account = p.account and c.currency = p.currency
    where p.organization_id = ${OWNER.organizationId} and p.environment = ${OWNER.environment}
      and p.currency = 'TRY' and p.account in (${sql.join([...MERCHANT_ACCOUNTS])})
      and p.written_by >= coalesce(c.covers_before, '0'::xid8)`.execute(db);
  return Number(result.rows[0]?.count ?? 0);
}

interface BalancePlan {
  /** The `ledger_postings` indexes (or scan types) of the plan. */
  indexes: string[];
  /** The postings those scans went through, the ones a filter then threw away included. */
  postingsVisited: number;
}

/**
 * The plan PostgreSQL runs for one `balance(owner)` call: the statement the ledger sends is captured on
 * node-postgres's client (as bench/settlement.ts counts statements) and run again under EXPLAIN ANALYZE
 * with its own parameters, so the bench keeps no copy of the ledger's SQL.
 */
async function balancePlan(url: string, ledger: LedgerService): Promise<BalancePlan> {
  type Query = (...args: unknown[]) => unknown;
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  let captured: { text: string; values: unknown[] } | undefined;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
    const values = Array.isArray(second) ? second : (first as { values?: unknown } | undefined)?.values;
    if (captured === undefined && typeof text === 'string' && /ledger_postings/.test(text))
      captured = { text, values: Array.isArray(values) ? values : [] };
    return original.apply(this, args);
  };
  try {
    await ledger.balance(OWNER);
  } finally {
    prototype.query = original;
  }
  if (captured === undefined)
    return { indexes: ['(no statement on ledger_postings captured)'], postingsVisited: 0 };
  const statement = captured;
  const plan = await withClient(url, (client) =>
    client.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
      statement.values,
    ),
  );
  const indexes = new Set<string>();
  let visited = 0;
  const visit = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (record['Relation Name'] === 'ledger_postings') {
      indexes.add(
        typeof record['Index Name'] === 'string' ? record['Index Name'] : String(record['Node Type']),
      );
      // Rows and rows removed are averages per loop.
      const perLoop = Number(record['Actual Rows'] ?? 0) + Number(record['Rows Removed by Filter'] ?? 0);
      visited += perLoop * Number(record['Actual Loops'] ?? 1);
    }
    for (const value of Object.values(record)) {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === 'object') visit(value);
    }
  };
  visit(plan.rows[0]?.['QUERY PLAN']);
  return { indexes: [...indexes], postingsVisited: Math.round(visited) };
}

async function ownerEntries(db: Kdb): Promise<number> {
  const result = await sql<{ count: string }>`
    select count(*)::text as count from journal_entries
    where organization_id = ${OWNER.organizationId} and environment = ${OWNER.environment}`.execute(db);
  return Number(result.rows[0]?.count ?? 0);
}

export async function benchBalance(options: BalanceBenchOptions) {
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const calls = options.calls ?? 200;
  const warmup = options.warmup ?? 20;
  const load: Record<string, number[]> = { start: os.loadavg().map(round) };
  const url = await createFreshDatabase();
  // Stopped midway, the bench still drops its database.
  const stop = (signal: NodeJS.Signals) => {
    log(`${signal}: dropping the bench's database`);
    process.on('uncaughtException', () => undefined);
    void dropDatabase(url).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
    try {
      await migrate(database, readMigrations(migrationsDir));
      const db = database.db;
      const ledger = createLedgerService({ db, clock: systemClock, feesFor: feeRateIn });
      const server = (
        await sql<{ version: string; autovacuum: string; shared_buffers: string }>`
          select current_setting('server_version') as version, current_setting('autovacuum') as autovacuum,
            current_setting('shared_buffers') as shared_buffers`.execute(db)
      ).rows[0];
      await seedOrganizations(url);
      const measure = (once: () => Promise<unknown>) => latency(once, calls, warmup);
      const results = [];
      for (const size of sizes) {
        const have = await ownerEntries(db);
        log(
          `size ${size}: seeding ${Math.max(0, size - have)} more entries of the owner and as many of others`,
        );
        const seeded = await timed(() => seedEntries(url, size - have));
        const entries = await ownerEntries(db);
        const postings = Number(
          (await sql<{ count: string }>`select count(*)::text as count from ledger_postings`.execute(db))
            .rows[0]?.count ?? 0,
        );
        // (a) No checkpoint at all: the first read after the migration, or of an owner never run.
        await sql`truncate ledger_balance_checkpoints, ledger_checkpoint_horizon`.execute(db);
        const loadBefore = os.loadavg().map(round);
        const selectOne = await measure(() => sql`select 1`.execute(db));
        const plainSum = await measure(() => plainPending(db));
        const noCheckpoint = await measure(() => ledger.balance(OWNER));
        const checkNoCheckpoint = await check(db, ledger);
        const readNoCheckpoint = await postingsRead(db);
        const planNoCheckpoint = await balancePlan(url, ledger);
        // (b) After a checkpoint run from nothing: every posting of every organization.
        const advance = await timed(() => ledger.advanceCheckpoints());
        const afterCheckpoint = await measure(() => ledger.balance(OWNER));
        const checkAfterCheckpoint = await check(db, ledger);
        const readAfterCheckpoint = await postingsRead(db);
        const planAfterCheckpoint = await balancePlan(url, ledger);
        if (readAfterCheckpoint !== 0)
          log(
            `after the checkpoint run a balance still reads ${readAfterCheckpoint} postings: a transaction ` +
              `open on the server (any database) held the horizon back`,
          );
        // (c) TAIL_ENTRIES more charges, as the charge completion posts them, one transaction each.
        const tail = await timed(async () => {
          for (let index = 0; index < TAIL_ENTRIES; index++)
            await db.transaction().execute((trx) =>
              ledger.postChargeSucceeded(trx, {
                id: `ch_balance_tail_${size}_${index}`,
                organizationId: OWNER.organizationId,
                environment: OWNER.environment,
                amount: String(1000 + index * 10),
                paymentMethod: 'credit_card_tr',
                merchantReference: null,
              }),
            );
        });
        const withTail = await measure(() => ledger.balance(OWNER));
        const checkWithTail = await check(db, ledger);
        const readWithTail = await postingsRead(db);
        const planWithTail = await balancePlan(url, ledger);
        // The job's usual run: the tail since the last one.
        const advanceTail = await timed(() => ledger.advanceCheckpoints());
        const checkAfterTail = await check(db, ledger);
        const ok = checkNoCheckpoint.ok && checkAfterCheckpoint.ok && checkWithTail.ok && checkAfterTail.ok;
        log(
          `size ${size}: ${ok ? 'ok' : 'MISMATCH'}; balance p50 ${noCheckpoint.p50Ms} ms without a ` +
            `checkpoint, ${afterCheckpoint.p50Ms} ms after one, ${withTail.p50Ms} ms with a tail; plain sum ` +
            `${plainSum.p50Ms} ms, select 1 ${selectOne.p50Ms} ms; advance ${advance.ms} ms`,
        );
        results.push({
          ownerEntries: entries,
          ownerEntriesWithTail: entries + TAIL_ENTRIES,
          postingsInDatabase: postings,
          seedMs: seeded.ms,
          latency: {
            selectOne,
            plainSum,
            balanceNoCheckpoint: noCheckpoint,
            balanceAfterCheckpoint: afterCheckpoint,
            balanceWithTail: withTail,
          },
          /** The owner's postings above its checkpoints: what a read has to sum beside them. */
          postingsRead: {
            noCheckpoint: readNoCheckpoint,
            afterCheckpoint: readAfterCheckpoint,
            withTail: readWithTail,
          },
          /** The plan of the balance read's statement, and the postings it went through. */
          balancePlan: {
            noCheckpoint: planNoCheckpoint,
            afterCheckpoint: planAfterCheckpoint,
            withTail: planWithTail,
          },
          advanceCheckpoints: {
            fromNothingMs: advance.ms,
            accountsMoved: advance.value,
            afterTailMs: advanceTail.ms,
            accountsMovedAfterTail: advanceTail.value,
          },
          tailPostMs: tail.ms,
          ratios: {
            plainSumToBalanceAfterCheckpoint:
              afterCheckpoint.p50Ms === 0 ? null : round(plainSum.p50Ms / afterCheckpoint.p50Ms),
            balanceAfterCheckpointToSelectOne:
              selectOne.p50Ms === 0 ? null : round(afterCheckpoint.p50Ms / selectOne.p50Ms),
          },
          correctness: {
            ok: ok ? 'ok' : 'MISMATCH',
            pending: checkAfterTail.pending,
            noCheckpoint: checkNoCheckpoint.ok,
            afterCheckpoint: checkAfterCheckpoint.ok,
            withTail: checkWithTail.ok,
            afterTailCheckpoint: checkAfterTail.ok,
          },
          loadAverage: { beforeMeasuring: loadBefore, after: os.loadavg().map(round) },
        });
      }
      return {
        correctness: results.every((result) => result.correctness.ok === 'ok') ? 'ok' : 'MISMATCH',
        sizes: results,
        settings: {
          environment: OWNER.environment,
          noiseOrganizations: NOISE_ORGANIZATIONS,
          noiseEntriesPerOwnerEntry: 1,
          tailEntries: TAIL_ENTRIES,
          calls,
          warmup,
        },
        server: server
          ? { version: server.version, autovacuum: server.autovacuum, sharedBuffers: server.shared_buffers }
          : null,
        loadAverage: { ...load, end: os.loadavg().map(round) },
      };
    } finally {
      await database.close();
    }
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await dropDatabase(url);
  }
}
