import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestApp, type TTestApp } from '../../../test/app';
import { seedSinkList, startCountingSink, type TCountingSink } from '../../../test/sending';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';
import { applyOutcomes, createSend, type TIntakeEvent } from '../delivery/delivery.service';
import { suppress } from '../suppression/suppression.service';

/**
 * Re-send by engagement (issue 31 §3): a finished send over SMTP to a sink on loopback, its
 * opens, clicks, unsubscribes and bounces recorded through the real intake, then a new send to
 * those who did not open / opened / clicked, through the History calls, the count first.
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

const emails = Array.from({ length: 10 }, (_, index) => `r${index + 1}@example.com`);

/** A user whose send of '<p>Hello</p>' with one link went to r1…r10 and finished. */
const finishedSend = async () => {
  const { user, accountId, listId } = await seedSinkList(t.platform, { sinkPort: sink.port, members: emails });
  const sendId = await createSend(t.platform, user.id, {
    accountId,
    fromName: 'Acme',
    fromAddress: 'news@acme.test',
    subject: 'November news',
    html: '<p>Hello, see <a href="https://acme.test/sale">the sale</a> and <a href="https://acme.test/blog">the blog</a>.</p>',
    listIds: [listId],
  });
  await snapshotSend(t.platform, sendId);
  await dispatch(t.platform, sendId);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent, accountId, listId, sendId };
};

/** What the world said: r1–r4 opened, r1 and r2 clicked (r1 the sale), r5 unsubscribed, r6 bounced hard. */
const engage = async (sendId: number) => {
  const recipients = await t.platform.db
    .selectFrom('send_recipients')
    .innerJoin('sends', 'sends.id', 'send_recipients.send_id')
    .select(['send_recipients.id', 'send_recipients.email', 'send_recipients.user_id', 'sends.account_id'])
    .where('send_id', '=', sendId)
    .execute();
  const links = await t.platform.db
    .selectFrom('send_links')
    .select(['id', 'url'])
    .where('send_id', '=', sendId)
    .execute();
  const sale = Number(links.find((link) => link.url === 'https://acme.test/sale')!.id);
  const blog = Number(links.find((link) => link.url === 'https://acme.test/blog')!.id);
  const of = (email: string) => recipients.find((recipient) => recipient.email === email)!;
  const event = (email: string, type: TIntakeEvent['type'], extra: Partial<TIntakeEvent> = {}): TIntakeEvent => {
    const recipient = of(email);
    return {
      recipient: {
        id: Number(recipient.id),
        send_id: sendId,
        email,
        user_id: recipient.user_id,
        account_id: recipient.account_id,
      },
      userId: recipient.user_id,
      accountId: recipient.account_id,
      email,
      type,
      source: type === 'failed' ? 'smtp' : type === 'unsubscribed' ? 'recipient' : 'tracking',
      ...extra,
    };
  };
  await t.platform.db.transaction().execute((trx) =>
    applyOutcomes(t.platform, trx, [
      ...['r1@example.com', 'r2@example.com', 'r3@example.com', 'r4@example.com'].map((email) =>
        event(email, 'opened'),
      ),
      event('r1@example.com', 'clicked', { linkId: sale }),
      event('r2@example.com', 'clicked', { linkId: blog }),
      event('r5@example.com', 'unsubscribed', { providerEventId: 'unsubscribe:r5' }),
      event('r6@example.com', 'failed', {
        severity: 'permanent',
        providerEventId: 'dsn:x:r6',
        detail: '550 5.1.1 unknown',
      }),
    ]),
  );
  return { sale, blog };
};

describe('re-send by engagement', () => {
  it('counts, then sends once to those who did not open, leaving out the unsubscribed, bounced and suppressed', async () => {
    const seeded = await finishedSend();
    expect(sink.count()).toBeGreaterThanOrEqual(10);
    const { sale } = await engage(seeded.sendId);
    const count = (query: string) => seeded.agent.get(`/api/history/resend-engagement/${seeded.sendId}?${query}`);

    const notOpened = await count('audience=not-opened');
    expect(notOpened.statusCode, notOpened.body).toBe(200);
    // r7–r10: r5 unsubscribed, r6 bounced (and is suppressed), r1–r4 opened.
    expect(notOpened.json()).toMatchObject({ count: 4, trackedOpens: true, trackedClicks: true });
    expect(notOpened.json().links).toEqual([
      { id: expect.any(Number), url: 'https://acme.test/sale', clicked: 1 },
      { id: expect.any(Number), url: 'https://acme.test/blog', clicked: 1 },
    ]);
    expect((await count('audience=opened')).json().count).toBe(4);
    expect((await count('audience=clicked')).json().count).toBe(2);
    expect((await count(`audience=clicked&linkId=${sale}`)).json().count).toBe(1);
    // Suppressed since: left out too.
    await suppress(t.platform.db, [
      { userId: seeded.user.id, email: 'r10@example.com', type: 'bounce', reason: 'review', source: 'user' },
    ]);
    expect((await count('audience=not-opened')).json().count).toBe(3);

    const before = new Map([...sink.received].map(([to, ids]) => [to, ids.length]));
    const resent = await seeded.agent.post(`/api/history/resend-engagement/${seeded.sendId}`, {
      audience: 'not-opened',
      subject: 'In case you missed it: November news',
    });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json()).toMatchObject({
      status: true,
      count: 3,
      message: 'Your email is on its way to 3 recipients.',
    });
    const newId = resent.json().id as number;
    const row = await t.platform.db.selectFrom('sends').selectAll().where('id', '=', newId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      source: 'lists',
      subject: 'In case you missed it: November news',
      resend_of: seeded.sendId,
    });
    // Its snapshot taken twice (a retried job) is one audience; dispatched, each gets it once.
    await snapshotSend(t.platform, newId);
    await snapshotSend(t.platform, newId);
    await dispatch(t.platform, newId);
    const got = [...sink.received].filter(([to, ids]) => ids.length > (before.get(to) ?? 0)).map(([to]) => to);
    expect(got.sort()).toEqual(['r7@example.com', 'r8@example.com', 'r9@example.com']);
    expect(got.every((to) => sink.received.get(to)!.length === 2)).toBe(true);
    const after = await t.platform.db
      .selectFrom('sends')
      .select(['status', 'recipients_count'])
      .where('id', '=', newId)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ status: 'finished', recipients_count: 3 });
    // The new send is in History like any other.
    const history = await seeded.agent.get('/api/history?per_page=20');
    expect(JSON.stringify(history.json())).toContain('In case you missed it: November news');
  });

  it('refuses a send still going, another user’s send, and an audience nobody is left in', async () => {
    const seeded = await finishedSend();
    await engage(seeded.sendId);
    const other = await finishedSend();
    const notTheirs = await seeded.agent.post(`/api/history/resend-engagement/${other.sendId}`, { audience: 'opened' });
    expect(notTheirs.statusCode).toBe(404);
    expect((await seeded.agent.get(`/api/history/resend-engagement/${other.sendId}?audience=opened`)).statusCode).toBe(
      404,
    );

    const bad = await seeded.agent.get(`/api/history/resend-engagement/${seeded.sendId}?audience=everyone`);
    expect(bad.statusCode).toBe(422);

    // Everyone who clicked the blog link is r2; once r2 is suppressed, nobody.
    await suppress(t.platform.db, [
      { userId: seeded.user.id, email: 'r2@example.com', type: 'bounce', reason: 'review', source: 'user' },
    ]);
    const blog = (
      await sql<{
        id: number;
      }>`select id from send_links where send_id = ${seeded.sendId} and url = 'https://acme.test/blog'`.execute(
        t.platform.db,
      )
    ).rows[0]!.id;
    const empty = await seeded.agent.post(`/api/history/resend-engagement/${seeded.sendId}`, {
      audience: 'clicked',
      linkId: Number(blog),
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().message).toBe('Nobody is left to send to: no recipient of this send matches.');

    await t.platform.db.updateTable('sends').set({ status: 'sending' }).where('id', '=', seeded.sendId).execute();
    const going = await seeded.agent.post(`/api/history/resend-engagement/${seeded.sendId}`, { audience: 'opened' });
    expect(going.statusCode).toBe(409);
  });
});
