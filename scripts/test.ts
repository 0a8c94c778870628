/**
 * `npm test`: lint, typecheck, the build (web app and server), unit and integration tests
 * and the browser journeys, in that order, against ONE PostgreSQL started here for the
 * whole run (each test file makes its own database in it). Every step runs even after a
 * failure, so one run shows everything that is wrong; the exit code is non-zero if any
 * step failed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestCluster } from '../packages/server/test/cluster';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

const run = (command: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.once('error', () => resolve(1));
  });

type TStep = { name: string; run: (env: Record<string, string>) => Promise<number> };

const reportsDir = path.join(root, '.tmp', 'reports');
const counted = { passed: 0, failed: 0 };

/**
 * Reads a runner's JSON report into the run's totals. A runner that exits 0 having run
 * no test (a configuration error can do that) fails the step.
 */
const countReport = (file: string, read: (report: never) => { passed: number; failed: number }): number => {
  if (!fs.existsSync(file)) {
    console.error(`no report at ${file}: the runner ran no test`);
    return 1;
  }
  const { passed, failed } = read(JSON.parse(fs.readFileSync(file, 'utf8')) as never);
  counted.passed += passed;
  counted.failed += failed;
  if (passed + failed === 0) {
    console.error(`${path.basename(file)}: no test ran`);
    return 1;
  }
  return failed > 0 ? 1 : 0;
};

type TVitestReport = { numPassedTests: number; numFailedTests: number; success: boolean };
type TPlaywrightReport = { stats: { expected: number; unexpected: number; flaky: number } };

const steps: TStep[] = [
  { name: 'lint (biome)', run: () => run(bin('biome'), ['check', '.']) },
  {
    name: 'typecheck',
    run: async () => {
      for (const project of ['packages/contracts', 'packages/server', 'packages/web', 'packages/web/e2e']) {
        const code = await run(bin('tsc'), ['-p', project]);
        if (code !== 0) return code;
      }
      return 0;
    },
  },
  { name: 'install rspamd and SpamAssassin if missing', run: () => run('bash', ['scripts/ensure-spam-engines.sh']) },
  // Before vitest, whose start-up test runs the built server (dist/main.js) as the journeys do.
  {
    name: 'build (web: vite; server: esbuild)',
    run: async (env) => {
      const code = await run('npm', ['run', 'build', '--silent']);
      // The server under test is then the one just built (test/processes.ts).
      if (code === 0) env.TEST_SERVER_BUILT = '1';
      return code;
    },
  },
  {
    name: 'unit and integration tests (vitest)',
    run: async (env) => {
      const file = path.join(reportsDir, 'vitest.json');
      const code = await run(
        bin('vitest'),
        ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`],
        env,
      );
      const counts = countReport(file, (report: TVitestReport) => ({
        passed: report.numPassedTests,
        // An unhandled error fails the run without failing a test: count it as one.
        failed: report.numFailedTests || (report.success ? 0 : 1),
      }));
      return code || counts;
    },
  },
  { name: 'install chromium if missing', run: () => run('bash', ['scripts/ensure-chromium.sh']) },
  {
    name: 'browser journeys (playwright, chromium)',
    run: async (env) => {
      const file = path.join(reportsDir, 'playwright.json');
      const code = await run(bin('playwright'), ['test', '-c', 'packages/web/e2e/playwright.config.ts'], {
        ...env,
        PLAYWRIGHT_JSON_OUTPUT_FILE: file,
      });
      const counts = countReport(file, (report: TPlaywrightReport) => ({
        passed: report.stats.expected + report.stats.flaky,
        failed: report.stats.unexpected,
      }));
      return code || counts;
    },
  },
];

const only = process.argv.slice(2);
fs.rmSync(reportsDir, { recursive: true, force: true });
fs.mkdirSync(reportsDir, { recursive: true });
const started = Date.now();
const cluster = await startTestCluster();
const env: Record<string, string> = { TEST_PG_ADMIN_URL: cluster.adminUrl };
const results: { name: string; code: number; seconds: number }[] = [];
try {
  for (const step of steps) {
    if (only.length > 0 && !only.some((word) => step.name.includes(word))) continue;
    console.log(`\n━━ ${step.name}`);
    const stepStarted = Date.now();
    const code = await step.run(env);
    results.push({ name: step.name, code, seconds: (Date.now() - stepStarted) / 1000 });
  }
} finally {
  await cluster.stop();
}

console.log('\n━━ summary');
for (const result of results) {
  console.log(`${result.code === 0 ? 'ok  ' : 'FAIL'}  ${result.name}  (${result.seconds.toFixed(1)} s)`);
}
const failedSteps = results.filter((result) => result.code !== 0).length;
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s; ${failedSteps} step(s) failed`);
// The closing line counts tests (vitest and playwright), for people and for CI.
console.log(`${counted.passed} passed, ${counted.failed} failed`);
process.exit(failedSteps === 0 ? 0 : 1);
