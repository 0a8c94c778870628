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
    // Ten accepted, two delivered, one failed for good, one deferred, four opened today; three accepted a week ago.
    await sql`insert into delivery_events (user_id, account_id, email, type, source, severity, detail, occurred_at)
      select ${user.id}, ${accountId}, 'r' || n || '@example.com', kind, 'smtp',
             case kind when 'failed' then 'permanent' when 'deferred' then 'temporary' end,
             case kind when 'failed' then '=550 no such user' end, occurred
        from (values ('accepted', 10, now()), ('delivered', 2, now()), ('failed', 1, now()), ('deferred', 1, now()),
                     ('opened', 4, now()), ('accepted', 3, now() - interval '7 days')) as k(kind, times, occurred),
             generate_series(1, k.times) as n`.execute(t.platform.db);

    const dashboard = (await agent.get('/api/dashboard')).json();
    expect(dashboard).toMatchObject({ status: true, smtp: true, google: false });
    expect(dashboard.stats.chart).toHaveLength(30);
    const today = dashboard.stats.chart.at(-1);
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
      opened: 4,
      clicked: 0,
      bounced: 1,
      unsubscribed: 0,
    });
    expect(dashboard.stats.percentage.opened).toBeCloseTo(30.8, 1);
    expect(dashboard.stats.general.recipients).toBe(14);

    const failed = (await agent.get('/api/dashboard/delivery-events', { query: { event_type: 'failed' } })).json();
    expect(failed.data).toEqual([
      expect.objectContaining({ event_type: 'failed', severity: 'permanent', delivery_message: '=550 no such user' }),
    ]);
    expect((await agent.get('/api/dashboard/delivery-events')).json().meta.total).toBe(21);
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
    expect(sinceMidnight.meta.total).toBe(18);
    expect(sinceMidnight.data).toHaveLength(18);
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
