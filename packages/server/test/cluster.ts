import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres';

/** A free TCP port on loopback, for PostgreSQL and servers under test. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * One real PostgreSQL for a whole test run; every test file gets its own database in it.
 * Returns the URL of the `postgres` maintenance database.
 */
export const startTestCluster = async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-test-pg-'));
  const cluster = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres' });
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
