import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir } from '../src/paths.js';
import { buildProgram } from '../scripts/build.js';
import {
  createFreshDatabase,
  dropDatabase,
  PGLITE_TEMPLATE_ENV,
  POSTGRES_TEMPLATE_ENV,
} from './helpers/database.js';

const SETUP_DONE_ENV = 'GW_TEST_GLOBAL_SETUP_DONE';

/**
 * Once for the whole run, before any test file starts:
 * - builds `dist/`: the process, crash and CLI tests spawn the built program (as `npm start` runs it)
 *   instead of compiling the sources with tsx in every child. It is `npm run build`'s transpilation
 *   (scripts/build.ts, esbuild: about a second, in esbuild's own process while this one makes the PGlite
 *   template); types are checked by `npm run check`, not here;
 * - on the PGlite pass, migrates one embedded database and keeps it as the run's template: a data
 *   directory that spawned programs start from (`seedDataDir`) and its snapshot that each test file's
 *   in-memory database starts from (`createTestDatabase({ migrated: true })`). An empty PGlite costs an
 *   initdb (1.5 to 3 s of CPU); a copy of the template opens in a tenth of that. The workers find it
 *   through GW_TEST_PGLITE_TEMPLATE; the teardown removes it;
 * - on the PostgreSQL pass, the same as a database on the server that each test file's migrated database
 *   is copied from (`CREATE DATABASE … TEMPLATE`), found through GW_TEST_POSTGRES_TEMPLATE and dropped
 *   by the teardown.
 */
export default async function setup(): Promise<() => void | Promise<void>> {
  // Every project of vitest.config.ts runs its global setup, one after the other, in this process: the
  // first does the work, the others find it done.
  if (process.env[SETUP_DONE_ENV] === '1') return () => undefined;
  process.env[SETUP_DONE_ENV] = '1';
  const built = build();
  if (process.env.DATABASE_URL?.trim()) {
    const template = await makePostgresTemplate().catch(async (error: unknown) => {
      await built.catch(() => undefined);
      throw error;
    });
    try {
      await built;
    } catch (error) {
      await dropDatabase(template);
      throw error;
    }
    process.env[POSTGRES_TEMPLATE_ENV] = new URL(template).pathname.slice(1);
    return () => dropDatabase(template);
  }
  const started = Date.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-pglite-template-'));
  try {
    await makeTemplate(dir);
    console.warn(`global setup: migrated PGlite template in ${Date.now() - started} ms`);
    await built;
  } catch (error) {
    await built.catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  process.env[PGLITE_TEMPLATE_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** `npm run build`'s transpilation (scripts/build.ts); rejects with esbuild's message when it fails. */
async function build(): Promise<void> {
  const result = await buildProgram().catch((error: unknown) => {
    throw new Error(`the build of dist/ failed:\n${(error as Error).message}`, { cause: error });
  });
  console.warn(`global setup: dist/ built in ${result.ms} ms (${result.written} files written)`);
}

/** A migrated embedded database in `dir`: its data directory (`data/`) and its snapshot (`snapshot.tar`). */
async function makeTemplate(dir: string): Promise<void> {
  const dataDir = path.join(dir, 'data');
  const database = await openDatabase({ dataDir });
  try {
    await migrate(database, readMigrations(migrationsDir));
  } finally {
    await database.close();
  }
  const pglite = await PGlite.create({ dataDir: path.join(dataDir, 'pglite') });
  try {
    const tarball = await pglite.dumpDataDir('none');
    writeFileSync(path.join(dir, 'snapshot.tar'), Buffer.from(await tarball.arrayBuffer()));
  } finally {
    await pglite.close();
  }
}

/** A migrated database on the PostgreSQL server, closed (a template must have no connection). */
async function makePostgresTemplate(): Promise<string> {
  const started = Date.now();
  const url = await createFreshDatabase();
  try {
    const database = await openDatabase({ databaseUrl: url, poolSize: 1 });
    try {
      await migrate(database, readMigrations(migrationsDir));
    } finally {
      await database.close();
    }
  } catch (error) {
    await dropDatabase(url);
    throw error;
  }
  console.warn(`global setup: migrated PostgreSQL template in ${Date.now() - started} ms`);
  return url;
}
