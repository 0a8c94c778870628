/**
 * The server build (`npm run build`, `npm start`, `npm run admin`): esbuild bundles
 * `packages/server/src/main.ts`, `admin.ts` and `cpu-tasks.ts` (what the CPU pool's threads
 * run) into `packages/server/dist/` as ESM for
 * Node 20, with source maps (run them with `node --enable-source-maps` so stack traces
 * name the .ts files). Dependencies stay in node_modules, imported at run time; only our
 * own code is bundled, the workspace package `@sendwell/contracts` included (it exports
 * TypeScript, which Node cannot load). Code splitting keeps what `main.ts` imports lazily
 * (the HTTP app) in a chunk of its own, so a worker process never loads Fastify.
 *
 * Files read at run time stay where they are in the source tree (the migrations, the
 * built web app): every `import.meta.url` in our code is rewritten to the URL its source
 * file would have, relative to the bundle, so `new URL('../../migrations', import.meta.url)`
 * means the same from `dist/` as from `src/platform/`, and the tree still works if moved.
 * Every output file lands directly in `dist/` (no subfolders), so that rewrite holds for
 * entries and chunks alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const serverRoot = path.join(root, 'packages/server');
const outdir = path.join(serverRoot, 'dist');

/** Bare imports (`fastify`, `pg`, `node:fs`) stay imports, except our workspace packages. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]|^\.[^./]|^\.\.[^/]/ }, (args) =>
      args.path.startsWith('@sendwell/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** `import.meta.url`/`dirname`/`filename` in our sources mean the source file's place, as under tsx. */
const sourceLocatedImportMeta: Plugin = {
  name: 'source-located-import-meta',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (args.path.includes(`${path.sep}node_modules${path.sep}`) || !source.includes('import.meta.')) {
        return { contents: source, loader: 'ts' };
      }
      const relative = path.relative(outdir, args.path).split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(relative)}, import.meta.url)`;
      const contents = source
        .replaceAll('import.meta.url', `${url}.href`)
        .replaceAll('import.meta.filename', `__sourceFileName(${url})`)
        .replaceAll('import.meta.dirname', `__sourceDirName(${url})`);
      const helpers = contents.includes('__source')
        ? "\nimport { fileURLToPath as __sourceFileName } from 'node:url';\nconst __sourceDirName = (url: URL) => __sourceFileName(new URL('.', url)).replace(/\\/$/, '');\n"
        : '';
      return { contents: contents + helpers, loader: 'ts' };
    });
  },
};

const started = performance.now();
const result = await build({
  entryPoints: {
    main: path.join(serverRoot, 'src/main.ts'),
    admin: path.join(serverRoot, 'src/admin.ts'),
    // What the CPU pool's threads load (`platform/cpu-pool.ts`).
    'cpu-tasks': path.join(serverRoot, 'src/cpu-tasks.ts'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  // Mappings only: stack traces need no more, and Node parses each map whole at start (0.1 s
  // of CPU a process with the sources inside). A trace's source excerpt is read from the .ts file.
  sourcesContent: false,
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
  plugins: [externalPackages, sourceLocatedImportMeta],
  // The CPU pool loads `dist/cpu-tasks.js` when built, and bundles the sources itself when not.
  define: { __SENDWELL_BUILT__: 'true' },
});

// Drop what an earlier build left (chunks of another hash). A running server has loaded
// its chunks at start, so this never pulls a file from under it.
const written = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(file)));
for (const file of fs.readdirSync(outdir)) {
  const full = path.join(outdir, file);
  if (!written.has(full)) fs.rmSync(full, { recursive: true, force: true });
}
// `--quiet` for `npm run admin`, which builds before every command.
if (!process.argv.includes('--quiet')) {
  console.log(
    `server built into ${path.relative(process.cwd(), outdir)} in ${Math.round(performance.now() - started)} ms`,
  );
}
