import { defaultDailyPlan, isWithinWindow, nextAllowedTime, type TDailyPlan, wallClock } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { PROCESS_PATIENCE_MS } from '../../../test/wait';
import { suppress } from '../suppression/suppression.service';
import { syncMessages, tickCampaigns } from './scheduler';

/**
 * Drip campaigns from outside: the wizard's calls as the page makes them, then the scheduler
 * on a simulated clock (each tick told what time it is), checked against the rules a
 * receiver and the user see: windows, pace, mail per day, order and waits, threading, stops.
 */

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => t?.close());

const NY = 'America/New_York';

const signedIn = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  await t.platform.db.updateTable('users').set({ time_zone: NY }).where('id', '=', user.id).execute();
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id);
  return { user, agent, accountId };
};

/** Weekdays 9:00 AM to 5:00 PM. */
const officeHours = (): TDailyPlan =>
  defaultDailyPlan().map((day) => ({
    ...day,
    checked: !['Sat', 'Sun'].includes(day.key),
    startHour: 9,
    startMin: 0,
    startType: 'AM' as const,
    endHour: 5,
    endMin: 0,
    endType: 'PM' as const,
  }));

const SEQUENCE = [
  {
    subject: 'Hello {{name::there}}',
    body: '<p>Hi {{name::there}}, from {{company::us}}.</p>',
    replyTo: 'sales@acme.test',
    globalReply: true,
  },
  { subject: 'Re: Hello {{name::there}}', body: '<p>Just following up.</p>', period: 1, frequency: 'day' as const },
  { subject: 'One last thing', body: '<p>Last one.</p>', period: 2, frequency: 'day' as const },
];

/** The wizard, step by step, as the page calls it. */
const buildCampaign = async (
  seeded: Awaited<ReturnType<typeof signedIn>>,
  recipients: { email: string; name?: string; variables?: Record<string, string> }[],
  { dailyPlan = officeHours(), schedule = null as string | null } = {},
) => {
  const start = await seeded.agent.put('/api/campaigns/save-campaign/1', {
    accountId: seeded.accountId,
    title: 'Autumn outreach',
    senderName: 'Acme',
    signature: '<p>— Acme</p>',
  });
  expect(start.statusCode, start.body).toBe(200);
  const temporary = start.json().temporaryKey as string;
  const saved = await seeded.agent.put('/api/campaigns/save-campaign/2', { temporary, recipients });
  expect(saved.statusCode, saved.body).toBe(200);
  const sequence = await seeded.agent.put('/api/campaigns/save-campaign/3', { temporary, drips: SEQUENCE, dailyPlan });
  expect(sequence.statusCode, sequence.body).toBe(200);
  expect((await seeded.agent.put('/api/campaigns/save-campaign/4', { temporary })).statusCode).toBe(200);
  const options = await seeded.agent.put('/api/campaigns/save-campaign/5', {
    temporary,
    options: { acceptLaw: true, trackOpens: true, scheduled: schedule !== null, scheduleTime: schedule },
  });
  expect(options.statusCode, options.body).toBe(200);
  const finished = await seeded.agent.put('/api/campaigns/save-campaign/6', { temporary });
  expect(finished.statusCode, finished.body).toBe(200);
  return { id: finished.json().id as number, temporary, saved: saved.json() };
};

describe('the wizard', () => {
  it('saves each step, resumes a draft at its furthest step, reads recipients as the import does, and refuses an unfinished campaign', async () => {
    const seeded = await signedIn();
    const start = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: '',
      senderName: '',
    });
    expect(start.statusCode).toBe(422);
    expect(Object.keys(start.json().errors)).toContain('title');
    const first = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'Draft',
      senderName: 'Acme',
    });
    const temporary = first.json().temporaryKey;
    const recipients = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      removeGeneric: true,
      recipients: [
        { email: 'ANN@example.com', name: 'Ann first' },
        // The same address again: the later row is the one kept.
        { email: 'Ann Lee <ann@example.com>', name: 'Ann', variables: { company: 'Initech', empty: '' } },
        { email: 'info@example.com', name: 'Info' },
        { email: 'not an address', name: 'x' },
        { email: 'kunde@bücher.example', name: 'Karl' },
      ],
    });
    expect(recipients.json()).toMatchObject({ status: true, count: 2, skipped: 2 });
    const resumed = await seeded.agent.post('/api/campaigns/get-temporary-data', { temporaryKey: temporary });
    expect(resumed.json().data).toMatchObject({
      step: 3,
      start: { title: 'Draft', senderName: 'Acme', from: 'Acme <news@acme.test>' },
      recipients: { count: 2, variables: ['company'] },
    });
    expect(
      resumed
        .json()
        .data.recipients.sample.map((row: { email: string }) => row.email)
        .sort(),
    ).toEqual(['ann@example.com', 'kunde@xn--bcher-kva.example']);
    // The draft is an unsaved campaign until it is finished; it cannot finish without emails.
    const drafts = await seeded.agent.get('/api/campaigns', { query: { temporary: '1' } });
    expect(drafts.json().data.map((row: { title: string; step: number }) => [row.title, row.step])).toEqual([
      ['Draft', 3],
    ]);
    const continued = await seeded.agent.get(`/api/campaigns/continue/${first.json().id}`);
    expect(continued.json().temporaryKey).toBe(temporary);
    expect((await seeded.agent.put('/api/campaigns/save-campaign/6', { temporary })).statusCode).toBe(409);
    const noDays = defaultDailyPlan().map((day) => ({ ...day, checked: false }));
    const sequence = await seeded.agent.put('/api/campaigns/save-campaign/3', {
      temporary,
      drips: SEQUENCE,
      dailyPlan: noDays,
    });
    expect(sequence.json().message).toBe('You must choose at least one');
    const law = await seeded.agent.put('/api/campaigns/save-campaign/5', { temporary, options: { acceptLaw: false } });
    expect(law.statusCode).toBe(422);
    // Another user finds nothing.
    const other = await signedIn();
    expect((await other.agent.post('/api/campaigns/get-temporary-data', { temporaryKey: temporary })).statusCode).toBe(
      404,
    );
    expect((await other.agent.get(`/api/campaigns/continue/${first.json().id}`)).statusCode).toBe(404);
  });
});

/** Runs the scheduler from `start` until nothing is left, jumping the clock to the next moment anything can happen. */
/**
 * Ticks the scheduler from `start` to `until` (or until nobody is active): 120 s after a
 * tick that handed something over, `idleStepMs` after one that did not.
 */
const runClock = async (
  start: Date,
  until: Date,
  { onTick, idleStepMs = 600_000 }: { onTick?: (now: Date) => Promise<void>; idleStepMs?: number } = {},
) => {
  let now = start;
  let ticks = 0;
  while (now < until) {
    await onTick?.(now);
    // Outcomes are learnt when the test says so (the engine does not deliver here: every message stays queued).
    const handed = await tickCampaigns(t.platform, now, { sync: false });
    ticks += 1;
    if (handed === 0) {
      const active = await t.platform.db
        .selectFrom('campaign_recipients')
        .select('id')
        .where('state', '=', 'active')
        .limit(1)
        .executeTakeFirst();
      if (!active) break;
    }
    // The account's pace: the next hand-over is 120 s later at the earliest.
    now = new Date(now.getTime() + (handed > 0 ? 120_000 : idleStepMs));
  }
  return ticks;
};

describe('the scheduler on a simulated clock', () => {
  it('starts suppressed addresses stopped, says finished on its page once nobody is left, and deletes campaigns (issue 29 item 8)', async () => {
    const seeded = await signedIn();
    await suppress(t.platform.db, [
      {
        userId: seeded.user.id,
        email: 'Gone@Example.com',
        type: 'bounce',
        reason: 'permanent failure',
        source: 'smtp',
      },
    ]);
    const { id, saved } = await buildCampaign(seeded, [
      { email: 'gone@example.com', name: 'Gone' },
      { email: 'a@example.com', name: 'A' },
      { email: 'b@example.com', name: 'B' },
    ]);
    expect(saved).toMatchObject({ count: 3, suppressed: 1 });
    expect(saved.message).toContain('1 of them bounced, complained or unsubscribed before and will not be sent to.');
    const members = (await seeded.agent.get(`/api/campaigns/get-data/members/${id}`)).json().data as {
      email: string;
      state: string;
      stop_reason: string | null;
      due_at: string | null;
    }[];
    expect(members.find((member) => member.email === 'gone@example.com')).toMatchObject({
      state: 'stopped',
      stop_reason: 'suppressed',
      due_at: null,
    });
    expect(members.filter((member) => member.state === 'active')).toHaveLength(2);
    const general = async () => (await seeded.agent.get(`/api/campaigns/get-data/general/${id}`)).json().campaign;
    expect(await general()).toMatchObject({ status: true, state: 'running' });

    // The recipients step's verification offer found a@ invalid: the next hand-over stops it, sends nothing.
    await t.platform.db
      .insertInto('verified_addresses')
      .values({ user_id: seeded.user.id, email: 'A@example.com', verdict: 'invalid', reason: 'no such mailbox' })
      .execute();
    // A Monday, 10:00 AM in New York: inside the office hours, long after the campaign's start.
    await tickCampaigns(t.platform, new Date('2030-01-07T15:00:00Z'));
    const stoppedInvalid = await t.platform.db
      .selectFrom('campaign_recipients')
      .select(['state', 'stop_reason'])
      .where('campaign_id', '=', id)
      .where('email', '=', 'a@example.com')
      .executeTakeFirstOrThrow();
    expect(stoppedInvalid).toEqual({ state: 'stopped', stop_reason: 'invalid' });
    // The tick went on to the next recipient: b@ got email 1, a@ and the suppressed address nothing.
    const handedOver = await t.platform.db
      .selectFrom('campaign_messages')
      .innerJoin('campaign_recipients', 'campaign_recipients.id', 'campaign_messages.recipient_id')
      .select('campaign_recipients.email')
      .where('campaign_messages.campaign_id', '=', id)
      .execute();
    expect(handedOver).toEqual([{ email: 'b@example.com' }]);

    // Everyone left has had every step: the list and the page both say Finished.
    await t.platform.db
      .updateTable('campaign_recipients')
      .set({ state: 'done' })
      .where('campaign_id', '=', id)
      .where('state', '=', 'active')
      .execute();
    expect(await general()).toMatchObject({ status: true, state: 'finished' });
    const listed = (await seeded.agent.get('/api/campaigns')).json().data as { id: number; status: string }[];
    expect(listed.find((row) => row.id === id)?.status).toBe('finished');

    // Deleting: another user's campaign is 404 and stays; an unsaved one and a saved one go.
    const other = await signedIn();
    expect((await other.agent.post('/api/campaigns/delete', { ids: [id] })).statusCode).toBe(404);
    const draft = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'Never finished',
      senderName: 'Acme',
    });
    const draftId = draft.json().id as number;
    const deleted = await seeded.agent.post('/api/campaigns/delete', { ids: [id, draftId] });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().message).toBe('2 campaigns were deleted.');
    expect((await seeded.agent.get(`/api/campaigns/get-data/general/${id}`)).statusCode).toBe(404);
    expect((await seeded.agent.get('/api/campaigns', { query: { temporary: '1' } })).json().data).toEqual([]);
  });

  it(
    'sends a 3-step campaign to 400 recipients in its windows, at its pace and daily cap, in order, threaded, and stops for unsubscribes and bounces',
    async () => {
      const seeded = await signedIn();
      // The cap binds before the window closes (8 hours at one hand-over per 120 s allow 240
      // a day), so the run spans 15 working days, as 1,000 recipients at 200 a day would.
      const [size, perDayCap] = [400, 80];
      const recipients = Array.from({ length: size }, (_, index) => ({
        email: `r${index}@example.com`,
        name: `R${index}`,
        variables: (index % 2 ? { company: 'Initech' } : {}) as Record<string, string>,
      }));
      // Scheduled for Monday 30 November 2026, 8:00 AM New York: the window opens at 9:00.
      const { id } = await buildCampaign(seeded, recipients, { schedule: '2026-11-30T13:00:00.000Z' });
      await t.platform.db.updateTable('campaigns').set({ mail_per_day: perDayCap }).where('id', '=', id).execute();
      const recipientId = async (email: string) =>
        (
          await t.platform.db
            .selectFrom('campaign_recipients')
            .select('id')
            .where('campaign_id', '=', id)
            .where('email', '=', email)
            .executeTakeFirstOrThrow()
        ).id;
      const [unsubscriber, bouncer] = [await recipientId('r1@example.com'), await recipientId('r2@example.com')];
      let stopsDone = false;
      const ticks = await runClock(new Date('2026-11-30T13:00:00Z'), new Date('2027-01-20T00:00:00Z'), {
        // Most days are spent past the cap or outside the window: idle ticks half an hour apart.
        idleStepMs: 1_800_000,
        onTick: async () => {
          if (stopsDone) return;
          const firsts = await t.platform.db
            .selectFrom('campaign_messages')
            .select(['recipient_id', 'send_id'])
            .where('recipient_id', 'in', [unsubscriber, bouncer])
            .execute();
          if (firsts.length < 2) return;
          // r1 unsubscribes with the one-click link of its first message; r2's first message bounces.
          const unsubscribed = firsts.find((row) => row.recipient_id === unsubscriber)!;
          const { token } = await t.platform.db
            .selectFrom('send_recipients')
            .select('token')
            .where('send_id', '=', unsubscribed.send_id!)
            .executeTakeFirstOrThrow();
          const oneClick = await t.app.inject({
            method: 'POST',
            url: `/api/unsubscribe/${token}`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'List-Unsubscribe=One-Click',
          });
          expect(oneClick.statusCode, oneClick.body).toBeLessThan(300);
          const bounced = firsts.find((row) => row.recipient_id === bouncer)!;
          await t.platform.db
            .updateTable('send_recipients')
            .set({ status: 'failed', error: '550 5.1.1 No such user' })
            .where('send_id', '=', bounced.send_id!)
            .execute();
          // Every open message (the earlier tests' thousands too), not the 500 of one tick.
          await syncMessages(t.platform, 100_000);
          stopsDone = true;
        },
      });
      expect(stopsDone).toBe(true);
      const messages = await t.platform.db
        .selectFrom('campaign_messages')
        .select(['recipient_id', 'position', 'created_at', 'send_id', 'subject', 'message_id'])
        .where('campaign_id', '=', id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      // Everyone got all three steps, except the unsubscriber and the bouncer (step 1 only).
      expect(messages).toHaveLength((size - 2) * 3 + 2);
      const plan = officeHours();
      const perDay = new Map<string, number>();
      for (const [index, message] of messages.entries()) {
        expect(isWithinWindow(message.created_at, plan, NY), message.created_at.toISOString()).toBe(true);
        if (index > 0) {
          expect(message.created_at.getTime() - messages[index - 1]!.created_at.getTime()).toBeGreaterThanOrEqual(
            120_000,
          );
        }
        const clock = wallClock(message.created_at, NY);
        const day = `${clock.year}-${clock.month}-${clock.day}`;
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
      }
      expect(Math.max(...perDay.values())).toBe(perDayCap);
      // Per recipient: steps in order, each after its wait (1 day, then 2 days) moved into the windows.
      const byRecipient = new Map<number, typeof messages>();
      for (const message of messages)
        byRecipient.set(message.recipient_id, [...(byRecipient.get(message.recipient_id) ?? []), message]);
      for (const [recipient, own] of byRecipient) {
        if (recipient === unsubscriber || recipient === bouncer) {
          expect(own.map((message) => message.position)).toEqual([1]);
          continue;
        }
        expect(own.map((message) => message.position)).toEqual([1, 2, 3]);
        const [one, two, three] = own.map((message) => message.created_at.getTime());
        expect(two! - one!).toBeGreaterThanOrEqual(86_400_000 - 3_600_000);
        expect(three! - two!).toBeGreaterThanOrEqual(2 * 86_400_000 - 3_600_000);
      }
      const stops = await t.platform.db
        .selectFrom('campaign_recipients')
        .select(['id', 'state', 'stop_reason'])
        .where('id', 'in', [unsubscriber, bouncer])
        .orderBy('id')
        .execute();
      expect(stops).toEqual([
        { id: unsubscriber, state: 'stopped', stop_reason: 'unsubscribed' },
        { id: bouncer, state: 'stopped', stop_reason: 'bounced' },
      ]);
      // The follow-up with the same subject is in the first message's thread; the third, with a new subject, is not.
      const sample = byRecipient.get(await recipientId('r10@example.com'))!;
      const headers = await t.platform.db
        .selectFrom('send_recipients')
        .select(['send_id', 'headers', 'fields'])
        .where(
          'send_id',
          'in',
          sample.map((message) => message.send_id!),
        )
        .orderBy('send_id')
        .execute();
      expect(headers[0]!.headers).toBeNull();
      expect(headers[1]!.headers).toEqual({ 'In-Reply-To': sample[0]!.message_id, References: sample[0]!.message_id });
      expect(headers[2]!.headers).toBeNull();
      expect(ticks).toBeGreaterThan(0);

      // The views' figures.
      const overview = (await seeded.agent.get(`/api/campaigns/get-data/overview/${id}`)).json().campaign;
      expect(overview).toMatchObject({ recipients: size, emails: 3, queued: (size - 2) * 3 + 1, bounced: 1 });
      const emails = (await seeded.agent.get(`/api/campaigns/get-data/emails/${id}`)).json().emails;
      expect(emails.map((email: { order: number; queued_count: number }) => [email.order, email.queued_count])).toEqual(
        [
          [1, size - 1],
          [2, size - 2],
          [3, size - 2],
        ],
      );
      const history = (await seeded.agent.get(`/api/campaigns/get-data/recipient-history/${bouncer}`)).json().history;
      expect(history).toEqual([
        expect.objectContaining({ event_type: 'failed', order: 1, message: '550 5.1.1 No such user' }),
      ]);
      const bouncedFilter = await seeded.agent.get(`/api/campaigns/get-data/members/${id}`, {
        query: { filter: 'bounced' },
      });
      expect(bouncedFilter.json().data.map((row: { email: string }) => row.email)).toEqual(['r2@example.com']);
    },
    PROCESS_PATIENCE_MS,
  );

  it(
    'pauses and resumes the campaign five times and a recipient once: nobody gets a step twice, nobody is skipped (R5)',
    async () => {
      const seeded = await signedIn();
      const recipients = Array.from({ length: 30 }, (_, index) => ({
        email: `p${index}@example.com`,
        name: `P${index}`,
      }));
      const everyDay = defaultDailyPlan().map((day) => ({
        ...day,
        startHour: 12,
        startType: 'AM' as const,
        endHour: 11,
        endMin: 59,
        endType: 'PM' as const,
      }));
      const { id } = await buildCampaign(seeded, recipients, {
        dailyPlan: everyDay,
        schedule: '2026-12-01T00:00:00.000Z',
      });
      const pausedOne = (
        await t.platform.db
          .selectFrom('campaign_recipients')
          .select('id')
          .where('campaign_id', '=', id)
          .where('email', '=', 'p7@example.com')
          .executeTakeFirstOrThrow()
      ).id;
      expect(
        (
          await seeded.agent.post(`/api/campaigns/save-data/recipient-status/${id}`, {
            emailId: pausedOne,
            status: false,
          })
        ).statusCode,
      ).toBe(200);
      let tick = 0;
      await runClock(new Date('2026-12-01T00:00:00Z'), new Date('2026-12-20T00:00:00Z'), {
        onTick: async () => {
          tick += 1;
          // Paused for a few ticks in every 20, five times over.
          if (tick % 20 === 5 && tick <= 100)
            await seeded.agent.post(`/api/campaigns/save-data/campaign-status/${id}`, { status: false });
          if (tick % 20 === 9 && tick <= 100)
            await seeded.agent.post(`/api/campaigns/save-data/campaign-status/${id}`, { status: true });
          if (tick === 150)
            await seeded.agent.post(`/api/campaigns/save-data/recipient-status/${id}`, {
              emailId: pausedOne,
              status: true,
            });
        },
      });
      const rows = await sql<{ position: number; count: number; distinct: number }>`
      select position, count(*)::int as count, count(distinct recipient_id)::int as distinct
        from campaign_messages where campaign_id = ${id} group by position order by position`.execute(t.platform.db);
      expect(rows.rows).toEqual([
        { position: 1, count: 30, distinct: 30 },
        { position: 2, count: 30, distinct: 30 },
        { position: 3, count: 30, distinct: 30 },
      ]);
      // Nothing went while the campaign was paused.
      expect(nextAllowedTime(new Date('2026-12-01T00:00:00Z'), everyDay, NY).toISOString()).toBe(
        '2026-12-01T00:00:00.000Z',
      );
      // Hundreds of ticks of a simulated clock, each a few statements: slow only on a loaded machine.
    },
    PROCESS_PATIENCE_MS,
  );

  it('edits a running sequence without touching what was handed over, and keeps each recipient’s place', async () => {
    const seeded = await signedIn();
    const everyDay = defaultDailyPlan().map((day) => ({ ...day, endHour: 11, endMin: 59, endType: 'PM' as const }));
    const { id } = await buildCampaign(seeded, [{ email: 'e1@example.com', name: 'E1' }], {
      dailyPlan: everyDay,
      schedule: '2026-12-01T05:00:00.000Z',
    });
    await tickCampaigns(t.platform, new Date('2026-12-01T05:00:00Z'));
    const emails = (await seeded.agent.get(`/api/campaigns/get-data/emails/${id}`)).json().emails as {
      id: number;
      subject: string;
      body: string;
      period: number;
      frequency: string;
    }[];
    // Step 2 deleted, step 1 reworded: the recipient now waits for the old step 3, and the sent step 1 keeps its words.
    const edited = await seeded.agent.post(`/api/campaigns/save-data/emails/${id}`, {
      dailyPlan: everyDay,
      emails: [
        { id: emails[0]!.id, subject: 'Changed', body: '<p>Changed</p>' },
        { id: emails[2]!.id, subject: emails[2]!.subject, body: emails[2]!.body, period: 1, frequency: 'hour' },
      ],
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const recipient = await t.platform.db
      .selectFrom('campaign_recipients')
      .select(['next_position', 'state'])
      .where('campaign_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(recipient).toEqual({ next_position: 2, state: 'active' });
    const first = await t.platform.db
      .selectFrom('campaign_messages')
      .select('subject')
      .where('campaign_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(first.subject).toBe('Hello {{name::there}}');
    const sends = await t.platform.db
      .selectFrom('sends')
      .select('subject')
      .where('user_id', '=', seeded.user.id)
      .execute();
    expect(sends.map((send) => send.subject)).toEqual(['Hello {{name::there}}']);
    await tickCampaigns(t.platform, new Date('2026-12-03T05:00:00Z'));
    const second = await t.platform.db
      .selectFrom('campaign_messages')
      .select(['subject', 'position'])
      .where('campaign_id', '=', id)
      .orderBy('id')
      .execute();
    expect(second).toEqual([
      { subject: 'Hello {{name::there}}', position: 1 },
      { subject: 'One last thing', position: 2 },
    ]);
  });
});

describe('follow-ups', () => {
  it('follows up an email not opened within its days, and a click on the given link the days after, once each, in the thread', async () => {
    const seeded = await signedIn();
    const everyDay = defaultDailyPlan().map((day) => ({ ...day, endHour: 12, endType: 'AM' as const }));
    const start = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'Offer',
      senderName: 'Acme',
    });
    const temporary = start.json().temporaryKey;
    await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: ['a', 'b', 'c'].map((name) => ({ email: `${name}@example.com`, name })),
    });
    const sequence = await seeded.agent.put('/api/campaigns/save-campaign/3', {
      temporary,
      dailyPlan: everyDay,
      drips: [
        {
          subject: 'Our offer',
          body: '<p>See <a href="https://acme.test/offer">the offer</a>.</p>',
          followUp: { waitDays: 2, subject: 'Did you see it?', body: '<p>In case you missed it.</p>' },
          clickFollowUp: {
            waitDays: 1,
            link: 'https://acme.test/offer',
            subject: 'Thanks for looking',
            body: '<p>Questions?</p>',
          },
        },
      ],
    });
    expect(sequence.statusCode, sequence.body).toBe(200);
    await seeded.agent.put('/api/campaigns/save-campaign/4', { temporary });
    await seeded.agent.put('/api/campaigns/save-campaign/5', {
      temporary,
      options: { acceptLaw: true, scheduled: true, scheduleTime: '2026-12-07T05:00:00.000Z' },
    });
    const { id } = (await seeded.agent.put('/api/campaigns/save-campaign/6', { temporary })).json();
    const t0 = new Date('2026-12-07T05:00:00Z').getTime();
    for (let step = 0; step < 3; step++)
      await tickCampaigns(t.platform, new Date(t0 + step * 120_000), { sync: false });
    const sendOf = async (email: string) =>
      await t.platform.db
        .selectFrom('campaign_messages')
        .innerJoin('campaign_recipients', 'campaign_recipients.id', 'campaign_messages.recipient_id')
        .select(['campaign_messages.send_id', 'campaign_messages.message_id'])
        .where('campaign_messages.campaign_id', '=', id)
        .where('campaign_recipients.email', '=', email)
        // The step's message: once a follow-up exists, the recipient has two.
        .orderBy('campaign_messages.id')
        .executeTakeFirstOrThrow();
    // b opens; c opens and clicks the offer an hour in (as the tracking routes record them).
    const hourIn = new Date(t0 + 3_600_000);
    for (const email of ['b@example.com', 'c@example.com']) {
      await t.platform.db
        .updateTable('send_recipients')
        .set({
          status: 'sent',
          sent_at: new Date(t0),
          opened_at: hourIn,
          ...(email.startsWith('c') ? { clicked_at: hourIn } : {}),
        })
        .where('send_id', '=', (await sendOf(email)).send_id!)
        .execute();
    }
    const c = await sendOf('c@example.com');
    const link = await t.platform.db
      .insertInto('send_links')
      .values({ send_id: c.send_id!, url: 'https://acme.test/offer' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.db
      .insertInto('delivery_events')
      .values({
        user_id: seeded.user.id,
        account_id: seeded.accountId,
        send_id: c.send_id!,
        email: 'c@example.com',
        type: 'clicked',
        source: 'tracking',
        link_id: link.id,
        occurred_at: hourIn,
      })
      .execute();
    // Every open message (the earlier tests' thousands too), not the 500 of one tick.
    await syncMessages(t.platform, 100_000);

    // A day and an hour in: c's click follow-up is due; nothing else yet.
    await tickCampaigns(t.platform, new Date(t0 + 86_400_000 + 3_700_000), { sync: false });
    // Two days in: a's not-opened follow-up (b and c opened); then nothing more, however late.
    for (let step = 0; step < 4; step++) {
      await tickCampaigns(t.platform, new Date(t0 + 2 * 86_400_000 + 600_000 + step * 130_000), { sync: false });
    }
    const messages = await t.platform.db
      .selectFrom('campaign_messages')
      .innerJoin('campaign_recipients', 'campaign_recipients.id', 'campaign_messages.recipient_id')
      .select([
        'campaign_recipients.email',
        'campaign_messages.kind',
        'campaign_messages.subject',
        'campaign_messages.send_id',
      ])
      .where('campaign_messages.campaign_id', '=', id)
      .orderBy('campaign_messages.id')
      .execute();
    expect(messages.map((message) => [message.email, message.kind, message.subject])).toEqual([
      ['a@example.com', 'step', 'Our offer'],
      ['b@example.com', 'step', 'Our offer'],
      ['c@example.com', 'step', 'Our offer'],
      ['c@example.com', 'click-follow-up', 'Thanks for looking'],
      ['a@example.com', 'follow-up', 'Did you see it?'],
    ]);
    const followUp = await t.platform.db
      .selectFrom('send_recipients')
      .select('headers')
      .where('send_id', '=', messages[4]!.send_id!)
      .executeTakeFirstOrThrow();
    const a = await sendOf('a@example.com');
    expect(followUp.headers).toEqual({ 'In-Reply-To': a.message_id, References: a.message_id });
    // The step's own counts stay the step's.
    const emails = (await seeded.agent.get(`/api/campaigns/get-data/emails/${id}`)).json().emails;
    expect(emails[0]).toMatchObject({
      queued_count: 1,
      sent_count: 2,
      follow_up: { waitDays: 2 },
      click_follow_up: { link: 'https://acme.test/offer' },
    });
  });
});
