import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { PROCESS_PATIENCE_MS } from './wait';

const SERVER_ROOT = path.resolve(import.meta.dirname, '..');

export type TServerProcess = {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the output contains `text` (by default within the patience of a loaded machine). */
  waitForOutput: (text: string | RegExp, timeoutMs?: number) => Promise<void>;
  /** Sends SIGINT (or `signal`) and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /**
   * Sends SIGINT to the whole process group, as a terminal's Ctrl-C does: the embedded
   * PostgreSQL gets it too. Needs `{ ownGroup: true }` at start.
   */
  interruptGroup: () => Promise<number | null>;
};

/**
 * A server entry point (`main`, the server; `admin`, the operator CLI) as tests run it.
 * `npm test` builds the server just before vitest and says so (TEST_SERVER_BUILT=1): then
 * the built `dist/<name>.js`, as `npm start` and `npm run admin` run it, which starts in
 * ~1.7 s here against ~3 s for the sources under tsx (the crash tests restart the server
 * again and again). Run alone, vitest cannot know the build is current, so the sources.
 */
export const serverEntry = (name: 'main' | 'admin') =>
  process.env.TEST_SERVER_BUILT === '1'
    ? path.join(SERVER_ROOT, `dist/${name}.js`)
    : path.join(SERVER_ROOT, `src/${name}.ts`);

/**
 * Node's arguments for an entry: a built `.js` one runs as `npm start` runs it, plain Node
 * with source maps; a `.ts` one under tsx.
 */
export const nodeArgsFor = (entry: string) => [
  ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : ['--enable-source-maps']),
  entry,
];

/** Runs the real server (`serverEntry('main')`, or `entry`) as its own process. */
export const startServerProcess = (
  env: Record<string, string>,
  args: string[] = [],
  entry = serverEntry('main'),
  {
    ownGroup = false,
    nodeFlags = [],
  }: {
    ownGroup?: boolean;
    /** Node's own flags that NODE_OPTIONS does not take (a bench's `--cpu-prof`). */
    nodeFlags?: string[];
  } = {},
): TServerProcess => {
  const child = spawn(process.execPath, [...nodeFlags, ...nodeArgsFor(entry), ...args], {
    cwd: SERVER_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'info',
      // An ephemeral test-inbox port, so parallel servers never fight over 2525.
      TEST_INBOX_PORT: '0',
      SPAM_TEST_SMTP_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    output: () => output,
    waitForOutput: (text, timeoutMs = PROCESS_PATIENCE_MS) =>
      new Promise<void>((resolve, reject) => {
        const matches = () => (typeof text === 'string' ? output.includes(text) : text.test(output));
        if (matches()) return resolve();
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`process did not print ${text} within ${timeoutMs} ms. Output:\n${output.slice(-3000)}`));
        }, timeoutMs);
        const check = () => {
          if (!matches()) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        child.once('exit', () => {
          if (!matches()) {
            clearTimeout(timer);
            reject(new Error(`process exited before printing ${text}. Output:\n${output.slice(-3000)}`));
          }
        });
      }),
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    interruptGroup: async () => {
      if (!ownGroup) throw new Error('start the process with { ownGroup: true } to signal its group');
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  };
};

const cookiePairs = (response: Response) => response.headers.getSetCookie().map((value) => value.split(';')[0]!);

/**
 * Signs in over real HTTP, as a browser does: the CSRF token first, then the login.
 * Answers the login response and the cookies to send on later requests.
 */
export const signInOverHttp = async (baseUrl: string, email: string, password: string) => {
  const csrf = await fetch(`${baseUrl}/api/csrf`);
  const csrfCookies = cookiePairs(csrf);
  const { token } = (await csrf.json()) as { token: string };
  const response = await fetch(`${baseUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': token, cookie: csrfCookies.join('; ') },
    body: JSON.stringify({ email, password }),
  });
  return { response, cookie: [...csrfCookies, ...cookiePairs(response)].join('; ') };
};
