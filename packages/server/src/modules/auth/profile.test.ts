import { PROFILE_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { queuedJobRunner } from '../../../test/jobs';
import { startSmtpSink } from '../../../test/smtp-sink';
import { EMAIL_TAKEN_MESSAGE } from './auth.service';
import { sendEmailChangedNoticeJob, sendEmailChangeLinkJob } from './profile.jobs';

let t: TTestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({ SMTP_URL: sink.url, PUBLIC_URL: 'https://mail.example.test', LOGIN_LIMIT_PER_IP: '1000' });
  runQueued = queuedJobRunner(t.platform);
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const signedIn = async () => {
  const user = await seedUser(t.platform, { name: 'Ada Lovelace' });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent };
};

/** Runs the queued jobs of a kind as a worker would (`test/jobs.ts`). */
let runQueued: ReturnType<typeof queuedJobRunner>;

const linkIn = (text: string | undefined) => {
  const match = text?.match(/https:\/\/mail\.example\.test\/settings\/profile\/confirm-email\/([\w-]+)/);
  expect(match, text).not.toBeNull();
  return match![1]!;
};

describe('Profile: name and time zone', () => {
  it('changes the name and the time zone, which every later answer uses; refuses an unknown zone and an empty name', async () => {
    const { agent } = await signedIn();
    expect((await agent.get('/api/settings/profile')).json().data).toMatchObject({
      name: 'Ada Lovelace',
      time_zone: 'America/New_York',
      pending_email: null,
    });
    const saved = await agent.post('/api/settings/profile', { name: '  Ada King ', time_zone: 'europe/berlin' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      message: PROFILE_MESSAGES.saved,
      data: { name: 'Ada King', time_zone: 'Europe/Berlin' },
    });
    expect((await agent.get('/api/user-information')).json().data).toMatchObject({
      name: 'Ada King',
      time_zone: 'Europe/Berlin',
    });
    // The Send Email page schedules in the zone now.
    expect((await agent.get('/api/email/send-email-content')).json().data.timeZone).toBe('Europe/Berlin');

    const unknown = await agent.post('/api/settings/profile', { time_zone: 'Mars/Olympus_Mons' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors.time_zone).toEqual(['Please choose a time zone from the list.']);
    expect((await agent.post('/api/settings/profile', { name: '   ' })).json().errors.name).toEqual([
      'The full name field is required.',
    ]);
    expect((await agent.post('/api/settings/profile', {})).statusCode).toBe(422);
  });

  it('needs a session and the CSRF token for every change', async () => {
    const { agent } = await signedIn();
    expect((await createAgent(t.app).get('/api/settings/profile')).statusCode).toBe(401);
    const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    for (const url of ['/api/settings/profile', '/api/settings/profile/email', '/api/settings/profile/password']) {
      const forged = await t.app.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/json' },
        payload: { name: 'Mallory' },
      });
      expect(forged.statusCode, url).toBe(403);
      expect(forged.json().code).toBe('CSRF');
    }
  });
});

describe('Profile: email', () => {
  it('changes the email only when the link mailed to the new address is opened; the old address is told', async () => {
    const { user, agent } = await signedIn();
    const requested = await agent.post('/api/settings/profile/email', {
      email: 'Ada.New@Example.com',
      current_password: user.password,
    });
    expect(requested.statusCode, requested.body).toBe(200);
    expect(requested.json().message).toBe(PROFILE_MESSAGES.emailLinkSent('ada.new@example.com'));
    expect(requested.json().data).toMatchObject({ email: user.email, pending_email: 'ada.new@example.com' });
    // Nothing changed yet: the old email still signs in, the new one does not.
    expect(
      (await createAgent(t.app).post('/api/login', { email: user.email, password: user.password })).statusCode,
    ).toBe(200);
    expect(await runQueued(sendEmailChangeLinkJob)).toBe(1);
    const mail = await sink.waitFor('ada.new@example.com');
    expect(mail.subject).toBe('Confirm your new Sendwell email');
    const token = linkIn(mail.text);

    // The link works signed out (another browser), once.
    const confirmed = await createAgent(t.app).post('/api/settings/profile/email/confirm', { token });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ email: 'ada.new@example.com' });
    expect((await agent.get('/api/user-information')).json().data.email).toBe('ada.new@example.com');
    const again = await createAgent(t.app).post('/api/settings/profile/email/confirm', { token });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors.token).toEqual([PROFILE_MESSAGES.emailLink]);
    expect(
      (await createAgent(t.app).post('/api/login', { email: user.email, password: user.password })).statusCode,
    ).toBe(401);
    expect(
      (await createAgent(t.app).post('/api/login', { email: 'ada.new@example.com', password: user.password }))
        .statusCode,
    ).toBe(200);

    expect(await runQueued(sendEmailChangedNoticeJob)).toBe(1);
    const notice = await sink.waitFor(user.email);
    expect(notice.subject).toBe('Your Sendwell email was changed');
    expect(notice.text).toContain('ada.new@example.com');
  });

  it('refuses a wrong current password, the same email, and one another user has; only the newest link works', async () => {
    const { user, agent } = await signedIn();
    const other = await seedUser(t.platform);
    const wrong = await agent.post('/api/settings/profile/email', { email: 'x@example.com', current_password: 'nope' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.current_password).toEqual([PROFILE_MESSAGES.currentPassword]);
    const same = await agent.post('/api/settings/profile/email', {
      email: user.email.toUpperCase(),
      current_password: user.password,
    });
    expect(same.json().errors.email).toEqual([PROFILE_MESSAGES.emailSame]);
    const taken = await agent.post('/api/settings/profile/email', {
      email: other.email,
      current_password: user.password,
    });
    expect(taken.json().errors.email).toEqual([EMAIL_TAKEN_MESSAGE]);
    expect((await agent.post('/api/settings/profile/email', { email: 'bad', current_password: 'x' })).statusCode).toBe(
      422,
    );

    // Two requests: the first link is spent by the second.
    const ask = (email: string) =>
      agent.post('/api/settings/profile/email', { email, current_password: user.password });
    expect((await ask('first-try@example.com')).statusCode).toBe(200);
    await runQueued(sendEmailChangeLinkJob);
    const firstToken = linkIn((await sink.waitFor('first-try@example.com')).text);
    expect((await ask('second-try@example.com')).json().data.pending_email).toBe('second-try@example.com');
    await runQueued(sendEmailChangeLinkJob);
    const secondToken = linkIn((await sink.waitFor('second-try@example.com')).text);
    expect((await agent.post('/api/settings/profile/email/confirm', { token: firstToken })).statusCode).toBe(422);

    // Taken between the link and its use: the link says so, nothing changes.
    await t.platform.db
      .updateTable('users')
      .set({ email: 'Second-Try@example.com' })
      .where('id', '=', other.id)
      .execute();
    const late = await agent.post('/api/settings/profile/email/confirm', { token: secondToken });
    expect(late.statusCode).toBe(422);
    expect(late.json().errors.token).toEqual([EMAIL_TAKEN_MESSAGE]);
    expect((await agent.get('/api/user-information')).json().data.email).toBe(user.email);
  });
});

describe('Profile: password', () => {
  it('needs the current password, keeps this session and signs out every other one', async () => {
    const { user, agent } = await signedIn();
    const otherDevice = createAgent(t.app);
    await otherDevice.signIn(user.email, user.password);
    expect((await otherDevice.get('/api/user-information')).statusCode).toBe(200);

    const wrong = await agent.post('/api/settings/profile/password', {
      current_password: 'guess',
      password: 'new-secret',
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.current_password).toEqual([PROFILE_MESSAGES.currentPassword]);
    const short = await agent.post('/api/settings/profile/password', {
      current_password: user.password,
      password: '12',
    });
    expect(short.json().errors.password).toEqual(['The password must be at least 6 characters.']);
    const same = await agent.post('/api/settings/profile/password', {
      current_password: user.password,
      password: user.password,
    });
    expect(same.json().errors.password).toEqual([PROFILE_MESSAGES.passwordSame]);
    expect((await otherDevice.get('/api/user-information')).statusCode).toBe(200);

    const changed = await agent.post('/api/settings/profile/password', {
      current_password: user.password,
      password: '  new-secret  ',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().message).toBe(PROFILE_MESSAGES.passwordChanged);
    expect((await agent.get('/api/user-information')).statusCode).toBe(200);
    expect((await otherDevice.get('/api/user-information')).statusCode).toBe(401);
    expect(
      (await createAgent(t.app).post('/api/login', { email: user.email, password: user.password })).statusCode,
    ).toBe(401);
    expect(
      (await createAgent(t.app).post('/api/login', { email: user.email, password: 'new-secret' })).statusCode,
    ).toBe(200);
  });

  it('limits password tries per user', async () => {
    const { agent } = await signedIn();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      statuses.push(
        (
          await agent.post('/api/settings/profile/password', {
            current_password: `guess-${attempt}`,
            password: 'abcdefg',
          })
        ).statusCode,
      );
    }
    expect(statuses.slice(0, 10).every((status) => status === 422)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
