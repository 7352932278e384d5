/**
 * What the query-plan and round-trip tests measure: a gateway whose every statement a recorder can
 * capture, the statements of a piece of work, and their plans (EXPLAIN (FORMAT JSON)) read against the
 * test's seeded, analysed tables.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { Database, Kdb } from '../../src/db/database.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { statementRecorder, type CapturedStatement, type StatementRecorder } from './statements.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** The node and every node below it. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export interface RecordedGatewayOptions {
  env: Record<string, string>;
  track?: boolean;
  readDb?: boolean;
}

/**
 * A gateway (no worker unless `env` says so) whose database handle sends every statement through
 * `recorder`: its plugin, or with `track` its watched handle that also counts transactions; `readDb`
 * records the reads of the read handle too. `raw` is the database below the recorder, for seeding and
 * explaining.
 */
export async function startRecordedGateway(
  recorder: StatementRecorder,
  options: RecordedGatewayOptions,
): Promise<{ t: TestGateway; raw: Database }> {
  let raw: Database | undefined;
  const t = await startTestGateway({
    env: options.env,
    wrapDatabase: (database) => {
      raw = database;
      const db = options.track ? recorder.track(database.db) : database.db.withPlugin(recorder.plugin);
      return options.readDb ? { ...database, db, readDb: db } : { ...database, db };
    },
  });
  if (raw === undefined) throw new Error('the gateway never opened its database');
  return { t, raw };
}

/** The recorded gateway of the file that called `recordedSuite`, and its raw database (live bindings, as in suite.ts). */
export let t: TestGateway;
export let raw: Database;

export interface RecordedSuiteOptions extends RecordedGatewayOptions {
  /** How long starting and `setUp` may take (ms); two minutes unless given. */
  timeout?: number;
}

/**
 * Starts a recorded gateway (`startRecordedGateway`) before the file's tests, then `setUp` (its seeded
 * rows and accounts), and closes it after them; the recorder of the file.
 */
export function recordedSuite(options: RecordedSuiteOptions, setUp: () => Promise<void>): StatementRecorder {
  const recorder = statementRecorder();
  let started: TestGateway | undefined;
  beforeAll(async () => {
    ({ t, raw } = await startRecordedGateway(recorder, options));
    started = t;
    await setUp();
  }, options.timeout ?? 120_000);
  afterAll(async () => started?.close());
  return recorder;
}

/**
 * The `expires_at, created_at, updated_at` of seeded charges (row `i` of a generate_series): due a day
 * after `now`, made `i % hours` hours before it.
 */
export const seededChargeTimes = (now: Date, hours: number) => sql`
  ${now}::timestamptz + interval '1 day',
  ${now}::timestamptz - (i % ${sql.lit(hours)}) * interval '1 hour',
  ${now}::timestamptz - (i % ${sql.lit(hours)}) * interval '1 hour'`;

/** Refreshes the planner's statistics of the seeded tables. */
export async function analyze(db: Kdb, ...tables: string[]): Promise<void> {
  for (const table of tables) await sql`ANALYZE ${sql.table(table)}`.execute(db);
}

export interface Recorded<T> {
  result: T;
  /** The statements sent while `work` ran, in order. */
  statements: CapturedStatement[];
  /** The transactions opened through a tracked handle meanwhile. */
  transactions: number;
}

/** Runs `work` with the recorder on (and what it held before forgotten). */
export async function recordWhile<T>(
  recorder: StatementRecorder,
  work: () => Promise<T>,
): Promise<Recorded<T>> {
  recorder.captured.length = 0;
  recorder.transactions = 0;
  recorder.recording = true;
  let result: T;
  try {
    result = await work();
  } finally {
    recorder.recording = false;
  }
  return { result, statements: [...recorder.captured], transactions: recorder.transactions };
}

/**
 * The nodes of the statement's plan on `db`. With `seqScan: false` sequential scans are disabled (in a
 * transaction of its own: one session), so that one still planned has no index that can serve it.
 */
export async function planOf(
  db: Kdb,
  statement: CapturedStatement,
  options: { seqScan?: boolean } = {},
): Promise<PlanNode[]> {
  const explain = async (on: Kdb) => {
    const result = await on.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${statement.sql}`, [...statement.parameters]),
    );
    const cell = result.rows[0]?.['QUERY PLAN'];
    const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
    const root = plan[0]?.Plan;
    if (!root) throw new Error(`no plan for ${statement.sql}`);
    return nodesOf(root);
  };
  if (options.seqScan !== false) return explain(db);
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    return explain(trx);
  });
}

/** The sequential scans of the plan on a table that `tables` matches. */
export const seqScansOn = (nodes: PlanNode[], tables: RegExp): PlanNode[] =>
  nodes.filter((node) => node['Node Type'] === 'Seq Scan' && tables.test(node['Relation Name'] ?? ''));

/** The indexes the plan reads. */
export const indexesOf = (nodes: PlanNode[]): string[] =>
  nodes.flatMap((node) => (node['Index Name'] ? [node['Index Name']] : []));
