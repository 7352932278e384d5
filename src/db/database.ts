import { Kysely, PostgresDialect, sql, type LogEvent, type Transaction } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import pg from 'pg';
import path from 'node:path';
import type { DB } from './schema.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { addScrapeSource, dbQueryDuration } from '../metrics/registry.js';
import { createHostPool } from './hosts.js';

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
  /**
   * Reads that may be a little stale (lists, exports, dashboard figures): `DATABASE_READ_URL`'s pool
   * when set (ADR 0040), otherwise `db`. Never for writes, nor for a read inside a transaction.
   */
  readonly readDb: Kdb;
  /** Runs `work` on one dedicated session (a pooled client, or PGlite's only session). */
  withScriptSession<T>(work: (session: ScriptSession) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** `DATABASE_READ_URL`: a second pool for stale-tolerant reads (PostgreSQL only). */
  readDatabaseUrl?: string | undefined;
  poolSize?: number;
  /** Directory of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** Told when the embedded database's lock was left by a process that is gone (killed or crashed). */
  onStaleLock?: (ownerPid: number) => void;
  /**
   * An in-memory embedded database that starts as a copy of a data directory snapshot (PGlite's
   * `dumpDataDir` tarball) instead of an empty cluster: the test suite's migrated template, which opens
   * in a fraction of an initdb's time. Ignored with `databaseUrl` or `dataDir`.
   */
  snapshot?: Blob | undefined;
}

/** PostgreSQL's `date` type. */
const DATE_OID = 1082;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.readDatabaseUrl)
    : openPglite(options.dataDir, options.onStaleLock, options.snapshot);
}

function openPostgres(connectionString: string, max: number, readConnectionString?: string): Database {
  const poolOptions = {
    max,
    idleTimeoutMillis: 30_000,
    // A `date` is a calendar day, not an instant: kept as its 'YYYY-MM-DD' text, as on PGlite below.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === DATE_OID
          ? (value: string) => value
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  };
  // Several hosts (a primary and its standbys) are tried in turn for the one asked for: src/db/hosts.ts.
  const pool = createHostPool(connectionString, poolOptions);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: observeQuery });
  const readPool =
    readConnectionString === undefined ? pool : createHostPool(readConnectionString, poolOptions);
  const readDb =
    readPool === pool
      ? db
      : new Kysely<DB>({ dialect: new PostgresDialect({ pool: readPool }), log: observeQuery });
  const removeSource = addScrapeSource({
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  });
  return {
    kind: 'postgres',
    db,
    readDb,
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
      removeSource();
      // Kysely ends a pool only once a statement of its own went through it; script sessions (the
      // migrations) use the pool directly. Both pools are ended here whatever ran.
      await db.destroy();
      await pool.end();
      if (readDb !== db) await readDb.destroy();
      await readPool.end();
    },
  };
}

/** Every statement's time, in the metrics (`gateway_db_query_duration_seconds`). */
function observeQuery(event: LogEvent): void {
  dbQueryDuration.observe(
    { outcome: event.level === 'query' ? 'ok' : 'error' },
    event.queryDurationMillis / 1000,
  );
}

/**
 * PostgreSQL settings of the embedded database (docs/operations.md, "Memory of the embedded database").
 * Its shared buffers live in the WebAssembly memory, which grows and never shrinks: the default 128 MB
 * was most of the process's resident memory, for a cache of pages that the data directory's files (in
 * the operating system's page cache) or the in-memory file system already hold.
 */
const PGLITE_SETTINGS = ['shared_buffers=16MB'];

async function openPglite(
  dataDir: string | undefined,
  onStaleLock: ((ownerPid: number) => void) | undefined,
  snapshot?: Blob,
): Promise<Database> {
  let lock: DataDirLock | undefined;
  if (dataDir !== undefined) lock = lockDataDir(dataDir);
  if (lock?.recoveredFrom !== undefined) onStaleLock?.(lock.recoveredFrom);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dataDir !== undefined
        ? { dataDir: path.join(dataDir, 'pglite') }
        : snapshot !== undefined
          ? { loadDataDir: snapshot }
          : {}),
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((setting) => ['-c', setting])],
      // Same representation as node-postgres: int8 and numeric arrive as decimal strings.
      parsers: {
        [pgliteTypes.INT8]: (value: string) => value,
        [pgliteTypes.NUMERIC]: (value: string) => value,
        [pgliteTypes.DATE]: (value: string) => value,
      },
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite), log: observeQuery });
  return {
    kind: 'pglite',
    db,
    readDb: db,
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
