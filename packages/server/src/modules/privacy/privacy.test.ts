import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  seedTestInboxAccount,
  seedUser,
  startTestApp,
  type TAgent,
  type TTestApp,
} from '../../../test/app';
import { queuedJobRunner } from '../../../test/jobs';
import { solveCaptcha } from '../../../test/registration';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';
import { createSend, createSourcedSend } from '../delivery/delivery.service';
import { insertDeliveryEvents } from '../delivery/event-record';
import { indexListSearchJob } from '../lists/lists.jobs';
import { recordSoftBounces, suppress } from '../suppression/suppression.service';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ CAPTCHA_COST: '20', PUBLIC_URL: 'https://sendwell.test' });
}, 60_000);
afterAll(async () => t?.close());

type TUser = { id: number; agent: TAgent; accountId: number; listId: number; formKey: string };

const seedUserWithList = async (): Promise<TUser> => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id, 'news@acme.test');
  const list = (await agent.post('/api/mailing-lists', { accountId, alias: 'news', name: 'Acme News' })).json().data;
  const settings = (await agent.get(`/api/mailing-lists/${list.id}/signup-form`)).json().data;
  return {
    id: user.id,
    agent,
    accountId,
    listId: list.id,
    formKey: new URL(settings.form_url).pathname.split('/')[2]!,
  };
};

const deliver = async (sendId: number) => {
  await snapshotSend(t.platform, sendId);
  await dispatch(t.platform, sendId);
};

/** The user's newest test-inbox message to an address. */
const inboxMessage = (userId: number, to: string) =>
  t.platform.db
    .selectFrom('test_inbox_messages')
    .select(['html_body'])
    .where('user_id', '=', userId)
    .where(sql<boolean>`${to} = any(rcpt_to)`)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();

/**
 * Every column of every table that can hold text (text, varchar, json, jsonb, arrays, bytea),
 * read from the database's own catalogue, in every schema but PostgreSQL's: a table added
 * tomorrow is searched too without this test knowing its name.
 */
const textColumns = async () =>
  (
    await sql<{ table_schema: string; table_name: string; column_name: string; data_type: string }>`
      select c.table_schema, c.table_name, c.column_name, c.data_type
        from information_schema.columns c
        join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name
       where tb.table_type = 'BASE TABLE'
         and c.table_schema not in ('pg_catalog', 'information_schema') and c.table_schema not like 'pg_toast%'
         and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea', 'USER-DEFINED')
       order by 1, 2, 3`.execute(t.platform.db)
  ).rows;

/** Per table (`schema.table` outside public), how many rows hold the address in any column, any case. */
const rowsHolding = async (email: string) => {
  const byTable = new Map<string, { schema: string; table: string; columns: typeof columns }>();
  const columns = await textColumns();
  for (const column of columns) {
    const key = `${column.table_schema}.${column.table_name}`;
    const entry = byTable.get(key) ?? { schema: column.table_schema, table: column.table_name, columns: [] };
    entry.columns.push(column);
    byTable.set(key, entry);
  }
  const found: Record<string, number> = {};
  for (const { schema, table, columns: tableColumns } of byTable.values()) {
    const conditions = tableColumns.map((column) =>
      column.data_type === 'bytea'
        ? sql`strpos(lower(encode(${sql.ref(column.column_name)}, 'escape')), ${email.toLowerCase()}) > 0`
        : sql`strpos(lower(${sql.ref(column.column_name)}::text), ${email.toLowerCase()}) > 0`,
    );
    const { rows } = await sql<{ count: number }>`
      select count(*)::int as count from ${sql.table(`${schema}.${table}`)} where ${sql.join(conditions, sql` or `)}`.execute(
      t.platform.db,
    );
    if (rows[0]!.count > 0) found[schema === 'public' ? table : `${schema}.${table}`] = rows[0]!.count;
  }
  return found;
};

/**
 * An address the user holds everywhere an address can be: a form signup confirmed (its
 * confirmation email), a second list by hand, a send with an open, a CC of another send,
 * a provider's event, an event of no message, a bounce and a soft bounce, a drip
 * recipient with its message, a verification, an import's skipped-rows report, the test
 * inbox's copies, the member search's terms and the webhook deliveries of its events.
 */
const seedEverywhere = async (user: TUser, email: string) => {
  // A webhook taking every event: the address's member and message events wait in its queue.
  await t.platform.db
    .insertInto('webhook_endpoints')
    .values({
      user_id: user.id,
      url: 'https://hooks.example.com/sendwell',
      event_types: [
        'member.subscribed',
        'member.confirmed',
        'member.unsubscribed',
        'message.opened',
        'message.bounced',
      ],
    })
    .execute();
  const altcha = await solveCaptcha(createAgent(t.app));
  const signup = await t.app.inject({
    method: 'POST',
    url: `/api/subscribe/${user.formKey}`,
    remoteAddress: '203.0.113.5',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email, first_name: 'Erin', altcha, form: 'hosted' }).toString(),
  });
  expect(signup.statusCode, signup.body).toBe(303);
  const consent = await t.platform.db
    .selectFrom('member_consents')
    .select('confirmation_send_id')
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  await deliver(consent.confirmation_send_id!);
  const link = /https:\/\/sendwell\.test\/subscribe\/confirm\/([A-Za-z0-9_-]+)/.exec(
    (await inboxMessage(user.id, email)).html_body!,
  )![1];
  expect((await t.app.inject({ method: 'POST', url: `/api/subscribe/confirm/${link}` })).statusCode).toBe(200);

  const second = (
    await user.agent.post('/api/mailing-lists', { accountId: user.accountId, alias: 'offers', name: 'Offers' })
  ).json().data.id as number;
  await user.agent.post('/api/mailing-lists/add-member', { listId: second, email, fullname: 'Erin' });
  await queuedJobRunner(t.platform)(indexListSearchJob);

  const sendId = await createSend(t.platform, user.id, {
    accountId: user.accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject: 'News',
    html: '<p>Hello {{name}}</p><a href="https://acme.test/offer">Offer</a>',
    listIds: [user.listId],
  });
  await deliver(sendId);
  const pixel = /https:\/\/sendwell\.test(\/api\/t\/o\/[^"]+)"/.exec(
    (await inboxMessage(user.id, email)).html_body!,
  )![1]!;
  expect((await t.app.inject({ url: pixel })).statusCode).toBe(200);
  const copied = await createSend(t.platform, user.id, {
    accountId: user.accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject: 'A copy for you',
    html: '<p>Hi</p>',
    listIds: [second],
    cc: `someone@example.net, ${email.toUpperCase()}`,
  });
  await deliver(copied);

  await t.platform.db
    .insertInto('provider_events')
    .values({
      id: `mailgun:${randomBytes(8).toString('hex')}`,
      account_id: user.accountId,
      payload: JSON.stringify({ event: 'delivered', recipient: email }),
    })
    .execute();
  await insertDeliveryEvents(t.platform.db, [
    {
      userId: user.id,
      accountId: user.accountId,
      sendId: null,
      recipientId: null,
      email,
      type: 'complained',
      severity: null,
      source: 'mailgun',
      providerEventId: null,
      detail: null,
      linkId: null,
      isFirst: true,
    },
  ]);
  await t.platform.db.transaction().execute(async (trx) => {
    await suppress(trx, [{ userId: user.id, email, type: 'bounce', reason: 'failed', source: 'smtp' }]);
    await recordSoftBounces(trx, [{ userId: user.id, email, reason: 'mailbox full', source: 'smtp' }]);
  });

  const campaign = await t.platform.db
    .insertInto('campaigns')
    .values({ user_id: user.id, account_id: user.accountId, daily_plan: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const step = await t.platform.db
    .insertInto('campaign_steps')
    .values({ campaign_id: campaign.id, user_id: user.id, position: 1, subject: 'Welcome', body: '<p>Hi</p>' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const recipient = await t.platform.db
    .insertInto('campaign_recipients')
    .values({ campaign_id: campaign.id, user_id: user.id, email, name: 'Erin' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .insertInto('campaign_messages')
    .values({
      campaign_id: campaign.id,
      recipient_id: recipient.id,
      step_id: step.id,
      user_id: user.id,
      position: 1,
      subject: 'Welcome',
      body: `<p>Hi Erin (${email})</p>`,
    })
    .execute();

  // An unsaved campaign's file keeps the row that gave the address (issue 47's sources).
  const source = await t.platform.db
    .insertInto('campaign_sources')
    .values({ campaign_id: campaign.id, user_id: user.id, kind: 'file', name: 'people.csv', rows: 1, added: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .insertInto('campaign_source_rows')
    .values({ source_id: source.id, position: 1, user_id: user.id, email, name: 'Erin' })
    .execute();

  const job = await t.platform.db
    .insertInto('verification_jobs')
    .values({ user_id: user.id })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db.insertInto('verification_items').values({ job_id: job.id, email, verdict: 'valid' }).execute();
  await t.platform.db.insertInto('verified_addresses').values({ user_id: user.id, email, verdict: 'valid' }).execute();

  const imported = await t.platform.db
    .insertInto('list_imports')
    .values({ user_id: user.id, list_id: second, file_name: 'people.csv', mapping: '{}', status: 'finished' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .insertInto('list_import_files')
    .values({
      import_id: imported.id,
      kind: 'report',
      seq: 0,
      data: Buffer.from(`line,reason,email,note\n3,invalid address,not-an-address,"friend of ${email}"\n`),
    })
    .execute();
  await t.platform.db.updateTable('list_imports').set({ has_report: true }).where('id', '=', imported.id).execute();
  return { second, sendId };
};

describe('a person’s data on request (R46)', () => {
  it('exports every row that holds the address, then erases them all: only a hash stays, and it blocks every send', async () => {
    const user = await seedUserWithList();
    const email = `erin-${randomBytes(4).toString('hex')}@example.org`;
    const { second } = await seedEverywhere(user, email);

    const held = await rowsHolding(email);
    // The seeding reached every kind of table that holds addresses.
    expect(Object.keys(held).sort()).toEqual(
      [
        'campaign_messages',
        'campaign_recipients',
        'campaign_source_rows',
        'delivery_events',
        'list_import_files',
        'list_member_search',
        'list_members',
        'provider_events',
        'send_recipients',
        'sends',
        'soft_bounces',
        'suppressions',
        'test_inbox_messages',
        'verification_items',
        'verified_addresses',
        'webhook_deliveries',
      ].sort(),
    );

    const exported = await user.agent.post('/api/privacy/person/export', { email, format: 'json' });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toContain('person-data.json');
    const document = exported.json() as { email: string; tables: Record<string, unknown[]> };
    // Every table that holds the address, with as many rows as hold it.
    for (const [table, count] of Object.entries(held)) {
      expect({ table, rows: document.tables[table]?.length ?? 0 }).toEqual({ table, rows: count });
    }
    // Rows about the person that name the member, not the address: the consent records.
    const consents = () =>
      t.platform.db.selectFrom('member_consents').select('id').where('user_id', '=', user.id).execute();
    expect(await consents()).toHaveLength(2);
    expect(document.tables.member_consents).toEqual([
      expect.objectContaining({ source: 'form', source_detail: 'hosted form', ip: '203.0.113.5' }),
      expect.objectContaining({ source: 'manual' }),
    ]);
    expect((document.tables.delivery_events as { type: string }[]).map((event) => event.type)).toEqual(
      expect.arrayContaining(['accepted', 'opened', 'complained']),
    );
    // Nothing secret of the engine's: the recipients' tokens stay out.
    expect(JSON.stringify(document.tables.send_recipients)).not.toContain('"token"');
    const csv = await user.agent.post('/api/privacy/person/export', { email, format: 'csv' });
    expect(csv.headers['content-type']).toContain('text/csv');
    const csvLines = csv.body.trim().split('\n');
    expect(csvLines[0]).toContain('Table,Id,Time,Record');
    expect(csvLines.length - 1).toBe(Object.values(held).reduce((sum, count) => sum + count, 0) + 2);

    const erased = await user.agent.post('/api/privacy/person/erase', { email: email.toUpperCase() });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data).toMatchObject({ list_members: 2, send_recipients: 3 });
    expect(await rowsHolding(email)).toEqual({});
    expect(await consents()).toEqual([]);
    const hashes = await t.platform.db
      .selectFrom('erased_addresses')
      .select('user_id')
      .where('user_id', '=', user.id)
      .execute();
    expect(hashes).toHaveLength(1);

    // The hash still keeps the address unmailed: on a list again, as a copy, as a drip recipient.
    await user.agent.post('/api/mailing-lists/add-member', { listId: second, email });
    const again = await createSend(t.platform, user.id, {
      accountId: user.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Again',
      html: '<p>Hi</p>',
      listIds: [second],
      cc: email,
    });
    await snapshotSend(t.platform, again);
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select('email')
      .where('send_id', '=', again)
      .execute();
    expect(recipients).toEqual([]);
    const drip = await t.platform.db.transaction().execute((trx) =>
      createSourcedSend(trx, t.platform, user.id, {
        source: 'drip',
        accountId: user.accountId,
        fromName: 'Acme',
        fromAddress: 'news@acme.test',
        subject: 'Step',
        html: '<p>Hi</p>',
        recipients: [{ email }],
      }),
    );
    expect(drip.recipients).toBe(0);
  });

  it('keeps to the signed-in user: another user’s rows of the same address stay, and their sends still reach it', async () => {
    const owner = await seedUserWithList();
    const other = await seedUserWithList();
    const email = `shared-${randomBytes(4).toString('hex')}@example.org`;
    for (const user of [owner, other]) {
      await user.agent.post('/api/mailing-lists/add-member', { listId: user.listId, email, fullname: 'Sam' });
    }
    const exported = (await owner.agent.post('/api/privacy/person/export', { email })).json();
    expect(exported.tables.list_members).toHaveLength(1);
    expect(exported.tables.list_members[0].list_id).toBe(owner.listId);
    await owner.agent.post('/api/privacy/person/erase', { email });
    const left = await t.platform.db
      .selectFrom('list_members')
      .select('list_id')
      .where(sql<string>`lower(email)`, '=', email)
      .execute();
    expect(left).toEqual([{ list_id: other.listId }]);
    const sendId = await createSend(t.platform, other.id, {
      accountId: other.accountId,
      fromName: 'Other',
      fromAddress: 'news@acme.test',
      subject: 'Hi',
      html: '<p>Hi</p>',
      listIds: [other.listId],
    });
    await snapshotSend(t.platform, sendId);
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select('email')
      .where('send_id', '=', sendId)
      .execute();
    expect(recipients).toEqual([{ email }]);
  });

  it('erases nothing while a message to the address is being handed over, and says to try again', async () => {
    const user = await seedUserWithList();
    const email = `busy-${randomBytes(4).toString('hex')}@example.org`;
    await user.agent.post('/api/mailing-lists/add-member', { listId: user.listId, email });
    const sendId = await createSend(t.platform, user.id, {
      accountId: user.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Hi',
      html: '<p>Hi</p>',
      listIds: [user.listId],
    });
    await snapshotSend(t.platform, sendId);
    await t.platform.db
      .updateTable('send_recipients')
      .set({ status: 'sending' })
      .where('send_id', '=', sendId)
      .execute();
    const refused = await user.agent.post('/api/privacy/person/erase', { email });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain('Try again in a minute');
    expect(await rowsHolding(email)).toMatchObject({ list_members: 1, send_recipients: 1 });
    expect(
      await t.platform.db.selectFrom('erased_addresses').select('user_id').where('user_id', '=', user.id).execute(),
    ).toEqual([]);
  });

  it('refuses what is not an address, and answers 401 without a session', async () => {
    const user = await seedUserWithList();
    expect((await user.agent.post('/api/privacy/person/erase', { email: 'nobody' })).statusCode).toBe(422);
    expect((await createAgent(t.app).post('/api/privacy/person/export', { email: 'a@b.c' })).statusCode).toBe(401);
  });
});
