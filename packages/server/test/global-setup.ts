import type { TestProject } from 'vitest/node';
import { runClusterOrStart } from './cluster';
import { prepareTemplate } from './template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** One PostgreSQL and one template for both server projects (vitest.config.ts), and how many use them. */
const shared = globalThis as {
  sendwellTestDatabase?: { ready: Promise<{ adminUrl: string; stop: () => Promise<void> }>; users: number };
};

/**
 * `npm test` starts one PostgreSQL for the whole run and passes it in TEST_PG_ADMIN_URL;
 * running vitest alone starts one here instead. The server tests are two projects (files
 * sharing their workers' modules, and files in a worker of their own): the first to set up
 * prepares the template, the last to finish stops what was started.
 */
export default async function setup(project: TestProject) {
  shared.sendwellTestDatabase ??= {
    ready: (async () => {
      const cluster = await runClusterOrStart();
      await prepareTemplate(cluster.adminUrl);
      return cluster;
    })(),
    users: 0,
  };
  const database = shared.sendwellTestDatabase;
  database.users += 1;
  const { adminUrl, stop } = await database.ready;
  project.provide('pgAdminUrl', adminUrl);
  return async () => {
    database.users -= 1;
    if (database.users > 0) return;
    shared.sendwellTestDatabase = undefined;
    await stop();
  };
}
