import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { createSend } from '../delivery/delivery.service';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => t?.close());

/** A signed-in user on a plan with scheduling, an SMTP account and a list of three members. */
const seed = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'SMTP',
      provider: 'smtp',
      driver: 'smtp',
      username: 'news@acme.test',
      from_address: 'news@acme.test',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const list = await t.platform.db
    .insertInto('mailing_lists')
    .values({
      user_id: user.id,
      account_id: account.id,
      alias: 'news',
      domain: 'acme.test',
      address: 'news@acme.test',
      name: 'News',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { user, agent, accountId: account.id, listId: list.id };
};

/** A finished send with events, as the engine leaves one. */
const finishedSend = async (seeded: Awaited<ReturnType<typeof seed>>, subject: string) => {
  const send = await t.platform.db
    .insertInto('sends')
    .values({
      user_id: seeded.user.id,
      account_id: seeded.accountId,
      status: 'finished',
      from_name: 'Acme',
      from_address: 'news@acme.test',
      subject,
      html: '<p>Hi</p>',
      list_ids: [seeded.listId],
      list_names: 'News',
      recipients_count: 3,
      sent_count: 2,
      failed_count: 1,
      finished_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`insert into delivery_events (user_id, account_id, send_id, email, type, source, detail, severity) values
    (${seeded.user.id}, ${seeded.accountId}, ${send.id}, 'ann@example.com', 'accepted', 'smtp', null, null),
    (${seeded.user.id}, ${seeded.accountId}, ${send.id}, 'bob@example.com', 'accepted', 'smtp', null, null),
    (${seeded.user.id}, ${seeded.accountId}, ${send.id}, 'eve@example.com', 'failed', 'smtp', '=HYPERLINK("http://evil")', 'permanent'),
    (${seeded.user.id}, ${seeded.accountId}, ${send.id}, 'ann@example.com', 'opened', 'tracking', null, null)`.execute(
    t.platform.db,
  );
  return send.id;
};

describe('send history', () => {
  it('lists sends with type and date filters, counts, details by event type, and a CSV with formula cells escaped (R17)', async () => {
    const seeded = await seed();
    const id = await finishedSend(seeded, 'November news');
    const page = (await seeded.agent.get('/api/history', { query: { type: '1' } })).json();
    expect(page.data).toEqual([
      expect.objectContaining({
        id,
        subject: 'November news',
        from: '"Acme" <news@acme.test>',
        to: 'News',
        type: 1,
        status: 1,
      }),
    ]);
    expect((await seeded.agent.get('/api/history', { query: { type: '2' } })).json().data).toEqual([]);
    expect((await seeded.agent.get('/api/history', { query: { first_date: '2099-01-01' } })).json().data).toEqual([]);

    const counts = (await seeded.agent.get(`/api/history/get-counts/${id}`)).json();
    expect(counts).toMatchObject({
      status: true,
      isSmtp: true,
      isGmail: false,
      counts: { sent_count: 2, failed_count: 1 },
    });

    const details = (
      await seeded.agent.get(`/api/history/details/${seeded.accountId}/${id}`, { query: { event_type: 'sent' } })
    ).json();
    expect(details.data.map((row: { recipient: string }) => row.recipient).sort()).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    expect(details.meta.total).toBe(2);
    const searched = (
      await seeded.agent.get(`/api/history/details/${seeded.accountId}/${id}`, { query: { search: 'eve' } })
    ).json();
    expect(searched.data).toEqual([expect.objectContaining({ recipient: 'eve@example.com', event_type: 'failed' })]);

    const csv = await seeded.agent.get(`/api/history/details/${seeded.accountId}/${id}/export`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('Recipient,Event,Date,Detail');
    expect(csv.body).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv.body.split('\n').filter(Boolean)).toHaveLength(5);
  });

  it("answers 404 for another user's send on every call (R12), and for a send under another account", async () => {
    const owner = await seed();
    const id = await finishedSend(owner, 'Private');
    const other = await seed();
    for (const url of [
      `/api/history/get-counts/${id}`,
      `/api/history/details/${owner.accountId}/${id}`,
      `/api/history/details/${owner.accountId}/${id}/export`,
      `/api/email/get-edit-email-data/${id}`,
    ]) {
      expect((await other.agent.get(url)).statusCode, url).toBe(404);
    }
    expect((await owner.agent.get(`/api/history/details/${other.accountId}/${id}`)).statusCode).toBe(404);
    expect((await other.agent.post('/api/history/resend', { accountId: owner.accountId, id })).statusCode).toBe(404);
    expect((await other.agent.post(`/api/scheduled-mails/delete/${id}`)).statusCode).toBe(404);
    expect((await other.agent.get('/api/history')).json().data).toEqual([]);
  });

  it('sends again from history (a new send with the same lists and message) and gives a send as a new send’s starting point', async () => {
    const seeded = await seed();
    const id = await finishedSend(seeded, 'Again');
    const resent = await seeded.agent.post('/api/history/resend', { accountId: seeded.accountId, id });
    expect(resent.statusCode, resent.body).toBe(200);
    const copy = await t.platform.db
      .selectFrom('sends')
      .selectAll()
      .where('id', '=', resent.json().id)
      .executeTakeFirstOrThrow();
    expect(copy).toMatchObject({ subject: 'Again', html: '<p>Hi</p>', type: 1 });
    expect(copy.list_ids.map(Number)).toEqual([seeded.listId]);
    expect(copy.id).not.toBe(id);
    const data = (await seeded.agent.get(`/api/email/get-edit-email-data/${id}`)).json();
    expect(data.record).toMatchObject({
      subject: 'Again',
      list_ids: [seeded.listId],
      content: { message_body: '<p>Hi</p>' },
    });
  });
});

describe('scheduled emails (spec §4 status rules)', () => {
  it('edits and cancels a pending email, restores a cancelled one, refuses what the rules forbid, and deletes', async () => {
    const seeded = await seed();
    const later = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString();
    const id = await createSend(t.platform, seeded.user.id, {
      accountId: seeded.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Launch',
      html: '<p>Soon</p>',
      listIds: [seeded.listId],
      deliverAt: new Date(later),
    });
    const row = async () =>
      (await seeded.agent.get('/api/scheduled-mails')).json().data.find((item: { id: number }) => item.id === id);
    expect(await row()).toMatchObject({ status: 0, send_time: null, subject: 'Launch' });

    const edit = (body: object) => seeded.agent.post(`/api/scheduled-mails/edit/${id}`, body);
    const base = { subject: 'Launch day', message: '<p>Today</p>', delivery_time: later };
    expect((await edit({ ...base, delivery_time: '' })).statusCode).toBe(422);
    expect((await edit({ ...base, delivery_time: new Date(Date.now() - 60_000).toISOString() })).statusCode).toBe(422);
    expect((await edit(base)).statusCode).toBe(200);
    expect(await row()).toMatchObject({ subject: 'Launch day', content: { message_body: '<p>Today</p>' } });

    expect((await seeded.agent.post(`/api/scheduled-mails/cancel/${id}`)).statusCode).toBe(200);
    expect(await row()).toMatchObject({ status: 2 });
    expect((await edit(base)).statusCode).toBe(409);
    expect((await seeded.agent.post(`/api/scheduled-mails/cancel/${id}`)).statusCode).toBe(409);
    expect((await seeded.agent.post(`/api/scheduled-mails/cancel/${id}/remove-cancel`)).statusCode).toBe(200);
    expect(await row()).toMatchObject({ status: 0 });

    // Once it has gone out (sent), neither edit nor cancel; delete still works.
    await t.platform.db
      .updateTable('sends')
      .set({ status: 'finished', started_at: new Date() })
      .where('id', '=', id)
      .execute();
    expect(await row()).toMatchObject({ status: 1 });
    expect((await edit(base)).statusCode).toBe(409);
    expect((await seeded.agent.post(`/api/scheduled-mails/cancel/${id}`)).statusCode).toBe(409);
    expect((await seeded.agent.post(`/api/scheduled-mails/delete/${id}`)).statusCode).toBe(200);
    expect(await row()).toBeUndefined();
  });

  it('saves the whole Send Email form to a pending email, its time on the user’s clock, the same in the list and the form (issue 29)', async () => {
    const seeded = await seed();
    await t.platform.db
      .updateTable('users')
      .set({ time_zone: 'Europe/Berlin' })
      .where('id', '=', seeded.user.id)
      .execute();
    const vip = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: seeded.user.id,
        account_id: seeded.accountId,
        alias: 'vip',
        domain: 'acme.test',
        address: 'vip@acme.test',
        name: 'VIP',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = await createSend(t.platform, seeded.user.id, {
      accountId: seeded.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Launch',
      html: '<p>Soon</p>',
      listIds: [seeded.listId],
      deliverAt: new Date(Date.now() + 3 * 24 * 3600 * 1000),
    });
    const form = {
      account: seeded.accountId,
      senderName: 'Acme Team',
      to: [seeded.listId, vip.id],
      subject: 'Launch day',
      message: '<p>Today</p>',
      cc: '',
      bcc: '',
      reply: 'hello@acme.test',
      // Berlin's fall-back day: 10:00 AM is 09:00 UTC (CET), an hour later than the day before.
      delivery: '2030-10-27 10:00 AM',
      trackOpens: false,
      trackClicks: true,
    };
    const update = (body: object, sendId = id, agent = seeded.agent) =>
      agent.post(`/api/scheduled-mails/update/${sendId}`, body);
    const saved = await update(form);
    expect(saved.statusCode, saved.body).toBe(200);
    const listed = (await seeded.agent.get('/api/scheduled-mails'))
      .json()
      .data.find((item: { id: number }) => item.id === id);
    expect(listed).toMatchObject({
      status: 0,
      subject: 'Launch day',
      to: 'News, VIP',
      from: '"Acme Team" <news@acme.test>',
      delivery_time: '2030-10-27T09:00:00.000Z',
      content: { reply_to: 'hello@acme.test', message_body: '<p>Today</p>' },
    });
    const data = (await seeded.agent.get(`/api/email/get-scheduled-edit-email-data/${id}`)).json().record;
    expect(data).toMatchObject({
      delivery_time: '2030-10-27T09:00:00.000Z',
      list_ids: [seeded.listId, vip.id],
      from: 'Acme Team',
      from_address: 'news@acme.test',
      track_opens: false,
      track_clicks: true,
    });

    // The form's own checks, in the spec's words; nothing is changed by a refused save.
    const blank = await update({ ...form, delivery: '' });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().errors.delivery).toBeDefined();
    expect((await update({ ...form, delivery: '2020-01-01 10:00 AM' })).json().errors.delivery).toBeDefined();
    expect((await update({ ...form, senderName: '' })).json().errors.senderName).toBeDefined();
    const other = await seed();
    expect((await update({ ...form, to: [other.listId] })).json().errors.to).toBeDefined();
    expect((await update(form, id, other.agent)).statusCode).toBe(404);
    expect(
      (await seeded.agent.get('/api/scheduled-mails')).json().data.find((item: { id: number }) => item.id === id),
    ).toMatchObject({ subject: 'Launch day', delivery_time: '2030-10-27T09:00:00.000Z' });

    await seeded.agent.post(`/api/scheduled-mails/cancel/${id}`);
    expect((await update(form)).statusCode).toBe(409);
  });
});
