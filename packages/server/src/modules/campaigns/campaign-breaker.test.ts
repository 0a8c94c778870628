import { defaultDailyPlan, type TDailyPlan } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startSmtpSink } from '../../../test/smtp-sink';
import { PROCESS_PATIENCE_MS } from '../../../test/wait';
import { applyOutcomes } from '../delivery/delivery.service';
import { campaignBreakerEmailJob } from './campaign-breaker.jobs';
import { syncMessages, tickCampaigns } from './scheduler';

/**
 * The circuit breaker of a drip campaign (issue 31 §2): each step is an engine send of one
 * recipient, so the campaign is judged as a whole. The engine's acceptances are written as
 * dispatch leaves them (the scheduler tests do not run the engine); the hard bounces come
 * through the real intake (`applyOutcomes`, as a bounce report or Mailgun's event does).
 */

let t: TTestApp;
let mailSink: Awaited<ReturnType<typeof startSmtpSink>>;
beforeAll(async () => {
  mailSink = await startSmtpSink();
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test', SMTP_URL: mailSink.url });
});
afterAll(async () => {
  await t?.close();
  await mailSink?.close();
});

/** Every day, all day: the pace alone decides when the next message goes. */
const allDay = (): TDailyPlan =>
  defaultDailyPlan().map((day) => ({
    ...day,
    checked: true,
    startHour: 12,
    startMin: 0,
    startType: 'AM' as const,
    endHour: 11,
    endMin: 59,
    endType: 'PM' as const,
  }));

const seedCampaign = async (recipients: string[]) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const { id: accountId } = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Test inbox',
      provider: 'smtp',
      driver: 'test-inbox',
      username: `user-${user.id}`,
      host: '127.0.0.1',
      port: 2525,
      encryption: 'tls',
      from_address: 'news@acme.test',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const start = await agent.put('/api/campaigns/save-campaign/1', {
    accountId,
    title: 'Cold outreach',
    senderName: 'Acme',
    signature: '',
  });
  const temporary = start.json().temporaryKey as string;
  await agent.put('/api/campaigns/save-campaign/2', { temporary, recipients: recipients.map((email) => ({ email })) });
  await agent.put('/api/campaigns/save-campaign/3', {
    temporary,
    drips: [{ subject: 'Hello', body: '<p>Hi.</p>', replyTo: 'sales@acme.test', globalReply: true }],
    dailyPlan: allDay(),
  });
  await agent.put('/api/campaigns/save-campaign/4', { temporary });
  await agent.put('/api/campaigns/save-campaign/5', {
    temporary,
    options: { acceptLaw: true, trackOpens: false, scheduled: false, scheduleTime: null },
  });
  const finished = await agent.put('/api/campaigns/save-campaign/6', { temporary });
  expect(finished.statusCode, finished.body).toBe(200);
  return { user, agent, id: finished.json().id as number };
};

let clock = new Date('2030-01-07T15:00:00Z').getTime();
/** Hands over `count` messages, one per tick at the account's pace. */
const handOver = async (count: number) => {
  let handed = 0;
  for (let tick = 0; tick < count; tick++) {
    handed += await tickCampaigns(t.platform, new Date(clock), { sync: false });
    clock += 120_000;
  }
  return handed;
};

/**
 * What the engine and the world say of the campaign's messages not yet settled: each accepted
 * (as dispatch records it), then a hard bounce for the addresses at nx.example.com, through
 * the intake every bounce report and Mailgun event goes through.
 */
const settleMessages = async (campaignId: number) => {
  const open = await sql<{ send_id: number }>`
    select send_id from campaign_messages where campaign_id = ${campaignId} and status = 'queued'`.execute(
    t.platform.db,
  );
  const sendIds = open.rows.map((row) => Number(row.send_id));
  if (sendIds.length === 0) return;
  await sql`update send_recipients set status = 'sent', sent_at = now(), started_at = now()
             where send_id = any(${sendIds}::bigint[])`.execute(t.platform.db);
  await sql`update sends set status = 'finished', sent_count = 1, finished_at = now() where id = any(${sendIds}::bigint[])`.execute(
    t.platform.db,
  );
  const bouncing = (
    await sql<{ id: number; send_id: number; email: string; user_id: number; account_id: number }>`
      select r.id, r.send_id, r.email, r.user_id, s.account_id
        from send_recipients r join sends s on s.id = r.send_id
       where r.send_id = any(${sendIds}::bigint[]) and r.email like '%@nx.example.com'`.execute(t.platform.db)
  ).rows;
  await t.platform.db.transaction().execute((trx) =>
    applyOutcomes(
      t.platform,
      trx,
      bouncing.map((recipient) => ({
        recipient: { ...recipient, id: Number(recipient.id), send_id: Number(recipient.send_id) },
        userId: recipient.user_id,
        accountId: recipient.account_id,
        email: recipient.email,
        type: 'failed' as const,
        severity: 'permanent' as const,
        source: 'smtp' as const,
        providerEventId: `dsn:test:${recipient.id}`,
        detail: '550 5.1.1 User unknown',
      })),
    ),
  );
};

const campaignRow = (id: number) =>
  t.platform.db
    .selectFrom('campaigns')
    .select(['running', 'breaker_reason', 'breaker_tripped_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe("a drip campaign's circuit breaker", () => {
  it(
    'stops a campaign whose hard bounces pass 5 % once 200 messages went, and judges anew after it is started again',
    async () => {
      // 300 recipients, every tenth at a domain whose server does not know them.
      const emails = Array.from({ length: 300 }, (_, index) =>
        (index + 1) % 10 === 0 ? `p${index + 1}@nx.example.com` : `p${index + 1}@example.com`,
      );
      const { user, agent, id } = await seedCampaign(emails);
      // A webhook registered for the stop (its deliveries are queued with it; sending them is webhooks.test's).
      await t.platform.db
        .insertInto('webhook_endpoints')
        .values({ user_id: user.id, url: 'https://crm.example.com/hooks', event_types: ['campaign.stopped'] })
        .execute();
      const stopEvents = () =>
        t.platform.db
          .selectFrom('webhook_deliveries')
          .select(['type', 'ordering_key', 'payload'])
          .where('user_id', '=', user.id)
          .execute();

      // 150 messages, 10 % bounced: too few to judge.
      expect(await handOver(150)).toBe(150);
      await settleMessages(id);
      await syncMessages(t.platform, 1000);
      expect((await campaignRow(id)).running).toBe(true);
      expect(await stopEvents()).toEqual([]);

      // 60 more: past 200, the campaign stops.
      expect(await handOver(60)).toBe(60);
      await settleMessages(id);
      await syncMessages(t.platform, 1000);
      const stopped = await campaignRow(id);
      expect(stopped.running).toBe(false);
      expect(stopped.breaker_reason).toMatch(/^Hard bounces reached 10% \(21 of the first 210 messages\)/);
      // The webhook's event, queued in the stop's transaction.
      expect(await stopEvents()).toEqual([
        {
          type: 'campaign.stopped',
          ordering_key: `campaign:${id}`,
          payload: expect.objectContaining({
            type: 'campaign.stopped',
            data: { campaign_id: id, title: 'Cold outreach', reason: stopped.breaker_reason },
          }),
        },
      ]);

      // Its page says why; the user is notified and mailed.
      const general = (await agent.get(`/api/campaigns/get-data/general/${id}`)).json().campaign;
      expect(general).toMatchObject({ status: false, state: 'paused', breaker_reason: stopped.breaker_reason });
      const notifications = await t.platform.db
        .selectFrom('notifications')
        .select(['title', 'body', 'link'])
        .where('user_id', '=', user.id)
        .execute();
      expect(notifications).toEqual([
        {
          title: 'Your campaign “Cold outreach” was stopped',
          body: stopped.breaker_reason,
          link: `/campaigns/detail/${id}`,
        },
      ]);
      const jobs = await sql<{ data: { campaignId: number } }>`
        select data from pgboss.job where name = ${campaignBreakerEmailJob.name}`.execute(t.platform.db);
      expect(jobs.rows.map((row) => row.data)).toEqual([{ campaignId: id }]);
      await campaignBreakerEmailJob.handler({ campaignId: id }, t.platform, {
        jobId: 'test',
        retryCount: 0,
        signal: new AbortController().signal,
      });
      const mail = await mailSink.waitFor(user.email);
      expect(mail.subject).toBe('Your campaign “Cold outreach” was stopped');
      expect(mail.text).toContain(stopped.breaker_reason!);

      // Stopped: no recipient gets a further message.
      expect(await handOver(5)).toBe(0);

      // Started again by the user: it goes on, judged only on what goes from now on (too few yet).
      const started = await agent.post(`/api/campaigns/save-data/campaign-status/${id}`, { status: true });
      expect(started.statusCode, started.body).toBe(200);
      expect((await campaignRow(id)).breaker_reason).toBeNull();
      expect(await handOver(20)).toBe(20);
      await settleMessages(id);
      await syncMessages(t.platform, 1000);
      expect(await campaignRow(id)).toMatchObject({ running: true, breaker_reason: null });
    },
    PROCESS_PATIENCE_MS,
  );
});
