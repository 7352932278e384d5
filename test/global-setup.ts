import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { projectRoot } from '../src/paths.js';

/**
 * Builds `dist/` once for the whole run, before any test file starts: the process, crash and CLI tests
 * spawn the built program (as `npm start` runs it) instead of compiling the sources with tsx in every
 * child. The build is incremental (tsconfig.build.json), so an up-to-date `dist/` costs a second.
 */
export default function buildOnce(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const started = Date.now();
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: projectRoot, stdio: 'inherit' });
  console.warn(`global setup: dist/ built in ${Date.now() - started} ms`);
}
