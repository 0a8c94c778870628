/**
 * `npm test`: lint, typecheck, the build (web app and server), the unit and integration tests
 * and the browser journeys, in that order, against ONE PostgreSQL started here for the whole
 * run (each test file makes its own database in it). Every step runs even after a failure,
 * so one run shows everything that is wrong; the exit code is non-zero if any step failed.
 *
 * `TEST_SIDE_BY_SIDE=1` runs vitest and the journeys at the same time, each runner's lines
 * prefixed with its name. Not the default, because it is slower: from a clean clone on a quiet
 * machine it took 1,315 s and 1,588 s of CPU, against 1,093 s and 1,224 s in turn (two cores:
 * each runner alone already keeps them 1.2-1.7 busy, and what waits on a clock or a poll costs
 * more CPU the longer it waits). On a machine already loaded by other work (load 15) it pushed
 * the process tests past their bounds. The way to a shorter run is less work.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { startTestCluster } from '../packages/server/test/cluster';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

const serial = process.env.TEST_SIDE_BY_SIDE !== '1';

/** Copies `from` to `to` line by line, each line after `prefix` (whole lines: two runners never cut into each other's). */
const prefixLines = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream, prefix: string) => {
  const lines = readline.createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => to.write(`${prefix}${line}\n`));
  return new Promise<void>((resolve) => lines.once('close', resolve));
};

const run = (command: string, args: string[], env: Record<string, string> = {}, prefix?: string) =>
  new Promise<number>((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...env },
    });
    const copied =
      prefix && child.stdout && child.stderr
        ? Promise.all([
            prefixLines(child.stdout, process.stdout, prefix),
            prefixLines(child.stderr, process.stderr, prefix),
          ])
        : Promise.resolve();
    child.once('exit', (code, signal) => void copied.then(() => resolve(code ?? (signal ? 1 : 0))));
    child.once('error', () => resolve(1));
  });

type TStep = {
  name: string;
  /** Steps of one group run side by side (after every step before them); `prefix` marks their lines. */
  group?: string;
  prefix?: string;
  run: (env: Record<string, string>, prefix?: string) => Promise<number>;
};

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
  // Before the runners: the journeys need it, and side by side it must not print inside their lines.
  { name: 'install chromium if missing', run: () => run('bash', ['scripts/ensure-chromium.sh']) },
  {
    name: 'unit and integration tests (vitest)',
    group: 'tests',
    prefix: '[vitest] ',
    run: async (env, prefix) => {
      const file = path.join(reportsDir, 'vitest.json');
      const code = await run(
        bin('vitest'),
        ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`],
        env,
        prefix,
      );
      const counts = countReport(file, (report: TVitestReport) => ({
        passed: report.numPassedTests,
        // An unhandled error fails the run without failing a test: count it as one.
        failed: report.numFailedTests || (report.success ? 0 : 1),
      }));
      return code || counts;
    },
  },
  {
    name: 'browser journeys (playwright, chromium)',
    group: 'tests',
    prefix: '[journeys] ',
    run: async (env, prefix) => {
      const file = path.join(reportsDir, 'playwright.json');
      const code = await run(
        bin('playwright'),
        ['test', '-c', 'packages/web/e2e/playwright.config.ts'],
        { ...env, PLAYWRIGHT_JSON_OUTPUT_FILE: file },
        prefix,
      );
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
  const chosen = steps.filter((step) => only.length === 0 || only.some((word) => step.name.includes(word)));
  const runStep = async (step: TStep, prefix?: string) => {
    const stepStarted = Date.now();
    const code = await step.run(env, prefix);
    results.push({ name: step.name, code, seconds: (Date.now() - stepStarted) / 1000 });
  };
  for (let index = 0; index < chosen.length; ) {
    const step = chosen[index]!;
    const rest = chosen.slice(index);
    const end = rest.findIndex((other) => serial || !step.group || other.group !== step.group);
    const group = end === 0 ? [step] : end === -1 ? rest : rest.slice(0, end);
    index += group.length;
    if (group.length === 1) {
      console.log(`\n━━ ${step.name}`);
      await runStep(step);
      continue;
    }
    console.log(`\n━━ side by side: ${group.map((member) => `${member.prefix}${member.name}`).join(', ')}`);
    await Promise.all(group.map((member) => runStep(member, member.prefix)));
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
