import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetPassword } from '../src/modules/auth/auth.service';
import { SESSION_COOKIE } from '../src/platform/http-security';
import { hashToken, randomToken } from '../src/platform/tokens';
import { createAgent, seedUser, startTestApp, type TTestApp } from './app';
import { PATIENCE_MS } from './wait';

/** Two web processes on one database, `a` and `b`; each caches the sessions it has seen. */
let a: TTestApp;
let b: TTestApp;
beforeAll(async () => {
  a = await startTestApp();
  b = await startTestApp({}, { databaseUrl: a.databaseUrl });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const statusOn = async (app: TTestApp, sessionCookie: string) =>
  (await app.app.inject({ url: '/api/user-information', headers: { cookie: `${SESSION_COOKIE}=${sessionCookie}` } }))
    .statusCode;

const eventually = async (check: () => Promise<boolean>, timeoutMs = PATIENCE_MS) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
};

/** Signs in on `a` and has `b` see (and cache) the session. */
const sessionSeenByB = async () => {
  const user = await seedUser(a.platform);
  const agent = createAgent(a.app);
  await agent.signIn(user.email, user.password);
  const cookie = agent.cookies.get(SESSION_COOKIE)!;
  expect(await statusOn(b, cookie)).toBe(200);
  return { user, agent, cookie };
};

describe('session cache across web processes', () => {
  it('answers a seen session from memory: a row removed without announcement is not noticed', async () => {
    const { user, cookie } = await sessionSeenByB();
    // No code path does this; it shows the cache is what answered, and why every real
    // session end announces itself.
    await a.platform.db.deleteFrom('sessions').where('user_id', '=', user.id).execute();
    expect(await statusOn(b, cookie)).toBe(200);
    expect(await statusOn(a, cookie)).toBe(200);
  });

  it('ends the session on the other process when the user signs out', async () => {
    const { agent, cookie } = await sessionSeenByB();
    await agent.post('/api/logout');
    expect(await statusOn(a, cookie)).toBe(401);
    expect(await eventually(async () => (await statusOn(b, cookie)) === 401)).toBe(true);
  });

  it('ends every cached session of a user when the password is reset', async () => {
    const { user, cookie } = await sessionSeenByB();
    const token = randomToken();
    await a.platform.db
      .insertInto('password_resets')
      .values({ user_id: user.id, token_hash: hashToken(token), expires_at: new Date(Date.now() + 60_000) })
      .execute();
    await resetPassword(a.platform, token, 'a-brand-new-password');
    expect(await eventually(async () => (await statusOn(b, cookie)) === 401)).toBe(true);
  });

  it('reads the database on every request while it cannot hear session ends', async () => {
    const { user, cookie } = await sessionSeenByB();
    await b.hub.close(); // b's LISTEN connection is gone
    await a.platform.db.deleteFrom('sessions').where('user_id', '=', user.id).execute();
    expect(await statusOn(b, cookie)).toBe(401);
  });
});
