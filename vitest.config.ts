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
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      'packages/web/vitest.config.ts',
    ],
  },
});
