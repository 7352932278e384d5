/**
 * Runs dependency-cruiser with .dependency-cruiser.mjs on `src/` (issue 12, ADR 0027) and fails on:
 * - a violation (a cycle, a deep import of another module's repository, src/shared or src/db importing a
 *   module, src/ importing test/) that is not on ALLOWLIST;
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
  const output = JSON.parse(result.stdout) as { summary: { violations: Violation[] } };
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
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
