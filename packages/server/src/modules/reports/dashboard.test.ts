import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const seed = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { user, agent, accountId: account.id };
};

describe('the delivery dashboard', () => {
  it('answers the last 30 days from the maintained counters, the last 7 as a table, totals and percentages', async () => {
    const { user, agent, accountId } = await seed();
    // A send of 14 recipients: ten accepted today (two of them delivered, four opened, one
    // of those four twice), one refused for good, one deferred (still waiting); three
    // accepted a week ago. Events are what the engine and the intake write.
    const send = await t.platform.db
      .insertInto('sends')
      .values({
        user_id: user.id,
        account_id: accountId,
        status: 'finished',
        from_address: 'news@acme.test',
        subject: 'Hi',
        html: '<p>Hi</p>',
        list_ids: [],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await sql`insert into send_recipients (send_id, user_id, email, token, status, sent_at)
      select ${send.id}, ${user.id}, 'r' || n || '@example.com', md5('r' || n || ${send.id}),
             case when n = 11 then 'failed' when n = 12 then 'deferred' else 'sent' end,
             case when n in (11, 12) then null else now() end
        from generate_series(1, 14) n`.execute(t.platform.db);
    await sql`insert into delivery_events (user_id, account_id, send_id, recipient_id, email, type, source, severity,
                                           detail, occurred_at, is_first)
      select ${user.id}, ${accountId}, r.send_id, r.id, r.email, k.kind, 'smtp',
             case k.kind when 'failed' then 'permanent' when 'deferred' then 'temporary' end,
             case k.kind when 'failed' then '=550 no such user' end, k.occurred, k.is_first
        from send_recipients r
        join (values ('accepted', 1, 10, now(), true), ('delivered', 1, 2, now(), true),
                     ('failed', 11, 11, now(), true), ('deferred', 12, 12, now(), true),
                     ('opened', 1, 4, now(), true), ('opened', 1, 1, now(), false),
                     ('accepted', 13, 14, now() - interval '7 days', true), ('accepted', 14, 14, now() - interval '7 days', true))
             as k(kind, first_n, last_n, occurred, is_first)
          on split_part(split_part(r.email, '@', 1), 'r', 2)::int between k.first_n and k.last_n
       where r.send_id = ${send.id}`.execute(t.platform.db);

    const dashboard = (await agent.get('/api/dashboard')).json();
    expect(dashboard).toMatchObject({ status: true, smtp: true, google: false });
    expect(dashboard.stats.chart).toHaveLength(30);
    const today = dashboard.stats.chart.at(-1);
    // The day's recipients: ten accepted and one refused; the deferred one is not settled yet.
    expect(today).toMatchObject({
      delivered: { total: 2 },
      failed: { temporary: { total: 1 }, permanent: { total: 1 } },
      total: 11,
    });
    expect(dashboard.stats.table).toHaveLength(7);
    expect(dashboard.stats.table.at(-1)).toMatchObject({
      accepted: { total: 10 },
      complained: { total: 0 },
      total: 11,
    });
    expect(dashboard.stats.tracking).toEqual({
      sent: 13,
      delivered: 2,
      // Four recipients opened; the fifth open is a repeat and counts nobody again (R33).
      opened: 4,
      clicked: 0,
      bounced: 1,
      unsubscribed: 0,
      complained: 0,
      bounced_hard: 1,
      bounced_soft: 0,
      deferred: 1,
      unknown: 0,
    });
    // Every share is of the recipients: 4 of 14.
    expect(dashboard.stats.percentage.opened).toBeCloseTo(28.6, 1);
    expect(dashboard.stats.general.recipients).toBe(14);

    const failed = (await agent.get('/api/dashboard/delivery-events', { query: { event_type: 'failed' } })).json();
    expect(failed.data).toEqual([
      expect.objectContaining({ event_type: 'failed', severity: 'permanent', delivery_message: '=550 no such user' }),
    ]);
    expect((await agent.get('/api/dashboard/delivery-events')).json().meta.total).toBe(22);
    const csv = await agent.get('/api/dashboard/delivery-events/export', { query: { event_type: 'failed' } });
    expect(csv.body).toContain("'=550 no such user");

    // The date range (spec: the same query as the history tables), in the user's days.
    const { day, weekAgo } = (
      await sql<{ day: string; weekAgo: string }>`
        select to_char((now() at time zone time_zone)::date, 'YYYY-MM-DD') as day,
               to_char((now() at time zone time_zone)::date - 7, 'YYYY-MM-DD') as "weekAgo"
          from users where id = ${user.id}`.execute(t.platform.db)
    ).rows[0]!;
    const events = async (query: Record<string, string>) =>
      (await agent.get('/api/dashboard/delivery-events', { query: { per_page: '50', ...query } })).json();
    const lastWeek = await events({ first_date: weekAgo, last_date: weekAgo });
    expect(lastWeek.meta.total).toBe(3);
    expect(lastWeek.data.map((event: { event_type: string }) => event.event_type)).toEqual([
      'accepted',
      'accepted',
      'accepted',
    ]);
    expect((await events({ first_date: day, event_type: 'accepted' })).meta.total).toBe(10);
    // A bound with a time of day is counted row by row, and agrees with the counters on whole days.
    const sinceMidnight = await events({ first_date: `${day} 00:00:00` });
    // Today's 19 event rows: the repeated open is an event too (it moves no figure).
    expect(sinceMidnight.meta.total).toBe(19);
    expect(sinceMidnight.data).toHaveLength(19);
    expect((await events({ last_date: `${weekAgo} 23:59:59` })).meta.total).toBe(3);
    const lastWeekCsv = await agent.get('/api/dashboard/delivery-events/export', {
      query: { first_date: weekAgo, last_date: weekAgo },
    });
    expect(lastWeekCsv.body.trim().split('\n')).toHaveLength(1 + 3);
    expect((await agent.get('/api/dashboard/delivery-events', { query: { first_date: 'last week' } })).statusCode).toBe(
      422,
    );

    // Another user's dashboard holds none of it (R12).
    const other = await seed();
    expect((await other.agent.get('/api/dashboard')).json().stats.tracking.sent).toBe(0);
    expect((await other.agent.get('/api/dashboard/delivery-events')).json().data).toEqual([]);
  });
});
