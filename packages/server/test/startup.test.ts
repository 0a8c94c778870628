import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { TEST_SECRET_KEY } from './app';
import { freePort } from './cluster';
import { signInOverHttp, startServerProcess } from './processes';
import { databaseUrl } from './template';
import { PROCESS_TEST_TIMEOUT_MS } from './wait';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-start-'));
// A stand-in for the built web app, so the test does not depend on `npm run build`.
const webDistDir = path.join(dataDir, 'web');
fs.mkdirSync(path.join(webDistDir, 'assets'), { recursive: true });
fs.writeFileSync(path.join(webDistDir, 'index.html'), '<!doctype html><title>Sendwell</title><div id="root"></div>');
fs.writeFileSync(path.join(webDistDir, 'assets', 'app-abc123.js'), 'console.log(1)');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const isPortOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm start with the embedded PostgreSQL', () => {
  it(
    'starts, stops cleanly on Ctrl-C (PostgreSQL too), and a second start reuses the data',
    async () => {
      const port = await freePort();
      const pgPort = await freePort();
      const env = {
        DATA_DIR: dataDir,
        PORT: String(port),
        EMBEDDED_PG_PORT: String(pgPort),
        HOST: '127.0.0.1',
        WEB_DIST_DIR: webDistDir,
      };

      const first = startServerProcess(env, [], undefined, { ownGroup: true });
      await first.waitForOutput(`Sendwell is running at http://localhost:${port}`);
      expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(await health.json()).toEqual({ status: 'ok', db: 'ok', queue: 'ok' });

      // The app shell answers every client-side route, under a CSP; fingerprinted assets are immutable.
      const deepLink = await fetch(`http://127.0.0.1:${port}/mailing-lists/detail/1/2`);
      expect(deepLink.status).toBe(200);
      expect(await deepLink.text()).toContain('<div id="root">');
      expect(deepLink.headers.get('content-security-policy')).toContain("script-src 'self'");
      const asset = await fetch(`http://127.0.0.1:${port}/assets/app-abc123.js`);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

      // The admin CLI joins the running cluster rather than starting a second one.
      const admin = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/admin.ts', 'create-user', 'owner@example.com', '--password', 'secret123'],
        { cwd: path.resolve(import.meta.dirname, '..'), env: { ...process.env, ...env }, encoding: 'utf8' },
      );
      expect(admin.stdout).toContain('Created user 1 <owner@example.com>.');
      expect(admin.status).toBe(0);

      const code = await first.interruptGroup();
      expect(code, first.output().slice(-3000)).toBe(0);
      expect(first.output()).not.toMatch(/"level":(40|50|60)/);
      expect(await isPortOpen(pgPort)).toBe(false);
      expect(await isPortOpen(port)).toBe(false);

      const second = startServerProcess(env);
      try {
        await second.waitForOutput('Sendwell is running at');
        expect(second.output()).not.toContain('migrations applied');
        const { response } = await signInOverHttp(`http://127.0.0.1:${port}`, 'owner@example.com', 'secret123');
        expect(response.status).toBe(200);
      } finally {
        expect(await second.stop('SIGTERM')).toBe(0);
      }
      expect(await isPortOpen(pgPort)).toBe(false);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('after a crash', () => {
  it(
    'adopts the PostgreSQL a killed server left running, and stops it on the next Ctrl-C',
    async () => {
      const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-crash-'));
      const port = await freePort();
      const pgPort = await freePort();
      const env = {
        DATA_DIR: crashDir,
        PORT: String(port),
        EMBEDDED_PG_PORT: String(pgPort),
        HOST: '127.0.0.1',
        WEB_DIST_DIR: webDistDir,
      };
      try {
        const crashed = startServerProcess(env, [], undefined, { ownGroup: true });
        await crashed.waitForOutput('Sendwell is running at');
        await crashed.stop('SIGKILL');
        // PostgreSQL runs in its own session, so it outlives the killed server…
        expect(await isPortOpen(pgPort)).toBe(true);

        const next = startServerProcess(env, [], undefined, { ownGroup: true });
        await next.waitForOutput('Sendwell is running at');
        expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).toMatchObject({ db: 'ok' });
        // …and the next server takes it over, so its Ctrl-C stops it.
        expect(await next.interruptGroup()).toBe(0);
        expect(await isPortOpen(pgPort)).toBe(false);
      } finally {
        fs.rmSync(crashDir, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('process roles', () => {
  it('refuses an unknown role with the variable named', async () => {
    const process = startServerProcess({ SENDWELL_ROLE: 'mailer', DATA_DIR: dataDir });
    await process.waitForOutput('SENDWELL_ROLE');
    expect(await process.stop()).not.toBe(0);
  });
});

const SERVER_ROOT = path.resolve(import.meta.dirname, '..');
const BUILT_MAIN = path.join(SERVER_ROOT, 'dist/main.js');
const BUILT_WEB_INDEX = path.resolve(SERVER_ROOT, '../web/dist/index.html');

// `npm test` builds the web app and the server before vitest runs; a bare `npx vitest run`
// without `npm run build` skips this.
describe.skipIf(!fs.existsSync(BUILT_MAIN) || !fs.existsSync(BUILT_WEB_INDEX))(
  'the built server (dist/main.js, what npm start runs)',
  () => {
    it(
      'migrates an empty database from migrations/, serves the built web app, and the built admin works',
      async () => {
        const database = `sendwell_built_${Date.now()}`;
        const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
        await admin.connect();
        await admin.query(`create database ${database}`);
        await admin.end();
        const port = await freePort();
        // No WEB_DIST_DIR: the default path, resolved from the bundle, must find packages/web/dist.
        const env = {
          DATABASE_URL: databaseUrl(inject('pgAdminUrl'), database),
          SECRET_KEY: TEST_SECRET_KEY,
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: '127.0.0.1',
        };
        const server = startServerProcess(env, [], BUILT_MAIN, {
          nodeFlags: ['--require', path.join(import.meta.dirname, 'stack-watch.cjs')],
        });
        try {
          await server.waitForOutput('Sendwell is running at');
          // No stack formatted on the way up: the first would parse dist's whole source map
          // and keep it (fastify-plugin made one to name an unnamed plugin).
          expect(server.output()).not.toContain('error stack formatted');
          const migrations = fs
            .readdirSync(path.join(SERVER_ROOT, 'migrations'))
            .filter((file) => file.endsWith('.sql'));
          expect(server.output()).toContain('"msg":"migrations applied"');
          for (const file of migrations) expect(server.output()).toContain(file);
          const base = `http://127.0.0.1:${port}`;
          expect(await (await fetch(`${base}/api/health`)).json()).toEqual({ status: 'ok', db: 'ok', queue: 'ok' });

          const page = await (await fetch(`${base}/mailing-lists`)).text();
          const script = page.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
          expect(script, page).toBeDefined();
          expect(page).toBe(fs.readFileSync(BUILT_WEB_INDEX, 'utf8'));
          expect((await fetch(`${base}${script}`)).status).toBe(200);

          const created = spawnSync(
            process.execPath,
            ['--enable-source-maps', 'dist/admin.js', 'create-user', 'built@example.com', '--password', 'secret123'],
            { cwd: SERVER_ROOT, env: { ...process.env, ...env }, encoding: 'utf8' },
          );
          expect(created.stdout, created.stderr).toContain('<built@example.com>');
          const { response } = await signInOverHttp(base, 'built@example.com', 'secret123');
          expect(response.status).toBe(200);
        } finally {
          const code = await server.stop('SIGTERM');
          expect(code, server.output().slice(-3000)).toBe(0);
        }
        expect(server.output()).not.toMatch(/"level":(40|50|60)/);
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
