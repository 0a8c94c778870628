import fs from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * Debian's headless shell (package chromium-headless-shell, what Playwright itself runs for
 * headless Chromium), else the full browser. The full browser in headless mode spends about a
 * tenth of a core on every open page even when nothing moves (0.9 s of CPU in 10 s against
 * 0.03 s); with it, two journey files took 183 s of CPU against 142 s with the shell.
 */
const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((path) => fs.existsSync(path));

/**
 * Browser journeys in Debian's Chromium (its headless shell) against the built app, served
 * by the built server (`dist/main.js`) as a `web` process with a separate `worker` process,
 * both on one database (see global-setup.ts).
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  // Two files at a time, each file's tests in order. With the headless shell the journeys
  // keep two cores only 0.7 busy (they wait on the server, the worker, an assertion's next
  // poll), yet more workers were not faster on a quiet machine: in `npm test` 2 workers 519 s,
  // 3 workers 532 s; alone, 3 workers 468 s and 4 workers 533 s. Journeys that change what
  // every user sees run after the others, alone (the projects below); a file whose journeys
  // change what their user sees (notifications, credits) has a user of its own (journeyUser).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  // The headroom of a loaded machine (another test run beside this one): these bound a hang.
  timeout: 300_000,
  expect: { timeout: 30_000 },
  projects: [
    { name: 'journeys', testIgnore: ['**/announcements.spec.ts'] },
    { name: 'after the others', testMatch: ['**/announcements.spec.ts'], dependencies: ['journeys'] },
  ],
  // JSON too, so `npm test` can count what ran.
  reporter: [
    ['list'],
    ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ?? '../../../.tmp/reports/playwright.json' }],
  ],
  outputDir: '../../../.tmp/e2e-results',
  use: {
    baseURL: process.env.E2E_BASE_URL,
    // A failed journey keeps its trace (each action's DOM, network and console), without
    // the screencast: recording frames kept Chromium's GPU and browser processes at a quarter
    // of a core each per worker, and cost the journeys a fifth of their time and CPU
    // (3 files: 112 s with frames, 89-99 s without, the same as no trace at all).
    trace: { mode: 'retain-on-failure', screenshots: false },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
