import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './cluster';

/**
 * rspamd and SpamAssassin's spamd for the spam test's tests, as Debian installs them
 * (`scripts/ensure-spam-engines.sh`). rspamd listens on its fixed port 11333: one already
 * there is used as it is; otherwise one is started (its first start compiles rules for
 * ~20 s; the compiled rules are kept in a directory of their own for the next run). spamd
 * gets a free port of its own.
 */

const RSPAMD_URL = 'http://127.0.0.1:11333';
const isRoot = process.getuid?.() === 0;

const rspamdAnswers = async () => {
  try {
    const response = await fetch(`${RSPAMD_URL}/ping`, { signal: AbortSignal.timeout(1_000) });
    return response.ok && (await response.text()).trim() === 'pong';
  } catch {
    return false;
  }
};

const portAnswers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const waitFor = async (what: string, ready: () => Promise<boolean>, child: ChildProcess, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} did not start within ${timeoutMs / 1000} s`);
};

const startRspamd = async () => {
  const dir = path.join(os.tmpdir(), `sendwell-rspamd-${process.getuid?.() ?? 'user'}`);
  for (const sub of ['run', 'db', 'log']) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o777 });
  if (isRoot) execFileSync('chown', ['-R', '_rspamd:_rspamd', dir]);
  const child = spawn(
    'rspamd',
    [
      '-f',
      ...(isRoot ? ['-u', '_rspamd', '-g', '_rspamd'] : []),
      `--var=RUNDIR=${dir}/run`,
      `--var=DBDIR=${dir}/db`,
      `--var=LOGDIR=${dir}/log`,
    ],
    { stdio: 'ignore' },
  );
  await waitFor('rspamd', rspamdAnswers, child, 90_000);
  return child;
};

const startSpamd = async () => {
  const port = await freePort();
  const child = spawn(
    'spamd',
    ['-L', '-x', '-i', '127.0.0.1', '-p', String(port), '-A', '127.0.0.1', ...(isRoot ? ['-u', 'debian-spamd'] : [])],
    { stdio: 'ignore' },
  );
  await waitFor('spamd', () => portAnswers(port), child, 60_000);
  return { child, port };
};

export const startSpamEngines = async () => {
  const [rspamd, spamd] = await Promise.all([
    (async () => ((await rspamdAnswers()) ? null : await startRspamd()))(),
    startSpamd(),
  ]);
  return {
    env: {
      RSPAMD_URL: RSPAMD_URL,
      SPAMD_ADDRESS: `127.0.0.1:${spamd.port}`,
      // The headroom of a loaded machine: at load 15 rspamd took past the default 10 s, and the
      // journey read "rspamd: not reachable". A test asserts the verdict, not how fast it came.
      SPAM_ENGINE_TIMEOUT_SECONDS: '60',
    },
    stop: () => {
      rspamd?.kill('SIGTERM');
      spamd.child.kill('SIGTERM');
    },
  };
};
