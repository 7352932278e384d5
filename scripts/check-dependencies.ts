/**
 * Runs dependency-cruiser with .dependency-cruiser.mjs on `src/` (issue 12, ADR 0027) and fails on:
 * - a violation (a cycle between files, a cycle between folders with type imports counted, a repository
 *   imported from outside its module, src/shared or src/db importing a module, src/ importing test/)
 *   that is not on ALLOWLIST;
 * - an ALLOWLIST entry that no longer occurs (the list only shrinks).
 *
 * Usage: `tsx scripts/check-dependencies.ts [--root DIR]` (DIR holds `src/`; default the repository).
 * With `--root` the ALLOWLIST is not applied (the boundary tests run it on fixture trees).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Known violations as dependency-cruiser names them (`rule: from → to`; for a cycle, the first step of
 * it), each with why it is tolerated. Empty since issue 12 removed the last ones: keep it that way.
 */
export const ALLOWLIST: ReadonlyArray<{ violation: string; why: string }> = [];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string } | string>;
}

interface CruisedModule {
  source: string;
  dependencies: Array<{ resolved: string }>;
}

/**
 * The unit a folder-level arrow starts and ends at: a module (`src/modules/<name>`), a top-level folder
 * of src/ (`src/http`, `src/db`, ...), or a file directly in src/ (`src/config.ts`: each is its own).
 */
export function unitOf(file: string): string | undefined {
  const module = /^src\/modules\/([^/]+)\//.exec(file);
  if (module) return `src/modules/${module[1]}`;
  const folder = /^src\/([^/]+)\//.exec(file);
  if (folder) return `src/${folder[1]}`;
  return file.startsWith('src/') ? file : undefined;
}

/**
 * Cycles between folders (type-only imports counted: dependency-cruiser sees them with
 * `tsPreCompilationDeps`), one line per strongly connected group of units, its members sorted:
 * `no-folder-cycle: src/modules/a ⇄ src/modules/b`. Tests (`*.test.ts`) are left out.
 */
export function folderCycles(modules: readonly CruisedModule[]): string[] {
  const arrows = new Map<string, Set<string>>();
  for (const module of modules) {
    if (module.source.endsWith('.test.ts')) continue;
    const from = unitOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = unitOf(dependency.resolved);
      if (!to || to === from || dependency.resolved.endsWith('.test.ts')) continue;
      if (!arrows.has(from)) arrows.set(from, new Set());
      arrows.get(from)?.add(to);
    }
  }
  // Tarjan's strongly connected components, iterative over the (small) unit graph.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit) ?? 0);
    stack.push(unit);
    onStack.add(unit);
    for (const next of arrows.get(unit) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(unit, Math.min(low.get(unit) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(unit) === index.get(unit)) {
      const group: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        group.push(member);
        if (member === unit) break;
      }
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const unit of [...arrows.keys()].sort()) if (!index.has(unit)) visit(unit);
  return groups.map((group) => `no-folder-cycle: ${group.join(' ⇄ ')}`).sort();
}

export function violations(root: string): string[] {
  const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const bin = path.join(repository, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
  const result = spawnSync(
    process.execPath,
    [
      bin,
      'src',
      '--config',
      path.join(repository, '.dependency-cruiser.mjs'),
      '--ts-config',
      path.join(repository, 'tsconfig.json'),
      '--output-type',
      'json',
      '--no-progress',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.stdout.trim() === '') throw new Error(`dependency-cruiser printed nothing: ${result.stderr}`);
  const output = JSON.parse(result.stdout) as {
    summary: { violations: Violation[] };
    modules: CruisedModule[];
  };
  return [
    ...output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
    ...folderCycles(output.modules),
  ];
}

function main(): void {
  const args = process.argv.slice(2);
  const rootIndex = args.indexOf('--root');
  const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const root = rootIndex >= 0 ? path.resolve(args[rootIndex + 1] ?? '.') : repository;
  const allowlist = root === repository ? ALLOWLIST : [];
  const found = [...new Set(violations(root))];
  const fresh = found.filter((v) => !allowlist.some((a) => a.violation === v));
  const stale = allowlist.filter((a) => !found.includes(a.violation));
  for (const v of fresh) console.error(`dependency violation: ${v}`);
  for (const s of stale) console.error(`ALLOWLIST entry no longer occurs (delete it): ${s.violation}`);
  if (fresh.length + stale.length > 0) {
    console.error(`dependencies: ${fresh.length + stale.length} problem(s)`);
    process.exitCode = 1;
  } else {
    console.log(`dependencies: ok (${allowlist.length} allowlisted)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
