/**
 * What the query-plan and round-trip tests measure: a gateway whose every statement a recorder can
 * capture, the statements of a piece of work, and their plans (EXPLAIN (FORMAT JSON)) read against the
 * test's seeded, analysed tables.
 */
import { CompiledQuery, sql } from 'kysely';
import type { Database, Kdb } from '../../src/db/database.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import type { CapturedStatement, StatementRecorder } from './statements.js';

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

/**
 * A gateway (no worker unless `env` says so) whose database handle sends every statement through
 * `recorder`: its plugin, or with `track` its watched handle that also counts transactions; `readDb`
 * records the reads of the read handle too. `raw` is the database below the recorder, for seeding and
 * explaining.
 */
export async function startRecordedGateway(
  recorder: StatementRecorder,
  options: { env: Record<string, string>; track?: boolean; readDb?: boolean },
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
