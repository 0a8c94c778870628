import type { TestProject } from 'vitest/node';
import { runClusterOrStart } from './cluster';
import { prepareTemplate } from './template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** One PostgreSQL and one template for both server projects (vitest.config.ts), whichever sets up first. */
const shared = globalThis as {
  sendwellTestDatabase?: Promise<{ adminUrl: string; stop: () => Promise<void> }>;
  sendwellTestDatabaseUsers?: number;
};

/**
 * `npm test` starts one PostgreSQL for the whole run and passes it in TEST_PG_ADMIN_URL;
 * running vitest alone starts one here instead. The server tests are two projects (files
 * sharing their workers' modules, and files in a worker of their own): the first to set up
 * prepares the template, the last to finish stops what was started.
 */
export default async function setup(project: TestProject) {
  shared.sendwellTestDatabase ??= (async () => {
    const cluster = await runClusterOrStart();
    await prepareTemplate(cluster.adminUrl);
    return cluster;
  })();
  const { adminUrl, stop } = await shared.sendwellTestDatabase;
  shared.sendwellTestDatabaseUsers = (shared.sendwellTestDatabaseUsers ?? 0) + 1;
  project.provide('pgAdminUrl', adminUrl);
  return async () => {
    shared.sendwellTestDatabaseUsers = (shared.sendwellTestDatabaseUsers ?? 1) - 1;
    if (shared.sendwellTestDatabaseUsers === 0) {
      shared.sendwellTestDatabase = undefined;
      await stop();
    }
  };
}
