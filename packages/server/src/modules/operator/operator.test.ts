import { OPERATOR_ACCOUNT_MESSAGES, operatorApi } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { startServerProcess } from '../../../test/processes';
import { startSmtpSink } from '../../../test/smtp-sink';
import { setRole } from '../auth/auth.service';
import { mailTicketAnswer } from '../tickets/tickets.service';

const SERVICE_KEY = 'ticket-service-key-0123456789abcdef0123';
const PROJECT = '7b1d3c2e-5f8a-4c1b-9d2e-3f4a5b6c7d8e';

let t: TTestApp;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startTestApp({
    SMTP_URL: sink.url,
    TICKET_SERVICE_KEY: SERVICE_KEY,
    TICKET_SERVICE_PROJECT_ID: PROJECT,
    PUBLIC_URL: 'https://sendwell.test',
  });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const signedIn = async (options: { operator?: boolean } = {}) => {
  const user = await seedUser(t.platform);
  if (options.operator) await setRole(t.platform.db, user.id, 'operator');
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent };
};

const call = (agent: ReturnType<typeof createAgent>, method: string, url: string, body?: unknown) =>
  method === 'GET' ? agent.get(url) : method === 'PUT' ? agent.put(url, body) : agent.post(url, body);

describe('support tickets (the user’s side)', () => {
  it('creates, lists, reads and answers a ticket; another user’s ticket is 404 (R12); bad input is a 422', async () => {
    const { user, agent } = await signedIn();
    const created = await agent.post('/api/tickets', { subject: 'Cannot import', message: 'My CSV fails halfway.' });
    expect(created.statusCode, created.body).toBe(200);
    const ticket = created.json().data;
    expect(ticket).toMatchObject({ subject: 'Cannot import', email: user.email, active: true, read: true });

    const page = (await agent.get('/api/tickets')).json();
    expect(page.data.map((row: { id: number }) => row.id)).toEqual([ticket.id]);
    expect(page.unread).toBe(0);

    const replied = await agent.put(`/api/tickets/${ticket.id}/messages`, { message: 'It is a 2 GB file.' });
    expect(replied.statusCode, replied.body).toBe(200);
    expect(replied.json().data.messages.map((message: { from: string }) => message.from)).toEqual(['user', 'user']);

    for (const bad of [
      { subject: 'no', message: 'long enough' },
      { subject: 'x'.repeat(501), message: 'long enough' },
      { subject: 'Fine subject', message: 'no' },
    ]) {
      const refused = await agent.post('/api/tickets', bad);
      expect(refused.statusCode).toBe(422);
    }

    const { agent: other } = await signedIn();
    expect((await other.get(`/api/tickets/${ticket.id}`)).statusCode).toBe(404);
    expect((await other.put(`/api/tickets/${ticket.id}/messages`, { message: 'Not mine' })).statusCode).toBe(404);
    expect((await other.get('/api/tickets')).json().data).toEqual([]);
  });
});

describe('the operator area', () => {
  it('answers 404 to an ordinary user on every operator route, and 401 without a session', async () => {
    const { agent } = await signedIn();
    const anonymous = createAgent(t.app);
    for (const route of Object.values(operatorApi)) {
      const url = `/api${route.path.replace(':id', '1')}`;
      const answer = await call(agent, route.method, url, {});
      expect(answer.statusCode, `${route.method} ${url}`).toBe(404);
      expect((await call(anonymous, route.method, url, {})).statusCode, `${route.method} ${url}`).toBe(401);
    }
  });

  it('answers a ticket: the user sees it unread, reads it, gets an email; closing ends the conversation; all audited', async () => {
    const { user, agent } = await signedIn();
    const { agent: operator } = await signedIn({ operator: true });
    const ticket = (
      await agent.post('/api/tickets', { subject: 'Billing question', message: 'Why two charges?' })
    ).json().data;

    const listed = (
      await operator.get('/api/operator/tickets', { query: { status: 'active', search: 'Billing' } })
    ).json();
    expect(listed.data.map((row: { id: number }) => row.id)).toContain(ticket.id);
    const answered = await operator.put(`/api/operator/tickets/${ticket.id}/messages`, {
      message: 'One was refunded.',
    });
    expect(answered.statusCode, answered.body).toBe(200);

    expect((await agent.get('/api/tickets')).json().unread).toBe(1);
    expect((await agent.get('/api/user-information')).json().data.unread_tickets).toBe(1);
    const read = (await agent.get(`/api/tickets/${ticket.id}`)).json();
    expect(read.unread).toBe(0);
    expect(
      read.data.messages.map((message: { from: string; message: string }) => [message.from, message.message]),
    ).toEqual([
      ['user', 'Why two charges?'],
      ['operator', 'One was refunded.'],
    ]);

    // The job queued with the answer mails it.
    await mailTicketAnswer(t.platform, ticket.id, 'https://sendwell.test/support');
    const mail = await sink.waitFor(user.email);
    expect(mail.subject).toBe('Re: Billing question');
    expect(mail.text).toContain('One was refunded.');

    const closed = await operator.post(`/api/operator/tickets/${ticket.id}/close`, {});
    expect(closed.json().data).toMatchObject({ active: false });
    expect(closed.json().data.date_closed).not.toBeNull();
    expect((await agent.put(`/api/tickets/${ticket.id}/messages`, { message: 'Thanks!' })).statusCode).toBe(409);

    const audit = (await operator.get('/api/operator/audit')).json().data;
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(['ticket.answer', 'ticket.close']),
    );
  });

  it('grants and removes credits with a reason, changes a plan, disables and enables a user, each audited', async () => {
    const { user, agent } = await signedIn();
    const { agent: operator } = await signedIn({ operator: true });
    const before = (await agent.get('/api/user-information')).json().data.credit.totalCredit as number;

    const granted = await operator.post(`/api/operator/users/${user.id}/credits`, {
      action: 'grant',
      amount: 250,
      reason: 'Goodwill for the outage',
    });
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().data.credit.totalCredit).toBe(before + 250);
    const removed = await operator.post(`/api/operator/users/${user.id}/credits`, {
      action: 'remove',
      amount: 50,
      reason: 'Granted twice',
    });
    expect(removed.json().data.credit.totalCredit).toBe(before + 200);
    expect(
      (await operator.post(`/api/operator/users/${user.id}/credits`, { action: 'grant', amount: 5, reason: '' }))
        .statusCode,
    ).toBe(422);

    const plan = await operator.post(`/api/operator/users/${user.id}/plan`, { planId: 3 });
    expect(plan.json().data.plan.id).toBe(3);

    const disabled = await operator.post(`/api/operator/users/${user.id}/disable`, { disabled: true, reason: 'Spam' });
    expect(disabled.json().data.disabled).toBe(true);
    // Signed out at once, and the sign-in refused with a reason.
    expect((await agent.get('/api/user-information')).statusCode).toBe(401);
    const again = await createAgent(t.app).post('/api/login', { email: user.email, password: user.password });
    expect(again.statusCode).toBe(403);
    expect(again.json().message).toContain('disabled');
    await operator.post(`/api/operator/users/${user.id}/disable`, { disabled: false, reason: 'Appeal accepted' });
    await createAgent(t.app).signIn(user.email, user.password);

    const found = (await operator.get('/api/operator/users', { query: { search: user.email } })).json();
    expect(found.data).toEqual([expect.objectContaining({ id: user.id, disabled: false })]);

    // A search matches parts of ids too (user 3 in ticket 13): the entries about this user are picked out.
    const audit = (await operator.get('/api/operator/audit', { query: { search: String(user.id), per_page: '100' } }))
      .json()
      .data.filter(
        (entry: { target_type: string; target_id: string }) =>
          entry.target_type === 'user' && entry.target_id === String(user.id),
      );
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual([
      'user.enable',
      'user.disable',
      'user.plan',
      'credits.remove',
      'credits.grant',
    ]);
  });

  it('sets an SMTP account’s daily cap past the form’s 1,000 and back to the user’s own, audited; Mailgun has none to set', async () => {
    const { user, agent } = await signedIn();
    await t.platform.db.updateTable('users').set({ plan_id: 3 }).where('id', '=', user.id).execute();
    const { agent: operator } = await signedIn({ operator: true });
    const { id: smtpId } = await t.platform.db
      .insertInto('sending_accounts')
      .values({
        user_id: user.id,
        name: 'Own relay',
        provider: 'smtp',
        driver: 'smtp',
        username: 'relay',
        host: 'relay.example.com',
        port: 587,
        encryption: 'tls',
        from_address: 'news@example.com',
        mail_per_day: 1000,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { id: mailgunId } = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'Mailgun', provider: 'mailgun', domain: 'mg.example.com', region: 'us' })
      .returning('id')
      .executeTakeFirstOrThrow();

    const listed = await operator.get(`/api/operator/users/${user.id}/accounts`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data).toEqual([
      expect.objectContaining({
        id: smtpId,
        capped: true,
        mail_per_day: 1000,
        operator_mail_per_day: null,
        daily_cap: 1000,
        sent_today: 0,
      }),
      expect.objectContaining({ id: mailgunId, capped: false, daily_cap: null }),
    ]);

    const raised = await operator.post(`/api/operator/accounts/${smtpId}/daily-cap`, {
      dailyCap: 25_000,
      reason: 'Their own Postfix relay',
    });
    expect(raised.statusCode, raised.body).toBe(200);
    expect(raised.json()).toMatchObject({
      message: 'The account may send 25,000 emails a day.',
      data: { id: smtpId, mail_per_day: 1000, operator_mail_per_day: 25_000, daily_cap: 25_000 },
    });
    // The user sees it on their account, and the Send Email page counts against it.
    const accounts = (await agent.get('/api/settings/accounts')).json().data;
    expect(accounts.find((account: { id: number }) => account.id === smtpId)).toMatchObject({
      mailPerDay: 1000,
      operatorMailPerDay: 25_000,
    });
    const content = await agent.get('/api/email/send-email-content', { query: { account: String(smtpId) } });
    expect(content.json().data.smtpLimit).toBe(25_000);

    // Out of range, an account without a cap, an account that does not exist, a user who is not an operator.
    const zero = await operator.post(`/api/operator/accounts/${smtpId}/daily-cap`, { dailyCap: 0, reason: 'Stop it' });
    expect(zero.statusCode).toBe(422);
    expect(zero.json().errors.dailyCap).toEqual([OPERATOR_ACCOUNT_MESSAGES.dailyCapInvalid]);
    const mailgun = await operator.post(`/api/operator/accounts/${mailgunId}/daily-cap`, {
      dailyCap: 5000,
      reason: 'Raise it',
    });
    expect(mailgun.statusCode).toBe(422);
    expect(mailgun.json().errors.dailyCap).toEqual([OPERATOR_ACCOUNT_MESSAGES.notCapped]);
    expect(
      (await operator.post('/api/operator/accounts/999999999/daily-cap', { dailyCap: 5000, reason: 'Raise it' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await agent.post(`/api/operator/accounts/${smtpId}/daily-cap`, { dailyCap: 1_000_000, reason: 'Myself' }))
        .statusCode,
    ).toBe(404);

    const back = await operator.post(`/api/operator/accounts/${smtpId}/daily-cap`, {
      dailyCap: null,
      reason: 'The relay is gone',
    });
    expect(back.json().data).toMatchObject({ operator_mail_per_day: null, daily_cap: 1000 });

    const audit = (await operator.get('/api/operator/audit', { query: { per_page: '100' } }))
      .json()
      .data.filter(
        (entry: { target_type: string; target_id: string }) =>
          entry.target_type === 'account' && entry.target_id === String(smtpId),
      );
    expect(audit.map((entry: { action: string; details: unknown }) => [entry.action, entry.details])).toEqual([
      ['account.daily-cap', { user_id: user.id, from: 25_000, to: null, reason: 'The relay is gone' }],
      ['account.daily-cap', { user_id: user.id, from: null, to: 25_000, reason: 'Their own Postfix relay' }],
    ]);
  });

  it('creates and edits plans, refuses a taken slug, and reports the system', async () => {
    const { agent: operator } = await signedIn({ operator: true });
    const input = {
      name: 'Agency',
      plan_name: `agency-${Date.now()}`,
      price: 49,
      monthly_credits: 50000,
      trial_credits: 0,
      allows_scheduling: true,
      allows_accounts: true,
      stripe_price_id: null,
    };
    const created = await operator.post('/api/operator/plans', input);
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().data.id as number;
    const edited = await operator.put(`/api/operator/plans/${id}`, { ...input, price: 59 });
    expect(edited.json().data).toMatchObject({ price: 59, is_free: false, users: 0 });
    expect((await operator.post('/api/operator/plans', input)).statusCode).toBe(422);
    expect((await operator.get('/api/operator/plans')).json().data.map((plan: { id: number }) => plan.id)).toContain(
      id,
    );

    const system = (await operator.get('/api/operator/system')).json().data;
    expect(system.testInbox).toBe(true);
    expect(Array.isArray(system.queues)).toBe(true);
    expect(system.database.size_bytes).toBeGreaterThan(0);
  });

  it('counts a worker as alive from its start, before it has sent anything (issue 29 item 9)', async () => {
    const { agent: operator } = await signedIn({ operator: true });
    const alive = async () => (await operator.get('/api/operator/system')).json().data.workers.alive as number;
    // Another advisory lock on this database (a migration, the drip scheduler's) is not a worker.
    const other = await t.platform.pool.connect();
    try {
      await other.query('select pg_advisory_lock(424242)');
      expect(await alive()).toBe(0);
      const worker = startServerProcess(
        { DATABASE_URL: t.databaseUrl, SECRET_KEY: TEST_SECRET_KEY, TEST_INBOX: 'false', SPAM_TEST_MAILBOX: 'false' },
        ['--role', 'worker'],
      );
      try {
        await worker.waitForOutput('worker started', 60_000);
        expect(await alive()).toBe(1);
      } finally {
        await worker.stop();
      }
      expect(await alive()).toBe(0);
    } finally {
      await other.query('select pg_advisory_unlock_all()');
      other.release();
    }
    // A real worker process starts (under tsx when run alone): seconds on a loaded machine.
  }, 120_000);

  it('publishes an announcement every user reads, and unpublishes it', async () => {
    const { agent } = await signedIn();
    const { agent: operator } = await signedIn({ operator: true });
    const created = await operator.post('/api/operator/announcements', {
      title: 'New: drip campaigns',
      body: 'Try them.',
    });
    const id = created.json().data.id as number;
    expect((await agent.get('/api/announcements/current')).json().data?.id).not.toBe(id);
    await operator.post(`/api/operator/announcements/${id}/publish`, { published: true });
    expect((await agent.get('/api/announcements/current')).json().data).toMatchObject({
      id,
      title: 'New: drip campaigns',
    });
    await operator.post(`/api/operator/announcements/${id}/publish`, { published: false });
    expect((await agent.get('/api/announcements/current')).json().data?.id).not.toBe(id);
  });
});

describe('the ticket service API (spec §7)', () => {
  const headers = { authorization: `Bearer ${SERVICE_KEY}`, 'x-project-id': PROJECT };
  const service = (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    payload?: object,
    h: Record<string, string> = headers,
  ) => t.app.inject({ method, url: `/api/ticket-service${url}`, headers: h, ...(payload ? { payload } : {}) });

  it('creates a ticket by email, lists it by email, reads it and takes a message; a wrong key or project is 401', async () => {
    const { user, agent } = await signedIn();
    const created = await service('POST', '/tickets/create', {
      email: user.email.toUpperCase(),
      subject: 'From the mobile app',
      message: 'Hello from elsewhere',
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().data.id as number;
    // The email is a Sendwell user's: the ticket is on their Support page too.
    expect((await agent.get('/api/tickets')).json().data.map((row: { id: number }) => row.id)).toEqual([id]);

    const listed = await service('GET', `/tickets/${encodeURIComponent(user.email)}`);
    expect(listed.json().data.map((row: { id: number }) => row.id)).toEqual([id]);
    const sent = await service('PUT', `/tickets/send-message/${id}`, { message: 'More details' });
    expect(sent.json().data.messages).toHaveLength(2);
    expect((await service('GET', `/tickets/details/${id}`)).json().data.subject).toBe('From the mobile app');
    expect((await service('GET', '/tickets/details/999999')).statusCode).toBe(404);

    for (const wrong of <Record<string, string>[]>[
      { authorization: 'Bearer nope', 'x-project-id': PROJECT },
      { authorization: `Bearer ${SERVICE_KEY}`, 'x-project-id': 'other' },
      { 'x-project-id': PROJECT },
    ]) {
      expect((await service('GET', `/tickets/${encodeURIComponent(user.email)}`, undefined, wrong)).statusCode).toBe(
        401,
      );
    }
  });

  it('is not there (404) when no key is configured', async () => {
    const bare = await startTestApp({}, { databaseUrl: t.databaseUrl });
    try {
      const answer = await bare.app.inject({
        method: 'GET',
        url: '/api/ticket-service/tickets/a@example.com',
        headers,
      });
      expect(answer.statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
