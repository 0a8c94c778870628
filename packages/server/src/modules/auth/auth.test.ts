import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startSmtpSink } from '../../../test/smtp-sink';
import { SESSION_COOKIE } from '../../platform/http-security';
import { sendPasswordResetJob } from './auth.jobs';
import { FORGOT_PASSWORD_MESSAGE, INVALID_CREDENTIALS_MESSAGE } from './auth.service';

let t: TTestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({
    SMTP_URL: sink.url,
    PUBLIC_URL: 'https://mail.example.test',
    LOGIN_LIMIT_PER_EMAIL: '5',
    LOGIN_LIMIT_PER_IP: '1000',
  });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const sessionCookieOf = (response: { cookies: unknown[] }) =>
  (response.cookies as { name: string; value: string; httpOnly?: boolean; sameSite?: string; secure?: boolean }[]).find(
    (cookie) => cookie.name === SESSION_COOKIE,
  );

describe('sign in', () => {
  it('sets an httpOnly SameSite=Lax session cookie and answers the user information', async () => {
    const user = await seedUser(t.platform, { name: 'Ada Lovelace' });
    const agent = createAgent(t.app);
    const response = await agent.post('/api/login', { email: user.email.toUpperCase(), password: user.password });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: true,
      data: { id: user.id, name: 'Ada Lovelace', email: user.email, free: true, plan: { id: 2, isFree: true } },
    });
    const cookie = sessionCookieOf(response)!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.secure).toBeFalsy();

    const info = await agent.get('/api/user-information');
    expect(info.statusCode).toBe(200);
    expect(info.json().data).toEqual({
      id: user.id,
      name: 'Ada Lovelace',
      email: user.email,
      free: true,
      plan: { id: 2, name: 'Free', isFree: true },
      time_zone: 'America/New_York',
      role: 'user',
      unread_tickets: 0,
      credit: { totalCredit: 300, usedCredit: 0 },
      // Plans and credits are on (BILLING=off would take them off every screen).
      billing: true,
    });
  });

  it('sets __Host- cookies behind an HTTPS proxy listed in TRUST_PROXY, and reads only those over HTTPS', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      const user = await seedUser(proxied.platform);
      const https = { 'x-forwarded-proto': 'https' };
      const csrf = await proxied.app.inject({ url: '/api/csrf', headers: https });
      const csrfCookie = (csrf.cookies as { name: string; value: string }[])[0]!;
      const response = await proxied.app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { ...https, cookie: `${csrfCookie.name}=${csrfCookie.value}`, 'x-csrf-token': csrf.json().token },
        payload: { email: user.email, password: user.password },
      });
      expect(response.statusCode).toBe(200);
      const cookies = response.cookies as {
        name: string;
        value: string;
        secure?: boolean;
        path?: string;
        domain?: string;
      }[];
      expect(csrfCookie.name).toBe('__Host-sendwell_csrf');
      const session = cookies.find((cookie) => cookie.name === `__Host-${SESSION_COOKIE}`)!;
      expect(session).toMatchObject({ secure: true, path: '/' });
      expect(session.domain).toBeUndefined();

      const read = (cookie: string) =>
        proxied.app.inject({ url: '/api/user-information', headers: { ...https, cookie } });
      expect((await read(`__Host-${SESSION_COOKIE}=${session.value}`)).statusCode).toBe(200);
      // A cookie without the prefix could have been planted by a sibling subdomain or plain HTTP.
      expect((await read(`${SESSION_COOKIE}=${session.value}`)).statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it('gives a new session id on every sign-in and retires the one the browser had', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const first = sessionCookieOf(await agent.signIn(user.email, user.password))!.value;
    const second = sessionCookieOf(await agent.signIn(user.email, user.password))!.value;
    expect(second).not.toBe(first);
    const stale = await t.app.inject({
      url: '/api/user-information',
      headers: { cookie: `${SESSION_COOKIE}=${first}` },
    });
    expect(stale.statusCode).toBe(401);
  });

  it('stores passwords as argon2id', async () => {
    const user = await seedUser(t.platform);
    const row = await t.platform.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain(user.password);
  });

  it('answers the same 401 for a wrong password and an unknown email', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const wrong = await agent.post('/api/login', { email: user.email, password: 'not-it' });
    const unknown = await agent.post('/api/login', { email: 'nobody@example.com', password: 'not-it' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().message).toBe(INVALID_CREDENTIALS_MESSAGE);
    expect(unknown.json().message).toBe(INVALID_CREDENTIALS_MESSAGE);
  });

  it('answers 422 with field messages for malformed input', async () => {
    const agent = createAgent(t.app);
    const response = await agent.post('/api/login', { email: 'not-an-email', password: '' });
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expect(body.errors.email[0]).toBe('Please enter a valid email address.');
    expect(body.errors.password[0]).toBe('The password field is required.');
  });

  it('refuses the sixth attempt on one email within the window, even with the right password', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await agent.post('/api/login', { email: user.email, password: 'wrong' })).statusCode).toBe(401);
    }
    const limited = await agent.post('/api/login', { email: user.email, password: user.password });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
  });

  it('limits attempts per IP across different emails', async () => {
    const limited = await startTestApp({ LOGIN_LIMIT_PER_IP: '12' });
    try {
      const agent = createAgent(limited.app);
      const csrf = (await agent.get('/api/csrf')).json().token;
      const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const attempt = (index: number, remoteAddress: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/api/login',
          remoteAddress,
          headers: { 'x-csrf-token': csrf, cookie },
          payload: { email: `guess${index}@example.com`, password: 'x' },
        });
      const statuses: number[] = [];
      for (let index = 0; index < 14; index++) statuses.push((await attempt(index, '203.0.113.9')).statusCode);
      expect(statuses.slice(0, 12).every((status) => status === 401)).toBe(true);
      expect(statuses.slice(12)).toEqual([429, 429]);
      // Another machine is not held back by the first one's attempts.
      expect((await attempt(99, '203.0.113.10')).statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});

describe('CSRF', () => {
  it('refuses state-changing requests without the token or with a wrong one', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const missing = await agent.post('/api/logout', {}, { headers: { 'x-csrf-token': '' } });
    expect(missing.statusCode).toBe(403);
    expect(missing.json()).toMatchObject({ status: false, code: 'CSRF' });
    const forged = await agent.post(
      '/api/notifications/read',
      {},
      { headers: { 'x-csrf-token': 'forged-token-value' } },
    );
    expect(forged.statusCode).toBe(403);
    // Still signed in: the refused logout did nothing.
    expect((await agent.get('/api/user-information')).statusCode).toBe(200);
  });

  it('does not accept a token fetched before sign-in once the browser is signed in', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const beforeSignIn = (await agent.get('/api/csrf')).json().token;
    await agent.signIn(user.email, user.password);
    const stale = await agent.post('/api/notifications/read', {}, { headers: { 'x-csrf-token': beforeSignIn } });
    expect(stale.statusCode).toBe(403);
    expect(stale.json()).toMatchObject({ code: 'CSRF' });
    // The token fetched now, for this session, works.
    const fresh = (await agent.get('/api/csrf')).json().token;
    expect(fresh).not.toBe(beforeSignIn);
    const accepted = await agent.post('/api/notifications/read', {}, { headers: { 'x-csrf-token': fresh } });
    expect(accepted.statusCode).toBe(200);
  });

  it('does not accept a token issued to another session, even in the same browser', async () => {
    const first = await seedUser(t.platform);
    const second = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(first.email, first.password);
    const firstSessionToken = (await agent.get('/api/csrf')).json().token;
    await agent.post('/api/logout');
    await agent.signIn(second.email, second.password);
    const response = await agent.post(
      '/api/notifications/read',
      {},
      { headers: { 'x-csrf-token': firstSessionToken } },
    );
    expect(response.statusCode).toBe(403);

    const elsewhere = createAgent(t.app);
    await elsewhere.signIn(first.email, first.password);
    const elsewhereToken = (await elsewhere.get('/api/csrf')).json().token;
    const crossed = await agent.post('/api/notifications/read', {}, { headers: { 'x-csrf-token': elsewhereToken } });
    expect(crossed.statusCode).toBe(403);
  });

  it('does not accept one browser’s token with another browser’s cookie', async () => {
    const first = createAgent(t.app);
    const second = createAgent(t.app);
    const token = (await first.get('/api/csrf')).json().token;
    await second.get('/api/csrf');
    const response = await second.post(
      '/api/forgot-password',
      { email: 'a@example.com' },
      { headers: { 'x-csrf-token': token } },
    );
    expect(response.statusCode).toBe(403);
  });
});

describe('sign out', () => {
  it('ends the session', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    const cookie = sessionCookieOf(await agent.signIn(user.email, user.password))!.value;
    const response = await agent.post('/api/logout');
    expect(response.json()).toEqual({ status: true, message: 'You have been signed out.' });
    expect((await agent.get('/api/user-information')).statusCode).toBe(401);
    const replayed = await t.app.inject({
      url: '/api/user-information',
      headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
    });
    expect(replayed.statusCode).toBe(401);
  });
});

/** The reset jobs the form queued for an email (run by nobody in tests until asked). */
const queuedResetJobs = async (email: string) =>
  (
    await sql<{ id: string; data: { email: string } }>`
      select id, data from pgboss.job where name = ${sendPasswordResetJob.name} and data->>'email' = ${email}
    `.execute(t.platform.db)
  ).rows;

/** Runs the queued reset jobs of an email the way a worker does: the handler, with the job's payload. */
const runResetJobs = async (email: string) => {
  const jobs = await queuedResetJobs(email);
  for (const job of jobs) {
    await sendPasswordResetJob.handler(sendPasswordResetJob.schema.parse(job.data), t.platform, {
      jobId: job.id,
      retryCount: 0,
      signal: new AbortController().signal,
    });
  }
  return jobs.length;
};

const resetRowsOf = async (userId: number) =>
  (await t.platform.db.selectFrom('password_resets').select('id').where('user_id', '=', userId).execute()).length;

describe('forgotten password', () => {
  it('mails a one-hour reset link that sets a new password and signs out other devices', async () => {
    const user = await seedUser(t.platform, { name: 'Grace' });
    const otherDevice = createAgent(t.app);
    await otherDevice.signIn(user.email, user.password);

    const agent = createAgent(t.app);
    const response = await agent.post('/api/forgot-password', { email: user.email });
    expect(response.json()).toEqual({ status: true, message: FORGOT_PASSWORD_MESSAGE });
    expect(await runResetJobs(user.email)).toBe(1);

    const mail = await sink.waitFor(user.email);
    expect(mail.subject).toBe('Reset your Sendwell password');
    const link = mail.text!.match(/https:\/\/mail\.example\.test\/reset-password\/([\w-]+)/);
    expect(link).not.toBeNull();
    const token = link![1]!;

    const reset = await agent.post('/api/reset-password', { token, password: '  new-password  ' });
    expect(reset.statusCode).toBe(200);
    expect(reset.json().status).toBe(true);

    expect((await otherDevice.get('/api/user-information')).statusCode).toBe(401);
    expect((await agent.post('/api/login', { email: user.email, password: user.password })).statusCode).toBe(401);
    // Passwords are trimmed (spec §5), on reset as on sign-in.
    expect((await agent.post('/api/login', { email: user.email, password: 'new-password' })).statusCode).toBe(200);

    const reused = await createAgent(t.app).post('/api/reset-password', { token, password: 'another-one' });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().errors.token[0]).toMatch(/invalid or has expired/);
  });

  it('does the same in the request for an existing and an unknown email: one queued job, no mail, no link yet', async () => {
    const user = await seedUser(t.platform);
    const before = sink.messages.length;
    for (const email of [user.email, 'ghost@example.com']) {
      const response = await createAgent(t.app).post('/api/forgot-password', { email });
      expect(response.json()).toEqual({ status: true, message: FORGOT_PASSWORD_MESSAGE });
      expect(await queuedResetJobs(email)).toHaveLength(1);
    }
    // The mail is the job's work, so the answer never waits for SMTP.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.length).toBe(before);
    expect(await resetRowsOf(user.id)).toBe(0);

    await runResetJobs(user.email);
    expect(await resetRowsOf(user.id)).toBe(1);
    expect((await sink.waitFor(user.email)).subject).toBe('Reset your Sendwell password');
  });

  it('mails nothing when the job runs for an unknown email', async () => {
    const email = `ghost-${Date.now()}@example.com`;
    await createAgent(t.app).post('/api/forgot-password', { email });
    const before = sink.messages.length;
    expect(await runResetJobs(email)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.length).toBe(before);
  });

  it('refuses a new password shorter than six characters after trimming', async () => {
    const response = await createAgent(t.app).post('/api/reset-password', {
      token: 'x'.repeat(43),
      password: '  abc  ',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.password[0]).toBe('The password must be at least 6 characters.');
  });
});
