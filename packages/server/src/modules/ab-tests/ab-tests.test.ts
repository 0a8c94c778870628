import { AB_MESSAGES, abSplitSizes } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestApp, type TTestApp } from '../../../test/app';
import { queuedJobRunner } from '../../../test/jobs';
import { seedSinkList, startCountingSink, type TCountingSink } from '../../../test/sending';
import { dispatch, dispatchSendJob, snapshotSendJob } from '../delivery/delivery.jobs';
import { applyOutcomes, type TIntakeEvent } from '../delivery/delivery.service';
import { decideAbTest, decideAbTestJob } from './ab-tests.jobs';

/**
 * A/B subject test (issue 31 §4): a send from the Send Email call with two subjects over SMTP
 * to a sink on loopback; the test share dealt out evenly, opens recorded through the real
 * intake, the decision job run (twice, and two at once), the rest sent with the winning
 * subject through the engine; History shows the result.
 */

let t: TTestApp;
let sink: TCountingSink;
beforeAll(async () => {
  sink = await startCountingSink();
  t = await startTestApp({ ALLOW_LOOPBACK_SMTP: 'true', PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const MEMBERS = 50;

const setup = async () => {
  const emails = Array.from({ length: MEMBERS }, (_, index) => `ab${Date.now()}-${index + 1}@example.com`);
  const seeded = await seedSinkList(t.platform, { sinkPort: sink.port, members: emails });
  const agent = createAgent(t.app);
  await agent.signIn(seeded.user.email, seeded.user.password);
  const form = (extra: Record<string, unknown> = {}) => ({
    account: seeded.accountId,
    senderName: 'Acme',
    to: [seeded.listId],
    subject: 'Our November news',
    message: '<p>Hello {{name}}, see <a href="https://acme.test/sale">the sale</a>.</p>',
    abTest: true,
    subjectB: 'Half price until Sunday',
    abTestPercent: 20,
    abWaitMinutes: 0.1,
    abMetric: 'opens',
    ...extra,
  });
  return { ...seeded, emails, agent, form };
};

const partsOf = (leadId: number) =>
  t.platform.db
    .selectFrom('sends')
    .select(['id', 'split_part', 'status', 'subject', 'recipients_count', 'account_id'])
    .where('split_group', '=', leadId)
    .orderBy('split_part')
    .execute();

const recipientsOf = async (sendId: number) =>
  (
    await t.platform.db
      .selectFrom('send_recipients')
      .select('email')
      .where('send_id', '=', sendId)
      .orderBy('email')
      .execute()
  ).map((row) => row.email);

/** What the world said: these recipients of a send opened (and clicked) it, through the one intake. */
const engage = async (sendId: number, emails: string[], type: 'opened' | 'clicked') => {
  const recipients = await t.platform.db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select(['send_recipients.id', 'send_recipients.email', 'send_recipients.user_id', 'sends.account_id'])
    .where('send_id', '=', sendId)
    .where('send_recipients.email', 'in', emails)
    .execute();
  const link =
    type === 'clicked'
      ? Number(
          (
            await t.platform.db
              .selectFrom('send_links')
              .select('id')
              .where('send_id', '=', sendId)
              .executeTakeFirstOrThrow()
          ).id,
        )
      : undefined;
  const events: TIntakeEvent[] = recipients.map((recipient) => ({
    recipient: {
      id: Number(recipient.id),
      send_id: sendId,
      email: recipient.email,
      user_id: recipient.user_id,
      account_id: recipient.account_id,
    },
    userId: recipient.user_id,
    accountId: recipient.account_id,
    email: recipient.email,
    type,
    source: 'tracking',
    ...(link ? { linkId: link } : {}),
  }));
  await t.platform.db.transaction().execute((trx) => applyOutcomes(t.platform, trx, events));
};

const abTestOf = (leadId: number) =>
  t.platform.db.selectFrom('ab_tests').selectAll().where('lead_send_id', '=', leadId).executeTakeFirstOrThrow();

describe('A/B subject test', () => {
  it('splits the test share evenly, sends the better open rate’s subject to the rest, nobody twice, decided once', async () => {
    const s = await setup();
    const runQueued = queuedJobRunner(t.platform);
    const response = await s.agent.post('/api/email/send', s.form());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: true, message: AB_MESSAGES.started, scheduled: false });
    const leadId = response.json().sendId as number;
    const test = await abTestOf(leadId);
    expect(test).toMatchObject({ status: 'testing', metric: 'opens', wait_minutes: 0.1 });
    // The decision is queued with the test, for its time.
    const decideJob = (
      await sql<{ start_after: Date }>`select start_after from pgboss.job
        where name = ${decideAbTestJob.name} and data->>'abTestId' = ${String(test.id)}`.execute(t.platform.db)
    ).rows;
    expect(decideJob).toHaveLength(1);
    expect(decideJob[0]!.start_after.getTime()).toBeGreaterThanOrEqual(test.created_at.getTime() + 5_000);

    // A decision before the snapshot (the queue behind) judges nothing and asks again shortly.
    await decideAbTest(t.platform, test.id);
    expect((await abTestOf(leadId)).status).toBe('testing');
    const asked = await sql`select id from pgboss.job
      where name = ${decideAbTestJob.name} and data->>'abTestId' = ${String(test.id)}`.execute(t.platform.db);
    expect(asked.rows).toHaveLength(2);

    // The lead's snapshot deals the audience out; the test parts go, the rest is held.
    expect(await runQueued(snapshotSendJob)).toBe(1);
    const [rest, a, b] = await partsOf(leadId);
    const sizes = abSplitSizes(MEMBERS, 20, 2);
    expect(sizes).toEqual({ perPart: 5, rest: 40 });
    expect([a!.recipients_count, b!.recipients_count, rest!.recipients_count]).toEqual([5, 5, 40]);
    expect(rest).toMatchObject({ split_part: 0, status: 'held', subject: 'Our November news' });
    expect([a!.subject, b!.subject]).toEqual(['Our November news', 'Half price until Sunday']);
    const dealt = [...(await recipientsOf(a!.id)), ...(await recipientsOf(b!.id)), ...(await recipientsOf(rest!.id))];
    expect(dealt.sort()).toEqual([...s.emails].sort());

    // A decision while the test parts wait to be handed over judges nothing and looks again as
    // often as the wait is long (6 s here; at most every 30 s): the wait starts at their handover
    // (issue 45 §3; a capped account's parts may take days).
    await decideAbTest(t.platform, test.id);
    expect((await abTestOf(leadId)).status).toBe('testing');
    const lookedAgain = (
      await sql<{ start_after: Date; created_on: Date }>`select start_after, created_on from pgboss.job
        where name = ${decideAbTestJob.name} and data->>'abTestId' = ${String(test.id)} order by created_on desc`.execute(
        t.platform.db,
      )
    ).rows;
    expect(lookedAgain).toHaveLength(3);
    const lookAgainMs = lookedAgain[0]!.start_after.getTime() - lookedAgain[0]!.created_on.getTime();
    expect(lookAgainMs).toBeGreaterThanOrEqual(5_000);
    expect(lookAgainMs).toBeLessThanOrEqual(30_000);

    // The test parts go through the engine (their dispatch jobs were queued by the snapshot).
    const sentBefore = sink.count();
    expect(await runQueued(dispatchSendJob)).toBe(2);
    expect(sink.count() - sentBefore).toBe(10);
    expect(await runQueued(dispatchSendJob)).toBe(0);

    // Subject B: 3 of 5 open; A: 1 of 5 (and A's one clicks too: clicks do not decide an open test).
    const aRecipients = await recipientsOf(a!.id);
    const bRecipients = await recipientsOf(b!.id);
    await engage(a!.id, aRecipients.slice(0, 1), 'opened');
    await engage(a!.id, aRecipients.slice(0, 1), 'clicked');
    await engage(b!.id, bRecipients.slice(0, 3), 'opened');

    // Handed over, the test is due its wait after the last handover (10 minutes here): a decision
    // now sets that time and waits for it.
    await t.platform.db.updateTable('ab_tests').set({ wait_minutes: 10 }).where('id', '=', test.id).execute();
    await decideAbTest(t.platform, test.id);
    const lastHandover = (
      await sql<{ last: Date }>`select max(occurred_at) as last from delivery_events
        where send_id in (${a!.id}, ${b!.id}) and type = 'accepted'`.execute(t.platform.db)
    ).rows[0]!.last;
    const due = await abTestOf(leadId);
    expect(due.status).toBe('testing');
    expect(due.decide_at.getTime()).toBe(lastHandover.getTime() + 10 * 60_000);
    // As if the wait had passed.
    await sql`update delivery_events set occurred_at = occurred_at - interval '11 minutes'
      where send_id in (${a!.id}, ${b!.id})`.execute(t.platform.db);

    // Two decisions at once and one after: the rest is let go once.
    await Promise.all([decideAbTest(t.platform, test.id), decideAbTest(t.platform, test.id)]);
    // The queued decisions (its own and the ones asked again) find it decided.
    expect(await runQueued(decideAbTestJob)).toBe(4);
    const decided = await abTestOf(leadId);
    expect(decided).toMatchObject({
      status: 'decided',
      winner_part: 2,
      decision: 'Subject B had the best open rate: 60%.',
    });
    expect(decided.decided_at).not.toBeNull();
    const [released] = await partsOf(leadId);
    expect(released).toMatchObject({ status: 'sending', subject: 'Half price until Sunday' });
    expect(await runQueued(dispatchSendJob)).toBe(1);
    await dispatch(t.platform, rest!.id);
    expect(sink.count() - sentBefore).toBe(MEMBERS);
    for (const email of s.emails) expect(sink.received.get(email), email).toHaveLength(1);
    expect((await partsOf(leadId)).map((part) => part.status)).toEqual(['finished', 'finished', 'finished']);
    const notifications = await t.platform.db
      .selectFrom('notifications')
      .select('title')
      .where('user_id', '=', s.user.id)
      .where('title', 'like', 'A/B test%')
      .execute();
    expect(notifications).toEqual([{ title: 'A/B test: subject B won, “Half price until Sunday”' }]);

    // History: each part's row says which it is; the details carry the result.
    const history = await s.agent.get('/api/history?per_page=20');
    expect(
      history
        .json()
        .data.map((row: { id: number; ab_test: { label: string } | null }) => [row.id, row.ab_test?.label])
        .sort(),
    ).toEqual(
      [
        [a!.id, 'A/B test · subject A'],
        [b!.id, 'A/B test · subject B'],
        [rest!.id, 'A/B test · winner to the rest'],
      ].sort(),
    );
    const details = await s.agent.get(`/api/history/details/${rest!.account_id}/${rest!.id}`);
    expect(details.statusCode, details.body).toBe(200);
    expect(details.json().abTest).toMatchObject({
      metric: 'opens',
      testPercent: 20,
      status: 'decided',
      decision: 'Subject B had the best open rate: 60%.',
      variants: [
        { letter: 'A', recipients: 5, opened: 1, clicked: 1, openRate: 20, clickRate: 20, isWinner: false },
        { letter: 'B', recipients: 5, opened: 3, clicked: 0, openRate: 60, clickRate: 0, isWinner: true },
      ],
      rest: { sendId: rest!.id, recipients: 40, state: 'finished' },
    });
    // The details' own figures are the part's (R33): the rest's 40.
    expect(details.json().counts.recipients_count).toBe(40);
  });

  it('keeps subject A when nobody clicked, and sends nothing to a rest cancelled before the decision', async () => {
    const s = await setup();
    const runQueued = queuedJobRunner(t.platform);
    const noData = await s.agent.post('/api/email/send', s.form({ abMetric: 'clicks', subjectC: 'Last call' }));
    expect(noData.statusCode, noData.body).toBe(200);
    await runQueued(snapshotSendJob);
    const parts = await partsOf(noData.json().sendId);
    // Three subjects: 20 % of 50 is 10, three each (round(10 / 3)), 41 for the rest.
    expect(parts.map((part) => part.recipients_count)).toEqual([41, 3, 3, 3]);
    await runQueued(dispatchSendJob);
    // As if the wait after the handover had passed.
    const testParts = parts.filter((part) => part.split_part !== 0).map((part) => part.id);
    await sql`update delivery_events set occurred_at = occurred_at - interval '1 hour'
      where send_id = any(${testParts}::bigint[])`.execute(t.platform.db);
    await decideAbTest(t.platform, (await abTestOf(noData.json().sendId)).id);
    expect(await abTestOf(noData.json().sendId)).toMatchObject({
      status: 'decided',
      winner_part: 1,
      decision: 'No clicks were recorded in the test, so subject A (the first) goes to the rest.',
    });
    expect((await partsOf(noData.json().sendId))[0]!.subject).toBe('Our November news');

    // Another test whose rest the user cancels while it is held.
    const other = await s.agent.post('/api/email/send', s.form());
    const otherLead = other.json().sendId as number;
    await runQueued(snapshotSendJob);
    const [otherRest] = await partsOf(otherLead);
    expect(otherRest!.status).toBe('held');
    const cancelled = await s.agent.post(`/api/email/sends/${otherRest!.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    await decideAbTest(t.platform, (await abTestOf(otherLead)).id);
    expect(await abTestOf(otherLead)).toMatchObject({ status: 'cancelled', winner_part: null });
    expect((await partsOf(otherLead))[0]!.status).toBe('cancelled');
    const restJobs = await sql`select id from pgboss.job
      where name = ${dispatchSendJob.name} and data->>'sendId' = ${String(otherRest!.id)}`.execute(t.platform.db);
    expect(restJobs.rows).toEqual([]);
    await runQueued(dispatchSendJob);
    const after = sink.count();
    await dispatch(t.platform, otherRest!.id);
    expect(sink.count()).toBe(after);
  });

  it('refuses an A/B test without a second subject, with equal subjects, untracked, or scheduled', async () => {
    const s = await setup();
    const missing = await s.agent.post('/api/email/send', s.form({ subjectB: ' ' }));
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors.subjectB).toEqual([AB_MESSAGES.subjectBRequired]);
    const same = await s.agent.post('/api/email/send', s.form({ subjectB: 'our november NEWS' }));
    expect(same.json().errors.subjectB).toEqual([AB_MESSAGES.subjectsDiffer]);
    const untracked = await s.agent.post('/api/email/send', s.form({ trackOpens: false }));
    expect(untracked.json().errors.abMetric).toEqual([AB_MESSAGES.opensUntracked]);
    const share = await s.agent.post('/api/email/send', s.form({ abTestPercent: 80 }));
    expect(share.statusCode).toBe(422);
    const scheduled = await s.agent.post(
      '/api/email/send',
      s.form({ sendLater: true, delivery: '2099-01-01 10:00 AM' }),
    );
    expect(scheduled.json().errors.abTest).toEqual([AB_MESSAGES.noSchedule]);
    expect(await t.platform.db.selectFrom('sends').select('id').where('user_id', '=', s.user.id).execute()).toEqual([]);
  });
});
