import { ACCOUNT_MESSAGES } from '@sendwell/contracts';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startGoogleFake } from '../../../test/google-fake';
import { openAccountTransport } from './accounts.service';

const MAILBOX = 'mailbox@gmail.test';
let t: TTestApp;
let google: Awaited<ReturnType<typeof startGoogleFake>>;
let gmail: SMTPServer;
const xoauthTokens: string[] = [];

beforeAll(async () => {
  google = await startGoogleFake({ clientId: 'client-1', clientSecret: 'secret-1', email: MAILBOX });
  // Gmail's SMTP side: TLS from the first byte, XOAUTH2 with the current access token.
  gmail = new SMTPServer({
    secure: true,
    logger: false,
    authMethods: ['XOAUTH2'],
    onAuth: (auth, _session, callback) => {
      xoauthTokens.push(auth.accessToken ?? '');
      return auth.username === MAILBOX && auth.accessToken === google.latestAccessToken()
        ? callback(null, { user: MAILBOX })
        : callback(null, { data: { status: '401', schemes: 'bearer' } });
    },
    onData: (stream, _session, callback) => {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  const gmailPort = await freePort();
  await new Promise<void>((resolve) => gmail.listen(gmailPort, '127.0.0.1', resolve));
  t = await startTestApp({
    ...google.env,
    GOOGLE_SMTP_HOST: '127.0.0.1',
    GOOGLE_SMTP_PORT: String(gmailPort),
    ALLOW_LOOPBACK_SMTP: 'true',
    PUBLIC_URL: 'https://sendwell.test',
  });
});
afterAll(async () => {
  await t?.close();
  await google?.close();
  await new Promise<void>((resolve) => gmail.close(() => resolve()));
});

const startLogin = async (planId = 3) => {
  const user = await seedUser(t.platform, { planId });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const start = await agent.get('/api/login/google');
  expect(start.statusCode).toBe(302);
  const location = new URL(start.headers.location as string);
  return { user, agent, location, state: location.searchParams.get('state')! };
};

describe('connecting Gmail with a Google login', () => {
  it('redirects to Google with the code flow, offline access and the mail scope', async () => {
    const { location } = await startLogin();
    expect(`${location.origin}${location.pathname}`).toBe(google.env.GOOGLE_AUTH_URL);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: 'client-1',
      redirect_uri: 'https://sendwell.test/api/login/google/callback',
      response_type: 'code',
      access_type: 'offline',
    });
    expect(location.searchParams.get('scope')).toContain('https://mail.google.com/');
  });

  it('keeps the account with encrypted tokens, sends with XOAUTH2 and refreshes an expired token', async () => {
    const { user, agent, state } = await startLogin();
    const callback = await agent.get('/api/login/google/callback', { query: { code: 'good-code', state } });
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(`/settings/accounts?google=connected&email=${encodeURIComponent(MAILBOX)}`);

    const [account] = (await agent.get('/api/settings/accounts')).json().data;
    expect(account).toMatchObject({
      provider: 'google',
      google: true,
      gmail_accounts: { email: MAILBOX },
      active: true,
    });
    const row = await t.platform.db
      .selectFrom('sending_accounts')
      .selectAll()
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(row.oauth_refresh_token_encrypted!.toString('latin1')).not.toContain('refresh-1');
    expect(JSON.stringify(row)).not.toContain('access-');

    const send = async () => {
      const transport = await openAccountTransport(t.platform, user.id, account.id);
      const [result] = await transport.send([
        { from: MAILBOX, to: 'reader@example.com', subject: 'Hi', text: 'Hello' },
      ]);
      transport.close();
      return result;
    };
    expect(await send()).toMatchObject({ accepted: true });
    const tokenBefore = xoauthTokens.at(-1);

    // An expired token is refreshed with the refresh token before sending.
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ oauth_expires_at: new Date(0) })
      .where('id', '=', account.id)
      .execute();
    expect(await send()).toMatchObject({ accepted: true });
    expect(google.grants.at(-1)?.grant_type).toBe('refresh_token');
    expect(xoauthTokens.at(-1)).not.toBe(tokenBefore);
  });

  it('tests a stored Google sign-in account with its access token, not a password', async () => {
    const { agent, state } = await startLogin();
    await agent.get('/api/login/google/callback', { query: { code: 'good-code', state } });
    const [account] = (await agent.get('/api/settings/accounts')).json().data;
    const test = await agent.post('/api/settings/account/send-test-smtp', {
      driver: 'gmail',
      username: MAILBOX,
      host: 'elsewhere.example',
      port: 587,
      encryption: 'tls',
      accountId: account.id,
    });
    expect(test.statusCode, test.body).toBe(200);
    expect(xoauthTokens.at(-1)).toBe(google.latestAccessToken());
  });

  it('refuses a callback whose state did not start here, and a code Google refuses', async () => {
    const { agent, state } = await startLogin();
    const forged = await agent.get('/api/login/google/callback', {
      query: { code: 'good-code', state: 'forged-state' },
    });
    expect(decodeURIComponent(forged.headers.location as string)).toContain('google_error=');
    const second = await startLogin();
    const refused = await second.agent.get('/api/login/google/callback', {
      query: { code: 'bad-code', state: second.state },
    });
    expect(new URL(refused.headers.location as string, 'https://x').searchParams.get('google_error')).toBe(
      'Google did not accept the sign-in. Please try connecting the account again.',
    );
    expect((await second.agent.get('/api/settings/accounts')).json().data).toEqual([]);
    void state;
  });

  it('tells a free-plan user to upgrade', async () => {
    const { agent, state } = await startLogin(2);
    const callback = await agent.get('/api/login/google/callback', { query: { code: 'good-code', state } });
    expect(new URL(callback.headers.location as string, 'https://x').searchParams.get('google_error')).toBe(
      'Upgrade your plan to create a new account!',
    );
  });

  it('sends its tokens for no other mailbox: changing the address needs a new sign-in or a password (R27)', async () => {
    const { agent, state } = await startLogin();
    await agent.get('/api/login/google/callback', { query: { code: 'good-code', state } });
    const [account] = (await agent.get('/api/settings/accounts')).json().data;
    const tokensBefore = xoauthTokens.length;
    const changed = await agent.post(`/api/settings/account/create-or-update/${account.id}`, {
      name: 'Gmail',
      provider: 'google',
      username: 'someone-else@gmail.test',
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().errors.username).toEqual([ACCOUNT_MESSAGES.googleMailboxChanged]);
    expect(xoauthTokens.length).toBe(tokensBefore);
    // The mailbox it was connected for is saved as before.
    const same = await agent.post(`/api/settings/account/create-or-update/${account.id}`, {
      name: 'Gmail',
      provider: 'google',
      username: MAILBOX,
    });
    expect(same.statusCode, same.body).toBe(200);
  });

  it('is offered per configuration, and in test mode only to listed users', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    expect((await agent.get('/api/settings/account/get-providers')).json()).toMatchObject({
      enableGoogle: true,
      googleTestMode: false,
      providers: ['mailgun', 'smtp', 'google'],
    });
    const testMode = await startTestApp(
      { ...google.env, GOOGLE_TEST_USERS: 'listed@example.com' },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const other = createAgent(testMode.app);
      await other.signIn(user.email, user.password);
      expect((await other.get('/api/settings/account/get-providers')).json()).toMatchObject({
        enableGoogle: false,
        googleTestMode: true,
        providers: ['mailgun', 'smtp'],
      });
      expect((await other.get('/api/login/google')).statusCode).toBe(404);
    } finally {
      await testMode.close();
    }
  });
});

describe('POST /api/settings/account/create-google-account', () => {
  const signedIn = async (planId = 3) => {
    const user = await seedUser(t.platform, { planId });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    return { user, agent };
  };

  it('trades the code from Google’s popup for tokens and keeps the account', async () => {
    const { agent } = await signedIn();
    const created = await agent.post('/api/settings/account/create-google-account', { authCode: 'good-code' });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({
      status: true,
      data: { provider: 'google', google: true, gmail_accounts: { email: MAILBOX }, active: true },
    });
    // Codes from the JavaScript code client are traded with the redirect URI 'postmessage'.
    expect(google.grants.at(-1)).toEqual({ grant_type: 'authorization_code', redirect_uri: 'postmessage' });
    expect(created.body).not.toContain('refresh-1');
    expect((await agent.get('/api/settings/accounts')).json().data).toHaveLength(1);
  });

  it('refuses a code Google refuses, a missing code, and a free plan before asking Google (R23)', async () => {
    const { agent } = await signedIn();
    const refused = await agent.post('/api/settings/account/create-google-account', { authCode: 'bad-code' });
    expect(refused.statusCode).toBe(502);
    expect(refused.json().message).toBe('Google did not accept the sign-in. Please try connecting the account again.');
    expect((await agent.post('/api/settings/account/create-google-account', {})).statusCode).toBe(422);
    expect((await agent.get('/api/settings/accounts')).json().data).toEqual([]);

    const free = await signedIn(2);
    const grantsBefore = google.grants.length;
    const upgrade = await free.agent.post('/api/settings/account/create-google-account', { authCode: 'good-code' });
    expect(upgrade.statusCode).toBe(403);
    expect(upgrade.json()).toMatchObject({ message: ACCOUNT_MESSAGES.upgrade, code: 'UPGRADE_REQUIRED' });
    expect(google.grants.length).toBe(grantsBefore);
  });
});
