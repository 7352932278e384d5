import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, ROLES } from '../src/config.js';
import { DataDirLockedError, lockDataDir } from '../src/db/data-dir-lock.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import {
  createFreshDatabase,
  createTestDatabase,
  dropDatabase,
  onPostgres,
  seedDataDir,
  type TestDatabase,
} from './helpers/database.js';

const MIGRATION_LOCK_ID = 7_343_112_001;

/** Everything a test opens or creates, undone after it whatever happened. */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(): Promise<TestDatabase> {
  const testDb = await createTestDatabase();
  cleanups.push(() => testDb.drop());
  return testDb;
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A directory of migration files of the test's own: name → SQL. */
function migrationDir(files: Record<string, string>): string {
  const dir = tempDir('gw-migrations-');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

async function tableExists(database: Database, table: string): Promise<boolean> {
  const { rows } = await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(
    database.db,
  );
  return rows[0]?.found != null;
}

async function recorded(database: Database): Promise<Array<{ name: string; checksum: string }>> {
  return database.db.selectFrom('schema_migrations').select(['name', 'checksum']).orderBy('name').execute();
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// Opening PGlite takes seconds, and much longer on a loaded machine.
describe(`migrations (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, { timeout: 120_000 }, () => {
  it('apply once, record name and checksum, and a second run applies nothing', async () => {
    const { database } = await freshDatabase();
    const migrations = readMigrations(migrationsDir);
    expect(migrations.map((m) => m.name)).toContain('0001_foundation.sql');

    const first = await migrate(database, migrations);
    expect(first).toEqual(migrations.map((m) => m.name));
    expect(await tableExists(database, 'applications')).toBe(true);
    expect(await tableExists(database, 'idempotency_keys')).toBe(true);

    const rows = await database.db.selectFrom('schema_migrations').selectAll().orderBy('name').execute();
    expect(rows.map(({ name, checksum }) => ({ name, checksum }))).toEqual(
      migrations.map(({ name }) => ({
        name,
        checksum: sha256(readFileSync(path.join(migrationsDir, name), 'utf8')),
      })),
    );
    for (const row of rows) expect(row.applied_at).toBeInstanceOf(Date);

    expect(await migrate(database, readMigrations(migrationsDir))).toEqual([]);
    expect(await recorded(database)).toHaveLength(migrations.length);
  });

  it('applies only the migrations that are new, in file name order', async () => {
    const { database } = await freshDatabase();
    const dir = migrationDir({
      '0002_second.sql': 'CREATE TABLE second_table (id int REFERENCES first_table (id));',
      '0001_first.sql': 'CREATE TABLE first_table (id int PRIMARY KEY);',
      'README.md': 'not a migration',
    });
    expect(readMigrations(dir).map((m) => m.name)).toEqual(['0001_first.sql', '0002_second.sql']);
    expect(await migrate(database, readMigrations(dir))).toEqual(['0001_first.sql', '0002_second.sql']);

    writeFileSync(path.join(dir, '0003_third.sql'), 'ALTER TABLE first_table ADD COLUMN label text;');
    expect(await migrate(database, readMigrations(dir))).toEqual(['0003_third.sql']);
    expect((await recorded(database)).map((r) => r.name)).toEqual([
      '0001_first.sql',
      '0002_second.sql',
      '0003_third.sql',
    ]);
  });

  it('refuses to start when an applied migration was changed afterwards', async () => {
    const { database } = await freshDatabase();
    const dir = migrationDir({ '0001_first.sql': 'CREATE TABLE first_table (id int);' });
    await migrate(database, readMigrations(dir));

    writeFileSync(path.join(dir, '0001_first.sql'), 'CREATE TABLE first_table (id bigint);');
    writeFileSync(path.join(dir, '0002_second.sql'), 'CREATE TABLE second_table (id int);');
    await expect(migrate(database, readMigrations(dir))).rejects.toThrow(
      /Migration 0001_first\.sql was changed after it was applied/,
    );
    // Nothing after the changed migration ran, and the recorded checksum is still the original one.
    expect(await tableExists(database, 'second_table')).toBe(false);
    expect(await recorded(database)).toEqual([
      { name: '0001_first.sql', checksum: sha256('CREATE TABLE first_table (id int);') },
    ]);
  });

  it('refuses to start when the database has a migration this build does not know', async () => {
    const { database } = await freshDatabase();
    const dir = migrationDir({
      '0001_first.sql': 'CREATE TABLE first_table (id int);',
      '0002_second.sql': 'CREATE TABLE second_table (id int);',
    });
    await migrate(database, readMigrations(dir));
    rmSync(path.join(dir, '0002_second.sql'));
    await expect(migrate(database, readMigrations(dir))).rejects.toThrow(
      /The database has migration 0002_second\.sql, which this build does not know/,
    );
  });

  it.each(['1_short.sql', '0001-dash.sql', '0001_Upper.sql', '0001_.sql', 'foundation.sql'])(
    'rejects the badly named migration file %s',
    (name) => {
      const dir = migrationDir({ '0001_good.sql': 'SELECT 1;', [name]: 'SELECT 1;' });
      expect(() => readMigrations(dir)).toThrow(`Migration file name ${name} must look like 0001_name.sql`);
    },
  );

  it('rolls a failing migration back completely and does not record it', async () => {
    const { database } = await freshDatabase();
    const dir = migrationDir({
      '0001_ok.sql': 'CREATE TABLE ok_table (id int);',
      '0002_broken.sql': [
        'CREATE TABLE partial_table (id int);',
        'INSERT INTO partial_table VALUES (1);',
        'ALTER TABLE ok_table ADD COLUMN extra text;',
        'SELECT 1 / 0;',
      ].join('\n'),
      '0003_later.sql': 'CREATE TABLE later_table (id int);',
    });
    await expect(migrate(database, readMigrations(dir))).rejects.toThrow(
      /Migration 0002_broken\.sql failed: division by zero/,
    );

    // The migration before it stays applied; nothing of the broken one survives; later ones did not run.
    expect((await recorded(database)).map((r) => r.name)).toEqual(['0001_ok.sql']);
    expect(await tableExists(database, 'ok_table')).toBe(true);
    expect(await tableExists(database, 'partial_table')).toBe(false);
    expect(await tableExists(database, 'later_table')).toBe(false);
    const columns = await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_name = 'ok_table'`.execute(database.db);
    expect(columns.rows.map((r) => r.column_name)).toEqual(['id']);

    // The session is usable again and, once fixed, the migration applies.
    writeFileSync(path.join(dir, '0002_broken.sql'), 'CREATE TABLE partial_table (id int);');
    expect(await migrate(database, readMigrations(dir))).toEqual(['0002_broken.sql', '0003_later.sql']);
  });

  it('releases the advisory lock after a failed migration (PostgreSQL server)', async () => {
    const url = await createFreshDatabase();
    cleanups.push(() => dropDatabase(url));
    const database = await openDatabase({ databaseUrl: url, poolSize: 1 });
    cleanups.push(() => database.close());
    const dir = migrationDir({ '0001_broken.sql': 'SELECT 1 / 0;' });
    await expect(migrate(database, readMigrations(dir))).rejects.toThrow(/0001_broken\.sql failed/);

    const other = await openDatabase({ databaseUrl: url, poolSize: 1 });
    cleanups.push(() => other.close());
    const taken = await other.withScriptSession(async (session) => {
      const [row] = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        MIGRATION_LOCK_ID,
      ]);
      await session.query('SELECT pg_advisory_unlock_all()');
      return row?.locked;
    });
    expect(taken).toBe(true);
  });

  it('runs exactly once when two processes migrate the same fresh database at the same time', async () => {
    const url = await createFreshDatabase();
    cleanups.push(() => dropDatabase(url));
    const first = await openDatabase({ databaseUrl: url, poolSize: 2 });
    cleanups.push(() => first.close());
    const second = await openDatabase({ databaseUrl: url, poolSize: 2 });
    cleanups.push(() => second.close());

    // A slow migration that would fail if it ran twice (CREATE TABLE without IF NOT EXISTS).
    const dir = migrationDir({
      '0001_slow.sql': 'CREATE TABLE runs (id int); SELECT pg_sleep(0.5); INSERT INTO runs VALUES (1);',
      '0002_other.sql': 'CREATE TABLE other_table (id int); INSERT INTO runs VALUES (2);',
    });
    const migrations = readMigrations(dir);
    const results = await Promise.all([migrate(first, migrations), migrate(second, migrations)]);

    expect(results.flat().sort()).toEqual(['0001_slow.sql', '0002_other.sql']);
    // The lock is held for the whole run, so one of them applied everything and the other nothing.
    expect(results.map((r) => r.length).sort()).toEqual([0, 2]);
    const runs = await sql<{ id: number }>`select id from runs order by id`.execute(first.db);
    expect(runs.rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await recorded(second)).map((r) => r.name)).toEqual(['0001_slow.sql', '0002_other.sql']);
  });

  it('runs the real migrations once when two instances start together', async () => {
    const url = await createFreshDatabase();
    cleanups.push(() => dropDatabase(url));
    const databases = await Promise.all([1, 2].map(() => openDatabase({ databaseUrl: url, poolSize: 2 })));
    for (const database of databases) cleanups.push(() => database.close());
    const migrations = readMigrations(migrationsDir);
    const results = await Promise.all(databases.map((database) => migrate(database, migrations)));
    expect(results.flat().sort()).toEqual(migrations.map((m) => m.name));
    expect(await recorded(databases[0] as Database)).toHaveLength(migrations.length);
  });
});

describe('the PGlite data directory', { timeout: 120_000 }, () => {
  async function openPgliteIn(dataDir: string): Promise<Database> {
    const database = await openDatabase({ dataDir });
    // close() may run twice: once in the test, once here.
    cleanups.push(() => database.close());
    return database;
  }

  it('is locked with the pid of its owner while open, and unlocked on close', async () => {
    const dataDir = tempDir('gw-data-');
    const database = await openPgliteIn(dataDir);
    expect(database.kind).toBe('pglite');
    await database.ping();
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(true);
    expect(readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toBe(String(process.pid));
    await database.close();
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
  });

  it('cannot be opened twice at once, and opens again once the first is closed', async () => {
    const dataDir = tempDir('gw-data-');
    // A copy of the run's migrated template where there is one (the first test pays for an initdb).
    seedDataDir(dataDir);
    const first = await openPgliteIn(dataDir);

    const error = await openDatabase({ dataDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as DataDirLockedError).dataDir).toBe(dataDir);
    expect((error as DataDirLockedError).ownerPid).toBe(process.pid);
    expect((error as Error).message).toContain(`DATA_DIR ${dataDir} is in use by process ${process.pid}`);
    // The failed attempt left the first owner's lock alone.
    expect(readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toBe(String(process.pid));
    await first.ping();

    await first.close();
    const second = await openPgliteIn(dataDir);
    await second.ping();
    await second.close();
  });

  it('takes over a stale lock left by a process that is gone', async () => {
    const dataDir = tempDir('gw-data-');
    seedDataDir(dataDir);
    writeFileSync(path.join(dataDir, 'gateway.lock'), '2147483646');
    const database = await openPgliteIn(dataDir);
    await database.ping();
    expect(readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toBe(String(process.pid));
    await database.close();
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
  });

  it('refuses a lock held by another live process, naming it', () => {
    const dataDir = tempDir('gw-data-');
    writeFileSync(path.join(dataDir, 'gateway.lock'), String(process.ppid));
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dataDir)).toThrow(`is in use by process ${process.ppid}`);
    expect(readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toBe(String(process.ppid));
  });

  it('lockDataDir creates the directory, writes the pid and releases idempotently', () => {
    const dataDir = path.join(tempDir('gw-data-'), 'nested', 'dir');
    const lock = lockDataDir(dataDir);
    expect(readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toBe(String(process.pid));
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    lock.release();
    lock.release();
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
    // A released lock does not remove a lock taken afterwards.
    const again = lockDataDir(dataDir);
    lock.release();
    expect(existsSync(path.join(dataDir, 'gateway.lock'))).toBe(true);
    again.release();
  });

  it('keeps its data across close and reopen', async () => {
    const dataDir = tempDir('gw-data-');
    const first = await openPgliteIn(dataDir);
    expect(await migrate(first, readMigrations(migrationsDir))).not.toEqual([]);
    const createdAt = new Date('2026-11-23T10:00:00.000Z');
    await first.db
      .insertInto('applications')
      .values({
        id: 'app_persisted',
        status: 'NEW',
        company_name: 'Anatolia Trading Ltd',
        jurisdiction: 'TR',
        vertical: 'forex',
        vertical_other: null,
        monthly_volume_usd: '250000',
        current_acquirer: null,
        why_switching: null,
        contact_name: 'Ayşe Yılmaz',
        contact_email: 'ayse@anatolia.example',
        telegram: null,
        submitted_ip: '127.0.0.1',
        created_at: createdAt,
        updated_at: createdAt,
      })
      .execute();
    await first.close();

    const second = await openPgliteIn(dataDir);
    expect(await migrate(second, readMigrations(migrationsDir))).toEqual([]);
    const row = await second.db
      .selectFrom('applications')
      .selectAll()
      .where('id', '=', 'app_persisted')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      company_name: 'Anatolia Trading Ltd',
      contact_name: 'Ayşe Yılmaz',
      monthly_volume_usd: '250000',
      submitted_ip: '127.0.0.1',
      created_at: createdAt,
    });
    await second.close();
  });
});

describe('loadConfig', () => {
  function configError(env: Record<string, string>, argv: string[] = []): ConfigError {
    try {
      loadConfig(env, argv);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error(`expected a ConfigError for ${JSON.stringify(env)} ${argv.join(' ')}`);
  }

  it('has defaults for everything', () => {
    expect(loadConfig({})).toMatchObject({
      nodeEnv: 'development',
      host: '127.0.0.1',
      ports: { web: 3000, sandboxApi: 3001, liveApi: 3002, operator: 3003 },
      baseUrls: {
        web: 'http://127.0.0.1:3000',
        sandboxApi: 'http://127.0.0.1:3001',
        liveApi: 'http://127.0.0.1:3002',
        operator: 'http://127.0.0.1:3003',
      },
      databaseUrl: undefined,
      databasePoolSize: 10,
      dataDir: path.resolve('data'),
      redisUrl: undefined,
      redisKeyPrefix: 'gw:',
      logLevel: 'info',
      bodyLimitBytes: 65_536,
      trustedProxies: [],
      applicationRateLimit: { max: 10, windowMs: 3_600_000 },
      shutdownTimeoutMs: 10_000,
      roles: [...ROLES],
    });
    // Blank values count as unset.
    expect(loadConfig({ WEB_PORT: '  ', LOG_LEVEL: '', DATABASE_URL: ' ' })).toEqual(loadConfig({}));
  });

  it('reads valid values', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      HOST: '0.0.0.0',
      WEB_PORT: '8080',
      SANDBOX_API_PORT: '0',
      DATABASE_URL: 'postgresql://user:pw@db.internal:5432/gateway',
      DATABASE_POOL_SIZE: '25',
      DATA_DIR: '/var/lib/gateway',
      REDIS_URL: 'rediss://cache.internal:6380',
      LOG_LEVEL: 'warn',
      TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1,::1,fd00::/8',
      LIVE_API_BASE_URL: 'https://api.gateway.example/',
    });
    expect(config).toMatchObject({
      nodeEnv: 'test',
      host: '0.0.0.0',
      ports: { web: 8080, sandboxApi: 0, liveApi: 3002, operator: 3003 },
      databaseUrl: 'postgresql://user:pw@db.internal:5432/gateway',
      databasePoolSize: 25,
      dataDir: '/var/lib/gateway',
      redisUrl: 'rediss://cache.internal:6380',
      logLevel: 'warn',
      trustedProxies: ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8'],
    });
    // A wildcard host is shown as localhost; an explicit base URL loses its trailing slash.
    expect(config.baseUrls).toEqual({
      web: 'http://localhost:8080',
      sandboxApi: 'http://localhost:0',
      liveApi: 'https://api.gateway.example',
      operator: 'http://localhost:3003',
    });
  });

  it.each([
    ['WEB_PORT', 'abc'],
    ['SANDBOX_API_PORT', '65536'],
    ['LIVE_API_PORT', '-1'],
    ['OPERATOR_PORT', '80.5'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://root@127.0.0.1/gateway'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_POOL_SIZE', '0'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', '10.0.0.1,proxy.internal'],
    ['ROLES', 'api,admin'],
    ['WEB_BASE_URL', 'ftp://gateway.example'],
    ['SHUTDOWN_TIMEOUT_MS', 'soon'],
  ])('names %s in the error when it is %j', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name} `));
    expect(error.message).toContain(name);
  });

  it('reports every bad variable at once', () => {
    const bad = {
      WEB_PORT: 'abc',
      SANDBOX_API_PORT: '70000',
      LIVE_API_PORT: 'x1',
      OPERATOR_PORT: '1e3',
      LOG_LEVEL: 'verbose',
      DATABASE_URL: 'mysql://localhost/db',
      REDIS_URL: 'memcached://localhost',
      TRUSTED_PROXIES: '10.0.0.0/8,300.1.1.1/24',
      ROLES: 'api,billing',
    };
    const error = configError(bad);
    expect(error.problems).toHaveLength(Object.keys(bad).length);
    for (const name of Object.keys(bad)) expect(error.message).toContain(name);
    expect(error.message).toMatch(/^Invalid configuration:\n {2}- /);
    expect(error.message).toContain('(got "abc")');
    expect(error.message).toContain('bad entry "300.1.1.1/24"');
    expect(error.message).toContain('unknown: billing');
    // A URL with credentials is never echoed back.
    expect(configError({ DATABASE_URL: 'mysql://root:hunter2@db/x' }).message).not.toContain('hunter2');
  });

  it('parses --roles', () => {
    // The api role without the sandbox-acquirer role needs an acquirer elsewhere for test keys.
    const external = {
      SANDBOX_ACQUIRER_URL: 'http://127.0.0.1:3999',
      SANDBOX_ACQUIRER_API_KEY: 'sa_key',
      SANDBOX_ACQUIRER_NOTIFICATION_SECRET: 'secret',
    };
    expect(loadConfig(external, ['--roles', 'api,worker']).roles).toEqual(['api', 'worker']);
    expect(loadConfig({}, ['--roles=operator']).roles).toEqual(['operator']);
    expect(loadConfig(external, ['--roles', ' api , api ']).roles).toEqual(['api']);
    expect(loadConfig({}, ['--roles', 'all']).roles).toEqual([...ROLES]);
    expect(loadConfig({ ROLES: 'worker' }).roles).toEqual(['worker']);
    // The command line wins over the environment.
    expect(loadConfig({ ...external, ROLES: 'worker' }, ['--roles', 'api']).roles).toEqual(['api']);
    expect(loadConfig({ ...external, ROLES: 'nonsense' }, ['--roles', 'api']).roles).toEqual(['api']);
    expect(loadConfig({}, ['--roles', 'api,sandbox-acquirer']).roles).toEqual(['api', 'sandbox-acquirer']);
  });

  it('needs a sandbox acquirer for the api role, and the acquirer settings to fit together', () => {
    expect(configError({}, ['--roles', 'api']).message).toContain('SANDBOX_ACQUIRER_URL is required');
    expect(configError({ SANDBOX_ACQUIRER_URL: 'http://127.0.0.1:3999' }).message).toContain(
      'SANDBOX_ACQUIRER_URL needs SANDBOX_ACQUIRER_API_KEY and SANDBOX_ACQUIRER_NOTIFICATION_SECRET',
    );
    expect(configError({ LIVE_ACQUIRER_URL: 'https://acquirer.example' }).message).toContain(
      'set all three or none',
    );
    expect(configError({ IDEMPOTENCY_LOCK_MS: '5000', ACQUIRER_TIMEOUT_MS: '2000' }).message).toContain(
      'IDEMPOTENCY_LOCK_MS (5000) must exceed the longest acquirer call, 6300 ms',
    );
    const config = loadConfig({
      LIVE_ACQUIRER_URL: 'https://acquirer.example/',
      LIVE_ACQUIRER_API_KEY: 'k',
      LIVE_ACQUIRER_NOTIFICATION_SECRET: 's',
      CHARGE_EXPIRY_MINUTES: '30',
      CHECKOUT_BASE_URL: 'https://pay.example/',
    });
    expect(config.acquirers.live).toEqual({
      url: 'https://acquirer.example',
      apiKey: 'k',
      notificationSecret: 's',
    });
    expect(config.checkout).toEqual({
      baseUrl: 'https://pay.example',
      chargeExpiresAfterMs: 1_800_000,
      cardAttempts: 3,
    });
  });

  it('names ROLES and --roles for an unknown role', () => {
    const fromArgv = configError({}, ['--roles', 'api,admin']);
    expect(fromArgv.message).toContain('ROLES (or --roles)');
    expect(fromArgv.message).toContain('unknown: admin');
    expect(configError({}, ['--roles=worker,web']).message).toContain('unknown: web');
  });

  it('refuses --roles without a value instead of starting every role', () => {
    expect(configError({}, ['--roles']).message).toContain('--roles');
    expect(configError({}, ['--roles', '']).message).toContain('--roles');
    expect(configError({}, ['--roles=']).message).toContain('--roles');
    expect(configError({}, ['--roles', 'api,']).message).toContain('--roles');
  });
});
