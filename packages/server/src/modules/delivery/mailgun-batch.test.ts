import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { dispatch, snapshotSend } from './delivery.jobs';
import { createSend, createSourcedSend } from './delivery.service';
import { refOf } from './message';

const MAILGUN_KEY = 'key-batch-0123456789abcdef0123456789';
let t: TTestApp;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;

beforeAll(async () => {
  mailgun = await startMailgunFake({
    key: MAILGUN_KEY,
    domains: [
      { name: 'mg.acme.test', region: 'us' },
      { name: 'mg.down.test', region: 'us' },
    ],
  });
  t = await startTestApp({
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
    PUBLIC_URL: 'https://sendwell.test',
  });
});
afterAll(async () => {
  await t?.close();
  await mailgun?.close();
});

/** A Mailgun account saved through the API (checked with the fake), and a list of `count` members. */
const seedAudience = async (domain: string, count: number) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const saved = await agent.post('/api/settings/account/create-or-update', {
    name: 'Mailgun',
    provider: 'mailgun',
    domain,
    apiKey: MAILGUN_KEY,
    region: 'us',
  });
  expect(saved.statusCode, saved.body).toBe(200);
  const accountId = saved.json().data.id as number;
  const { id: listId } = await t.platform.db
    .insertInto('mailing_lists')
    .values({ user_id: user.id, account_id: accountId, alias: 'news', domain, address: `news@${domain}`, name: 'News' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`insert into list_members (user_id, list_id, account_id, email, fullname, fields)
    select ${user.id}, ${listId}, ${accountId}, 'm' || n || '@example.com', case when n % 2 = 0 then 'Reader ' || n else '' end,
           jsonb_build_object('city', 'City ' || n)
      from generate_series(1, ${count}) n`.execute(t.platform.db);
  const sendId = await createSend(t.platform, user.id, {
    accountId,
    fromName: 'Acme',
    fromAddress: `news@${domain}`,
    subject: 'Hello {{name::reader}}',
    html: '<p>Hi {{name::friend}} from {{city}}. <a href="https://example.com/offer">Offer</a></p>',
    listIds: [listId],
  });
  return { user, sendId };
};

const statuses = async (sendId: number) =>
  (
    await sql<{ status: string; count: number }>`
      select status, count(*)::int as count from send_recipients where send_id = ${sendId} group by status order by status`.execute(
      t.platform.db,
    )
  ).rows;

describe('Mailgun batch sending', () => {
  it('sends 1,000 recipients per call with recipient variables for merge fields, tracking and the recipient', async () => {
    const { sendId } = await seedAudience('mg.acme.test', 2500);
    const before = mailgun.messages.length;
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    const calls = mailgun.messages.slice(before);
    // Calls travel several at once: at most 1,000 recipients each, claims taken side by
    // side share what is left, and the calls arrive in any order.
    const sizes = calls.map((call) => call.to.length);
    expect(Math.max(...sizes)).toBe(1000);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(2500);
    expect(sizes.length).toBeLessThanOrEqual(4);
    expect(new Set(calls.flatMap((call) => call.to)).size).toBe(2500);
    expect(await statuses(sendId)).toEqual([{ status: 'sent', count: 2500 }]);

    // The largest call: claims side by side skip each other's locked rows, so the last ones
    // can be split unevenly, and a call of one recipient has only one of the two names below.
    const first = calls.reduce((largest, call) => (call.to.length > largest.to.length ? call : largest));
    const html = first.fields.html![0]!;
    expect(first.fields.subject![0]).toBe('Hello %recipient.m2%');
    expect(html).toContain('Hi %recipient.m0% from %recipient.m1%.');
    // One reference per purpose (R34): tracking, the provider's variable and unsubscribe differ.
    expect(html).toContain('href="https://sendwell.test/api/t/c/%recipient.t%/');
    expect(html).toContain('/api/t/o/%recipient.t%/%recipient.o%.gif');
    expect(first.fields['v:sendwell-recipient']).toEqual(['%recipient.r%']);
    expect(first.fields['h:List-Unsubscribe']![0]).toContain('https://sendwell.test/api/unsubscribe/%recipient.u%');

    const variables = JSON.parse(first.fields['recipient-variables']![0]!) as Record<string, Record<string, string>>;
    const row = (email: string) =>
      t.platform.db
        .selectFrom('send_recipients')
        .select(['id', 'token'])
        .where('send_id', '=', sendId)
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
    const numberOf = (email: string) => Number(email.slice(1, email.indexOf('@')));
    const evenEmail = first.to.find((email) => numberOf(email) % 2 === 0)!;
    const oddEmail = first.to.find((email) => numberOf(email) % 2 === 1)!;
    const even = variables[evenEmail]!;
    const odd = variables[oddEmail]!;
    const n = numberOf(evenEmail);
    const evenRow = await row(evenEmail);
    expect(even).toMatchObject({
      r: refOf(t.platform, 'provider', evenRow),
      u: refOf(t.platform, 'unsubscribe', evenRow),
      t: refOf(t.platform, 'tracking', evenRow),
      m0: `Reader ${n}`,
      m1: `City ${n}`,
      m2: `Reader ${n}`,
    });
    // A blank name takes the fallback of each place it is used.
    expect(odd).toMatchObject({ m0: 'friend', m1: `City ${numberOf(oddEmail)}`, m2: 'reader' });

    // The filled-in click address is the one the tracker accepts.
    expect(JSON.stringify(variables)).not.toContain(evenRow.token);
    const linkId = html.match(/\/api\/t\/c\/%recipient\.t%\/(\d+)\//)![1]!;
    const click = await t.app.inject({ url: `/api/t/c/${even.t}/${linkId}/${even[`c${linkId}`]}` });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe('https://example.com/offer');
  });

  it('hands a batch over in its claim: while Mailgun has the call, every recipient in it is marked started (R1)', async () => {
    const { sendId } = await seedAudience('mg.acme.test', 25);
    await snapshotSend(t.platform, sendId);
    const seen: { status: string; started: boolean; count: number }[][] = [];
    mailgun.beforeAccepting(async () => {
      // What a worker that took over now would find: a recipient `sending` and started
      // ends `unknown`, never sent again; one not started would be sent again.
      const { rows } = await sql<{ status: string; started: boolean; count: number }>`
        select status, started_at is not null as started, count(*)::int as count
          from send_recipients where send_id = ${sendId} group by 1, 2 order by 1, 2`.execute(t.platform.db);
      seen.push(rows);
    });
    try {
      await dispatch(t.platform, sendId);
    } finally {
      mailgun.beforeAccepting(null);
    }
    // Usually one call holds all 25; the dispatch job the snapshot queued can run beside this
    // direct dispatch and share the claims out (a quiet clean-clone run saw two calls), so the
    // rule is asked of every call: no recipient is claimed without being marked started.
    expect(seen.length).toBeGreaterThan(0);
    for (const rows of seen) {
      expect(rows.filter((row) => row.status === 'sending' && !row.started)).toEqual([]);
      expect(rows.some((row) => row.status === 'sending' && row.started)).toBe(true);
    }
    expect(await statuses(sendId)).toEqual([{ status: 'sent', count: 25 }]);
  });

  it('defers a whole batch on a 5xx and sends it when Mailgun is back', async () => {
    const { sendId } = await seedAudience('mg.down.test', 30);
    mailgun.failing.set('mg.down.test', 503);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(await statuses(sendId)).toEqual([{ status: 'deferred', count: 30 }]);
    mailgun.failing.delete('mg.down.test');
    await t.platform.db
      .updateTable('send_recipients')
      .set({ next_attempt_at: new Date(0) })
      .where('send_id', '=', sendId)
      .execute();
    await dispatch(t.platform, sendId);
    expect(await statuses(sendId)).toEqual([{ status: 'sent', count: 30 }]);
    const send = await t.platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();
    expect(send).toMatchObject({ status: 'finished', sent_count: 30 });
  });
  it('sends a recipient whose source gave it headers of its own (a drip follow-up) in a call of its own', async () => {
    const { user } = await seedAudience('mg.acme.test', 0);
    const account = await t.platform.db
      .selectFrom('sending_accounts')
      .select('id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const { sendId } = await t.platform.db.transaction().execute((trx) =>
      createSourcedSend(trx, t.platform, user.id, {
        source: 'drip',
        accountId: account.id,
        fromName: 'Acme',
        fromAddress: 'news@mg.acme.test',
        subject: 'Re: Hello',
        html: '<p>Hi {{name}}</p>',
        recipients: [
          { email: 'a@example.com', name: 'A' },
          { email: 'b@example.com', name: 'B', headers: { 'In-Reply-To': '<b.1@mg.acme.test>' } },
          { email: 'c@example.com', name: 'C' },
          { email: 'd@example.com', name: 'D', headers: { 'In-Reply-To': '<d.1@mg.acme.test>' } },
        ],
      }),
    );
    const before = mailgun.messages.length;
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    const calls = mailgun.messages.slice(before);
    expect(calls.map((call) => [call.to, call.fields['h:In-Reply-To']?.[0] ?? null])).toEqual([
      [['a@example.com', 'c@example.com'], null],
      [['b@example.com'], '<b.1@mg.acme.test>'],
      [['d@example.com'], '<d.1@mg.acme.test>'],
    ]);
    expect(await statuses(sendId)).toEqual([{ status: 'sent', count: 4 }]);
  });
});
