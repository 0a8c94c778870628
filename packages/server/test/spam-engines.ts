import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './cluster';

/**
 * rspamd and SpamAssassin's spamd for the spam test's tests, as Debian installs them
 * (`scripts/ensure-spam-engines.sh`), each started here on free ports of its own and stopped
 * with the tests that use it. rspamd reads Debian's configuration with an override that moves
 * its three workers off their fixed ports (11332-11334): an rspamd shared with another test
 * run beside this one was stopped by that run while this one was asking it ("rspamd
 * unreachable", seen with two `npm test` at once). Its compiled rules are kept in a directory
 * of this user's for the next start (the first compiles them for ~20 s).
 */

const isRoot = process.getuid?.() === 0;

const rspamdAnswers = async (url: string) => {
  try {
    const response = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1_000) });
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
  for (const sub of ['db', 'log']) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o777 });
  // This instance's own: its pid file and sockets, and the override of the workers' ports.
  const own = fs.mkdtempSync(path.join(dir, 'run-'));
  const [normal, controller, proxy] = [await freePort(), await freePort(), await freePort()];
  const override = path.join(own, 'override.d');
  fs.mkdirSync(override);
  for (const [worker, port] of [
    ['normal', normal],
    ['controller', controller],
    ['proxy', proxy],
  ] as const) {
    fs.writeFileSync(path.join(override, `worker-${worker}.inc`), `bind_socket = "127.0.0.1:${port}";\n`);
  }
  if (isRoot) execFileSync('chown', ['-R', '_rspamd:_rspamd', dir]);
  const child = spawn(
    'rspamd',
    [
      '-f',
      ...(isRoot ? ['-u', '_rspamd', '-g', '_rspamd'] : []),
      `--var=RUNDIR=${own}`,
      `--var=DBDIR=${dir}/db`,
      `--var=LOGDIR=${dir}/log`,
      `--var=LOCAL_CONFDIR=${own}`,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${normal}`;
  await waitFor('rspamd', () => rspamdAnswers(url), child, 90_000);
  return {
    url,
    stop: () => {
      child.kill('SIGTERM');
      // Now, not on its exit: the test process may end first. rspamd minds no missing pid file.
      fs.rmSync(own, { recursive: true, force: true });
    },
  };
};

const startSpamd = async () => {
  const port = await freePort();
  const child = spawn(
    'spamd',
    ['-L', '-x', '-i', '127.0.0.1', '-p', String(port), '-A', '127.0.0.1', ...(isRoot ? ['-u', 'debian-spamd'] : [])],
    { stdio: 'ignore' },
  );
  await waitFor('spamd', () => portAnswers(port), child, 60_000);
  return { port, stop: () => void child.kill('SIGTERM') };
};

export const startSpamEngines = async () => {
  const [rspamd, spamd] = await Promise.allSettled([startRspamd(), startSpamd()]);
  if (rspamd.status === 'rejected' || spamd.status === 'rejected') {
    // The one that started is stopped, not left running after the tests (seen: a spamd).
    for (const engine of [rspamd, spamd]) if (engine.status === 'fulfilled') engine.value.stop();
    throw rspamd.status === 'rejected' ? rspamd.reason : (spamd as PromiseRejectedResult).reason;
  }
  return {
    env: {
      RSPAMD_URL: rspamd.value.url,
      SPAMD_ADDRESS: `127.0.0.1:${spamd.value.port}`,
      // The headroom of a loaded machine: at load 15 rspamd took past the default 10 s, and the
      // journey read "rspamd: not reachable". A test asserts the verdict, not how fast it came.
      SPAM_ENGINE_TIMEOUT_SECONDS: '60',
    },
    stop: () => {
      rspamd.value.stop();
      spamd.value.stop();
    },
  };
};
