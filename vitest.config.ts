import { defineConfig } from 'vitest/config';
import { webProjects } from './packages/web/vitest.config';

/**
 * Server test files that run in a worker of their own (vitest's `isolate`), each with the
 * server's modules evaluated afresh: they start processes, kill them or take their work over,
 * or measure this process (its memory, growth ratios), where another file's leftovers (a
 * timer, a pool, retained memory) would change the result. Every other server file shares
 * its worker's modules with the files run before it: importing the server once per worker
 * instead of once per file (the import was 260 of vitest's 1,100 worker-seconds).
 */
const OWN_WORKER = [
  'packages/server/src/modules/delivery/{crash,database-blips,rolling-restart,compose,dispatch}.test.ts',
  'packages/server/src/modules/campaigns/campaigns{,.crash}.test.ts',
  'packages/server/src/modules/lists/csv-reader.test.ts',
  'packages/server/src/modules/spam-test/message-checks.test.ts',
  'packages/server/src/modules/operator/operator.test.ts',
  'packages/server/src/modules/verification/verification.workers.test.ts',
  'packages/server/test/{admin,startup,workers,timeouts}.test.ts',
];

const SERVER_FILES = ['packages/server/src/**/*.test.ts', 'packages/server/test/**/*.test.ts'];

const server = {
  globalSetup: ['packages/server/test/global-setup.ts'],
  // The headroom of a loaded machine (another test run beside this one keeps the load
  // average at 15-20 on two cores): these bound a hang, they measure nothing. No test
  // asserts the clock (growth ratios and the order of events instead; speed is in bench/).
  testTimeout: 120_000,
  hookTimeout: 240_000,
  expect: { poll: { timeout: 60_000 } },
};

export default defineConfig({
  test: {
    // Two cores: more workers only queue on the CPU and on PostgreSQL.
    maxWorkers: 2,
    passWithNoTests: false,
    projects: [
      { test: { name: 'contracts', include: ['packages/contracts/src/**/*.test.ts'] } },
      { test: { name: 'server', include: SERVER_FILES, exclude: OWN_WORKER, isolate: false, ...server } },
      { test: { name: 'server (own worker)', include: OWN_WORKER, ...server } },
      ...webProjects,
    ],
  },
});
