import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Explicit, so the config gives the same result run from the repository root or as a project.
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    // Page tests drive a whole form through happy-dom; on two cores shared with the server
    // tests (and another test run beside them) a long one can take a while with nothing wrong.
    testTimeout: 60_000,
  },
});
