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
 * The longest journey files first (seconds in a quiet `npm test`: screens 135, data-table 58,
 * campaigns 53, engagement 51, profile 49, history 49, verification 48, support 45, ab-test
 * 44), so the two workers end together: in file order (alphabetical) the screens file began
 * 276 s into a 484 s run, and one worker finished 30 s before the other. Files are queued
 * project by project, these first; the rest after them in file order.
 */
const LONGEST_FIRST = [
  ['screens'],
  ['campaigns', 'data-table', 'engagement', 'history', 'profile', 'verification', 'support', 'ab-test'],
];
const specFile = (name: string) => `**/${name}.spec.ts`;

/**
 * Browser journeys in Debian's Chromium (its headless shell) against the built app, served
 * by the built server (`dist/main.js`) as a `web` process with a separate `worker` process,
 * both on one database (see global-setup.ts).
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  // Two files at a time, each file's tests in order. The journeys keep the two cores busy
  // (1.77 on average: 919 s of CPU in 518 s, Chromium's renderers 520 s of it), so more
  // workers only queue: in `npm test` 2 workers 519 s, 3 workers 532 s. Journeys that change
  // what every user sees run after the others, alone (the projects below); a file whose
  // journeys change what their user sees (notifications, credits) has a user of its own
  // (journeyUser).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  // The headroom of a loaded machine (another test run beside this one): these bound a hang.
  timeout: 300_000,
  expect: { timeout: 30_000 },
  projects: [
    ...LONGEST_FIRST.map((files, index) => ({ name: `journeys ${index + 1}`, testMatch: files.map(specFile) })),
    { name: 'journeys', testIgnore: [...LONGEST_FIRST.flat(), 'announcements'].map(specFile) },
    {
      name: 'after the others',
      testMatch: [specFile('announcements')],
      dependencies: [...LONGEST_FIRST.map((_, index) => `journeys ${index + 1}`), 'journeys'],
    },
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
    // As a user who asked the OS for less motion: the app then drops its transitions and
    // spinning loaders (theme.ts: respectReducedMotion), which otherwise keep the browser
    // repainting while a journey waits on the server. Four journey files took 98.6 s and 171 s
    // of CPU so, against 117.8 s and 208 s in full motion. keyboard.spec.ts keeps full motion,
    // so one whole journey still runs as most people see the app.
    reducedMotion: 'reduce',
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
