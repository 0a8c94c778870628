/**
 * `npm test`: lint, typecheck, unit and integration tests, the web build and the browser
 * journeys, in that order, against ONE PostgreSQL started here for the whole run (each
 * test file makes its own database in it). Every step runs even after a failure, so one
 * run shows everything that is wrong; the exit code is non-zero if any step failed.
 */
import { spawn } from 'node:child_process';
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
  { name: 'unit and integration tests (vitest)', run: (env) => run(bin('vitest'), ['run'], env) },
  { name: 'web build (vite)', run: () => run('npm', ['run', 'build', '--silent']) },
  { name: 'install chromium if missing', run: () => run('bash', ['scripts/ensure-chromium.sh']) },
  {
    name: 'browser journeys (playwright, chromium)',
    run: (env) => run(bin('playwright'), ['test', '-c', 'packages/web/e2e/playwright.config.ts'], env),
  },
];

const only = process.argv.slice(2);
const started = Date.now();
const cluster = await startTestCluster();
const env = { TEST_PG_ADMIN_URL: cluster.adminUrl };
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
const failed = results.filter((result) => result.code !== 0).length;
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
