import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';

/** The PostgreSQL server of this run, or undefined when the suite runs on PGlite. */
export const serverUrl = process.env.DATABASE_URL?.trim() || undefined;
export const onPostgres = serverUrl !== undefined;
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
 * A database of its own for one test file: a fresh PostgreSQL database on the server of DATABASE_URL,
 * or an in-memory PGlite.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (serverUrl === undefined) {
    const database = await openDatabase({});
    return { database, url: undefined, drop: () => database.close() };
  }
  const url = await createFreshDatabase();
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

export async function createFreshDatabase(): Promise<string> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(postgresServerUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^gw_test_[0-9a-f]+$/.test(name)) throw new Error(`refusing to drop ${name}`);
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
