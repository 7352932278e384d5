import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Records the suite's time per test file (ADR 0027): `test-results/durations.json` (every file, slowest
 * first, with the database of the run) and a summary of the slowest files printed at the end of the run.
 * `.ci/run` keeps the file of each pass and prints the slowest files of both.
 */
export default class DurationsReporter implements Reporter {
  private started = Date.now();

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const root = process.cwd();
    const files = testModules
      .map((module) => {
        const diagnostic = module.diagnostic();
        return {
          file: path.relative(root, module.moduleId),
          // Import plus every test and hook: what the file costs a worker.
          ms: Math.round(diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.duration),
          tests: [...module.children.allTests()].length,
          state: module.state(),
        };
      })
      .sort((a, b) => b.ms - a.ms);
    const report = {
      database: process.env.DATABASE_URL?.trim() ? 'postgresql' : 'pglite',
      node: process.version,
      wallMs: Date.now() - this.started,
      files,
    };
    const dir = path.join(root, 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'durations.json'), `${JSON.stringify(report, null, 2)}\n`);
    if (files.length < 2) return;
    const lines = files.slice(0, 15).map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.file}`);
    const total = files.reduce((sum, f) => sum + f.ms, 0);
    process.stdout.write(
      `\nSlowest test files (${report.database}; ${(total / 1000).toFixed(0)} s of file time in ` +
        `${(report.wallMs / 1000).toFixed(0)} s; all in test-results/durations.json):\n${lines.join('\n')}\n`,
    );
  }
}
