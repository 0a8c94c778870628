import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

/**
 * Files that replace a module (vi.mock) keep a worker of their own: a module that an earlier
 * file had imported would keep the real one.
 */
const OWN_WORKER = ['src/app/useZodForm.test.tsx', 'src/features/registration/RegisterPage.test.tsx'];

const webProject = (name: string, files: { include: string[]; exclude?: string[] }, isolate: boolean) =>
  defineProject({
    // Explicit, so the config gives the same result run from the repository root or here.
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [react()],
    test: {
      name,
      environment: 'happy-dom',
      ...files,
      setupFiles: ['./src/test/setup.ts'],
      isolate,
      // Page tests drive a whole form through happy-dom; on two cores shared with the server
      // tests (and another test run beside them) a long one can take a while with nothing wrong.
      testTimeout: 60_000,
    },
  });

/**
 * The web tests, as two projects of the root vitest.config.ts. Most files share their
 * worker's modules (React, Mantine, the app): importing them once per worker instead of once
 * per file took the web tests from 96 to 33 s and from 178 to 56 s of CPU. setup.ts cleans
 * what a file leaves behind (the DOM, storage, Mantine's notifications).
 */
export const webProjects = [
  webProject('web', { include: ['src/**/*.test.{ts,tsx}'], exclude: OWN_WORKER }, false),
  webProject('web (own worker)', { include: OWN_WORKER }, true),
];

export default webProjects[0];
