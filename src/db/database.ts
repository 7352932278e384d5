import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import path from 'node:path';
import type { DB } from './schema.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';

export type Kdb = Kysely<DB>;
/**
 * A transaction the caller opened. Writes that must be atomic with the caller's other writes take `Trx`,
 * never `Kdb`, so passing the database where a transaction is needed fails to compile.
 */
export type Trx = Transaction<DB>;

/** One session that runs migration scripts: multi-statement SQL, then parameterised bookkeeping. */
export interface ScriptSession {
  exec(script: string): Promise<void>;
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
}

export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Kdb;
  /** Runs `work` on one dedicated session (a pooled client, or PGlite's only session). */
  withScriptSession<T>(work: (session: ScriptSession) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  poolSize?: number;
  /** Directory of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** Told when the embedded database's lock was left by a process that is gone (killed or crashed). */
  onStaleLock?: (ownerPid: number) => void;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10)
    : openPglite(options.dataDir, options.onStaleLock);
}

function openPostgres(connectionString: string, max: number): Database {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // A failed idle client (server restart) must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    async withScriptSession(work) {
      const client = await pool.connect();
      try {
        return await work({
          exec: async (script) => {
            await client.query(script);
          },
          query: async <Row>(text: string, params: unknown[] = []) =>
            (await client.query(text, params)).rows as Row[],
        });
      } finally {
        client.release();
      }
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

async function openPglite(
  dataDir: string | undefined,
  onStaleLock: ((ownerPid: number) => void) | undefined,
): Promise<Database> {
  let lock: DataDirLock | undefined;
  if (dataDir !== undefined) lock = lockDataDir(dataDir);
  if (lock?.recoveredFrom !== undefined) onStaleLock?.(lock.recoveredFrom);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dataDir !== undefined ? { dataDir: path.join(dataDir, 'pglite') } : {}),
      // Same representation as node-postgres: int8 and numeric arrive as decimal strings.
      parsers: {
        [pgliteTypes.INT8]: (value: string) => value,
        [pgliteTypes.NUMERIC]: (value: string) => value,
      },
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    kind: 'pglite',
    db,
    async withScriptSession(work) {
      return work({
        exec: async (script) => {
          await pglite.exec(script);
        },
        query: async <Row>(text: string, params: unknown[] = []) =>
          (await pglite.query<Row>(text, params)).rows,
      });
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      try {
        await db.destroy();
        if (!pglite.closed) await pglite.close();
      } finally {
        lock?.release();
      }
    },
  };
}
