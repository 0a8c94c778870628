import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startListener, type TRunningListener } from '../inbound/receiver';
import { createTestInboxTransport, testInboxCredentials, testInboxListener } from './test-inbox.service';

let t: TTestApp;
let inbox: TRunningListener;

beforeAll(async () => {
  // A small quota so the tests reach it: three messages, one megabyte.
  t = await startTestApp({ TEST_INBOX_MAX_MESSAGES: '3', TEST_INBOX_MAX_MB: '1' });
  inbox = await startListener(t.platform, testInboxListener, { port: 0 });
});
afterAll(async () => {
  await inbox?.close();
  await t?.close();
});

/** Sends one message into a user's test inbox as a test-inbox account does. */
const sendAs = async (userId: number, subject: string, text = 'Hello') => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inbox.port,
    secure: false,
    ignoreTLS: true,
    auth: {
      user: testInboxCredentials(t.platform, userId).username,
      pass: testInboxCredentials(t.platform, userId).password,
    },
  });
  try {
    return await transport.sendMail({ from: 'news@example.com', to: 'reader@example.com', subject, text });
  } finally {
    transport.close();
  }
};

const subjectsOf = async (userId: number) =>
  (
    await t.platform.db
      .selectFrom('test_inbox_messages')
      .select('subject')
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute()
  ).map((row) => row.subject);

describe('the test inbox quota (R30)', () => {
  it('keeps the newest messages up to the count, dropping the oldest, for that user only', async () => {
    const user = await seedUser(t.platform);
    const other = await seedUser(t.platform);
    await sendAs(other.id, 'other 1');
    for (let index = 1; index <= 5; index++) await sendAs(user.id, `message ${index}`);
    expect(await subjectsOf(user.id)).toEqual(['message 3', 'message 4', 'message 5']);
    expect(await subjectsOf(other.id)).toEqual(['other 1']);
  });

  it('keeps the newest messages that fit in the bytes together', async () => {
    const user = await seedUser(t.platform);
    const large = 'x'.repeat(560 * 1024);
    await sendAs(user.id, 'small 1');
    await sendAs(user.id, 'large 1', large);
    expect(await subjectsOf(user.id)).toEqual(['small 1', 'large 1']);
    // Two large ones do not fit in 1 MB together: the newest stays, everything older goes.
    await sendAs(user.id, 'large 2', large);
    expect(await subjectsOf(user.id)).toEqual(['large 2']);
    await sendAs(user.id, 'small 2');
    expect(await subjectsOf(user.id)).toEqual(['large 2', 'small 2']);
    const stored = await t.platform.db
      .selectFrom('test_inbox_messages')
      .select((eb) => eb.fn.sum<string>('size_bytes').as('bytes'))
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.bytes)).toBeLessThanOrEqual(1024 * 1024);
  });

  it('refuses with 552 a message larger than the whole quota and keeps what was there', async () => {
    const user = await seedUser(t.platform);
    await sendAs(user.id, 'kept');
    const error = await sendAs(user.id, 'too big', 'y'.repeat(1100 * 1024)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ responseCode: 552 });
    expect(await subjectsOf(user.id)).toEqual(['kept']);
  });

  it('counts messages arriving together one after the other', async () => {
    const user = await seedUser(t.platform);
    await Promise.all(Array.from({ length: 8 }, (_, index) => sendAs(user.id, `together ${index}`)));
    expect(await subjectsOf(user.id)).toHaveLength(3);
  });
});

describe('bounces on a local run', () => {
  it('refuses every address at bounce.test with 550 5.1.1, over SMTP and in process, and keeps nothing', async () => {
    const user = await seedUser(t.platform);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: inbox.port,
      secure: false,
      ignoreTLS: true,
      auth: {
        user: testInboxCredentials(t.platform, user.id).username,
        pass: testInboxCredentials(t.platform, user.id).password,
      },
    });
    const refused = await transport
      .sendMail({ from: 'news@example.com', to: 'nobody@bounce.test', subject: 'x', text: 'x' })
      .catch((caught: unknown) => caught);
    transport.close();
    expect(refused).toMatchObject({ responseCode: 550 });

    const results = await createTestInboxTransport(t.platform, user.id).send([
      { from: 'news@example.com', to: 'Nobody@Bounce.test', subject: 'x', html: '<p>x</p>' },
      { from: 'news@example.com', to: 'reader@example.com', subject: 'kept', html: '<p>x</p>' },
    ]);
    expect(results[0]).toMatchObject({
      accepted: false,
      kind: 'permanent',
      error: expect.stringContaining('550 5.1.1'),
    });
    expect(results[1]).toMatchObject({ accepted: true });
    expect(await subjectsOf(user.id)).toEqual(['kept']);
  });
});
