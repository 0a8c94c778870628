import type { TestProject } from 'vitest/node';
import { startTestCluster } from './cluster';
import { prepareTemplate } from './template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/**
 * `npm test` starts one PostgreSQL for the whole run and passes it in TEST_PG_ADMIN_URL;
 * running vitest alone starts one here instead.
 */
export default async function setup(project: TestProject) {
  let stop: (() => Promise<void>) | undefined;
  let adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (!adminUrl) {
    const cluster = await startTestCluster();
    adminUrl = cluster.adminUrl;
    stop = cluster.stop;
  }
  await prepareTemplate(adminUrl);
  project.provide('pgAdminUrl', adminUrl);
  return async () => {
    await stop?.();
  };
}
