/**
 * Issue 16 item 6, zero-downtime migrations (docs/operations.md, ADR 0039): during a rolling deploy the
 * previous release's processes run against the newest schema, so a migration may only expand (add
 * tables, nullable columns or columns with a default, indexes) and a contraction (drop, rename, NOT NULL
 * without a default) waits until no process of the release that used the old shape runs. This test holds
 * the previous release to that: every statement its processes sent while the suite ran (recorded at the
 * release by `npm run record:statements` into test/fixtures/release-statements.ndjson) must still
 * prepare against the newest schema (its tables, columns, types and functions exist), and every INSERT
 * of it must name each column that the newest schema requires without a default. A second pass applies
 * a premature contraction in a rolled-back transaction and proves that both checks catch it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, ScriptSession } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { releaseStatements } from './helpers/release-statements.js';

let testDb: TestDatabase;
let database: Database;
const statements = releaseStatements();

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  database = testDb.database;
  await migrate(database, readMigrations(migrationsDir));
});
afterAll(async () => testDb?.drop());

/**
 * Columns that are NOT NULL without a default because a trigger fills them on insert (migration 0019:
 * `organizations.display_name` from `name`): an INSERT may leave them out.
 */
const FILLED_BY_TRIGGER: Record<string, string[]> = { organizations: ['display_name'] };

/** Statements PREPARE takes; others (none are expected) are reported, not skipped silently. */
const PREPARABLE = /^\s*(select|insert|update|delete|with|values)\b/i;
const INSERT = /^\s*insert\s+into\s+"?([a-z_][a-z0-9_]*)"?\s*\(([^)]*)\)/i;

/**
 * Checks every statement inside the session's open transaction: `problems` lists each one that does not
 * prepare, with the server's message, and each INSERT that leaves out a required column.
 */
async function check(session: ScriptSession, texts: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  const required = new Map<string, string[]>();
  for (const row of await session.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
     where table_schema = 'public' and is_nullable = 'NO' and column_default is null
       and is_identity = 'NO' and is_generated = 'NEVER'`,
  )) {
    required.set(row.table_name, [...(required.get(row.table_name) ?? []), row.column_name]);
  }
  for (const [index, text] of texts.entries()) {
    if (!PREPARABLE.test(text)) {
      problems.push(`not a statement PREPARE takes: ${text.slice(0, 120)}`);
      continue;
    }
    try {
      // One round trip; a statement that does not prepare leaves the transaction to its savepoint.
      await session.exec(`SAVEPOINT compat; PREPARE compat_${index} AS ${text}; RELEASE SAVEPOINT compat`);
    } catch (error) {
      await session.exec('ROLLBACK TO SAVEPOINT compat');
      problems.push(`${(error as Error).message}: ${text.slice(0, 200)}`);
    }
    const insert = INSERT.exec(text);
    if (insert) {
      const table = insert[1]!;
      const named = new Set(insert[2]!.split(',').map((column) => column.trim().replace(/"/g, '')));
      const missing = (required.get(table) ?? []).filter(
        (column) => !named.has(column) && !FILLED_BY_TRIGGER[table]?.includes(column),
      );
      if (missing.length > 0) problems.push(`insert into ${table} without ${missing.join(', ')}`);
    }
  }
  await session.exec('DEALLOCATE ALL');
  return [...new Set(problems)];
}

function inRolledBackTransaction<T>(work: (session: ScriptSession) => Promise<T>): Promise<T> {
  return database.withScriptSession(async (session) => {
    await session.exec('BEGIN');
    try {
      return await work(session);
    } finally {
      await session.exec('ROLLBACK');
    }
  });
}

describe('the previous release against the newest schema', () => {
  it('has a recorded statement set that covers the main tables', () => {
    expect(statements.length).toBeGreaterThan(200);
    for (const table of [
      'charges',
      'refunds',
      'ledger_postings',
      'webhook_deliveries',
      'payouts',
      'events',
    ]) {
      expect(
        statements.some((text) => new RegExp(`insert into "?${table}"?`, 'i').test(text)),
        table,
      ).toBe(true);
    }
  });

  it('prepares every statement of the previous release, and every INSERT names each required column', async () => {
    expect(await inRolledBackTransaction((session) => check(session, statements))).toEqual([]);
  });

  it('catches a contraction made too early: a renamed column, a NOT NULL column without a default', async () => {
    const problems = await inRolledBackTransaction(async (session) => {
      await session.exec('ALTER TABLE charges RENAME COLUMN merchant_reference TO reference');
      await session.exec('ALTER TABLE refunds ADD COLUMN compat_probe text NOT NULL');
      return check(session, statements);
    });
    expect(problems.some((problem) => /column "merchant_reference" does not exist/.test(problem))).toBe(true);
    expect(problems).toContain('insert into refunds without compat_probe');
  });
});
