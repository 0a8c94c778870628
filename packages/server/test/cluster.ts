import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres';

/**
 * Ports for the servers a test starts come from below the OS's ephemeral range (Linux's
 * ip_local_port_range, 32768-60999 by default), where nothing else is handed out: a port
 * picked from the ephemeral range is free when picked, but a server listening on port 0, or
 * any outgoing connection, can be given the same one before our server binds it (a startup
 * test saw its HTTP port taken by the test inbox the same process had opened on port 0).
 */
const PICKED_PORTS = (() => {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && low > 12_000) return { from: 10_000, to: low - 1 };
  } catch {
    // Not Linux: the OS's choice below.
  }
  return undefined;
})();

const listenOn = (port: number): Promise<number | undefined> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });

/** A free TCP port on loopback, for PostgreSQL and servers under test. */
export const freePort = async (): Promise<number> => {
  if (PICKED_PORTS) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = PICKED_PORTS.from + Math.floor(Math.random() * (PICKED_PORTS.to - PICKED_PORTS.from + 1));
      if ((await listenOn(port)) === port) return port;
    }
  }
  const port = await listenOn(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
};

/**
 * A test run's cluster is thrown away at the end, so it need not survive a crash of the
 * machine: PostgreSQL's own advice for such a cluster ("Non-Durable Settings" in its manual)
 * is to stop flushing to disk. Each commit then returns without waiting for the disk (1.5-3 ms
 * here), which every test waits for many times. A killed process (a kill -9 of a server, or of
 * PostgreSQL itself) loses nothing: a commit still writes its WAL before it answers, into the
 * OS's cache (synchronous_commit stays on). Only a crash of the machine could lose it. The
 * product's own embedded PostgreSQL keeps its durable defaults, and so does every cluster a
 * test starts for itself (the crash tests through the server, database-blips directly).
 */
const makeNonDurable = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const setting of ['fsync = off', 'full_page_writes = off']) {
      await client.query(`alter system set ${setting}`);
    }
    await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
};

/**
 * One real PostgreSQL for a whole test run; every test file gets its own database in it.
 * Returns the URL of the `postgres` maintenance database. `durable` keeps PostgreSQL's
 * flushes, as the product's own cluster does: the benchmarks measure with it, since a
 * commit's wait for the disk is part of what a user waits for.
 */
export const startTestCluster = async ({ durable = false }: { durable?: boolean } = {}) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-test-pg-'));
  const cluster = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
  if (!durable) await makeNonDurable(cluster.url);
  return {
    adminUrl: cluster.url,
    stop: async () => {
      await cluster.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/**
 * The run's PostgreSQL: the one `npm test` started (TEST_PG_ADMIN_URL), or a new one when
 * a runner is used on its own. `stop` only stops a cluster started here.
 */
export const runClusterOrStart = async (): Promise<{ adminUrl: string; stop: () => Promise<void> }> => {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (adminUrl) return { adminUrl, stop: async () => {} };
  return startTestCluster();
};
