import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';

/** The PostgreSQL server of this run, or undefined when the suite runs on PGlite. */
export const serverUrl = process.env.DATABASE_URL?.trim() || undefined;
export const onPostgres = serverUrl !== undefined;
/**
 * The database of this pass, for the tests that spawn the real program (process, crash, shutdown, CLI):
 * each runs it on the pass's own database, so the PGlite pass covers the embedded database in DATA_DIR
 * and the PostgreSQL pass the server, and CI, which runs both passes, runs every case on both without
 * running either twice.
 */
export const passDatabase: 'embedded' | 'postgres' = onPostgres ? 'postgres' : 'embedded';

/**
 * `describe` for a suite about one database's program (the CLI on DATA_DIR, the CLI beside a gateway on
 * PostgreSQL): defined on that database's pass only, run by the other pass of CI rather than twice.
 */
export function describeOnPass(database: 'embedded' | 'postgres'): typeof describe {
  return database === passDatabase ? describe : ((() => undefined) as unknown as typeof describe);
}
/**
 * The PostgreSQL server for tests that are about the server itself (advisory locks, several instances
 * on one database): DATABASE_URL's, or the local one that CI and every development machine run.
 */
export const postgresServerUrl = serverUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  database: Database;
  /** Connection string of the fresh database (PostgreSQL only), for a second instance or process. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * Where test/global-setup.ts left the PGlite pass's migrated template: `snapshot.tar` (an in-memory
 * database's starting point) and `data/pglite` (a data directory to copy). Unset on the PostgreSQL pass.
 */
export const PGLITE_TEMPLATE_ENV = 'GW_TEST_PGLITE_TEMPLATE';
const templateDir = () => process.env[PGLITE_TEMPLATE_ENV] || undefined;
let snapshot: Blob | undefined;

/** The migrated template as a snapshot, read once per test worker; undefined without a template. */
function templateSnapshot(): Blob | undefined {
  const dir = templateDir();
  if (dir === undefined) return undefined;
  snapshot ??= new Blob([readFileSync(path.join(dir, 'snapshot.tar'))]);
  return snapshot;
}

/**
 * Puts a copy of the migrated template into DATA_DIR `dataDir` (PGlite pass), so that a spawned program
 * opens an existing, migrated database instead of creating one: an initdb costs seconds of CPU per
 * program. Tests about creating the database leave their DATA_DIR empty.
 */
export function seedDataDir(dataDir: string): void {
  const dir = templateDir();
  if (dir === undefined) return;
  const source = path.join(dir, 'data', 'pglite');
  if (!existsSync(source)) return;
  cpSync(source, path.join(dataDir, 'pglite'), { recursive: true });
}

/**
 * Where test/global-setup.ts left the PostgreSQL pass's migrated template: the name of a database on the
 * server (`gw_test_…`) that nobody connects to, copied by `CREATE DATABASE … TEMPLATE`. Unset on the
 * PGlite pass.
 */
export const POSTGRES_TEMPLATE_ENV = 'GW_TEST_POSTGRES_TEMPLATE';

/**
 * A database of its own for one test file: a fresh PostgreSQL database on the server of DATABASE_URL,
 * or an in-memory PGlite; `migrated` starts it as a copy of the run's migrated template (the migrations
 * then find nothing to apply): a PGlite opens several times faster than an empty one, and a PostgreSQL
 * copy costs about a third less than an empty database migrated (0.2 s against 0.35 s, and none of the
 * migrations' catalog work on the server).
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (serverUrl === undefined) {
    const database = await openDatabase({
      snapshot: options.migrated ? templateSnapshot() : undefined,
    });
    return { database, url: undefined, drop: () => database.close() };
  }
  const url = await createFreshDatabase(
    options.migrated ? process.env[POSTGRES_TEMPLATE_ENV] || undefined : undefined,
  );
  const database = await openDatabase({ databaseUrl: url, poolSize: 20 });
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await dropDatabase(url);
    },
  };
}

/** The names this module gives the databases it makes (the only ones it drops or copies). */
const TEST_DATABASE_NAME = /^gw_test_[0-9a-f]+$/;

/** A new empty database on the server, or a copy of `template` (a `gw_test_…` database of this run). */
export async function createFreshDatabase(template?: string): Promise<string> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  if (template !== undefined && !TEST_DATABASE_NAME.test(template)) {
    throw new Error(`refusing to copy ${template}`);
  }
  await withAdmin((client) =>
    client.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`),
  );
  const url = new URL(postgresServerUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!TEST_DATABASE_NAME.test(name)) throw new Error(`refusing to drop ${name}`);
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresServerUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
