import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type * as tasks from '../cpu-tasks';

/**
 * The threads that do a process's heavy message work (R40, DESIGN §8): a send's text part
 * (html-to-text), reading a message as a receiver would (mailparser and the spam test's own
 * checks), reading what arrives at the test inbox. Each of these takes 0.1-5 s of CPU on a
 * 2 MB message that is hostile or merely large; on the event loop that time was every other
 * request's wait (`/api/health` answered after the bomb). A task waits in the pool's queue,
 * runs on a thread of its own, and is ended when it outlives its time or memory.
 *
 * piscina (the Node.js team's pool). Threads start with the first task and end after a
 * minute idle, so a process that never reads a message holds none (B9's worker memory);
 * they run at a lower priority than the event loop (`niceIncrement`): on a busy machine the
 * requests go first and the heavy work takes what is left.
 */

type TTasks = typeof tasks;
export type TCpuTaskName = keyof TTasks;
type TInput<K extends TCpuTaskName> = Parameters<TTasks[K]>[0];
type TOutput<K extends TCpuTaskName> = Awaited<ReturnType<TTasks[K]>>;

/** How a task did not finish: out of time, out of memory or thrown (`failed`), or no room in the queue (`busy`). */
export type TCpuFailure = 'timeout' | 'failed' | 'busy';

export class CpuTaskError extends Error {
  override readonly name = 'CpuTaskError';
  constructor(
    readonly kind: TCpuFailure,
    message: string,
  ) {
    super(message);
  }
}

export type TCpuPool = {
  /** Runs a task of `cpu-tasks.ts` on a pool thread; rejects with a CpuTaskError when it cannot finish. */
  run: <K extends TCpuTaskName>(name: K, input: TInput<K>, options: { timeoutMs: number }) => Promise<TOutput<K>>;
  /** Tasks given and not yet answered, running or waiting: what the pool is doing now. */
  inFlight: () => number;
  /** Ends the threads once the tasks they run have finished (a stopping process). */
  close: () => Promise<void>;
};

/** Set by the server build (`scripts/build-server.ts`); absent under tsx and vitest, which run the sources. */
declare const __SENDWELL_BUILT__: boolean | undefined;

/**
 * The file the threads load. The build has `dist/cpu-tasks.js`. From the sources (tests,
 * `npm run dev`) the same entry is bundled on first use into a file beside the sources:
 * Node 20 threads cannot load TypeScript through tsx's hooks when the process has them
 * (ERR_UNKNOWN_FILE_EXTENSION), and esbuild, which builds the server anyway, takes ~0.1 s.
 */
const tasksFile = async (): Promise<string> => {
  if (typeof __SENDWELL_BUILT__ !== 'undefined') {
    return fileURLToPath(new URL('../../dist/cpu-tasks.js', import.meta.url));
  }
  const entry = fileURLToPath(new URL('../cpu-tasks.ts', import.meta.url));
  // In the repository's `.tmp/` (ignored), so the bundle's bare imports resolve from its node_modules.
  const outDir = fileURLToPath(new URL('../../../../.tmp/cpu-tasks/', import.meta.url));
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    logLevel: 'warning',
    plugins: [
      {
        // Libraries stay imports; our workspace's TypeScript is bundled.
        name: 'external-packages',
        setup: (builder) =>
          builder.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@sendwell/') ? undefined : { path: args.path, external: true },
          ),
      },
    ],
  });
  const code = result.outputFiles[0]!.contents;
  const { createHash } = await import('node:crypto');
  const file = path.join(outDir, `cpu-tasks-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!fs.existsSync(file)) {
    // Written whole, then renamed: processes starting side by side never load half a file.
    fs.mkdirSync(outDir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, file);
  }
  return file;
};

export const createCpuPool = ({
  threads,
  maxQueue,
  memoryMb,
}: {
  threads: number;
  /** Tasks that may wait for a thread; past it a task is refused at once (`busy`). */
  maxQueue: number;
  /** Each thread's heap: a task that needs more ends, its thread with it. */
  memoryMb: number;
}): TCpuPool => {
  let pool: Promise<Piscina> | undefined;
  let inFlight = 0;
  const poolOf = () => {
    pool ??= tasksFile().then(
      (filename) =>
        new Piscina({
          filename,
          minThreads: 0,
          maxThreads: threads,
          idleTimeout: 60_000,
          maxQueue,
          niceIncrement: 5,
          resourceLimits: { maxOldGenerationSizeMb: memoryMb },
          // The threads read no flags of the process (`--max-semi-space-size` of a worker is the process's own).
          execArgv: [],
        }),
    );
    return pool;
  };
  return {
    run: async (name, input, { timeoutMs }) => {
      inFlight++;
      try {
        const piscina = await poolOf();
        if (piscina.queueSize >= maxQueue) {
          throw new CpuTaskError('busy', 'Sendwell is busy with other messages right now; try again in a minute.');
        }
        return await piscina.run(input, { name, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (error instanceof CpuTaskError) throw error;
        if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
          throw new CpuTaskError('timeout', `took longer than ${Math.round(timeoutMs / 1000)} s`);
        }
        throw new CpuTaskError('failed', (error as Error).message);
      } finally {
        inFlight--;
      }
    },
    inFlight: () => inFlight,
    close: async () => {
      if (!pool) return;
      await (await pool).close();
    },
  };
};
