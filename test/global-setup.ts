import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../src/db/database.js';
import { migrate, readMigrations } from '../src/db/migrator.js';
import { migrationsDir, projectRoot } from '../src/paths.js';
import { PGLITE_TEMPLATE_ENV } from './helpers/database.js';

/**
 * Once for the whole run, before any test file starts:
 * - builds `dist/`: the process, crash and CLI tests spawn the built program (as `npm start` runs it)
 *   instead of compiling the sources with tsx in every child. It runs in build mode (`tsc -b`, as
 *   `npm run build`), which finds an up-to-date `dist/` from file times without compiling anything;
 * - on the PGlite pass, migrates one embedded database and keeps it as the run's template: a data
 *   directory that spawned programs start from (`seedDataDir`) and its snapshot that each test file's
 *   in-memory database starts from (`createTestDatabase({ migrated: true })`). An empty PGlite costs an
 *   initdb (1.5 to 3 s of CPU); a copy of the template opens in a tenth of that. The workers find it
 *   through GW_TEST_PGLITE_TEMPLATE; the teardown removes it.
 */
export default async function setup(): Promise<() => void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  let started = Date.now();
  execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: projectRoot, stdio: 'inherit' });
  console.warn(`global setup: dist/ built in ${Date.now() - started} ms`);
  if (process.env.DATABASE_URL?.trim()) return () => undefined;

  started = Date.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-pglite-template-'));
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
  process.env[PGLITE_TEMPLATE_ENV] = dir;
  console.warn(`global setup: migrated PGlite template in ${Date.now() - started} ms`);
  return () => rmSync(dir, { recursive: true, force: true });
}
