import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // Libraries change less often than screens: separate chunks stay cached across releases.
    // Only what every screen needs is grouped (React, Mantine's core): the editor (tiptap,
    // @mantine/tiptap), the date picker and the other libraries go with the screens that use
    // them. One chunk of every library made each first load 1.85 MB; the notifications
    // screen now loads 1.29 MB.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
            {
              name: 'mantine',
              test: /node_modules[\\/](@mantine[\\/](core|hooks|notifications|modals)|@floating-ui)[\\/]/,
            },
            // Only the registration page needs the captcha widget; every other page would load it for nothing.
            { name: 'altcha', test: /node_modules[\\/]altcha[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      // ws: the realtime socket lives under /api too, so one rule covers both.
      '/api': { target: 'http://localhost:3000', ws: true },
    },
  },
});
