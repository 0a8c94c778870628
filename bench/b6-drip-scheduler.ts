/**
 * B6: the drip scheduler's tick over 1,000,000 recipients, all due, in 1,000 running
 * campaigns on 1,000 sending accounts (test-inbox accounts: the engine sends are created,
 * as a tick creates them, and left for the workers). The spec's pace allows one drip email
 * per account per 120 s at most, so a tick hands over one step per account: the tick decides
 * for all 1,000,000 recipients (who goes now, who waits) and hands over 1,000.
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { defaultDailyPlan } from '../packages/contracts/src/campaigns/schedule';
import { createUser } from '../packages/server/src/modules/auth/auth.service';
import { tickCampaigns } from '../packages/server/src/modules/campaigns/scheduler';
import { openPlatform } from '../packages/server/src/platform/bootstrap';
import { loadConfig } from '../packages/server/src/platform/config';
import { median, type TFigure } from './figures';
import { benchEnvironment } from './seed';

const ACCOUNTS = 1_000;
const PER_CAMPAIGN = 1_000;
const RUNS = 3;

export const runB6 = async (): Promise<TFigure> => {
  const { env, cluster } = await benchEnvironment('sendwell_bench_drip', { LOG_LEVEL: 'silent' });
  const opened = await openPlatform(loadConfig(env, []), pino({ level: 'silent' }));
  const { platform } = opened;
  try {
    const user = await createUser(platform, {
      email: 'bench@example.com',
      name: 'Bench',
      password: 'secret123',
      planId: 3,
    });
    const allDay = defaultDailyPlan().map((day) => ({ ...day, endHour: 12, endType: 'AM' as const }));
    const seedStarted = performance.now();
    await sql`
      insert into sending_accounts (user_id, name, provider, driver, username, host, port, from_address)
      select ${user.id}, 'Inbox ' || n, 'smtp', 'test-inbox', 'user-' || ${user.id}, '127.0.0.1', 2525, 'a' || n || '@bench.test'
        from generate_series(1, ${ACCOUNTS}::int) n`.execute(platform.db);
    await sql`
      insert into campaigns (user_id, account_id, is_draft, step, title, sender_name, from_address, running, accept_law, daily_plan)
      select ${user.id}, a.id, false, 6, 'Campaign ' || a.id, 'Bench', a.from_address, true, true, ${JSON.stringify(allDay)}::jsonb
        from sending_accounts a where a.user_id = ${user.id}`.execute(platform.db);
    await sql`
      insert into campaign_steps (campaign_id, user_id, position, subject, body, period, frequency)
      select c.id, ${user.id}, p, 'Step ' || p, '<p>Hello {{name}}</p>', case when p = 1 then 0 else 2 end, 'day'
        from campaigns c, generate_series(1, 3) p where c.user_id = ${user.id}`.execute(platform.db);
    await sql`
      insert into campaign_recipients (campaign_id, user_id, email, name, due_at)
      select c.id, ${user.id}, 'r' || c.id || '-' || n || '@example.com', 'R' || n, now() - interval '1 hour'
        from campaigns c, generate_series(1, ${PER_CAMPAIGN}::int) n where c.user_id = ${user.id}`.execute(platform.db);
    await sql`analyze`.execute(platform.db);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const runs: { seconds: number; handed: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Each run 121 s after the last: every account's pace allows its next hand-over.
      const now = new Date(Date.now() + run * 121_000);
      const started = performance.now();
      const handed = await tickCampaigns(platform, now, { sync: false });
      runs.push({ seconds: (performance.now() - started) / 1000, handed });
      console.log(`  tick ${run + 1}: ${handed} handed over in ${runs.at(-1)!.seconds.toFixed(2)} s`);
    }
    const seconds = median(runs.map((run) => run.seconds));
    const recipients = ACCOUNTS * PER_CAMPAIGN;
    const perSecond = recipients / seconds;
    const handedPerSecond = median(runs.map((run) => run.handed / run.seconds));
    // The one lookup that scales with the recipients: an account's next due recipient, at 1M rows.
    const probe = await sql<{ plan: string }>`
      explain (analyze, format text)
      select id from campaign_recipients
       where campaign_id = (select min(id) from campaigns where user_id = ${user.id})
         and state = 'active' and not paused and due_at <= now()
       order by due_at, id limit 1`.execute(platform.db);
    const lookupMs = Number(
      /Execution Time: ([\d.]+) ms/.exec(probe.rows.map((row) => Object.values(row)[0]).join('\n'))?.[1] ?? Number.NaN,
    );
    return {
      id: 'B6',
      title: 'drip scheduler: one tick over 1,000,000 due recipients in 1,000 campaigns on 1,000 accounts',
      anchor: 'Ghost batch prep ~4.2k recipients/s',
      goal: '≥ 50,000 recipients/s',
      measured: `${Math.round(perSecond).toLocaleString('en-US')} recipients/s decided (a tick over 1,000,000 in ${seconds.toFixed(2)} s, median of ${RUNS}); ${Math.round(handedPerSecond)} hand-overs/s to the engine (one per account per tick: the spec's 120 s pace); next-due lookup at 1M rows ${lookupMs} ms; seeding ${seedSeconds.toFixed(0)} s`,
      isGoalMet: perSecond >= 50_000,
      runs: { runs, lookupMs },
    };
  } finally {
    await opened.close();
    await cluster.stop();
  }
};
