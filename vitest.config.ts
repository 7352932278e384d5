import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.js';

/**
 * Files that read process-wide state a file before them in the same worker could have moved (the metrics
 * registry's counters): each runs in a fresh worker process. Every other file shares its worker's module
 * cache with the files before it (`isolate: false`): a worker imports the gateway's modules once instead
 * of once per file, which took 1 to 3 s of CPU per file. Nothing a test file does may outlive its
 * afterAll (gateways, browser contexts, children and timers are closed there), and no file changes
 * process.env. The one exception is the worker's Chromium, which its browser files share, with its
 * contexts (closed ones are cleared and pooled: `openTestBrowser` in test/helpers/browser.ts, ADRs 0047
 * and 0048).
 */
const isolatedFiles = ['test/metrics.test.ts'];

export default defineConfig({
  test: {
    // Each project inherits it; it does its work once per run (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // The longest files first, so that both workers finish together (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // A browser flow runs axe-core on each page it visits (a second or two each on a busy machine).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/reporters/durations.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'sandbox-acquirer/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: isolatedFiles,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: isolatedFiles } },
    ],
  },
});
