import { defaultDailyPlan } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, TEST_SECRET_KEY, type TTestApp } from '../../../test/app';
import { startServerProcess } from '../../../test/processes';
import { PROCESS_PATIENCE_MS, PROCESS_TEST_TIMEOUT_MS, waitFor } from '../../../test/wait';
import { tickCampaignsJob } from './campaigns.jobs';

/**
 * R1 for drip campaigns: a worker killed with SIGKILL in the middle of a tick that hands
 * steps to the engine. Every hand-over is one transaction (engine send, message, the
 * recipient's next step), so after the kill each is there whole or not at all, and the
 * restarted worker hands over the rest: every account's first recipient once, nobody twice.
 */

const ACCOUNTS = 150;
let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const startWorker = () =>
  startServerProcess(
    { DATABASE_URL: t.databaseUrl, SECRET_KEY: TEST_SECRET_KEY, TEST_INBOX: 'false', LOG_LEVEL: 'info' },
    ['--role', 'worker'],
  );

describe('a worker killed in the middle of a drip tick (R1)', () => {
  it(
    'leaves every hand-over whole or absent, and the restarted worker hands over the rest exactly once',
    async () => {
      const user = await seedUser(t.platform, { planId: 3 });
      const allDay = defaultDailyPlan().map((day) => ({ ...day, endHour: 12, endType: 'AM' as const }));
      await sql`
      insert into sending_accounts (user_id, name, provider, driver, username, host, port, from_address)
      select ${user.id}, 'Inbox ' || n, 'smtp', 'test-inbox', 'user-' || ${user.id}, '127.0.0.1', 2525, 'a' || n || '@acme.test'
        from generate_series(1, ${ACCOUNTS}::int) n`.execute(t.platform.db);
      await sql`
      insert into campaigns (user_id, account_id, is_draft, step, title, sender_name, from_address, running, accept_law, daily_plan)
      select ${user.id}, a.id, false, 6, 'C' || a.id, 'Acme', a.from_address, true, true, ${JSON.stringify(allDay)}::jsonb
        from sending_accounts a where a.user_id = ${user.id}`.execute(t.platform.db);
      await sql`
      insert into campaign_steps (campaign_id, user_id, position, subject, body, period, frequency)
      select c.id, ${user.id}, p, 'Step ' || p, '<p>Hello</p>', case when p = 1 then 0 else 1 end, 'day'
        from campaigns c, generate_series(1, 2) p where c.user_id = ${user.id}`.execute(t.platform.db);
      await sql`
      insert into campaign_recipients (campaign_id, user_id, email, name, due_at)
      select c.id, ${user.id}, 'r' || c.id || '-' || n || '@example.com', 'R' || n, now() - interval '1 minute'
        from campaigns c, generate_series(1, 3) n where c.user_id = ${user.id}`.execute(t.platform.db);
      const handed = async () =>
        Number(
          (
            await t.platform.db
              .selectFrom('campaign_messages')
              .select((eb) => eb.fn.countAll<string>().as('count'))
              .where('user_id', '=', user.id)
              .executeTakeFirstOrThrow()
          ).count,
        );

      let worker = startWorker();
      await worker.waitForOutput('worker started');
      await t.platform.queue.enqueue(tickCampaignsJob, {});
      // Killed a little way into the tick: some accounts handed over, most not yet.
      await waitFor(async () => (await handed()) >= 10, PROCESS_PATIENCE_MS, 'the first hand-overs', 20);
      await worker.stop('SIGKILL');
      const atKill = await handed();
      expect(atKill).toBeGreaterThan(0);
      expect(atKill).toBeLessThan(ACCOUNTS);

      const invariants = async () => {
        // Each message has its engine send and recipient row; each engine drip send has its message.
        const orphans = await sql<{
          messages_without_send: number;
          sends_without_message: number;
          recipients_out_of_step: number;
        }>`
        select
          (select count(*)::int from campaign_messages m
            where m.user_id = ${user.id}
              and not exists (select 1 from send_recipients sr where sr.send_id = m.send_id)) as messages_without_send,
          (select count(*)::int from sends s
            where s.user_id = ${user.id} and s.source = 'drip'
              and not exists (select 1 from campaign_messages m where m.send_id = s.id)) as sends_without_message,
          (select count(*)::int from campaign_recipients r
            where r.user_id = ${user.id}
              and r.next_position <> 1 + (select count(*) from campaign_messages m where m.recipient_id = r.id)) as recipients_out_of_step`.execute(
          t.platform.db,
        );
        expect(orphans.rows[0]).toEqual({
          messages_without_send: 0,
          sends_without_message: 0,
          recipients_out_of_step: 0,
        });
        const perAccount = await sql<{ most: number }>`
        select coalesce(max(count), 0)::int as most from (
          select count(*) as count from campaign_messages where user_id = ${user.id} group by account_id) c`.execute(
          t.platform.db,
        );
        // The pace: one hand-over per account per 120 s, even across the kill.
        expect(perAccount.rows[0]!.most).toBe(1);
      };
      await invariants();

      worker = startWorker();
      await worker.waitForOutput('worker started');
      await t.platform.queue.enqueue(tickCampaignsJob, {});
      await waitFor(async () => (await handed()) === ACCOUNTS, PROCESS_PATIENCE_MS, 'every account’s hand-over');
      await worker.stop();
      await invariants();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
