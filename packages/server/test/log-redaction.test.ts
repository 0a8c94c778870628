import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendPasswordResetJob } from '../src/modules/auth/auth.jobs';
import { createLogger, redactedUrl } from '../src/platform/logging';
import { createMailer } from '../src/platform/mailer';
import { createAgent, seedUser, startTestApp, type TTestApp } from './app';

/**
 * R29: reset links, unsubscribe and tracking tokens, cookies and bearer tokens never reach
 * the log. The app logs through the production logger into memory, at `info` like a
 * deployment, while the routes that carry secrets are called.
 */

const lines: string[] = [];
const logged = () => lines.join('\n');
const METRICS_TOKEN = `metrics-${randomBytes(12).toString('hex')}`;

let t: TTestApp;
beforeAll(async () => {
  // An external database (the tests' own) and no SMTP_URL: a deployment that forgot SMTP.
  t = await startTestApp(
    { METRICS_TOKEN },
    { log: createLogger('info', { write: (line: string) => void lines.push(line) }) },
  );
});
afterAll(async () => t?.close());

const token = () => randomBytes(32).toString('base64url');

describe('what the logs keep out (R29)', () => {
  it('logs request URLs with unsubscribe and tracking tokens redacted, however the path is written', async () => {
    const secrets = Array.from({ length: 9 }, token);
    const [a, b, c, d, e, f, g, h, i] = secrets as [string, ...string[]];
    const agent = createAgent(t.app);
    await agent.get(`/unsubscribe/${a}`);
    await agent.post(`/api/unsubscribe/${b}`);
    await agent.post(`/api/%75nsubscribe/${c}`);
    await agent.get(`/api/t/o/${d}/${e}.gif`);
    await agent.get(`/api/t/c/${f}/1/${g}`);
    // The web app's own page for a reset link: no server route, the app shell answers.
    await agent.get(`/reset-password/${h}`);
    await agent.get(`/api/login/google/callback?code=${i}&state=abc`);

    expect(logged()).toContain('request completed');
    expect(logged()).toContain('/api/unsubscribe/[redacted]');
    for (const secret of secrets) expect(logged()).not.toContain(secret);
  });

  it('logs each request once, when it completes: method, URL, status and time on one line', async () => {
    const before = lines.length;
    await t.app.inject({ url: '/api/csrf?x=1' });
    const logged = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', url: '/api/csrf?x=1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
      reqId: expect.any(String),
    });
  });

  it('writes no info lines for the routes machines call by the thousand a second (tracking, webhooks)', async () => {
    const before = lines.length;
    await t.app.inject({ url: `/api/t/o/${token()}/${token()}.gif` });
    await t.app.inject({ url: `/api/t/c/${token()}/1/${token()}` });
    await t.app.inject({ method: 'POST', url: '/api/webhooks/mailgun/999999', payload: { signature: {} } });
    await t.app.inject({ url: '/api/csrf' });
    const urls = lines
      .slice(before)
      .map((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url)
      .filter((url) => url !== undefined);
    expect(urls).toEqual(['/api/csrf']);
  });

  it('keeps cookies, CSRF tokens and bearer tokens out, wherever headers are logged', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    await agent.get('/api/user-information');
    await agent.post('/api/notifications/read');
    const metrics = await t.app.inject({ url: '/api/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.statusCode).toBe(200);
    t.platform.log.info({ req: { headers: { authorization: `Bearer ${METRICS_TOKEN}`, cookie: 'a=b' } } }, 'headers');
    t.platform.log.info({ headers: { cookie: [...agent.cookies.values()].join('; ') } }, 'headers');

    const secrets = [...agent.cookies.values(), METRICS_TOKEN, (await agent.get('/api/csrf')).json().token];
    for (const secret of secrets) expect(logged()).not.toContain(secret);
  });

  it('does not log a reset link when SMTP_URL is unset on a deployed server (external database)', async () => {
    const user = await seedUser(t.platform);
    await createAgent(t.app).post('/api/forgot-password', { email: user.email });
    const { rows } = await sql<{ data: { email: string } }>`
      select data from pgboss.job where name = ${sendPasswordResetJob.name} and data->>'email' = ${user.email}
    `.execute(t.platform.db);
    await sendPasswordResetJob.handler(rows[0]!.data, t.platform, {
      jobId: 'test',
      retryCount: 0,
      signal: new AbortController().signal,
    });
    expect(logged()).toContain('its text withheld from the log: set SMTP_URL');
    expect(logged()).not.toMatch(/reset-password\/[\w-]{20,}/);
  });

  it('writes system mail to the log only on a local run (embedded PostgreSQL)', async () => {
    const mailLines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void mailLines.push(line) });
    const mail = { to: 'a@example.com', subject: 'Reset', text: 'https://x.test/reset-password/LINK-SECRET' };
    await createMailer({ smtpUrl: undefined, from: 'x@example.com', log, isLocalRun: false }).send(mail);
    expect(mailLines.join('\n')).not.toContain('LINK-SECRET');
    await createMailer({ smtpUrl: undefined, from: 'x@example.com', log, isLocalRun: true }).send(mail);
    expect(mailLines.join('\n')).toContain('LINK-SECRET');
  });
});

describe('redactedUrl', () => {
  it('fills a matched route’s pattern, secrets redacted, ids kept', () => {
    expect(
      redactedUrl({
        url: '/api/%74/o/abc/def.gif',
        routeOptions: { url: '/api/t/o/:token/:sig' },
        params: { token: 'abc', sig: 'def.gif' },
      }),
    ).toBe('/api/t/o/[redacted]/[redacted]');
    expect(
      redactedUrl({
        url: '/api/mailing-lists/12?page=2',
        routeOptions: { url: '/api/mailing-lists/:listId' },
        params: { listId: '12' },
      }),
    ).toBe('/api/mailing-lists/12?page=2');
  });

  it('redacts token-like segments and secret query fields of unmatched URLs', () => {
    const secret = token();
    expect(redactedUrl({ url: `/reset-password/${secret}` })).toBe('/reset-password/[redacted]');
    // The old address's undo link: `<change id>.<HMAC>` (R41).
    expect(redactedUrl({ url: `/settings/profile/undo-email/12.${secret}` })).toBe(
      '/settings/profile/undo-email/[redacted]',
    );
    expect(redactedUrl({ url: `/x?code=short&next=/home&t=${secret}` })).toBe(
      '/x?code=[redacted]&next=%2Fhome&t=[redacted]',
    );
  });
});
