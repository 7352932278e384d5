import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { violations } from '../scripts/check-dependencies.js';
import { check, migratedTables, OWNERS } from '../scripts/check-table-ownership.js';
import { projectRoot } from '../src/paths.js';

/** The boundary checks of `npm run check` (ADR 0027) fail on a deliberate violation and pass on src/. */
const fixture = (name: string) => path.join(projectRoot, 'test/fixtures/boundaries', name);

function runScript(script: string, args: string[] = []): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join('scripts', script), ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('dependency rules (dependency-cruiser)', () => {
  it('a cycle between two files fails', () => {
    expect(violations(fixture('cycle'))).toContain(
      'no-circular: src/modules/alpha/helper.ts → src/modules/alpha/service.ts',
    );
  });

  it("a deep import of another module's repository fails", () => {
    expect(violations(fixture('deep-import'))).toEqual([
      'module-private-files: src/modules/alpha/service.ts → src/modules/beta/repository.ts',
    ]);
  });

  it('src/shared importing a module fails', () => {
    expect(violations(fixture('shared-imports-module'))).toEqual([
      'shared-and-db-import-no-module: src/shared/util.ts → src/modules/alpha/service.ts',
    ]);
  });

  it('a tree that keeps the rules passes', () => {
    expect(violations(fixture('clean'))).toEqual([]);
  });

  it('the command exits non-zero on a violation and zero on the real tree', () => {
    const bad = runScript('check-dependencies.ts', ['--root', fixture('deep-import')]);
    expect(bad.status, bad.output).toBe(1);
    expect(bad.output).toContain('module-private-files');
    const real = runScript('check-dependencies.ts');
    expect(real.status, real.output).toBe(0);
  });
});

describe('table ownership', () => {
  it("a module querying another module's tables fails", () => {
    const report = check(fixture('foreign-table'), []);
    expect(report.violations.map((v) => [v.file, v.table, v.owner])).toEqual([
      ['src/modules/users/service.ts', 'api_keys', 'api-keys'],
      ['src/modules/users/service.ts', 'organizations', 'organizations'],
    ]);
  });

  it('an allowlist entry that no longer occurs fails', () => {
    const report = check(fixture('clean'), [
      { file: 'src/modules/users/service.ts', table: 'organizations' },
    ]);
    expect(report.violations).toEqual([]);
    expect(report.stale).toEqual([{ file: 'src/modules/users/service.ts', table: 'organizations' }]);
  });

  it('a tree whose modules query only their own tables passes', () => {
    expect(check(fixture('clean'), [])).toEqual({ violations: [], stale: [], unowned: [] });
  });

  it('every table the migrations create has an owner', () => {
    const tables = migratedTables(projectRoot);
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((t) => OWNERS[t] === undefined)).toEqual([]);
  });

  it('the command exits non-zero on a violation and zero on the real tree', () => {
    const bad = runScript('check-table-ownership.ts', ['--root', fixture('foreign-table')]);
    expect(bad.status, bad.output).toBe(1);
    expect(bad.output).toContain('queries organizations, owned by organizations');
    const real = runScript('check-table-ownership.ts');
    expect(real.status, real.output).toBe(0);
  });
});
