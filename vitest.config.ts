import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Two cores: more workers only queue on the CPU and on PostgreSQL.
    maxWorkers: 2,
    passWithNoTests: false,
    projects: [
      { test: { name: 'contracts', include: ['packages/contracts/src/**/*.test.ts'] } },
      {
        test: {
          name: 'server',
          include: ['packages/server/src/**/*.test.ts', 'packages/server/test/**/*.test.ts'],
          globalSetup: ['packages/server/test/global-setup.ts'],
          // The headroom of a loaded machine (another test run beside this one keeps the load
          // average at 15-20 on two cores): these bound a hang, they measure nothing. No test
          // asserts the clock (growth ratios and the order of events instead; speed is in bench/).
          testTimeout: 120_000,
          hookTimeout: 240_000,
          expect: { poll: { timeout: 60_000 } },
        },
      },
      'packages/web/vitest.config.ts',
    ],
  },
});
