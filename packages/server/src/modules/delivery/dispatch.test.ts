import { formatDateTime } from '@sendwell/contracts';
import fc from 'fast-check';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { PROCESS_PATIENCE_MS } from '../../../test/wait';
import { sealSecret } from '../accounts/secrets';
import { countAudience } from '../lists/lists.service';
import { suppress } from '../suppression/suppression.service';
import { dispatch, recoverAbandonedClaims, snapshotSend, startDueSends } from './delivery.jobs';
import {
  cancelSend,
  createSend,
  createSourcedSend,
  pauseSend,
  resendUnknown,
  resumeSend,
  sourcedSendOutcomes,
} from './delivery.service';
import { PLAN_WITHOUT_ACCOUNTS } from './dispatch';
import { MAX_MESSAGE_CHARS } from './message';
import { MAX_ATTEMPTS } from './outcomes';
import { deleteUserSend } from './send-lifecycle';

type TReceived = { to: string; raw: string };
let t: TTestApp;
let sink: SMTPServer;
let sinkPort: number;
const received: TReceived[] = [];
/** Per address: answers to give before accepting (e.g. [450, 450]) or for ever (550, DROP). */
const script = new Map<string, number[]>();
/** Takes the whole message, then drops the connection before answering. */
const DROP = -1;
/** How long the sink takes to answer each message. */
let answerDelayMs = 0;
/** An answer delay for the nth message to arrive (1-based). */
const answerDelayAt = new Map<number, number>();
/** The nth message's answer (1-based) waits for this promise: the test says when it comes. */
const answerGateAt = new Map<number, Promise<void>>();

beforeAll(async () => {
  sink = new SMTPServer({
    logger: false,
    onAuth: (auth, _session, callback) =>
      auth.username === 'mailer' && auth.password === 'sink-password'
        ? callback(null, { user: 'mailer' })
        : callback(new Error('Invalid username or password')),
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0]!.address;
        const answers = script.get(to);
        const answer = answers?.[0];
        if (answer === DROP) {
          // The whole message arrived; the line goes dead before the answer.
          received.push({ to, raw: Buffer.concat(chunks).toString() });
          const connections = (
            sink as unknown as { connections: Set<{ id: string; _socket: { destroy: () => void } }> }
          ).connections;
          for (const connection of connections) if (connection.id === session.id) connection._socket.destroy();
          return;
        }
        if (answer) {
          if (answer < 500) answers.shift();
          const error = new Error(answer < 500 ? 'Try again later' : 'No such user') as Error & {
            responseCode: number;
          };
          error.responseCode = answer;
          return callback(error);
        }
        received.push({ to, raw: Buffer.concat(chunks).toString() });
        const gate = answerGateAt.get(received.length);
        if (gate) return void gate.then(() => callback());
        const delayMs = answerDelayAt.get(received.length) ?? answerDelayMs;
        if (delayMs > 0) setTimeout(callback, delayMs);
        else callback();
      });
    },
  });
  sink.on('error', () => {});
  sinkPort = await freePort();
  await new Promise<void>((resolve) => sink.listen(sinkPort, '127.0.0.1', resolve));
  t = await startTestApp({ ALLOW_LOOPBACK_SMTP: 'true', PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
  script.clear();
  answerDelayMs = 0;
  answerDelayAt.clear();
  answerGateAt.clear();
});

/** A user with an SMTP account on the sink and lists of the given members. */
const seedAudience = async (lists: { email: string; subscribed?: boolean }[][], { mailPerDay = 1_000_000 } = {}) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const { id: accountId } = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Sink',
      provider: 'smtp',
      driver: 'smtp',
      username: 'mailer',
      host: '127.0.0.1',
      port: sinkPort,
      encryption: 'tls',
      from_address: 'news@acme.test',
      mail_per_day: mailPerDay,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await t.platform.db
    .updateTable('sending_accounts')
    .set({ password_encrypted: sealSecret(t.platform, accountId, 'password', 'sink-password') })
    .where('id', '=', accountId)
    .execute();
  const listIds: number[] = [];
  for (const [index, members] of lists.entries()) {
    const { id } = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: accountId,
        alias: `list${index}`,
        domain: 'acme.test',
        address: `list${index}@acme.test`,
        name: `List ${index}`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    listIds.push(id);
    if (members.length > 0) {
      await t.platform.db
        .insertInto('list_members')
        .values(
          members.map((member) => ({
            user_id: user.id,
            list_id: id,
            account_id: accountId,
            email: member.email,
            fullname: member.email.split('@')[0]!,
            subscribed: member.subscribed ?? true,
          })),
        )
        .execute();
    }
  }
  return { user, accountId, listIds };
};

const newSend = (audience: Awaited<ReturnType<typeof seedAudience>>) =>
  createSend(t.platform, audience.user.id, {
    accountId: audience.accountId,
    fromName: 'Acme News',
    fromAddress: 'news@acme.test',
    subject: 'Hello {{name}}',
    html: '<p>Hi {{name::friend}}, {{city::somewhere}}</p>',
    listIds: audience.listIds,
  });

const recipients = (sendId: number) =>
  t.platform.db
    .selectFrom('send_recipients')
    .select(['email', 'status', 'attempts'])
    .where('send_id', '=', sendId)
    .orderBy('email')
    .execute();

const sendRow = (sendId: number) =>
  t.platform.db.selectFrom('sends').selectAll().where('id', '=', sendId).executeTakeFirstOrThrow();

const notificationsOf = (userId: number) =>
  t.platform.db
    .selectFrom('notifications')
    .select(['title', 'body', 'link'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();

/** Makes deferred recipients due now, as if their backoff had passed. */
const skipBackoff = (sendId: number) =>
  t.platform.db
    .updateTable('send_recipients')
    .set({ next_attempt_at: new Date(0) })
    .where('send_id', '=', sendId)
    .where('status', '=', 'deferred')
    .execute();

describe('a send through an SMTP account', () => {
  it('sends each address of overlapping lists once, skipping unsubscribed and suppressed ones', async () => {
    const audience = await seedAudience([
      [{ email: 'ann@example.com' }, { email: 'bob@example.com' }, { email: 'gone@example.com', subscribed: false }],
      [{ email: 'ANN@example.com' }, { email: 'cy@example.com' }, { email: 'bounced@example.com' }],
    ]);
    await t.platform.db
      .insertInto('suppressions')
      .values({ user_id: audience.user.id, email: 'Bounced@Example.com', type: 'bounce' })
      .execute();
    expect((await countAudience(t.platform.db, audience.user.id, audience.listIds)).duplicates).toBe(1);

    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await snapshotSend(t.platform, sendId); // R2: a second run changes nothing
    await dispatch(t.platform, sendId);

    expect(received.map((item) => item.to).sort()).toEqual(['ann@example.com', 'bob@example.com', 'cy@example.com']);
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', recipients_count: 3, sent_count: 3 });
    const raw = received.find((item) => item.to === 'bob@example.com')!.raw;
    const message = await simpleParser(raw);
    expect(message.subject).toBe('Hello bob');
    expect(message.from?.value[0]).toMatchObject({ name: 'Acme News', address: 'news@acme.test' });
    expect(message.html).toContain('Hi bob, somewhere');
    expect(raw).toContain('\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n');
    expect(raw.replace(/\r\n /g, ' ')).toMatch(
      /(^|\r\n)List-Unsubscribe: <https:\/\/sendwell\.test\/api\/unsubscribe\/[0-9a-z]+-[0-9a-f]{20}>, <mailto:news@acme\.test\?subject=unsubscribe%20[0-9a-z]+-[0-9a-f]{20}>\r\n/,
    );
    expect(message.messageId).toMatch(/@acme\.test>$/);
    expect(message.html).toMatch(/href="https:\/\/sendwell\.test\/unsubscribe\/[0-9a-z]+-[0-9a-f]{20}"/);
  });

  it('retries 4xx with backoff, gives up on 5xx and suppresses the address (R7)', async () => {
    const audience = await seedAudience([
      [{ email: 'ok@example.com' }, { email: 'later@example.com' }, { email: 'never@example.com' }],
    ]);
    script.set('later@example.com', [450, 421]);
    script.set('never@example.com', [550]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(await recipients(sendId)).toEqual([
      { email: 'later@example.com', status: 'deferred', attempts: 1 },
      { email: 'never@example.com', status: 'failed', attempts: 1 },
      { email: 'ok@example.com', status: 'sent', attempts: 1 },
    ]);
    for (let round = 0; round < 2; round++) {
      await skipBackoff(sendId);
      await dispatch(t.platform, sendId);
    }
    expect((await recipients(sendId)).find((row) => row.email === 'later@example.com')).toMatchObject({
      status: 'sent',
      attempts: 3,
    });
    expect(received.filter((item) => item.to === 'later@example.com')).toHaveLength(1);
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 2, failed_count: 1 });
    const suppressed = await t.platform.db
      .selectFrom('suppressions')
      .select(['email', 'type'])
      .where('user_id', '=', audience.user.id)
      .execute();
    expect(suppressed).toEqual([{ email: 'never@example.com', type: 'bounce' }]);
  });

  it('marks a recipient unknown when the line drops after the whole message, and never resends it (R3)', async () => {
    const audience = await seedAudience([
      [{ email: 'a@example.com' }, { email: 'dropped@example.com' }, { email: 'z@example.com' }],
    ]);
    script.set('dropped@example.com', [DROP]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(await recipients(sendId)).toEqual([
      { email: 'a@example.com', status: 'sent', attempts: 1 },
      { email: 'dropped@example.com', status: 'unknown', attempts: 1 },
      { email: 'z@example.com', status: 'sent', attempts: 1 },
    ]);
    expect(received.filter((item) => item.to === 'dropped@example.com')).toHaveLength(1);
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 2, unknown_count: 1 });

    // The user chooses to send to the unknown recipient again: only to it, once more.
    script.delete('dropped@example.com');
    const other = await seedUser(t.platform);
    await expect(resendUnknown(t.platform, other.id, sendId)).rejects.toMatchObject({ statusCode: 404 });
    expect(await resendUnknown(t.platform, audience.user.id, sendId)).toBe(1);
    expect(await sendRow(sendId)).toMatchObject({ status: 'sending', unknown_count: 0 });
    await dispatch(t.platform, sendId);
    expect(received.filter((item) => item.to === 'dropped@example.com')).toHaveLength(2);
    expect(received).toHaveLength(4);
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 3, unknown_count: 0 });
    expect(await resendUnknown(t.platform, audience.user.id, sendId)).toBe(0);
  });

  it('records one delivery event per SMTP result, with the server’s words, and counts them per account and day', async () => {
    const audience = await seedAudience([
      [
        { email: 'ok@example.com' },
        { email: 'later@example.com' },
        { email: 'gone@example.com' },
        { email: 'lost@example.com' },
      ],
    ]);
    script.set('later@example.com', [451]);
    script.set('gone@example.com', [550]);
    script.set('lost@example.com', [DROP]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    await skipBackoff(sendId);
    await dispatch(t.platform, sendId);
    const events = await t.platform.db
      .selectFrom('delivery_events')
      .select(['email', 'type', 'severity', 'source', 'account_id', 'detail'])
      .where('send_id', '=', sendId)
      .orderBy('email')
      .orderBy('id')
      .execute();
    expect(events.map(({ detail: _detail, ...event }) => event)).toEqual([
      {
        email: 'gone@example.com',
        type: 'failed',
        severity: 'permanent',
        source: 'smtp',
        account_id: audience.accountId,
      },
      {
        email: 'later@example.com',
        type: 'deferred',
        severity: 'temporary',
        source: 'smtp',
        account_id: audience.accountId,
      },
      { email: 'later@example.com', type: 'accepted', severity: null, source: 'smtp', account_id: audience.accountId },
      { email: 'lost@example.com', type: 'unknown', severity: null, source: 'smtp', account_id: audience.accountId },
      { email: 'ok@example.com', type: 'accepted', severity: null, source: 'smtp', account_id: audience.accountId },
    ]);
    expect(events.find((event) => event.type === 'failed')?.detail).toMatch(/No such user/);
    expect(events.find((event) => event.type === 'deferred')?.detail).toMatch(/Try again later/);
    const stats = await t.platform.db
      .selectFrom('account_daily_stats')
      .select(['accepted', 'deferred', 'failed', 'unknown', 'delivered'])
      .where('account_id', '=', audience.accountId)
      .execute();
    expect(stats).toEqual([{ accepted: 2, deferred: 1, failed: 1, unknown: 1, delivered: 0 }]);
  });

  it(`stops retrying after ${MAX_ATTEMPTS} temporary failures`, async () => {
    const audience = await seedAudience([[{ email: 'busy@example.com' }]]);
    script.set(
      'busy@example.com',
      Array.from({ length: 10 }, () => 451),
    );
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    for (let round = 0; round < MAX_ATTEMPTS; round++) {
      await skipBackoff(sendId);
      await dispatch(t.platform, sendId);
    }
    expect(await recipients(sendId)).toEqual([{ email: 'busy@example.com', status: 'failed', attempts: MAX_ATTEMPTS }]);
  });

  it('pauses and resumes five times while it runs, then cancels: nobody twice, nobody skipped (R5)', async () => {
    const members = Array.from({ length: 300 }, (_, index) => ({
      email: `p${String(index).padStart(3, '0')}@example.com`,
    }));
    const audience = await seedAudience([members]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await pauseSend(t.platform, audience.user.id, sendId);
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(0);
    answerDelayMs = 20;
    const sentAtPauses: number[] = [];
    for (let round = 0; round < 5; round++) {
      await resumeSend(t.platform, audience.user.id, sendId);
      const running = dispatch(t.platform, sendId);
      const before = received.length;
      await expect.poll(() => received.length, { interval: 5 }).toBeGreaterThan(before);
      await pauseSend(t.platform, audience.user.id, sendId);
      await running;
      sentAtPauses.push(received.length);
    }
    // Each pause stopped the run part of the way through.
    expect(sentAtPauses.at(-1)).toBeLessThan(members.length);
    expect(new Set(sentAtPauses).size).toBe(5);
    await resumeSend(t.platform, audience.user.id, sendId);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to).sort()).toEqual(members.map((member) => member.email));
    expect(
      (await recipients(sendId)).every((recipient) => recipient.status === 'sent' && recipient.attempts === 1),
    ).toBe(true);
    await expect(cancelSend(t.platform, audience.user.id, sendId)).rejects.toMatchObject({ statusCode: 409 });
  });

  it('sends once when two workers dispatch the same send at the same time (R6)', async () => {
    const members = Array.from({ length: 60 }, (_, index) => ({ email: `d${index}@example.com` }));
    const audience = await seedAudience([members]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    // A second process on the same database (its own pool, queue and presence).
    const second = await startTestApp(
      { ALLOW_LOOPBACK_SMTP: 'true', PUBLIC_URL: 'https://sendwell.test' },
      { databaseUrl: t.databaseUrl },
    );
    try {
      await Promise.all([
        dispatch(t.platform, sendId),
        dispatch(second.platform, sendId),
        dispatch(t.platform, sendId),
      ]);
    } finally {
      await second.close();
    }
    expect(received).toHaveLength(60);
    expect(new Set(received.map((item) => item.to)).size).toBe(60);
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 60 });
  });

  it('claims recipients below where new claims start (the safety net), and leaves no claim behind', async () => {
    const members = Array.from({ length: 40 }, (_, index) => ({
      email: `b${String(index).padStart(2, '0')}@example.com`,
    }));
    const audience = await seedAudience([members]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    // The cursor went past the first 20 without claiming them (claims take turns, so none
    // should): they are pending, never claimed, below where new claims start, and not due.
    await sql`
      update sends set claimed_to = (select id from send_recipients where send_id = ${sendId} order by id offset 19 limit 1)
       where id = ${sendId}`.execute(t.platform.db);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to).sort()).toEqual(members.map((member) => member.email));
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 40 });
    const claims = await sql<{ count: number }>`
      select count(*)::int as count from send_claims where send_id = ${sendId}`.execute(t.platform.db);
    expect(claims.rows[0]?.count).toBe(0);
  });

  it('keeps every index of send_recipients off the columns claims, settles and the intake write, so those rewrite rows in place', async () => {
    // An index naming one of them makes each of those writes a new row version with an
    // entry in every index (issue 33: PostgreSQL 46 → 13 µs a recipient without).
    const written = ['status', 'lease_token', 'lease_until', 'worker_key', 'started_at', 'attempts', 'updated_at'];
    written.push('sent_at', 'provider_id', 'error', 'delivered_at', 'opened_at', 'clicked_at');
    const indexes = await sql<{ definition: string }>`
      select pg_get_indexdef(indexrelid) as definition from pg_index
       where indrelid = 'send_recipients'::regclass`.execute(t.platform.db);
    expect(indexes.rows.length).toBeGreaterThanOrEqual(4);
    for (const { definition } of indexes.rows) {
      const named = written.filter((column) => new RegExp(`\\b${column}\\b`).test(definition));
      expect({ definition, named }).toEqual({ definition, named: [] });
    }
  });

  it('takes a send’s delivery events away with the send or its user, and keeps them without the account when the account goes', async () => {
    const eventsOf = async (sendIds: number[]) =>
      (
        await sql<{ send_id: number; account_id: number | null }>`
          select send_id, account_id from delivery_events where send_id = any(${sendIds}::bigint[])`.execute(
          t.platform.db,
        )
      ).rows;
    const sent = async (emails: string[]) => {
      const audience = await seedAudience([emails.map((email) => ({ email }))]);
      const sendId = await newSend(audience);
      await snapshotSend(t.platform, sendId);
      await dispatch(t.platform, sendId);
      return { audience, sendId };
    };
    const deleted = await sent(['gone1@example.com', 'gone2@example.com']);
    const kept = await sent(['kept1@example.com']);
    const ofUser = await sent(['user1@example.com']);
    const ofAccount = await sent(['account1@example.com']);
    expect(await eventsOf([deleted.sendId, kept.sendId, ofUser.sendId, ofAccount.sendId])).toHaveLength(5);
    expect(await deleteUserSend(t.platform.db, deleted.audience.user.id, deleted.sendId)).toBe(true);
    await t.platform.db.deleteFrom('users').where('id', '=', ofUser.audience.user.id).execute();
    await t.platform.db.deleteFrom('sending_accounts').where('id', '=', ofAccount.audience.accountId).execute();
    expect(await eventsOf([deleted.sendId, ofUser.sendId])).toEqual([]);
    expect(await eventsOf([kept.sendId])).toEqual([{ send_id: kept.sendId, account_id: kept.audience.accountId }]);
    // The account's send stays in History without it, and so do its events.
    expect(await eventsOf([ofAccount.sendId])).toEqual([{ send_id: ofAccount.sendId, account_id: null }]);
  });

  it('unsubscribes with one click from every list of the account, once, and the next send leaves them out', async () => {
    const audience = await seedAudience([
      [{ email: 'ann@example.com' }, { email: 'bob@example.com' }],
      [{ email: 'Ann@example.com' }],
    ]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    const { token } = await t.platform.db
      .selectFrom('send_recipients')
      .select('token')
      .where('send_id', '=', sendId)
      .where('email', 'ilike', 'ann@example.com')
      .executeTakeFirstOrThrow();

    const page = await t.app.inject({ url: `/unsubscribe/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="/api/unsubscribe/${token}"`);
    // Fetching the page changes nothing: link scanners do that.
    expect((await sendRow(sendId)).unsubscribed_count).toBe(0);

    const oneClick = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/unsubscribe/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
    expect((await oneClick()).statusCode).toBe(200);
    expect((await oneClick()).statusCode).toBe(200);
    expect((await sendRow(sendId)).unsubscribed_count).toBe(1);
    const members = await t.platform.db
      .selectFrom('list_members')
      .select(['email', 'subscribed'])
      .where('user_id', '=', audience.user.id)
      .orderBy('id')
      .execute();
    expect(members).toEqual([
      { email: 'ann@example.com', subscribed: false },
      { email: 'bob@example.com', subscribed: true },
      { email: 'Ann@example.com', subscribed: false },
    ]);
    expect((await t.app.inject({ url: `/unsubscribe/${token}` })).body).toContain('You are unsubscribed');
    expect((await t.app.inject({ method: 'POST', url: `/api/unsubscribe/${'0'.repeat(32)}` })).statusCode).toBe(404);

    received.length = 0;
    const next = await newSend(audience);
    await snapshotSend(t.platform, next);
    await dispatch(t.platform, next);
    expect(received.map((item) => item.to)).toEqual(['bob@example.com']);
  });

  it('starts a scheduled send when its time comes, through the same path', async () => {
    const audience = await seedAudience([[{ email: 'later@example.com' }]]);
    const sendId = await createSend(t.platform, audience.user.id, {
      accountId: audience.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Later',
      html: '<p>Later</p>',
      listIds: audience.listIds,
      deliverAt: new Date(Date.now() + 3600_000),
    });
    expect(await sendRow(sendId)).toMatchObject({ status: 'scheduled', type: 2 });
    await startDueSends(t.platform);
    expect((await sendRow(sendId)).status).toBe('scheduled');
    await t.platform.db
      .updateTable('sends')
      .set({ deliver_at: new Date(Date.now() - 1000) })
      .where('id', '=', sendId)
      .execute();
    expect(await startDueSends(t.platform)).toBeGreaterThanOrEqual(1);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to)).toEqual(['later@example.com']);
  });

  it('tracks opens and clicks through signed ids, redirecting only to stored targets (R16)', async () => {
    const audience = await seedAudience([[{ email: 'reader@example.com' }]]);
    const sendId = await createSend(t.platform, audience.user.id, {
      accountId: audience.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Links',
      html: '<p><a href="https://example.com/page?a=1&amp;b=2">Read</a> <a href="mailto:hi@acme.test">Mail</a> <a href="javascript:alert(1)">X</a></p>',
      listIds: audience.listIds,
    });
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    const message = await simpleParser(received[0]!.raw);
    const html = String(message.html);
    const click = html.match(/href="https:\/\/sendwell\.test(\/api\/t\/c\/[^"]+)"/)![1]!;
    const pixel = html.match(/src="https:\/\/sendwell\.test(\/api\/t\/o\/[^"]+)"/)![1]!;
    expect(html).toContain('href="mailto:hi@acme.test"');
    expect(html).toContain('href="javascript:alert(1)"');
    expect(html).not.toContain('href="https://example.com');

    for (let index = 0; index < 2; index++) {
      const opened = await t.app.inject({ url: pixel });
      expect(opened.headers['content-type']).toBe('image/gif');
      const clicked = await t.app.inject({ url: click });
      expect(clicked.statusCode).toBe(302);
      expect(clicked.headers.location).toBe('https://example.com/page?a=1&b=2');
    }
    expect(await sendRow(sendId)).toMatchObject({ opened_count: 1, clicked_count: 1 });
    const events = await t.platform.db
      .selectFrom('delivery_events')
      .select(['type', 'source'])
      .where('send_id', '=', sendId)
      .where('type', 'in', ['opened', 'clicked'])
      .orderBy('id')
      .execute();
    expect(events).toEqual([
      { type: 'opened', source: 'tracking' },
      { type: 'clicked', source: 'tracking' },
      { type: 'opened', source: 'tracking' },
      { type: 'clicked', source: 'tracking' },
    ]);

    const [, , , , token, linkId, sig] = click.split('/');
    for (const tampered of [
      `/api/t/c/${token}/${linkId}/${sig!.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))}`,
      `/api/t/c/${token}/${Number(linkId) + 1}/${sig}`,
      `/api/t/c/${'f'.repeat(32)}/${linkId}/${sig}`,
    ]) {
      const answer = await t.app.inject({ url: tampered });
      expect(answer.statusCode, tampered).toBe(404);
      expect(answer.headers.location).toBeUndefined();
    }
    // A forged pixel counts nothing but still answers an image.
    expect((await t.app.inject({ url: `/api/t/o/${token}/forged.gif` })).headers['content-type']).toBe('image/gif');
    expect((await sendRow(sendId)).opened_count).toBe(1);
  });

  it('keeps an SMTP account within its daily cap across sends, and goes on when the 24 hours have passed', async () => {
    const members = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ email: `${name}@cap.test` }));
    const audience = await seedAudience([members], { mailPerDay: 3 });
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(3);
    const held = await sendRow(sendId);
    expect(held.status).toBe('sending');
    expect(held.note).toContain('at most 3 emails in any 24 hours');
    // The note names the real time the window has room again: 24 hours after the claim ended
    // (rounded up to the minute it shows), on the user's clock with the zone named.
    const windowRows = () =>
      t.platform.db
        .selectFrom('account_cap_reservations')
        .select(['counted_at', 'sent'])
        .where('account_id', '=', audience.accountId)
        .execute();
    const [counted] = await windowRows();
    expect(counted!.sent).toBe(3);
    const freesAt = held.waiting_until!;
    expect(freesAt.getTime() - counted!.counted_at.getTime()).toBeGreaterThan(24 * 3_600_000);
    expect(freesAt.getTime() - counted!.counted_at.getTime()).toBeLessThanOrEqual(24 * 3_600_000 + 60_000);
    expect(held.note).toContain(
      `The remaining recipients go out from ${formatDateTime(freesAt, 'America/New_York')} (America/New_York).`,
    );

    // A second send from the same account gets nothing more within the window.
    const second = await newSend(audience);
    await snapshotSend(t.platform, second);
    await dispatch(t.platform, second);
    expect(received).toHaveLength(3);
    expect((await windowRows()).reduce((sum, row) => sum + row.sent, 0)).toBe(3);

    // 24 hours later: what went out then no longer counts.
    await t.platform.db
      .updateTable('account_cap_reservations')
      .set({ counted_at: sql`counted_at - interval '24 hours'` })
      .where('account_id', '=', audience.accountId)
      .execute();
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(5);
    expect(new Set(received.map((item) => item.to)).size).toBe(5);
    const done = await sendRow(sendId);
    expect(done).toMatchObject({ status: 'finished', sent_count: 5, waiting_until: null });
    expect(done.note).toContain('more than one day');
  });

  it('holds the daily cap across a change of time zone over the date line: a cap of 3 never lets 6 out (R43)', async () => {
    const members = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ email: `${name}@zone-cap.test` }));
    const audience = await seedAudience([members], { mailPerDay: 3 });
    await t.platform.db
      .updateTable('users')
      .set({ time_zone: 'Pacific/Kiritimati' })
      .where('id', '=', audience.user.id)
      .execute();
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(3);
    // UTC+14 to UTC-11: a different date on the user's clock whatever the hour.
    await t.platform.db
      .updateTable('users')
      .set({ time_zone: 'Pacific/Pago_Pago' })
      .where('id', '=', audience.user.id)
      .execute();
    await dispatch(t.platform, sendId);
    const second = await newSend(audience);
    await snapshotSend(t.platform, second);
    await dispatch(t.platform, second);
    expect(received).toHaveLength(3);
    const held = await sendRow(sendId);
    expect(held).toMatchObject({ status: 'sending' });
    // The time it names is the same instant, now on the new zone's clock.
    expect(held.note).toContain(`${formatDateTime(held.waiting_until!, 'Pacific/Pago_Pago')} (Pacific/Pago_Pago)`);
    expect(held.waiting_until!.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  it('holds an SMTP account to the daily cap an operator set, which replaces its own Maximum Email per Day', async () => {
    const members = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ email: `${name}@operator-cap.test` }));
    const audience = await seedAudience([members], { mailPerDay: 2 });
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ operator_mail_per_day: 4 })
      .where('id', '=', audience.accountId)
      .execute();
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(4);
    expect((await sendRow(sendId)).note).toContain('at most 4 emails in any 24 hours');
  });

  it('sends CC and BCC addresses one copy each, as recipients of their own', async () => {
    const audience = await seedAudience([[{ email: 'member@example.com' }]]);
    const sendId = await createSend(t.platform, audience.user.id, {
      accountId: audience.accountId,
      fromName: 'Acme',
      fromAddress: 'news@acme.test',
      subject: 'Copies',
      html: '<p>Copy</p>',
      listIds: audience.listIds,
      cc: 'boss@example.com, MEMBER@example.com',
      bcc: 'archive@example.com',
    });
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to).sort()).toEqual([
      'archive@example.com',
      'boss@example.com',
      'member@example.com',
    ]);
    // Nobody sees another recipient's address.
    for (const item of received) expect(item.raw).not.toMatch(/^(Cc|Bcc):/im);
  });

  it('sends nothing through an account the plan no longer allows after a downgrade, and says why (R23)', async () => {
    const audience = await seedAudience([[{ email: 'reader@example.com' }]]);
    const queued = await newSend(audience);
    await snapshotSend(t.platform, queued);
    // Down to the free plan: the test inbox only.
    await t.platform.db.updateTable('users').set({ plan_id: 2 }).where('id', '=', audience.user.id).execute();
    await expect(newSend(audience)).rejects.toMatchObject({ statusCode: 403, message: PLAN_WITHOUT_ACCOUNTS });
    await dispatch(t.platform, queued);
    expect(received).toHaveLength(0);
    expect(await sendRow(queued)).toMatchObject({ status: 'failed', note: PLAN_WITHOUT_ACCOUNTS });
  });

  it('tells the user once when a send finishes, failures counted, and when one fails (issue 29 item 5)', async () => {
    const audience = await seedAudience([[{ email: 'ann@example.com' }, { email: 'refused@example.com' }]]);
    script.set('refused@example.com', [550]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect((await sendRow(sendId)).status).toBe('finished');
    // A second dispatch run (a retried job) finds nothing left and tells nobody again.
    await dispatch(t.platform, sendId);
    expect(await notificationsOf(audience.user.id)).toEqual([
      {
        title: 'Your email “Hello {{name}}” was sent',
        body: '1 of 2 accepted by your sending account, 1 failed.',
        link: `/history/details/${audience.accountId}/${sendId}`,
      },
    ]);

    const failing = await newSend(audience);
    await snapshotSend(t.platform, failing);
    await t.platform.db.updateTable('users').set({ plan_id: 2 }).where('id', '=', audience.user.id).execute();
    await dispatch(t.platform, failing);
    const [, failed] = await notificationsOf(audience.user.id);
    expect(failed).toEqual({
      title: 'Your email “Hello {{name}}” was not sent',
      body: PLAN_WITHOUT_ACCOUNTS,
      link: `/history/details/${audience.accountId}/${failing}`,
    });
  });

  it('leaves out of the next send an address suppressed by any path: an SMTP refusal, a provider event, an unsubscribe', async () => {
    const audience = await seedAudience([
      [{ email: 'refused@example.com' }, { email: 'bounced@example.com' }, { email: 'left@example.com' }],
      [{ email: 'stays@example.com' }, { email: 'LEFT@example.com' }],
    ]);
    script.set('refused@example.com', [550]);
    const first = await newSend(audience);
    await snapshotSend(t.platform, first);
    await dispatch(t.platform, first);
    // A provider's bounce (what a Mailgun event or a DSN records) and a recipient's unsubscribe.
    await suppress(t.platform.db, [
      { userId: audience.user.id, email: 'Bounced@Example.com', type: 'bounce', reason: 'failed', source: 'mailgun' },
    ]);
    const { token } = await t.platform.db
      .selectFrom('send_recipients')
      .select('token')
      .where('send_id', '=', first)
      .where('email', '=', 'left@example.com')
      .executeTakeFirstOrThrow();
    expect((await t.app.inject({ method: 'POST', url: `/api/unsubscribe/${token}` })).statusCode).toBe(200);
    const suppressions = await t.platform.db
      .selectFrom('suppressions')
      .select(['email', 'type', 'source', 'send_id', 'message'])
      .where('user_id', '=', audience.user.id)
      .orderBy('email')
      .execute();
    expect(suppressions).toEqual([
      { email: 'Bounced@Example.com', type: 'bounce', source: 'mailgun', send_id: null, message: null },
      // The unsubscribe is kept as a suppression too, so the Suppression screen lists it (issue 45 §4).
      { email: 'left@example.com', type: 'unsubscribed', source: 'smtp', send_id: first, message: null },
      {
        email: 'refused@example.com',
        type: 'bounce',
        source: 'smtp',
        send_id: first,
        message: expect.stringMatching(/No such user/),
      },
    ]);

    received.length = 0;
    const second = await newSend(audience);
    await snapshotSend(t.platform, second);
    await dispatch(t.platform, second);
    expect(received.map((item) => item.to)).toEqual(['stays@example.com']);
  });

  it('fails alone, with the reason, a recipient whose message cannot be composed, and sends the rest', async () => {
    const audience = await seedAudience([[{ email: 'huge@example.com' }, { email: 'fine@example.com' }]]);
    await t.platform.db
      .updateTable('list_members')
      .set({ fields: JSON.stringify({ city: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }) })
      .where('email', '=', 'huge@example.com')
      .execute();
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to)).toEqual(['fine@example.com']);
    const huge = await t.platform.db
      .selectFrom('send_recipients')
      .select(['status', 'error'])
      .where('send_id', '=', sendId)
      .where('email', '=', 'huge@example.com')
      .executeTakeFirstOrThrow();
    expect(huge).toMatchObject({ status: 'failed', error: expect.stringMatching(/would be longer than/) });
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 1, failed_count: 1 });
    // The address is fine: it is not suppressed.
    const suppressed = await t.platform.db
      .selectFrom('suppressions')
      .select('id')
      .where('user_id', '=', audience.user.id)
      .execute();
    expect(suppressed).toEqual([]);
  });

  it("answers 404 for another user's send", async () => {
    const audience = await seedAudience([[{ email: 'x@example.com' }]]);
    const sendId = await newSend(audience);
    const other = await seedUser(t.platform);
    await expect(pauseSend(t.platform, other.id, sendId)).rejects.toMatchObject({ statusCode: 404 });
  });
  it('sends each message once when a worker stalls past its lease and another takes its claim over (R4)', async () => {
    // A second process on the same database whose claims last 8 s.
    const shortLease = await startTestApp(
      { ALLOW_LOOPBACK_SMTP: 'true', PUBLIC_URL: 'https://sendwell.test', SEND_LEASE_SECONDS: '8' },
      { databaseUrl: t.databaseUrl },
    );
    let answer = () => {};
    try {
      const members = Array.from({ length: 30 }, (_, index) => ({
        email: `l${String(index).padStart(2, '0')}@example.com`,
      }));
      const audience = await seedAudience([members]);
      const sendId = await newSend(audience);
      await snapshotSend(t.platform, sendId);
      // Worker A claims everyone and sends through one connection; the server keeps its first
      // message's answer until the test says, so A stalls with that message in hand.
      answerGateAt.set(
        1,
        new Promise((resolve) => {
          answer = resolve;
        }),
      );
      const first = dispatch(shortLease.platform, sendId, { connections: 1 });
      await expect.poll(() => received.length, { timeout: PROCESS_PATIENCE_MS }).toBe(1);
      // A's lease runs out, by PostgreSQL's clock (the order of events, not a sleep here).
      await expect
        .poll(
          async () =>
            (
              await sql<{ over: boolean }>`
                select bool_and(lease_until < now()) as over from send_recipients
                 where send_id = ${sendId} and status = 'sending'`.execute(t.platform.db)
            ).rows[0]?.over,
          { timeout: PROCESS_PATIENCE_MS, interval: 200 },
        )
        .toBe(true);
      // Worker B (another process) takes the claim over and sends the rest while A still waits.
      const second = dispatch(t.platform, sendId, { connections: 2 });
      await expect.poll(() => received.length, { timeout: PROCESS_PATIENCE_MS }).toBe(30);
      // Only now does A hear that its message was accepted: too late, the claim is B's.
      answer();
      await Promise.all([first, second]);

      // One message each; the one A had in hand is unknown (its answer reached a worker
      // that no longer held the claim), never sent again.
      expect(received).toHaveLength(30);
      expect(new Set(received.map((item) => item.to)).size).toBe(30);
      const states = await recipients(sendId);
      expect(states.filter((recipient) => recipient.status === 'unknown').map((recipient) => recipient.email)).toEqual([
        received[0]!.to,
      ]);
      expect(states.filter((recipient) => recipient.status === 'sent')).toHaveLength(29);
      expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 29, unknown_count: 1 });
    } finally {
      answer();
      await shortLease.close();
    }
  });

  it('takes over the claims of a process that died at once, not after its lease, and resends none that may have left (R1, R28)', async () => {
    const members = Array.from({ length: 12 }, (_, index) => ({
      email: `k${String(index).padStart(2, '0')}@example.com`,
    }));
    const audience = await seedAudience([members]);
    const sendId = await newSend(audience);
    await snapshotSend(t.platform, sendId);
    // A process that claims 12 recipients (two-minute lease), hands one message over and dies.
    const dead = new pg.Client({ connectionString: t.databaseUrl });
    await dead.connect();
    const key = 987_654_321;
    await dead.query('select pg_advisory_lock($1::bigint)', [key]);
    // Its claim as the engine writes one: the recipients under its token, and the claim's row.
    await dead.query(
      `with claimed as (
         update send_recipients set status = 'sending', lease_token = '5e4d1d0e-0000-4000-8000-000000000001',
                worker_key = $2, lease_until = now() + interval '2 minutes', attempts = 1
          where send_id = $1 returning id)
       insert into send_claims (lease_token, send_id, worker_key, lease_until, first_id, last_id)
       select '5e4d1d0e-0000-4000-8000-000000000001', $1, $2, now() + interval '2 minutes', min(id), max(id) from claimed`,
      [sendId, key],
    );
    await dead.query(`update send_recipients set started_at = now() where send_id = $1 and email = 'k03@example.com'`, [
      sendId,
    ]);
    // While it lives, its claims are its own.
    expect(await recoverAbandonedClaims(t.platform)).toBe(0);
    await dispatch(t.platform, sendId);
    expect(received).toHaveLength(0);
    await dead.end();
    // Taken back once its lock is seen gone and stays gone for the confirmation (2 s), long before the lease.
    await expect.poll(() => recoverAbandonedClaims(t.platform), { timeout: PROCESS_PATIENCE_MS }).toBe(1);
    await dispatch(t.platform, sendId);
    expect(received.map((item) => item.to).sort()).toEqual(
      members.map((member) => member.email).filter((email) => email !== 'k03@example.com'),
    );
    const k03 = (await recipients(sendId)).find((recipient) => recipient.email === 'k03@example.com');
    expect(k03).toMatchObject({ status: 'unknown', attempts: 1 });
    expect(await sendRow(sendId)).toMatchObject({ status: 'finished', sent_count: 11, unknown_count: 1 });
  });

  it('takes the same snapshot again after one was cut off midway, with nobody twice (R2)', async () => {
    const audience = await seedAudience([[{ email: 'seed@example.com' }], [{ email: 'SEED@example.com' }]]);
    // A large audience, so the snapshot is still writing when its connection is killed.
    await sql`insert into list_members (user_id, list_id, account_id, email, fullname)
      select ${audience.user.id}, list_id, ${audience.accountId}, 'm' || n || '@example.com', 'M ' || n
        from generate_series(1, 100000) n, unnest(${audience.listIds}::bigint[]) as list_id`.execute(t.platform.db);
    const sendId = await newSend(audience);
    const killer = new pg.Client({ connectionString: t.databaseUrl });
    await killer.connect();
    try {
      let isSettled = false;
      const cut = snapshotSend(t.platform, sendId).finally(() => {
        isSettled = true;
      });
      let killed = 0;
      while (killed === 0 && !isSettled) {
        const { rows } = await killer.query(
          `select pg_terminate_backend(pid) as done from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and query like '%insert into send_recipients%'
              and state = 'active'`,
        );
        killed = rows.length;
      }
      expect(killed, 'the snapshot ended before it could be cut off').toBe(1);
      await expect(cut).rejects.toThrow();
      expect(
        (await killer.query(`select count(*)::int as n from send_recipients where send_id = $1`, [sendId])).rows[0].n,
      ).toBe(0);
      await snapshotSend(t.platform, sendId);
      const { rows } = await killer.query(
        `select count(*)::int as total, count(distinct lower(email))::int as distinct_emails
           from send_recipients where send_id = $1`,
        [sendId],
      );
      expect(rows[0]).toEqual({ total: 100_001, distinct_emails: 100_001 });
      expect(await sendRow(sendId)).toMatchObject({ status: 'sending', recipients_count: 100_001 });
    } finally {
      await killer.end();
      // Nobody is sent this one: the test is about the snapshot.
      await cancelSend(t.platform, audience.user.id, sendId).catch(() => {});
    }
  });

  it('sends to exactly the subscribed, unsuppressed addresses of random overlapping lists, once each (R8)', async () => {
    const pool = ['ann', 'bob', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal'];
    const member = fc.record({
      name: fc.constantFrom(...pool),
      isUpper: fc.boolean(),
      subscribed: fc.boolean(),
    });
    const scenario = fc.record({
      lists: fc.array(fc.array(member, { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
      otherList: fc.array(member, { maxLength: 3 }),
      suppressed: fc.subarray(pool),
      suppressionType: fc.constantFrom('bounce', 'complained', 'unsubscribed', 'suppress-bounce' as const),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ lists, otherList, suppressed, suppressionType }) => {
        received.length = 0;
        const emailOf = (item: { name: string; isUpper: boolean }) =>
          item.isUpper ? `${item.name.toUpperCase()}@Example.com` : `${item.name}@example.com`;
        // One list's members are unique ignoring case: the last row of an address stands.
        const unique = (items: typeof otherList) => [
          ...new Map(items.map((item) => [item.name, { email: emailOf(item), subscribed: item.subscribed }])).values(),
        ];
        const audience = await seedAudience([...lists.map(unique), unique(otherList)]);
        const chosen = audience.listIds.slice(0, lists.length);
        for (const name of suppressed) {
          await t.platform.db
            .insertInto('suppressions')
            .values({ user_id: audience.user.id, email: `${name}@EXAMPLE.com`, type: suppressionType, reason: 'test' })
            .execute();
        }
        const sendId = await createSend(t.platform, audience.user.id, {
          accountId: audience.accountId,
          fromName: 'Acme News',
          fromAddress: 'news@acme.test',
          subject: 'Hello',
          html: '<p>Hi</p>',
          listIds: chosen,
        });
        await snapshotSend(t.platform, sendId);
        await dispatch(t.platform, sendId);

        const expected = new Set(
          lists
            .flatMap((items) => unique(items))
            .filter((item) => item.subscribed && !suppressed.includes(item.email.split('@')[0]!.toLowerCase()))
            .map((item) => item.email.toLowerCase()),
        );
        const got = received.map((item) => item.to.toLowerCase());
        expect(got.length).toBe(new Set(got).size);
        expect(new Set(got)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});

describe('a send whose source gives its recipients (a drip step, a spam test)', () => {
  it('sends each given address once, leaves out the suppressed, and puts a recipient’s own headers in its message alone', async () => {
    const audience = await seedAudience([]);
    await suppress(t.platform.db, [
      { userId: audience.user.id, email: 'gone@example.com', type: 'bounce', reason: 'failed', source: 'smtp' },
    ]);
    const { sendId, recipients: kept } = await t.platform.db.transaction().execute((trx) =>
      createSourcedSend(trx, t.platform, audience.user.id, {
        source: 'drip',
        accountId: audience.accountId,
        fromName: 'Acme',
        fromAddress: 'news@acme.test',
        subject: 'Re: Hello {{name}}',
        html: '<p>Hi {{name}}, {{company::there}}</p>',
        recipients: [
          { email: 'ann@example.com', name: 'Ann', fields: { company: 'Initech' } },
          {
            email: 'bob@example.com',
            name: 'Bob',
            headers: { 'In-Reply-To': '<first.1@acme.test>', References: '<first.1@acme.test>' },
          },
          { email: 'ANN@example.com', name: 'Ann again' },
          { email: 'gone@example.com', name: 'Gone' },
        ],
      }),
    );
    expect(kept).toBe(2);
    await snapshotSend(t.platform, sendId);
    await dispatch(t.platform, sendId);

    expect(received.map((item) => item.to).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    const ann = await simpleParser(received.find((item) => item.to === 'ann@example.com')!.raw);
    const bob = await simpleParser(received.find((item) => item.to === 'bob@example.com')!.raw);
    expect(ann.subject).toBe('Re: Hello Ann');
    expect(ann.html).toContain('Hi Ann, Initech');
    expect(ann.inReplyTo).toBeUndefined();
    expect(bob.inReplyTo).toBe('<first.1@acme.test>');
    expect(bob.references).toBe('<first.1@acme.test>');
    expect((await sendRow(sendId)).status).toBe('finished');

    const outcomes = await sourcedSendOutcomes(t.platform, t.platform.db, audience.user.id, sendId);
    expect(outcomes.map((item) => [item.email, item.status])).toEqual([
      ['ann@example.com', 'sent'],
      ['bob@example.com', 'sent'],
    ]);
    // The Message-ID a follow-up names is the one the message carried.
    expect(outcomes[0]!.messageId).toBe(ann.messageId);
    expect(await sourcedSendOutcomes(t.platform, t.platform.db, audience.user.id + 1_000, sendId)).toEqual([]);
    // A drip step is part of a campaign, with a screen of its own: no "your email was sent" for it.
    expect(await notificationsOf(audience.user.id)).toEqual([]);
  });

  it('refuses headers the engine writes itself, line breaks, bad addresses and another user’s account, recording nothing', async () => {
    const audience = await seedAudience([]);
    const other = await seedAudience([]);
    const attempt = (overrides: Partial<Parameters<typeof createSourcedSend>[3]>, userId = audience.user.id) =>
      t.platform.db.transaction().execute((trx) =>
        createSourcedSend(trx, t.platform, userId, {
          source: 'spam-test',
          accountId: audience.accountId,
          fromName: 'Acme',
          fromAddress: 'news@acme.test',
          subject: 'Test',
          html: '<p>Test</p>',
          recipients: [{ email: 'ann@example.com' }],
          ...overrides,
        }),
      );
    await expect(
      attempt({ recipients: [{ email: 'a@example.com', headers: { 'Message-ID': '<x@y>' } }] }),
    ).rejects.toThrow(/may not set the header/);
    await expect(
      attempt({ recipients: [{ email: 'a@example.com', headers: { 'X-Note': 'a\r\nBcc: x@y' } }] }),
    ).rejects.toThrow(/line break/);
    await expect(attempt({ recipients: [{ email: 'not an address' }] })).rejects.toThrow(/Not an email address/);
    await expect(attempt({}, other.user.id)).rejects.toThrow(/does not exist/);
    const sends = await t.platform.db
      .selectFrom('sends')
      .select('id')
      .where('user_id', '=', audience.user.id)
      .execute();
    expect(sends).toEqual([]);
  });
});
