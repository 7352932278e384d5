import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';

/**
 * `npm run screenshots`: regenerates docs/screenshots, every page a person sees (the dashboard, the
 * sign-in and activation pages, the apply form, the checkout, the sandbox acquirer's 3-D Secure page and
 * the operator console) at 1366 and 390 px, in English, as `<page>-<width>.png`. The pictures are taken
 * by the layout test (test/browser/layout.test.ts) while it checks that no page overflows, so a
 * screenshot is never of a page that test refuses: they are written to a temporary folder and replace
 * the folder's pictures only when the test passed. Needs what the browser tests need (Chromium at
 * /usr/bin/chromium or CHROMIUM_PATH); DATABASE_URL picks PostgreSQL as for the tests.
 */

const target = path.join(projectRoot, 'docs', 'screenshots');
const taken = mkdtempSync(path.join(os.tmpdir(), 'gw-screenshots-'));
// The package's bin (its exports map names no file of it).
const vitest = path.join(
  path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);

console.log(`taking the screenshots in ${taken} (the layout test, a few minutes)…`);
const run = spawnSync(process.execPath, [vitest, 'run', 'test/browser/layout.test.ts'], {
  cwd: projectRoot,
  env: { ...process.env, SCREENSHOTS_DIR: taken },
  stdio: 'inherit',
});

const pictures = readdirSync(taken).filter((name) => name.endsWith('.png'));
if (run.status !== 0) {
  console.error(
    `the layout test failed: docs/screenshots is unchanged; the ${pictures.length} pictures taken are in ${taken}`,
  );
  process.exit(run.status ?? 1);
}
mkdirSync(target, { recursive: true });
// The folder holds exactly the pages of this run: a page that no longer exists loses its picture.
for (const name of readdirSync(target)) if (name.endsWith('.png')) rmSync(path.join(target, name));
for (const name of pictures) copyFileSync(path.join(taken, name), path.join(target, name));
rmSync(taken, { recursive: true, force: true });
console.log(`docs/screenshots: ${pictures.length} pictures`);
