import { ACCOUNT_MESSAGES } from '@sendwell/contracts';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TAgent, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { UNREACHABLE_HOST_MESSAGE } from '../../platform/network-guard';
import { startListener, type TRunningListener } from '../inbound/receiver';
import { testInboxListener } from '../test-inbox/test-inbox.service';

const MAILGUN_KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
let t: TTestApp;
let strict: TTestApp;
let inbox: TRunningListener;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;
let smtp: SMTPServer;
let smtpPort: number;
const smtpReceived: string[] = [];
/** Another server on loopback, as a session's own server would be: it records every login it is offered. */
let recorder: SMTPServer;
let recorderPort: number;
const recordedLogins: { username: string; password: string }[] = [];

beforeAll(async () => {
  mailgun = await startMailgunFake({
    key: MAILGUN_KEY,
    domains: [
      { name: 'mg.example.com', region: 'us' },
      { name: 'mg.example.eu', region: 'eu' },
      { name: 'mg.xn--bcher-kva.example', region: 'us' },
    ],
  });
  smtp = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === 'mailer' && auth.password === 'right-password'
        ? callback(null, { user: 'mailer' })
        : callback(new Error('Invalid username or password')),
    onData: (stream, session, callback) => {
      stream.resume();
      stream.on('end', () => {
        smtpReceived.push(...session.envelope.rcptTo.map((rcpt) => rcpt.address));
        callback();
      });
    },
  });
  smtpPort = await freePort();
  await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
  recorder = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) => {
      recordedLogins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData: (stream, _session, callback) => {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  recorderPort = await freePort();
  await new Promise<void>((resolve) => recorder.listen(recorderPort, '127.0.0.1', resolve));
  const inboxPort = await freePort();
  const env = {
    TEST_INBOX_PORT: String(inboxPort),
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
  };
  // The operator's development switch lets accounts reach the loopback SMTP server above.
  t = await startTestApp({ ...env, ALLOW_LOOPBACK_SMTP: 'true' });
  strict = await startTestApp(env, { databaseUrl: t.databaseUrl });
  inbox = await startListener(t.platform, testInboxListener, { port: inboxPort });
});
afterAll(async () => {
  await inbox?.close();
  await strict?.close();
  await t?.close();
  await mailgun?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await new Promise<void>((resolve) => recorder.close(() => resolve()));
});

const signedIn = async (app: TTestApp, planId?: number) => {
  const user = await seedUser(app.platform, planId ? { planId } : {});
  const agent = createAgent(app.app);
  await agent.signIn(user.email, user.password);
  return { user, agent };
};

const smtpForm = (overrides: Record<string, unknown> = {}) => ({
  name: 'Office SMTP',
  provider: 'smtp',
  driver: 'smtp',
  username: 'mailer',
  password: 'right-password',
  host: '127.0.0.1',
  port: smtpPort,
  encryption: 'tls',
  ...overrides,
});

const rawAccountRows = async (userId: number) =>
  t.platform.db.selectFrom('sending_accounts').selectAll().where('user_id', '=', userId).execute();

describe('the test inbox', () => {
  it('lets a free-plan user connect it, test it, and read the test message on their inbox page', async () => {
    const { user, agent } = await signedIn(t);
    const providers = (await agent.get('/api/settings/account/get-providers')).json();
    expect(providers.canCreate).toBe(false);
    expect(providers.testInbox).toMatchObject({ host: '127.0.0.1', port: inbox.port, username: `user-${user.id}` });

    const fields = { driver: 'test-inbox', username: 'ignored', host: 'ignored', port: 1, encryption: 'tls' };
    const tested = await agent.post('/api/settings/account/send-test-smtp', fields);
    expect(tested.statusCode, tested.body).toBe(200);
    expect(tested.json()).toMatchObject({ status: true, result: true });

    const saved = await agent.post('/api/settings/account/create-or-update', {
      ...smtpForm(fields),
      name: 'Test inbox',
      password: '',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({
      driver: 'test-inbox',
      host: '127.0.0.1',
      port: inbox.port,
      active: true,
    });

    const list = (await agent.get('/api/test-inbox/messages')).json();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ subject: 'Sendwell SMTP test', rcpt_to: [user.email] });
    const detail = (await agent.get(`/api/test-inbox/messages/${list.data[0].id}`)).json().data;
    expect(detail.text_body).toContain('Sendwell can send');
    const html = await agent.get(`/api/test-inbox/messages/${list.data[0].id}/html`);
    expect(html.headers['content-security-policy']).toMatch(/^sandbox;/);

    // Another user sees none of it.
    const other = await signedIn(t);
    expect((await other.agent.get('/api/test-inbox/messages')).json().data).toEqual([]);
    expect((await other.agent.get(`/api/test-inbox/messages/${list.data[0].id}`)).statusCode).toBe(404);
  });

  it('stays the test inbox on a free plan: saving it again as Mailgun or a real SMTP server is refused (R23)', async () => {
    const { user, agent } = await signedIn(t);
    const fields = { driver: 'test-inbox', username: 'ignored', host: 'ignored', port: 1, encryption: 'tls' };
    const saved = await agent.post('/api/settings/account/create-or-update', {
      ...smtpForm(fields),
      name: 'Test inbox',
      password: '',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const id = saved.json().data.id;
    const mailgunBefore = mailgun.requests.length;

    for (const form of [
      { name: 'Now Mailgun', provider: 'mailgun', domain: 'mg.example.com', apiKey: MAILGUN_KEY, region: 'us' },
      smtpForm({ name: 'Now real SMTP' }),
      { name: 'Now Gmail', provider: 'google', username: 'someone@gmail.com', password: 'app-password' },
    ]) {
      const changed = await agent.post(`/api/settings/account/create-or-update/${id}`, form);
      expect({ provider: form.provider, status: changed.statusCode }).toEqual({ provider: form.provider, status: 403 });
      expect(changed.json()).toMatchObject({ message: ACCOUNT_MESSAGES.upgrade, code: 'UPGRADE_REQUIRED' });
    }
    // Refused before anything was asked of a provider, and the row is still the test inbox.
    expect(mailgun.requests.length).toBe(mailgunBefore);
    const [row] = await rawAccountRows(user.id);
    expect(row).toMatchObject({ provider: 'smtp', driver: 'test-inbox', port: inbox.port, name: 'Test inbox' });

    // Saving it as the test inbox still works.
    const renamed = await agent.post(`/api/settings/account/create-or-update/${id}`, {
      ...smtpForm(fields),
      name: 'My inbox',
      password: '',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
  });

  it('refuses a login that is not the user’s own', async () => {
    const { agent } = await signedIn(t);
    const spoofed = await agent.post(
      '/api/settings/account/send-test-smtp',
      smtpForm({ port: inbox.port, username: 'user-1', password: 'guess' }),
    );
    expect(spoofed.statusCode).toBe(422);
  });
});

describe('SMTP accounts', () => {
  it('tells a free-plan user to upgrade before adding one', async () => {
    const { agent } = await signedIn(t);
    const response = await agent.post('/api/settings/account/create-or-update', smtpForm());
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      message: 'Upgrade your plan to create a new account!',
      code: 'UPGRADE_REQUIRED',
    });
  });

  it('checks the login before saving, and stores the password only encrypted (R19)', async () => {
    const { user, agent } = await signedIn(t, 3);
    const wrong = await agent.post('/api/settings/account/create-or-update', smtpForm({ password: 'wrong-password' }));
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().message).toBe('The SMTP server refused the username or password.');
    expect(await rawAccountRows(user.id)).toEqual([]);

    const saved = await agent.post('/api/settings/account/create-or-update', smtpForm());
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.body).not.toContain('right-password');
    expect(saved.json().data).toMatchObject({ smtp: true, hasPassword: true, mailPerDay: 500, active: true });

    const [row] = await rawAccountRows(user.id);
    expect(JSON.stringify(row)).not.toContain('right-password');
    expect(row!.password_encrypted!.toString('latin1')).not.toContain('right-password');

    // Editing without a password keeps the stored one (and checks it again).
    const renamed = await agent.post(
      `/api/settings/account/create-or-update/${row!.id}`,
      smtpForm({ name: 'Renamed', password: '' }),
    );
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data.name).toBe('Renamed');

    // The Test button with no password uses the stored one; with neither, the spec's message.
    const tested = await agent.post('/api/settings/account/send-test-smtp', {
      ...smtpForm({ password: '' }),
      accountId: row!.id,
    });
    expect(tested.statusCode, tested.body).toBe(200);
    expect(smtpReceived).toContain(user.email);
    const missing = await agent.post('/api/settings/account/send-test-smtp', smtpForm({ password: '' }));
    expect(missing.statusCode).toBe(422);
    expect(missing.json().message).toBe('The Password field is required for this operation!');
  });

  it('sends a stored password only to the host, port and username it was saved for (R27)', async () => {
    const { user, agent } = await signedIn(t, 3);
    const saved = await agent.post('/api/settings/account/create-or-update', smtpForm());
    expect(saved.statusCode, saved.body).toBe(200);
    const accountId = saved.json().data.id;
    recordedLogins.length = 0;

    // Test button and save, each with the stored password and another server or login.
    for (const changed of [
      { port: recorderPort },
      { host: 'localhost' },
      { username: 'mailer2' },
      { host: '127.0.0.1', port: recorderPort, username: 'mailer' },
    ]) {
      const tested = await agent.post('/api/settings/account/send-test-smtp', {
        ...smtpForm({ password: '', ...changed }),
        accountId,
      });
      expect({ changed, status: tested.statusCode }).toEqual({ changed, status: 422 });
      expect(tested.json()).toMatchObject({
        message: ACCOUNT_MESSAGES.passwordForChangedServer,
        code: 'PASSWORD_REQUIRED',
      });
      const resaved = await agent.post(
        `/api/settings/account/create-or-update/${accountId}`,
        smtpForm({ password: '', ...changed }),
      );
      expect({ changed, status: resaved.statusCode }).toEqual({ changed, status: 422 });
      expect(resaved.json().errors.password).toEqual([ACCOUNT_MESSAGES.passwordForChangedServer]);
    }
    expect(recordedLogins).toEqual([]);
    const [row] = await rawAccountRows(user.id);
    expect(row).toMatchObject({ host: '127.0.0.1', port: smtpPort, username: 'mailer' });

    // The server and login it was saved for still get it.
    const sameServer = await agent.post('/api/settings/account/send-test-smtp', {
      ...smtpForm({ password: '' }),
      accountId,
    });
    expect(sameServer.statusCode, sameServer.body).toBe(200);

    // With the secret given again, the new server gets that one, never the stored one.
    const moved = await agent.post(
      `/api/settings/account/create-or-update/${accountId}`,
      smtpForm({ port: recorderPort, password: 'typed-again' }),
    );
    expect(moved.statusCode, moved.body).toBe(200);
    expect(recordedLogins).toEqual([{ username: 'mailer', password: 'typed-again' }]);
  });

  it('refuses loopback and private hosts when the operator has not allowed them, open port or not (R14)', async () => {
    const { agent } = await signedIn(strict, 3);
    const closedPort = await freePort();
    for (const [host, port] of [
      ['127.0.0.1', smtpPort],
      ['127.0.0.1', closedPort],
      ['169.254.169.254', 25],
      ['::ffff:127.0.0.1', smtpPort],
      ['2130706433', smtpPort],
      ['localhost', smtpPort],
    ] as const) {
      for (const url of ['/api/settings/account/create-or-update', '/api/settings/account/send-test-smtp']) {
        const response = await agent.post(url, smtpForm({ host, port }));
        expect({ host, port, url, status: response.statusCode }).toEqual({ host, port, url, status: 422 });
        expect(response.json().message).toBe(UNREACHABLE_HOST_MESSAGE);
      }
    }
  });

  it('validates the form with the spec’s messages', async () => {
    const { agent } = await signedIn(t, 3);
    const response = await agent.post('/api/settings/account/create-or-update', {
      name: '  ',
      provider: 'smtp',
      driver: 'sendgrid',
      host: 'smtp.sendgrid.net',
      port: 587,
      encryption: 'tls',
      fromAddress: 'nope',
    });
    expect(response.statusCode).toBe(422);
    const errors = response.json().errors;
    expect(errors.name).toEqual(['The Account Name field is required.']);
    expect(errors.username).toEqual(['The Username field is required.']);
    expect(errors.fromAddress).toEqual(['The From Address must be a valid email address.']);
    const badPort = await agent.post('/api/settings/account/create-or-update', smtpForm({ port: 'abc' }));
    expect(badPort.json().errors.port).toBeDefined();
  });

  it('keeps one primary account per user', async () => {
    const { agent } = await signedIn(t, 3);
    const first = (await agent.post('/api/settings/account/create-or-update', smtpForm({ name: 'First' }))).json().data;
    const second = (
      await agent.post('/api/settings/account/create-or-update', smtpForm({ name: 'Second', active: true }))
    ).json().data;
    expect(first.active).toBe(true);
    expect(second.active).toBe(true);
    const accounts = (await agent.get('/api/settings/accounts')).json().data;
    expect(accounts.map((account: { name: string; active: boolean }) => [account.name, account.active])).toEqual([
      ['First', false],
      ['Second', true],
    ]);
  });
});

describe('Mailgun accounts', () => {
  const mailgunForm = (overrides: Record<string, unknown> = {}) => ({
    name: 'Newsletter',
    provider: 'mailgun',
    domain: 'mg.example.com',
    apiKey: MAILGUN_KEY,
    region: 'us',
    ...overrides,
  });

  it('checks the key and domain with Mailgun, masks the key and never sends it back', async () => {
    const { user, agent } = await signedIn(t, 3);
    const badKey = await agent.post('/api/settings/account/create-or-update', mailgunForm({ apiKey: 'key-wrong' }));
    expect(badKey.statusCode).toBe(422);
    expect(badKey.json().message).toBe('Mailgun refused this API key.');

    const wrongDomain = await agent.post(
      '/api/settings/account/create-or-update',
      mailgunForm({ domain: 'mg.unknown.com' }),
    );
    expect(wrongDomain.json().message).toMatch(/Mailgun has no domain mg.unknown.com/);

    const saved = await agent.post('/api/settings/account/create-or-update', mailgunForm());
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.body).not.toContain(MAILGUN_KEY);
    expect(saved.json().data.apiKey).toMatch(/^•+xteol0$/);
    expect(saved.json().data.apiKey.endsWith(MAILGUN_KEY.slice(-6))).toBe(true);
    const [row] = await rawAccountRows(user.id);
    expect(row!.api_key_encrypted!.toString('latin1')).not.toContain(MAILGUN_KEY);

    // Editing without a key keeps the stored one, which Mailgun still accepts.
    const edited = await agent.post(
      `/api/settings/account/create-or-update/${row!.id}`,
      mailgunForm({ apiKey: '', name: 'Renamed' }),
    );
    expect(edited.statusCode, edited.body).toBe(200);
  });

  it('keeps the stored key for another domain or region: it only ever goes to the configured Mailgun API (R27)', async () => {
    const { agent } = await signedIn(t, 3);
    const saved = await agent.post('/api/settings/account/create-or-update', mailgunForm());
    expect(saved.statusCode, saved.body).toBe(200);
    const before = mailgun.requests.length;
    const moved = await agent.post(
      `/api/settings/account/create-or-update/${saved.json().data.id}`,
      mailgunForm({ apiKey: '', domain: 'mg.example.eu', region: 'eu' }),
    );
    expect(moved.statusCode, moved.body).toBe(200);
    // Checked again, with the new domain, at the region's base URL the operator configured.
    expect(mailgun.requests.slice(before).map((request) => request.region)).toEqual(['eu']);
  });

  it('refuses a domain that is not a host name with a 422, before any call with the key; keeps an IDN as A-labels', async () => {
    const { user, agent } = await signedIn(t, 3);
    const before = mailgun.requests.length;
    for (const domain of [
      'x.example.com/../../../v3/routes?',
      'w.example.com#frag',
      'mg%2Eexample.com',
      'mg.example.com%2F..%2Fv3%2Froutes',
      'mg.example.com:443',
      'api@mg.example.com',
      'mg.example.com/',
      'mg example.com',
      'mg.example.com?x=1',
      '127.0.0.1',
      `${'a'.repeat(64)}.example.com`,
    ]) {
      const refused = await agent.post('/api/settings/account/create-or-update', mailgunForm({ domain }));
      expect(refused.statusCode, domain).toBe(422);
      expect(refused.json().errors.domain, domain).toEqual([ACCOUNT_MESSAGES.domainInvalid]);
    }
    expect(mailgun.requests.length).toBe(before);
    expect(await rawAccountRows(user.id)).toHaveLength(0);

    const idn = await agent.post(
      '/api/settings/account/create-or-update',
      mailgunForm({ domain: ' MG.Bücher.Example ' }),
    );
    expect(idn.statusCode, idn.body).toBe(200);
    expect(idn.json().data.domain).toBe('mg.xn--bcher-kva.example');
    expect(mailgun.requests.at(-1)!.path).toMatch(/^\/v[34]\/domains\/mg\.xn--bcher-kva\.example$/);
  });

  it('uses the EU base URL for an EU domain', async () => {
    const { agent } = await signedIn(t, 3);
    const before = mailgun.requests.length;
    const usForEu = await agent.post(
      '/api/settings/account/create-or-update',
      mailgunForm({ domain: 'mg.example.eu' }),
    );
    expect(usForEu.statusCode).toBe(422);
    const eu = await agent.post(
      '/api/settings/account/create-or-update',
      mailgunForm({ domain: 'mg.example.eu', region: 'eu' }),
    );
    expect(eu.statusCode, eu.body).toBe(200);
    expect(mailgun.requests.slice(before).map((request) => request.region)).toEqual(['us', 'eu']);
  });
});

describe('accounts belong to their user (R12)', () => {
  it('answers 404 for another user’s account', async () => {
    const owner = await signedIn(t, 3);
    const account = (await owner.agent.post('/api/settings/account/create-or-update', smtpForm())).json().data;
    const intruder: { agent: TAgent } = await signedIn(t, 3);
    expect(
      (await intruder.agent.post(`/api/settings/account/create-or-update/${account.id}`, smtpForm())).statusCode,
    ).toBe(404);
    expect((await intruder.agent.delete(`/api/settings/account/delete-api/${account.id}`)).statusCode).toBe(404);
    expect(
      (
        await intruder.agent.post('/api/settings/account/send-test-smtp', {
          ...smtpForm({ password: '' }),
          accountId: account.id,
        })
      ).statusCode,
    ).toBe(404);
    expect((await owner.agent.delete(`/api/settings/account/delete-api/${account.id}`)).statusCode).toBe(200);
    expect((await owner.agent.get('/api/settings/accounts')).json().data).toEqual([]);
  });
});
