/**
 * What the sending benchmarks set up alike: a database of their own in the run's cluster,
 * the environment a platform opens with, a user with one sending account, a list of
 * generated members, and for B2 and B9 the same Mailgun account, fake and send.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../packages/server/src/app';
import { sealSecret } from '../packages/server/src/modules/accounts/secrets';
import { createUser } from '../packages/server/src/modules/auth/auth.service';
import { createSend } from '../packages/server/src/modules/delivery/delivery.service';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import type { TPlatform } from '../packages/server/src/platform/context';
import { startRealtimeHub } from '../packages/server/src/platform/realtime';
import { startTestCluster } from '../packages/server/test/cluster';
import { startMailgunFake } from '../packages/server/test/mailgun-fake';

const BENCH_SECRET_KEY = 'bench-secret-key-that-is-long-enough-0123456789';
const BENCH_DATA_DIR = '/tmp/sendwell-bench-data';
/** The seeded Pro plan, which allows sending accounts. */
const BENCH_PLAN_ID = 3;

/** A fresh database in the run's PostgreSQL, and the environment that opens Sendwell on it. */
export const benchEnvironment = async (database: string, extra: Record<string, string> = {}) => {
  const cluster = await startTestCluster({ durable: true });
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  const env = {
    DATABASE_URL: cluster.adminUrl.replace(/\/[^/]*$/, `/${database}`),
    SECRET_KEY: BENCH_SECRET_KEY,
    DATA_DIR: BENCH_DATA_DIR,
    WEB_DIST_DIR: '/nonexistent',
    TEST_INBOX: 'false',
    ...extra,
  };
  return { env, cluster };
};

type TAccountSeed = {
  values: Record<string, unknown>;
  /** The secret column (without `_encrypted`) and its value, sealed for the new row. */
  secret: { column: 'api_key' | 'webhook_key' | 'password'; value: string };
};

/** The bench user and one sending account of theirs. */
export const seedAccount = async (platform: TPlatform, { values, secret }: TAccountSeed) => {
  // A paid plan (Pro, seeded): a free plan sends through the test inbox only (R23).
  const user = await createUser(platform, {
    email: 'bench@example.com',
    name: 'Bench',
    password: 'secret123',
    planId: BENCH_PLAN_ID,
  });
  const { id: accountId } = await platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, ...values } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  await platform.db
    .updateTable('sending_accounts')
    .set({ [`${secret.column}_encrypted`]: sealSecret(platform, accountId, secret.column, secret.value) })
    .where('id', '=', accountId)
    .execute();
  return { userId: user.id, accountId };
};

/** A list `l{run}@{domain}` of `size` members r{n}.{run}@example.com named 'Reader n', with a city field if asked. */
export const seedList = async (
  platform: TPlatform,
  { userId, accountId }: { userId: number; accountId: number },
  { run, domain, size, withCity = false }: { run: number; domain: string; size: number; withCity?: boolean },
) => {
  const { id: listId } = await platform.db
    .insertInto('mailing_lists')
    .values({
      user_id: userId,
      account_id: accountId,
      alias: `l${run}`,
      domain,
      address: `l${run}@${domain}`,
      name: `L${run}`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const fields = withCity ? sql`jsonb_build_object('city', 'City ' || n)` : sql`'{}'::jsonb`;
  await sql`insert into list_members (user_id, list_id, account_id, email, fullname, fields)
    select ${userId}, ${listId}, ${accountId}, 'r' || n || '.' || ${run} || '@example.com', 'Reader ' || n, ${fields}
      from generate_series(1, ${size}) n`.execute(platform.db);
  return listId;
};

const MAILGUN_KEY = 'key-bench-0123456789abcdef0123456789';
const MAILGUN_DOMAIN = 'mg.bench.test';

/** The Mailgun contract fake the Mailgun benches send to; it keeps counts, not messages. */
export const startBenchMailgun = () =>
  startMailgunFake({ key: MAILGUN_KEY, domains: [{ name: MAILGUN_DOMAIN, region: 'us' }], keepMessages: false });

/** The bench user with a Mailgun account on the fake's domain. */
export const seedMailgunAccount = (platform: TPlatform) =>
  seedAccount(platform, {
    values: { name: 'Mailgun', provider: 'mailgun', domain: MAILGUN_DOMAIN, region: 'us' },
    secret: { column: 'api_key', value: MAILGUN_KEY },
  });

/** A list of `size` members with a city field on the Mailgun account. */
export const seedMailgunList = (
  platform: TPlatform,
  owner: { userId: number; accountId: number },
  run: number,
  size: number,
) => seedList(platform, owner, { run, domain: MAILGUN_DOMAIN, size, withCity: true });

const MAILGUN_HTML = `<html><body><h1>Hello {{name::friend}}</h1><p>${'Some news. '.repeat(60)}</p><p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a></p></body></html>`;

/** The send both Mailgun benches measure: merge fields with fallbacks and two tracked links. */
export const createMailgunSend = (platform: TPlatform, owner: { userId: number; accountId: number }, listId: number) =>
  createSend(platform, owner.userId, {
    accountId: owner.accountId,
    fromName: 'Bench',
    fromAddress: `news@${MAILGUN_DOMAIN}`,
    subject: 'Hello {{name}} in {{city::town}}',
    html: MAILGUN_HTML,
    listIds: [listId],
  });

/** The app in the bench's process on `env` (a `benchEnvironment`'s): the routes through app.inject, as the user reaches them. */
export const openBenchApp = async (env: Record<string, string>) => {
  const config = loadConfig(env, []);
  const opened = await openPlatform(config, pino({ level: 'silent' }));
  const { platform } = opened;
  const hub = await startRealtimeHub({
    url: config.databaseUrl!,
    log: platform.log,
    onSessionEnded: platform.sessionCache.evict,
    onListeningChange: platform.sessionCache.setTrusted,
  });
  const app = await buildApp({ platform, hub });
  await app.ready();
  return {
    platform,
    app,
    close: async () => {
      await app.close();
      await hub.close();
      await opened.close();
    },
  };
};

/** The bench user signed in (`seedAccount`'s): the session's cookie and its own CSRF token, for app.inject. */
export const signInBench = async (app: Awaited<ReturnType<typeof openBenchApp>>['app']) => {
  const csrf = await app.inject({ method: 'GET', url: '/api/csrf' });
  const login = await app.inject({
    method: 'POST',
    url: '/api/login',
    headers: {
      cookie: csrf.cookies.map((c) => `${c.name}=${c.value}`).join('; '),
      'x-csrf-token': csrf.json().token as string,
    },
    payload: { email: 'bench@example.com', password: 'secret123' },
  });
  if (login.statusCode !== 200) throw new Error(`sign-in failed: ${login.statusCode}`);
  const cookie = [...csrf.cookies, ...login.cookies].map((c) => `${c.name}=${c.value}`).join('; ');
  // A sign-in starts a new session, with a token of its own.
  const token = (await app.inject({ method: 'GET', url: '/api/csrf', headers: { cookie } })).json().token as string;
  return { cookie, token };
};
