import { PROFILE_MESSAGES } from '@sendwell/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { queuedJobRunner } from '../../../test/jobs';
import { startSmtpSink } from '../../../test/smtp-sink';
import { sendPasswordResetJob } from './auth.jobs';
import { EMAIL_TAKEN_MESSAGE } from './auth.service';
import { sendEmailChangedNoticeJob, sendEmailChangeLinkJob, sendEmailChangeRequestedNoticeJob } from './profile.jobs';

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
    for (const url of [
      '/api/settings/profile',
      '/api/settings/profile/email',
      '/api/settings/profile/password',
      '/api/settings/profile/email/cancel',
      '/api/settings/profile/sign-out-everywhere',
    ]) {
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

/** The newest mail to an address with a subject, waiting for it (the sink keeps every mail of the file). */
const mailTo = async (to: string, subject: string) => {
  await expect
    .poll(() => sink.messages.some((mail) => JSON.stringify(mail.to).includes(to) && mail.subject === subject))
    .toBe(true);
  return sink.messages.findLast((mail) => JSON.stringify(mail.to).includes(to) && mail.subject === subject)!;
};

const undoLinkIn = (text: string | undefined) => {
  const match = text?.match(/https:\/\/mail\.example\.test\/settings\/profile\/undo-email\/([\w.-]+)/);
  expect(match, text).not.toBeNull();
  return match![1]!;
};

/** A change asked for and its link mailed: the token of the link to the new address. */
const askForChange = async (agent: ReturnType<typeof createAgent>, password: string, newEmail: string) => {
  const asked = await agent.post('/api/settings/profile/email', { email: newEmail, current_password: password });
  expect(asked.statusCode, asked.body).toBe(200);
  await runQueued(sendEmailChangeLinkJob);
  return linkIn((await mailTo(newEmail, 'Confirm your new Sendwell email')).text);
};

/** The link to the new address now answers as a used link and the account's email is as it was. */
const expectLinkSpent = async (token: string, user: { id: number; email: string }) => {
  const confirm = await createAgent(t.app).post('/api/settings/profile/email/confirm', { token });
  expect(confirm.statusCode, confirm.body).toBe(422);
  expect(confirm.json().errors.token).toEqual([PROFILE_MESSAGES.emailLink]);
  expect(
    await t.platform.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirstOrThrow(),
  ).toEqual({ email: user.email });
};

/** The links' per-IP limits count every agent of the file as one address: each test starts afresh. */
const forgetRateLimits = () => t.platform.db.deleteFrom('rate_limit_buckets').execute();

describe('Profile: a waiting email change does not outlive the password or the sessions (R41)', () => {
  beforeEach(forgetRateLimits);
  it('a password change spends the waiting change: its link answers as used, the email stays', async () => {
    const { user, agent } = await signedIn();
    const token = await askForChange(agent, user.password, `thief-pw-${user.id}@example.com`);
    const changed = await agent.post('/api/settings/profile/password', {
      current_password: user.password,
      password: 'owner-new-secret',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await agent.get('/api/settings/profile')).json().data.pending_email).toBeNull();
    await expectLinkSpent(token, user);
    expect((await agent.get('/api/user-information')).json().data.email).toBe(user.email);
  });

  it('a forgot-password reset spends the waiting change and every other reset link', async () => {
    const { user, agent } = await signedIn();
    const token = await askForChange(agent, user.password, `thief-reset-${user.id}@example.com`);
    for (let asked = 0; asked < 2; asked += 1) {
      await createAgent(t.app).post('/api/forgot-password', { email: user.email });
      await runQueued(sendPasswordResetJob);
    }
    const resetLinks = sink.messages
      .filter((mail) => JSON.stringify(mail.to).includes(user.email) && mail.subject === 'Reset your Sendwell password')
      .map((mail) => mail.text!.match(/\/reset-password\/([\w-]+)/)![1]!);
    expect(resetLinks).toHaveLength(2);
    const reset = await createAgent(t.app).post('/api/reset-password', {
      token: resetLinks[0],
      password: 'owner-reset-secret',
    });
    expect(reset.statusCode, reset.body).toBe(200);
    await expectLinkSpent(token, user);
    expect(
      (await createAgent(t.app).post('/api/reset-password', { token: resetLinks[1], password: 'x123456' })).statusCode,
    ).toBe(422);
    const fresh = createAgent(t.app);
    await fresh.signIn(user.email, 'owner-reset-secret');
    expect((await fresh.get('/api/settings/profile')).json().data).toMatchObject({
      email: user.email,
      pending_email: null,
    });
  });

  it('"sign out everywhere" ends every session, this one too, and spends the waiting change and reset links', async () => {
    const { user, agent } = await signedIn();
    const otherDevice = createAgent(t.app);
    await otherDevice.signIn(user.email, user.password);
    const token = await askForChange(agent, user.password, `thief-out-${user.id}@example.com`);
    await createAgent(t.app).post('/api/forgot-password', { email: user.email });
    await runQueued(sendPasswordResetJob);
    const resetToken = (await mailTo(user.email, 'Reset your Sendwell password')).text!.match(
      /\/reset-password\/([\w-]+)/,
    )![1]!;

    const out = await agent.post('/api/settings/profile/sign-out-everywhere');
    expect(out.statusCode, out.body).toBe(200);
    expect(out.json()).toEqual({ status: true, message: PROFILE_MESSAGES.signedOutEverywhere });
    expect((await agent.get('/api/user-information')).statusCode).toBe(401);
    expect((await otherDevice.get('/api/user-information')).statusCode).toBe(401);
    await expectLinkSpent(token, user);
    const reset = await createAgent(t.app).post('/api/reset-password', { token: resetToken, password: 'x123456' });
    expect(reset.statusCode).toBe(422);
    // The password still signs in: sign-out-everywhere ends sessions, it changes nothing else.
    const back = createAgent(t.app);
    await back.signIn(user.email, user.password);
    expect((await back.get('/api/settings/profile')).json().data.pending_email).toBeNull();
  });

  it("the Profile's Cancel spends the waiting change; another user's change is untouched", async () => {
    const { user, agent } = await signedIn();
    const other = await signedIn();
    const token = await askForChange(agent, user.password, `typo-${user.id}@example.com`);
    const otherToken = await askForChange(other.agent, other.user.password, `other-${other.user.id}@example.com`);
    const cancelled = await agent.post('/api/settings/profile/email/cancel');
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({
      status: true,
      message: PROFILE_MESSAGES.emailChangeCancelled(`typo-${user.id}@example.com`),
      data: { email: user.email, pending_email: null },
    });
    await expectLinkSpent(token, user);
    expect((await agent.post('/api/settings/profile/email/cancel')).json().message).toBe(
      PROFILE_MESSAGES.noEmailChangeWaiting,
    );
    // The other user's link still works.
    const confirmed = await createAgent(t.app).post('/api/settings/profile/email/confirm', { token: otherToken });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
  });
});

describe('Profile: the old address can undo a change without the password (R41)', () => {
  beforeEach(forgetRateLimits);
  it('is told when a change is asked for; its link cancels the waiting change, signed out', async () => {
    const { user, agent } = await signedIn();
    const newEmail = `thief-asked-${user.id}@example.com`;
    const token = await askForChange(agent, user.password, newEmail);
    expect(await runQueued(sendEmailChangeRequestedNoticeJob)).toBeGreaterThan(0);
    const notice = await mailTo(user.email, 'Someone asked to change your Sendwell email');
    expect(notice.text).toContain(newEmail);
    expect(notice.text).toContain('press Cancel');
    const undo = undoLinkIn(notice.text);

    const undone = await createAgent(t.app).post('/api/settings/profile/email/undo', { token: undo });
    expect(undone.statusCode, undone.body).toBe(200);
    expect(undone.json()).toEqual({
      status: true,
      message: PROFILE_MESSAGES.undoCancelled(user.email),
      email: user.email,
      outcome: 'cancelled',
    });
    await expectLinkSpent(token, user);
    // Clicked again: nothing to undo, said plainly.
    expect((await createAgent(t.app).post('/api/settings/profile/email/undo', { token: undo })).json().message).toBe(
      PROFILE_MESSAGES.undoNothingWaiting(user.email),
    );
    // The owner's session and password are untouched by a cancel.
    expect((await agent.get('/api/user-information')).statusCode).toBe(200);
  });

  it('after the change was confirmed, the same link puts the old email back, ends every session and locks out the password', async () => {
    const { user, agent } = await signedIn();
    const thiefEmail = `thief-done-${user.id}@example.com`;
    const token = await askForChange(agent, user.password, thiefEmail);
    await runQueued(sendEmailChangeRequestedNoticeJob);
    const askedLink = undoLinkIn((await mailTo(user.email, 'Someone asked to change your Sendwell email')).text);
    // The thief confirms at once, and moves the account on to a second address of theirs.
    expect((await createAgent(t.app).post('/api/settings/profile/email/confirm', { token })).statusCode).toBe(200);
    await runQueued(sendEmailChangedNoticeJob);
    const changed = await mailTo(user.email, 'Your Sendwell email was changed');
    expect(undoLinkIn(changed.text)).toBe(askedLink);
    const secondToken = await askForChange(agent, user.password, `thief-second-${user.id}@example.com`);
    expect((await agent.post('/api/settings/profile/email/confirm', { token: secondToken })).statusCode).toBe(200);
    await runQueued(sendEmailChangedNoticeJob);
    const thiefsOwnUndo = undoLinkIn((await mailTo(thiefEmail, 'Your Sendwell email was changed')).text);

    const undone = await createAgent(t.app).post('/api/settings/profile/email/undo', { token: askedLink });
    expect(undone.statusCode, undone.body).toBe(200);
    expect(undone.json()).toEqual({
      status: true,
      message: PROFILE_MESSAGES.undoReverted(user.email),
      email: user.email,
      outcome: 'reverted',
    });
    expect((await agent.get('/api/user-information')).statusCode).toBe(401);
    // The password the thief knows opens nothing; a reset link went to the owner's address.
    expect(
      (await createAgent(t.app).post('/api/login', { email: user.email, password: user.password })).statusCode,
    ).toBe(401);
    await runQueued(sendPasswordResetJob);
    expect((await mailTo(user.email, 'Reset your Sendwell password')).text).toContain('/reset-password/');
    // The thief's own undo link (of the later change) cannot take the account back.
    const again = await createAgent(t.app).post('/api/settings/profile/email/undo', { token: thiefsOwnUndo });
    expect(again.json().message).toBe(PROFILE_MESSAGES.undoAlreadyReverted(user.email));
    expect(
      await t.platform.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirstOrThrow(),
    ).toEqual({ email: user.email });
  });

  it('refuses a forged or altered link, and a confirmed change older than a week', async () => {
    const { user, agent } = await signedIn();
    const token = await askForChange(agent, user.password, `moved-${user.id}@example.com`);
    await runQueued(sendEmailChangeRequestedNoticeJob);
    const undo = undoLinkIn((await mailTo(user.email, 'Someone asked to change your Sendwell email')).text);
    const [id, mac] = undo.split('.') as [string, string];
    for (const forged of [`${Number(id) + 1}.${mac}`, `${id}.${mac.slice(0, -1)}A`, `${id}.${'A'.repeat(43)}`]) {
      const refused = await createAgent(t.app).post('/api/settings/profile/email/undo', { token: forged });
      expect(refused.statusCode, forged).toBe(422);
      expect(refused.json().errors.token).toEqual([PROFILE_MESSAGES.undoLink]);
    }
    expect((await createAgent(t.app).post('/api/settings/profile/email/confirm', { token })).statusCode).toBe(200);
    await t.platform.db
      .updateTable('email_changes')
      .set({ confirmed_at: new Date(Date.now() - 8 * 86_400_000) })
      .where('id', '=', Number(id))
      .execute();
    const late = await createAgent(t.app).post('/api/settings/profile/email/undo', { token: undo });
    expect(late.statusCode).toBe(422);
    expect(late.json().errors.token).toEqual([PROFILE_MESSAGES.undoTooLate]);
    expect((await agent.get('/api/user-information')).json().data.email).toBe(`moved-${user.id}@example.com`);
  });
});
