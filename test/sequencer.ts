import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest test files first, so that the two workers finish together instead of one of them
 * running a long file alone at the end (ADR 0029). A file's expected time is, in order of preference:
 * its time in the last run on this checkout (`test-results/durations.json`, written by
 * test/reporters/durations.ts; on CI the PostgreSQL pass reads the PGlite pass's), its time in the
 * committed `test/durations-baseline.json` (a clean clone has no last run), or, for a file new to both,
 * a guess from its size. Vitest's own order (its results cache, else file size) knows nothing on a
 * clean clone, where `npm ci` has just removed `node_modules/.vite`.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const known = { ...readTimes(path.join(root, 'test/durations-baseline.json')), ...lastRun(root) };
    const expected = new Map(
      files.map((file) => {
        const relative = path.relative(root, file.moduleId);
        return [file, known[relative] ?? guess(file.moduleId)] as const;
      }),
    );
    return Promise.resolve(
      [...files].sort(
        (a, b) =>
          (expected.get(b) ?? 0) - (expected.get(a) ?? 0) ||
          path.relative(root, a.moduleId).localeCompare(path.relative(root, b.moduleId)),
      ),
    );
  }
}

/** Seconds per file of a `{ "files": { "test/x.test.ts": 12.3 } }` document. */
function readTimes(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  const document = JSON.parse(readFileSync(file, 'utf8')) as { files?: Record<string, number> };
  return document.files ?? {};
}

/** Seconds per file of the last run's report. */
function lastRun(root: string): Record<string, number> {
  const file = path.join(root, 'test-results/durations.json');
  if (!existsSync(file)) return {};
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as { files?: Array<{ file: string; ms: number }> };
    return Object.fromEntries((report.files ?? []).map((entry) => [entry.file, entry.ms / 1000]));
  } catch {
    return {};
  }
}

/** A file new to both lists: about a second per kilobyte of test code, a new file's usual cost. */
function guess(file: string): number {
  return statSync(file).size / 2000;
}
