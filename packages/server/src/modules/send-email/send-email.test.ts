import { formatDeliveryTime, parseDeliveryTime, SEND_MESSAGES } from '@sendwell/contracts';
import { renderEmail } from '@sendwell/contracts/email/render';
import { STARTER_TEMPLATES } from '@sendwell/contracts/email/starters';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TAgent, type TTestApp } from '../../../test/app';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { buildMessage, composeSample } from '../delivery/message';
import { checkComposedMessage } from '../spam-test/spam-test.service';

const MAILGUN_KEY = 'key-email-0123456789abcdef0123456789';
let t: TTestApp;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;

beforeAll(async () => {
  mailgun = await startMailgunFake({ key: MAILGUN_KEY, domains: [{ name: 'mg.acme.test', region: 'us' }] });
  t = await startTestApp({ MAILGUN_US_URL: mailgun.urls.us, MAILGUN_EU_URL: mailgun.urls.eu });
});
afterAll(async () => {
  await t?.close();
  await mailgun?.close();
});

type TSetup = { agent: TAgent; userId: number; smtpId: number; mailgunId: number; lists: number[] };

/** A signed-in user with an SMTP and a Mailgun account (seeded), and two overlapping lists on the SMTP one. */
const setup = async (planId = 3): Promise<TSetup> => {
  const user = await seedUser(t.platform, { planId });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const account = (values: object) =>
    t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'x', provider: 'smtp', ...values })
      .returning('id')
      .executeTakeFirstOrThrow();
  const smtp = await account({
    name: 'Office SMTP',
    driver: 'smtp',
    username: 'mailer',
    from_address: 'office@acme.test',
    host: 'smtp.acme.test',
    port: 587,
    encryption: 'tls',
    mail_per_day: 100,
    is_primary: true,
  });
  const mailgunAccount = await account({ name: 'Mailgun', provider: 'mailgun', domain: 'mg.acme.test', region: 'us' });
  const lists: number[] = [];
  for (const [index, emails] of [
    ['ann@example.com', 'bob@example.com', 'cy@example.com'],
    ['BOB@example.com', 'dee@example.com'],
  ].entries()) {
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: smtp.id,
        alias: `l${index}`,
        domain: 'acme.test',
        address: `l${index}@acme.test`,
        name: `<img src=x onerror=alert(${index})>`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    lists.push(list.id);
    await t.platform.db
      .insertInto('list_members')
      .values(
        emails.map((email) => ({ user_id: user.id, list_id: list.id, account_id: smtp.id, email, fullname: 'M' })),
      )
      .execute();
  }
  return { agent, userId: user.id, smtpId: smtp.id, mailgunId: mailgunAccount.id, lists };
};

const form = (s: TSetup, changes: object = {}) => ({
  account: s.smtpId,
  senderName: 'Acme News',
  to: s.lists,
  subject: 'Hello {{name::friend}}',
  message: '<p>Hi {{name}}</p>',
  ...changes,
});

describe('the Send Email page data', () => {
  it("serves the accounts, the chosen account's lists, templates, the SMTP cap and credits", async () => {
    const s = await setup();
    const response = await s.agent.get('/api/email/send-email-content');
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json();
    expect(data.chosenAccount).toBe(s.smtpId);
    expect(data.accounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: s.smtpId, provider: 'smtp', domain: '', fromAddress: 'office@acme.test' }),
        expect.objectContaining({ id: s.mailgunId, provider: 'mailgun', domain: 'mg.acme.test' }),
      ]),
    );
    expect(data.mailingLists.map((list: { id: number }) => list.id).sort()).toEqual([...s.lists].sort());
    expect(data.mailingLists[0].subscribed).toBeGreaterThan(0);
    expect(data).toMatchObject({ isSmtp: true, smtpLimit: 100, dailyCount: 0, allowsScheduling: true });
    expect(data.timeZone).toBe('America/New_York');
    // The spam test's configured price (this app's default), which the pages show and gate on.
    expect(data.spamTestCredits).toBe(100);
    expect(data.templates.filter((template: { builtIn: boolean }) => template.builtIn).length).toBeGreaterThanOrEqual(
      3,
    );

    const mailgunLists = await s.agent.get(`/api/email/get-mailing-lists/${s.mailgunId}`);
    expect(mailgunLists.json()).toMatchObject({ status: true, listData: [], isSmtp: false, smtpLimit: 0 });
  });

  it('gives the spam test price the server is configured with (SPAM_TEST_CREDITS)', async () => {
    const priced = await startTestApp({ SPAM_TEST_CREDITS: '40' }, { databaseUrl: t.databaseUrl });
    try {
      const user = await seedUser(priced.platform);
      const agent = createAgent(priced.app);
      await agent.signIn(user.email, user.password);
      const { data } = (await agent.get('/api/email/send-email-content')).json();
      expect(data.spamTestCredits).toBe(40);
    } finally {
      await priced.close();
    }
  });

  it("answers 404 for another user's account and lists (R12)", async () => {
    const s = await setup();
    const other = await setup();
    expect((await s.agent.get(`/api/email/get-mailing-lists/${other.smtpId}`)).statusCode).toBe(404);
    const duplicates = await s.agent.post('/api/email/get-duplicates', { mailingLists: other.lists });
    expect(duplicates.statusCode).toBe(404);
    const send = await s.agent.post('/api/email/send', form(s, { account: other.smtpId }));
    expect(send.statusCode).toBe(422);
    const foreignLists = await s.agent.post('/api/email/send', form(s, { to: other.lists }));
    expect(foreignLists.statusCode).toBe(422);
    expect(await t.platform.db.selectFrom('sends').where('user_id', '=', s.userId).selectAll().execute()).toEqual([]);
  });

  it('counts addresses on more than one chosen list, the audience once each, and the unverified', async () => {
    const s = await setup();
    const response = await s.agent.post('/api/email/get-duplicates', { mailingLists: s.lists });
    expect(response.json()).toEqual({ duplicates: 1, recipients: 4, unverified: 4 });
  });
});

describe('sending', () => {
  it('needs a sender name for SMTP and an alias for Mailgun, with the spec messages', async () => {
    const s = await setup();
    const smtp = await s.agent.post('/api/email/send', form(s, { senderName: '  ' }));
    expect(smtp.statusCode).toBe(422);
    expect(smtp.json().errors.senderName).toEqual([SEND_MESSAGES.senderNameRequired]);
    const mailgunList = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: s.userId,
        account_id: s.mailgunId,
        alias: 'm',
        domain: 'acme.test',
        address: 'm@acme.test',
        name: 'M',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const mailgun = await s.agent.post(
      '/api/email/send',
      form(s, { account: s.mailgunId, to: [mailgunList.id], alias: '' }),
    );
    expect(mailgun.statusCode).toBe(422);
    expect(mailgun.json().errors.alias).toEqual([SEND_MESSAGES.aliasRequired]);
    const missing = await s.agent.post('/api/email/send', { account: s.smtpId, to: [], subject: '' });
    expect(missing.statusCode).toBe(422);
    expect(Object.keys(missing.json().errors)).toEqual(expect.arrayContaining(['to', 'subject', 'message']));
  });

  it('refuses a line break in subject, sender name and reply-to, and the composer could not be fooled either (R18)', async () => {
    const s = await setup();
    for (const field of ['subject', 'from', 'senderName', 'reply']) {
      const response = await s.agent.post(
        '/api/email/send',
        form(s, { [field]: 'x@example.com\r\nBcc: victim@example.com' }),
      );
      expect(response.statusCode, field).toBe(422);
      expect(response.json().errors[field]).toEqual([SEND_MESSAGES.lineBreak]);
    }
    // Even a row written around the API yields no extra header.
    const message = await buildMessage(
      t.platform,
      {
        id: 1,
        from_name: 'Evil\r\nBcc: victim@example.com',
        from_address: 'news@acme.test',
        subject: 'Hi\r\nBcc: victim@example.com',
        reply_to: 'a@example.com\nBcc: victim@example.com',
        html: '<p>x</p>',
        track_opens: false,
        track_clicks: false,
      } as never,
      { id: 1, email: 'ann@example.com', name: 'Ann', fields: {}, token: 'a'.repeat(32) },
    );
    for (const value of [message.from, message.subject, message.replyTo ?? '']) expect(value).not.toMatch(/[\r\n]/);
  });

  it('builds the Mailgun sender from alias and domain, dropping the mg. label unless asked to keep it', async () => {
    const s = await setup();
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: s.userId,
        account_id: s.mailgunId,
        alias: 'm',
        domain: 'acme.test',
        address: 'm@acme.test',
        name: 'M',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [useSubdomain, address] of [
      [false, 'news@acme.test'],
      [true, 'news@mg.acme.test'],
    ] as const) {
      const response = await s.agent.post(
        '/api/email/send',
        form(s, { account: s.mailgunId, to: [list.id], alias: 'news', useSubdomain }),
      );
      expect(response.statusCode, response.body).toBe(200);
      const send = await t.platform.db
        .selectFrom('sends')
        .select(['from_name', 'from_address'])
        .where('id', '=', response.json().sendId)
        .executeTakeFirstOrThrow();
      expect(send).toEqual({ from_name: 'Acme News', from_address: address });
    }
  });

  it("takes the spec's send call: from alone forms the sender, to, reply, delivery, sendLater and storageId", async () => {
    const s = await setup();
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: s.userId,
        account_id: s.mailgunId,
        alias: 'm',
        domain: 'acme.test',
        address: 'm@acme.test',
        name: 'M',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const delivery = `${formatDeliveryTime(new Date(Date.now() + 86_400_000)).slice(0, 10)} 10:00 AM`;
    const spec = {
      account: s.mailgunId,
      from: 'Acme News <news@mg.acme.test>',
      to: [list.id],
      subject: 'Hello',
      cc: '',
      bcc: '',
      reply: 'replies@acme.test',
      message: '<p>Hi</p>',
      delivery,
      sendLater: true,
      storageId: 'upsell-7',
    };
    const later = await s.agent.post('/api/email/send', spec);
    expect(later.statusCode, later.body).toBe(200);
    expect(later.json()).toMatchObject({ scheduled: true });
    const row = (id: number) =>
      t.platform.db
        .selectFrom('sends')
        .select(['from_name', 'from_address', 'reply_to', 'status', 'list_ids'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    expect(await row(later.json().sendId)).toMatchObject({
      from_name: 'Acme News',
      from_address: 'news@mg.acme.test',
      reply_to: 'replies@acme.test',
      status: 'scheduled',
    });
    // The confirmation's switch off: the email goes now, whatever the picker held.
    const now = await s.agent.post('/api/email/send', { ...spec, from: 'news@acme.test', sendLater: false });
    expect(now.json()).toMatchObject({ scheduled: false });
    expect(await row(now.json().sendId)).toMatchObject({
      from_name: '',
      from_address: 'news@acme.test',
      status: 'queued',
    });
    // Send later without a time, and a sender at another domain, are named on their fields.
    const refused = await s.agent.post('/api/email/send', { ...spec, from: 'news@elsewhere.test', delivery: '' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors).toMatchObject({
      from: [SEND_MESSAGES.fromForeignDomain],
      delivery: [SEND_MESSAGES.deliveryRequired],
    });
  });

  it('sends now through the queue and shows progress; pause, resume and cancel change it', async () => {
    const s = await setup();
    const response = await s.agent.post('/api/email/send', form(s));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: true, message: SEND_MESSAGES.sent, scheduled: false });
    const sendId = response.json().sendId;
    const progress = await s.agent.get(`/api/email/sends/${sendId}`);
    expect(progress.json().data).toMatchObject({
      id: sendId,
      status: 'queued',
      from: 'Acme News <office@acme.test>',
      subject: 'Hello {{name::friend}}',
    });
    // The list names are stored as text; the browser shows them as text (R15).
    expect(progress.json().data.to).toContain('<img src=x onerror=alert(0)>');
    expect((await s.agent.post(`/api/email/sends/${sendId}/pause`)).statusCode).toBe(409);
    await t.platform.db.updateTable('sends').set({ status: 'sending' }).where('id', '=', sendId).execute();
    expect((await s.agent.post(`/api/email/sends/${sendId}/pause`)).json().status).toBe(true);
    expect((await s.agent.get(`/api/email/sends/${sendId}`)).json().data.status).toBe('paused');
    expect((await s.agent.post(`/api/email/sends/${sendId}/resume`)).statusCode).toBe(200);
    expect((await s.agent.post(`/api/email/sends/${sendId}/cancel`)).statusCode).toBe(200);
    expect((await s.agent.get(`/api/email/sends/${sendId}`)).json().data.status).toBe('cancelled');
    const other = await setup();
    expect((await other.agent.get(`/api/email/sends/${sendId}`)).statusCode).toBe(404);
  });

  it('takes a bodiless action posted with a JSON content type and an empty body; a call that needs a body says what is missing', async () => {
    const s = await setup();
    const sendId = (await s.agent.post('/api/email/send', form(s))).json().sendId;
    await t.platform.db.updateTable('sends').set({ status: 'sending' }).where('id', '=', sendId).execute();
    const emptyJson = { headers: { 'content-type': 'application/json' } };
    const paused = await s.agent.post(`/api/email/sends/${sendId}/pause`, '', emptyJson);
    expect(paused.statusCode, paused.body).toBe(200);
    await t.platform.db.updateTable('sends').set({ status: 'finished' }).where('id', '=', sendId).execute();
    const resent = await s.agent.post(`/api/email/sends/${sendId}/resend-unknown`, '', emptyJson);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json().status).toBe(true);
    const missing = await s.agent.post('/api/email/send', '', emptyJson);
    expect(missing.statusCode).toBe(422);
    // Malformed JSON is still refused as such.
    expect((await s.agent.post(`/api/email/sends/${sendId}/pause`, '{', emptyJson)).statusCode).toBe(400);
  });

  it('schedules for a time in the user zone, only on a plan that allows it', async () => {
    const s = await setup();
    const delivery = `${formatDeliveryTime(new Date(Date.now() + 86_400_000)).slice(0, 10)} 10:00 AM`;
    const response = await s.agent.post('/api/email/send', form(s, { delivery }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ scheduled: true, message: SEND_MESSAGES.scheduled });
    const send = await t.platform.db
      .selectFrom('sends')
      .select(['status', 'deliver_at', 'type'])
      .where('id', '=', response.json().sendId)
      .executeTakeFirstOrThrow();
    expect(send).toMatchObject({ status: 'scheduled', type: 2 });
    expect(send.deliver_at!.toISOString()).toBe(parseDeliveryTime(delivery, 'America/New_York')!.toISOString());
    expect(formatDeliveryTime(send.deliver_at!, 'America/New_York')).toBe(delivery);
    // The list is now used by a scheduled email: deleting it is checked first.
    const check = await s.agent.post('/api/mailing-lists/check-delete', { accountId: s.smtpId, listId: s.lists[0] });
    expect(check.json().campaigns).toEqual([
      expect.objectContaining({ type: 'scheduled', id: response.json().sendId }),
    ]);
    const free = await setup(2);
    const refused = await free.agent.post('/api/email/send', form(free, { delivery }));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.delivery).toEqual([SEND_MESSAGES.scheduleUpgrade]);
    const past = await s.agent.post('/api/email/send', form(s, { delivery: '2020-01-01 10:00 AM' }));
    expect(past.json().errors.delivery).toEqual([SEND_MESSAGES.deliveryPast]);
  });

  it('renders merge fields per recipient with fallbacks', async () => {
    const message = await buildMessage(
      t.platform,
      {
        id: 7,
        from_name: 'Acme',
        from_address: 'news@acme.test',
        subject: 'Hi {{name::friend}}',
        reply_to: '',
        html: '<p>{{name::friend}} from {{city::somewhere}} <{{email}}></p>',
        track_opens: false,
        track_clicks: false,
      } as never,
      { id: 2, email: 'ann@example.com', name: '', fields: { city: 'Oslo' }, token: 'b'.repeat(32) },
    );
    expect(message.subject).toBe('Hi friend');
    const parsed = await simpleParser(`Content-Type: text/html\r\n\r\n${message.html}`);
    expect(String(parsed.html)).toContain('<p>friend from Oslo <ann@example.com></p>');
  });
});

describe('templates', () => {
  it('saves, lists and deletes the user own templates; starting templates and other users templates stay', async () => {
    const s = await setup();
    const saved = await s.agent.post('/api/templates', { name: 'Mine', subject: 'S', html: '<p>mine</p>' });
    expect(saved.statusCode, saved.body).toBe(200);
    const id = saved.json().data.id;
    const listed = (await s.agent.get('/api/templates')).json().data;
    expect(listed.find((template: { id: number }) => template.id === id)).toMatchObject({ builtIn: false });
    const other = await setup();
    expect((await other.agent.get('/api/templates')).json().data.some((row: { id: number }) => row.id === id)).toBe(
      false,
    );
    expect((await other.agent.delete(`/api/templates/${id}`)).statusCode).toBe(404);
    const builtIn = listed.find((template: { builtIn: boolean }) => template.builtIn);
    // A starter template is named `starter:<key>`: not a row anyone can delete.
    expect((await s.agent.delete(`/api/templates/${builtIn.id}`)).statusCode).toBe(422);
    expect((await s.agent.get('/api/templates')).json().data.some((row: { id: string }) => row.id === builtIn.id)).toBe(
      true,
    );
    expect((await s.agent.delete(`/api/templates/${id}`)).json().message).toBe(SEND_MESSAGES.templateDeleted);
    const empty = await s.agent.post('/api/templates', { name: ' ', html: '' });
    expect(empty.statusCode).toBe(422);
  });

  it('keeps a template made in Visual mode with its document, and offers six starter templates with theirs', async () => {
    const s = await setup();
    const starters = (await s.agent.get('/api/templates'))
      .json()
      .data.filter((row: { builtIn: boolean }) => row.builtIn);
    expect(starters.map((row: { id: string }) => row.id)).toEqual(STARTER_TEMPLATES.map((row) => `starter:${row.key}`));
    for (const starter of starters) expect(starter.html).toBe(renderEmail(starter.document));
    const document = STARTER_TEMPLATES[0]!.document;
    const saved = await s.agent.post('/api/templates', {
      name: 'From the builder',
      subject: 'S',
      html: renderEmail(document),
      document,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.document).toEqual(document);
    const broken = await s.agent.post('/api/templates', {
      name: 'Broken',
      html: '<p>x</p>',
      document: { ...document, blocks: [{ type: 'button', id: 'b', href: 'javascript:alert(1)' }] },
    });
    expect(broken.statusCode).toBe(422);
  });

  it('composes every starter template to an Excellent content score, under Gmail’s 102 KB clip, with one unsubscribe link', async () => {
    const s = await setup();
    for (const starter of STARTER_TEMPLATES) {
      const raw = await composeSample(t.platform, {
        userId: s.userId,
        fromName: 'Acme',
        fromAddress: 'news@acme.test',
        subject: starter.subject.replace('{{first_name::friend}}', 'Ada'),
        html: renderEmail(starter.document),
        replyTo: '',
        trackOpens: true,
        trackClicks: true,
      });
      const content = await checkComposedMessage(t.platform, raw);
      const mail = await simpleParser(raw);
      expect(
        content.verdict,
        `${starter.key}: ${JSON.stringify(content.checks.filter((c) => c.status !== 'pass'))}`,
      ).toBe('Excellent');
      expect(Buffer.byteLength(String(mail.html))).toBeLessThan(102 * 1024);
      // The footer block's link is the recipient's unsubscribe page, and no second footer is added.
      expect(String(mail.html).match(/\/unsubscribe\//g)).toHaveLength(1);
      expect(String(mail.html)).not.toContain('{{');
    }
  });
});
