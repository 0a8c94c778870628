/**
 * The processes benches measure against: the server as `npm start` runs it (B8, B9:
 * `dist/main.js` built here first, with the V8 heap flags of the start script), and bare
 * Fastify, the framework's own ceiling (B7, B8).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startServerProcess, type TServerProcess } from '../packages/server/test/processes';

const ROOT = path.resolve(import.meta.dirname, '..');

export const SERVER_ENTRIES = {
  built: path.join(ROOT, 'packages/server/dist/main.js'),
  tsx: path.join(ROOT, 'packages/server/src/main.ts'),
};

/**
 * The V8 heap flags `npm start` runs the server with (`--max-old-space-size=…`), read from
 * its script so the benches measure what is deployed. `--enable-source-maps` comes with
 * every built entry (test/processes.ts).
 */
export const START_FLAGS = (() => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const flags = scripts.start?.match(/node ((?:--\S+ )*)packages\/server\/dist\/main\.js/)?.[1];
  if (flags === undefined) throw new Error('npm start no longer runs node … packages/server/dist/main.js');
  return flags
    .trim()
    .split(/\s+/)
    .filter((flag) => flag.startsWith('--max-'))
    .join(' ');
})();

/**
 * A worker's flags as README's production command runs it: npm start's and a young
 * generation of 4 MB a half (V8's default is 16), which B9 measured at 220 → 187 MB peak,
 * same rate; the web role keeps the default (B7 lost a quarter of its requests a second).
 */
export const WORKER_FLAGS = `${START_FLAGS} --max-semi-space-size=4`;

/** `npm run build:server`: dist/main.js from the current sources. */
export const buildServer = () => {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`The server build failed:\n${built.stderr}`);
};

/** Bare Fastify (bare-fastify.ts) in a process of its own on `port`. */
export const startBareFastify = async (port: number): Promise<TServerProcess> => {
  const bare = startServerProcess({ PORT: String(port) }, [], path.join(import.meta.dirname, 'bare-fastify.ts'));
  await bare.waitForOutput('bare fastify listening');
  return bare;
};

/**
 * Bare Fastify with `pg` running Sendwell's statements for B7's page and B8's webhook posts
 * (bare-fastify-pg.ts), in a process of its own: the physical limit those goals are measured against.
 */
export const startBareFastifyPg = async (
  port: number,
  { databaseUrl, webhookKey = '', accountId = 0 }: { databaseUrl: string; webhookKey?: string; accountId?: number },
): Promise<TServerProcess> => {
  const bare = startServerProcess(
    { PORT: String(port), DATABASE_URL: databaseUrl, WEBHOOK_KEY: webhookKey, ACCOUNT_ID: String(accountId) },
    [],
    path.join(import.meta.dirname, 'bare-fastify-pg.ts'),
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the baseline too, beside the server's.
    { nodeFlags: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [] },
  );
  await bare.waitForOutput('bare fastify with pg listening');
  return bare;
};

/** The line mailgun-fake-process.ts prints once it listens: its URLs, as JSON. */
const MAILGUN_FAKE_LINE = /mailgun fake (\{.*\})\n/;

/** The Mailgun contract fake (mailgun-fake-process.ts) in a process of its own. */
export const startMailgunProcess = async () => {
  const fake = startServerProcess({}, [], path.join(import.meta.dirname, 'mailgun-fake-process.ts'));
  await fake.waitForOutput(MAILGUN_FAKE_LINE);
  const { urls, counts } = JSON.parse(fake.output().match(MAILGUN_FAKE_LINE)![1]!) as {
    urls: { us: string; eu: string };
    counts: string;
  };
  return {
    urls,
    pid: fake.child.pid,
    /** Recipients the fake has accepted so far. */
    acceptedRecipients: async () => ((await (await fetch(counts)).json()) as { recipients: number }).recipients,
    close: () => fake.stop(),
  };
};

/** The line smtp-sink-process.ts prints once it listens. */
const SMTP_SINK_LINE = /smtp sink (\{.*\})\n/;

/** B1's SMTP sink (smtp-sink-process.ts) in a process of its own on `port`. */
export const startSmtpSinkProcess = async (port: number) => {
  const sink = startServerProcess({ PORT: String(port) }, [], path.join(import.meta.dirname, 'smtp-sink-process.ts'));
  await sink.waitForOutput(SMTP_SINK_LINE);
  const { counts } = JSON.parse(sink.output().match(SMTP_SINK_LINE)![1]!) as { counts: string };
  return {
    pid: sink.child.pid,
    /** Messages the sink has accepted so far. */
    accepted: async () => ((await (await fetch(counts)).json()) as { accepted: number }).accepted,
    close: () => sink.stop(),
  };
};
