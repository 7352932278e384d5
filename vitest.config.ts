import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'sandbox-acquirer/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // A browser flow runs axe-core on each page it visits (a second or two each on a busy machine).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/reporters/durations.ts'],
  },
});
