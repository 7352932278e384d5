import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { violations } from '../scripts/check-dependencies.js';
import { measure } from '../scripts/check-sizes.js';
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

  it('a cycle between two folders through type imports alone fails', () => {
    expect(violations(fixture('folder-cycle'))).toEqual([
      'no-folder-cycle: src/modules/alpha ⇄ src/modules/beta',
    ]);
  });

  it('the composition root importing a repository fails', () => {
    expect(violations(fixture('root-imports-repository'))).toEqual([
      'repository-only-in-its-module: src/services.ts → src/modules/alpha/repository.ts',
    ]);
  });

  it("a service importing the HTTP layer's idempotency fails; a route may", () => {
    expect(violations(fixture('idempotency-in-service'))).toEqual([
      'http-idempotency-only-in-routes: src/modules/alpha/service.ts → src/http/idempotency.ts',
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

describe('sizes (the TypeScript parser)', () => {
  it('a function over 120 lines and a file over 600 fail; the composition root and src/ pass', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'sizes-'));
    try {
      mkdirSync(path.join(root, 'src/modules/alpha'), { recursive: true });
      const body = (lines: number) =>
        Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');
      // The signature, 119 lines of body, the return and the closing brace: 122 lines.
      writeFileSync(
        path.join(root, 'src/modules/alpha/service.ts'),
        `export function long(): number {\n${body(119)}\n  return 0;\n}\n`,
      );
      writeFileSync(path.join(root, 'src/modules/alpha/big.ts'), `${'export const x = 1;\n'.repeat(601)}`);
      writeFileSync(
        path.join(root, 'src/services.ts'),
        `export function root(): number {\n${body(200)}\n  return 0;\n}\n`,
      );
      expect(
        measure(root)
          .map((p) => [p.file, p.what, p.lines])
          .sort(),
      ).toEqual([
        ['src/modules/alpha/big.ts', 'file', 601],
        ['src/modules/alpha/service.ts', 'function long', 122],
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect(measure()).toEqual([]);
  });
});
