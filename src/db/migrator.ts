import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createHash } from 'node:crypto';
import type { Database } from './database.js';

const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;
// Arbitrary but fixed: every process that migrates this database takes the same advisory lock.
const MIGRATION_LOCK_ID = 7_343_112_001;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** What `migrate` reports as it goes, so that a first start says what it is doing. */
export type MigrationProgress =
  | { kind: 'pending'; total: number }
  | { kind: 'applied'; name: string; index: number; total: number; ms: number };

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((name) => {
      if (!MIGRATION_FILE.test(name))
        throw new Error(`Migration file name ${name} must look like 0001_name.sql`);
      const text = readFileSync(path.join(dir, name), 'utf8');
      return { name, sql: text, checksum: createHash('sha256').update(text).digest('hex') };
    });
}

/**
 * Applies pending migrations, each in its own transaction, under a session-level advisory lock so
 * that several processes starting together migrate once. Forward only: an applied migration whose
 * file changed stops the start-up instead of leaving the schema in an unknown state.
 *
 * The lock and the transactions must stay on one server session: behind a transaction pooler
 * (PgBouncer in transaction mode) consecutive statements may reach different sessions, so a gateway
 * behind one migrates through `migrateThrough` and a direct connection (DATABASE_MIGRATION_URL).
 */
export async function migrate(
  database: Pick<Database, 'withScriptSession'>,
  migrations: Migration[],
  onProgress: (progress: MigrationProgress) => void = () => undefined,
): Promise<string[]> {
  return database.withScriptSession(async (session) => {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await session.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const applied = new Map(
        (
          await session.query<{ name: string; checksum: string }>(
            'SELECT name, checksum FROM schema_migrations',
          )
        ).map((row) => [row.name, row.checksum]),
      );
      const known = new Set(migrations.map((m) => m.name));
      for (const name of applied.keys()) {
        if (!known.has(name))
          throw new Error(`The database has migration ${name}, which this build does not know`);
      }
      for (const migration of migrations) {
        const checksum = applied.get(migration.name);
        if (checksum !== undefined && checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.name} was changed after it was applied; add a new migration instead`,
          );
        }
      }
      const pending = migrations.filter((migration) => !applied.has(migration.name));
      if (pending.length > 0) onProgress({ kind: 'pending', total: pending.length });
      const ran: string[] = [];
      for (const migration of pending) {
        const started = performance.now();
        await session.exec('BEGIN');
        try {
          await session.exec(migration.sql);
          await session.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
            migration.name,
            migration.checksum,
          ]);
          await session.exec('COMMIT');
        } catch (error) {
          // A failed ROLLBACK must not hide why the migration failed.
          await session.exec('ROLLBACK').catch(() => undefined);
          throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, {
            cause: error,
          });
        }
        ran.push(migration.name);
        onProgress({
          kind: 'applied',
          name: migration.name,
          index: ran.length,
          total: pending.length,
          ms: Math.round(performance.now() - started),
        });
      }
      return ran;
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}

/**
 * Migrates `database`, through `migrationUrl` when it is set: one direct connection to the same
 * PostgreSQL database (DATABASE_MIGRATION_URL), opened for the migrations and closed after them, for a
 * pool that goes through a transaction pooler (docs/decisions/0035-pgbouncer.md). Unset, the migrations
 * take a session of the pool.
 */
export async function migrateThrough(
  database: Database,
  migrationUrl: string | undefined,
  migrations: Migration[],
  onProgress?: (progress: MigrationProgress) => void,
): Promise<string[]> {
  if (migrationUrl === undefined || database.kind !== 'postgres')
    return migrate(database, migrations, onProgress);
  const client = new pg.Client({ connectionString: migrationUrl });
  // An error of the idle connection (the server went away) fails the next query instead of the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await migrate(
      {
        withScriptSession: (work) =>
          work({
            exec: async (script) => {
              await client.query(script);
            },
            query: async <Row>(text: string, params: unknown[] = []) =>
              (await client.query(text, params)).rows as Row[],
          }),
      },
      migrations,
      onProgress,
    );
  } finally {
    await client.end();
  }
}
