import type { TestProject } from 'vitest/node';
import { runClusterOrStart } from './cluster';
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
  const { adminUrl, stop } = await runClusterOrStart();
  await prepareTemplate(adminUrl);
  project.provide('pgAdminUrl', adminUrl);
  return stop;
}
