import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { publishToUser } from '../../platform/realtime';
import { hmac, safeEqual } from '../../platform/tokens';

/** The test inbox listens on loopback only: it is for trying Sendwell and for tests. */
export const TEST_INBOX_HOST = '127.0.0.1';
export const TEST_INBOX_DRIVER = 'test-inbox';
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Each user's login to the test inbox: `user-<id>` and a password derived from the
 * server secret, so what one user sends lands only in their own inbox page.
 */
export const testInboxCredentials = (platform: TPlatform, userId: number) => ({
  username: `user-${userId}`,
  password: hmac(platform.secrets.signingKey, `test-inbox:${userId}`).slice(0, 24),
});

const userIdFromLogin = (platform: TPlatform, username: string, password: string): number | null => {
  const match = username.match(/^user-(\d+)$/);
  if (!match) return null;
  const userId = Number(match[1]);
  return safeEqual(password, testInboxCredentials(platform, userId).password) ? userId : null;
};

/**
 * Keeps the advisory locks of inbox quotas apart from others (two-key form, the user id
 * second; ids 2^31 apart share a lock, which only makes them wait for each other).
 */
const QUOTA_LOCK_CLASS = 0x7e57_1b0;

/**
 * Keeps a user's inbox within its quota (R30) by deleting the oldest messages beyond the
 * newest `messages`, or beyond the newest that fit in `bytes` together. Oldest first rather
 * than refusing new mail: a test inbox is for seeing what was just sent, and a refusal
 * would fail the send (a 5xx even suppresses the address as a bounce). Runs in the
 * transaction that stored the new message, after a per-user lock, so two messages arriving
 * together are counted one after the other.
 */
const pruneToQuota = async (trx: Executor, userId: number, quota: { messages: number; bytes: number }) => {
  await sql`select pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}::int, (${userId}::bigint % 2147483648)::int)`.execute(trx);
  await sql`
    delete from test_inbox_messages where id in (
      select id from (
        select id, row_number() over newest as position, sum(size_bytes) over newest as bytes
          from test_inbox_messages
         where user_id = ${userId}
        window newest as (order by created_at desc, id desc)
      ) as ranked
       where position > ${quota.messages} or bytes > ${quota.bytes})`.execute(trx);
};

/**
 * The built-in SMTP sink (runs with the worker): accepts mail from signed-in users'
 * test-inbox accounts, keeps it in `test_inbox_messages` within each user's quota
 * (`TEST_INBOX_MAX_MESSAGES`, `TEST_INBOX_MAX_MB`; the oldest go), tells the user's tabs,
 * and never delivers anything anywhere.
 */
export const startTestInbox = async (platform: TPlatform, port: number) => {
  const quota = platform.config.testInboxQuota;
  const server = new SMTPServer({
    logger: false,
    banner: 'Sendwell test inbox: nothing sent here leaves this machine',
    // A message larger than the whole quota could never be kept: refused (552) at once.
    size: Math.min(MAX_MESSAGE_BYTES, quota.bytes),
    authMethods: ['PLAIN', 'LOGIN'],
    // Loopback only, so a login in clear never crosses a network; STARTTLS is offered too.
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => {
      const userId = userIdFromLogin(platform, auth.username ?? '', auth.password ?? '');
      if (userId === null) callback(new Error('Invalid username or password'));
      else callback(null, { user: userId });
    },
    onData: (stream, session, callback) => {
      const userId = session.user as number;
      simpleParser(stream, { skipImageLinks: true })
        .then(async (mail) => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
            throw Object.assign(new Error('Message too big for the test inbox'), { responseCode: 552 });
          }
          const size = (stream as unknown as { byteLength?: number }).byteLength ?? 0;
          await platform.db.transaction().execute(async (trx) => {
            const row = await trx
              .insertInto('test_inbox_messages')
              .values({
                user_id: userId,
                mail_from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                rcpt_to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
                subject: mail.subject ?? '',
                text_body: mail.text ?? null,
                html_body: typeof mail.html === 'string' ? mail.html : null,
                size_bytes: size,
              })
              .returning(['id', 'subject'])
              .executeTakeFirstOrThrow();
            await pruneToQuota(trx, userId, quota);
            await publishToUser(trx, userId, 'TestInboxMessageEvent', { id: row.id, subject: row.subject });
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  server.on('error', (error) => platform.log.warn({ err: error }, 'test inbox connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, TEST_INBOX_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  platform.log.info({ port: boundPort }, 'test inbox listening');
  return {
    port: boundPort,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

export type TTestInbox = Awaited<ReturnType<typeof startTestInbox>>;
