import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../src/app';
import { createUser } from '../src/modules/auth/auth.service';
import { openPlatform } from '../src/platform/bootstrap';
import { loadConfig, type TConfig } from '../src/platform/config';
import type { TPlatform } from '../src/platform/context';
import { createLogger } from '../src/platform/logging';
import { startRealtimeHub, type TRealtimeHub } from '../src/platform/realtime';
import { createDatabaseFromTemplate } from './template';

export const TEST_SECRET_KEY = 'test-secret-key-that-is-long-enough-0123456789';

export type TTestApp = {
  app: FastifyInstance;
  platform: TPlatform;
  hub: TRealtimeHub;
  databaseUrl: string;
  config: TConfig;
  close: () => Promise<void>;
};

/** A fresh database copied from the run's migrated template. */
export const createTestDatabase = async () => {
  const name = `sendwell_test_${randomBytes(6).toString('hex')}`;
  return createDatabaseFromTemplate(inject('pgAdminUrl'), name);
};

/**
 * The real app on its own database: the same build as production, with the web role's
 * realtime hub. `env` overrides configuration (e.g. `{SMTP_URL: …}`); `log` replaces the
 * silent logger (to read what the app logs).
 */
export const startTestApp = async (
  env: Record<string, string> = {},
  { databaseUrl: existing, log }: { databaseUrl?: string; log?: Logger } = {},
): Promise<TTestApp> => {
  // A second app on an existing database stands for a second web process.
  const databaseUrl = existing ?? (await createTestDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sendwell-test-data-'));
  const config = loadConfig(
    {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'silent',
      DB_POOL_SIZE: '5',
      WEB_DIST_DIR: path.join(dataDir, 'no-web-build'),
      // Spam tests ask no content engine and no blocklist unless a test says where they are.
      RSPAMD_URL: 'off',
      SPAMD_ADDRESS: 'off',
      SPAM_TEST_DNSBL: '',
      ...env,
    },
    [],
  );
  // The production logger (its serializers and redaction), silent unless asked.
  const opened = await openPlatform(config, log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  const hub = await startRealtimeHub({
    url: databaseUrl,
    log: opened.platform.log,
    onSessionEnded: opened.platform.sessionCache.evict,
    onListeningChange: opened.platform.sessionCache.setTrusted,
  });
  const app = await buildApp({ platform: opened.platform, hub });
  await app.ready();
  return {
    app,
    platform: opened.platform,
    hub,
    databaseUrl,
    config,
    close: async () => {
      await app.close();
      await hub.close();
      await opened.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

let userCounter = 0;

/** A user with a unique email; password `secret123` unless given. */
export const seedUser = async (
  platform: TPlatform,
  overrides: { email?: string; name?: string; password?: string; planId?: number } = {},
) => {
  userCounter += 1;
  const email = overrides.email ?? `user${userCounter}-${randomBytes(3).toString('hex')}@example.com`;
  const password = overrides.password ?? 'secret123';
  const user = await createUser(platform, {
    email,
    name: overrides.name ?? `User ${userCounter}`,
    password,
    ...(overrides.planId ? { planId: overrides.planId } : {}),
  });
  return { ...user, password };
};

/** The test inbox as `userId`'s sending account (what "Connect the test inbox" saves); its id. */
export const seedTestInboxAccount = async (platform: TPlatform, userId: number, fromAddress = 'news@acme.test') =>
  (
    await platform.db
      .insertInto('sending_accounts')
      .values({
        user_id: userId,
        name: 'Test inbox',
        provider: 'smtp',
        driver: 'test-inbox',
        username: `user-${userId}`,
        host: '127.0.0.1',
        port: 2525,
        encryption: 'tls',
        from_address: fromAddress,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

type TRequestOptions = { headers?: Record<string, string>; query?: Record<string, string> };

/**
 * A browser-like client over `app.inject`: keeps cookies, fetches and sends the CSRF
 * token on state-changing requests, like the web app does.
 */
export const createAgent = (app: FastifyInstance) => {
  const cookies = new Map<string, string>();
  let csrfToken: string | undefined;

  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const remember = (response: LightMyRequestResponse) => {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const isCleared = cookie.value === '' || (cookie.expires && cookie.expires.getTime() < Date.now());
      if (isCleared) cookies.delete(cookie.name);
      else cookies.set(cookie.name, cookie.value);
    }
    return response;
  };

  const request = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    options: TRequestOptions = {},
    isRetry = false,
  ): Promise<LightMyRequestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    const isOwnToken = method !== 'GET' && !('x-csrf-token' in headers);
    if (isOwnToken && csrfToken === undefined) {
      const response = remember(
        await app.inject({ method: 'GET', url: '/api/csrf', headers: { cookie: cookieHeader() } }),
      );
      csrfToken = response.json().token;
    }
    if (isOwnToken) headers['x-csrf-token'] = csrfToken!;
    if (cookies.size > 0) headers.cookie = cookieHeader();
    const response = remember(
      await app.inject({
        method,
        url,
        headers,
        ...(options.query ? { query: options.query } : {}),
        ...(body !== undefined ? { payload: body as object } : {}),
      }),
    );
    // The token is bound to the session, which changes on sign-in and sign-out: like the web
    // app, fetch a fresh token once when the server says the one held is stale.
    if (isOwnToken && !isRetry && response.statusCode === 403 && response.json().code === 'CSRF') {
      csrfToken = undefined;
      return request(method, url, body, options, true);
    }
    return response;
  };

  return {
    cookies,
    get: (url: string, options?: TRequestOptions) => request('GET', url, undefined, options),
    post: (url: string, body?: unknown, options?: TRequestOptions) => request('POST', url, body ?? {}, options),
    put: (url: string, body?: unknown, options?: TRequestOptions) => request('PUT', url, body ?? {}, options),
    delete: (url: string, options?: TRequestOptions) => request('DELETE', url, undefined, options),
    signIn: async (email: string, password: string) => {
      const response = await request('POST', '/api/login', { email, password });
      if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
      return response;
    },
  };
};

export type TAgent = ReturnType<typeof createAgent>;

/**
 * A signed-in user on a paid plan with one SMTP account, seeded (the accounts form's checks
 * are the accounts tests' own); with `list`, a mailing list on it made through the route, and
 * with `singleOptIn` one whose new members are subscribed at once (new lists ask first).
 */
export const signedInWithSmtp = async (
  app: TTestApp,
  { list: withList = false, singleOptIn = false }: { list?: boolean; singleOptIn?: boolean } = {},
) => {
  const user = await seedUser(app.platform, { planId: 3 });
  const agent = createAgent(app.app);
  await agent.signIn(user.email, user.password);
  const { id: accountId } = await app.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Office SMTP',
      provider: 'smtp',
      driver: 'smtp',
      username: 'news@acme.test',
      host: 'smtp.acme.test',
      port: 587,
      encryption: 'tls',
      mail_per_day: 500,
      is_primary: true,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (!withList) return { user, agent, accountId, list: null };
  const created = await agent.post('/api/mailing-lists', { accountId, alias: 'news', name: 'News' });
  if (created.statusCode !== 200) throw new Error(`the list was not created: ${created.body}`);
  const list = created.json().data as { id: number; address: string };
  if (singleOptIn) {
    await app.platform.db
      .updateTable('mailing_lists')
      .set({ double_opt_in: false })
      .where('id', '=', list.id)
      .execute();
  }
  return { user, agent, accountId, list };
};
