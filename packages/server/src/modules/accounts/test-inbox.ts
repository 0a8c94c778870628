import type { TSpamReport } from '@sendwell/contracts';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import addressparser from 'nodemailer/lib/addressparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { SMTPServer } from 'smtp-server';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { publishToUser } from '../../platform/realtime';
import { hmac, safeEqual } from '../../platform/tokens';
import {
  HANDOVER_REFUSED,
  mayStart,
  type TMailTransport,
  type TOutgoingMessage,
  type TSendResult,
} from '../../providers/mail';
import { receiveBounceMessage } from '../sending/bounces.service';
import { analyse, headersOf, isSpamTestAddress, receiveSpamTestMessage } from '../spam-test/spam-test.service';

/** The test inbox listens on loopback only: it is for trying Sendwell and for tests. */
export const TEST_INBOX_HOST = '127.0.0.1';
/** The name the test inbox gives itself when it hands a message on (its EHLO, as a receiver sees it). */
const TEST_INBOX_HELO = 'test-inbox.sendwell.local';
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
 * Keeps one message in a user's test inbox within the quota and tells their tabs: the one
 * way in, for the SMTP sink and for the in-process transport alike.
 */
const storeTestInboxMessage = async (
  platform: TPlatform,
  {
    userId,
    mailFrom,
    rcptTo,
    message,
    size,
  }: { userId: number; mailFrom: string; rcptTo: string[]; message: Buffer; size: () => number },
) => {
  const sizeBytes = size();
  const mail = await simpleParser(message, { skipImageLinks: true });
  return platform.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('test_inbox_messages')
      .values({
        user_id: userId,
        mail_from: mailFrom,
        rcpt_to: rcptTo,
        subject: mail.subject ?? '',
        text_body: mail.text ?? null,
        html_body: typeof mail.html === 'string' ? mail.html : null,
        size_bytes: sizeBytes,
        raw: message,
      })
      .returning(['id', 'subject'])
      .executeTakeFirstOrThrow();
    await pruneToQuota(trx, userId, platform.config.testInboxQuota);
    await publishToUser(trx, userId, 'TestInboxMessageEvent', { id: row.id, subject: row.subject });
    return row.id;
  });
};

/**
 * The transport of test-inbox accounts: the message is composed exactly as SMTP would carry
 * it and kept in the user's inbox by this process. Every worker can deliver a test-inbox
 * send this way, whether or not it hosts the SMTP sink (several workers on one machine, or
 * on several machines, share one database and so one inbox).
 */
/**
 * The test inbox refuses every address at this reserved domain the way a real server
 * refuses an unknown mailbox (550 5.1.1), so a bounce can be tried end to end on a local
 * run: the failure, the delivery event and the suppression.
 */
export const TEST_BOUNCE_DOMAIN = 'bounce.test';
const bounceAnswer = (address: string) =>
  `550 5.1.1 <${address}>: Recipient address rejected: the Sendwell test inbox bounces every address at ${TEST_BOUNCE_DOMAIN}`;
const isTestBounce = (address: string) => address.toLowerCase().endsWith(`@${TEST_BOUNCE_DOMAIN}`);

/**
 * Addresses at this reserved domain are accepted, then bounced a moment later with an
 * RFC 3464 report, the way a receiving server that took the message and then found no
 * mailbox does: the report goes through the same reader and recorder as a real bounce
 * (`sending/bounces.service.ts`), so the asynchronous bounce can be tried end to end on a
 * local run. The recipient is named by the message's VERP envelope sender, or its
 * Message-ID (`<token.send@domain>`) when no bounce domain is configured.
 */
export const TEST_LATE_BOUNCE_DOMAIN = 'bounce-later.test';
const isLateBounce = (address: string) => address.toLowerCase().endsWith(`@${TEST_LATE_BOUNCE_DOMAIN}`);

const mailLateBounce = (platform: TPlatform, message: TOutgoingMessage) => {
  const messageId = message.headers?.['Message-ID'] ?? '';
  const token =
    /^bounces\+([a-f0-9]{16,64})@/i.exec(message.envelopeFrom ?? '')?.[1] ??
    /^<([a-f0-9]{16,64})\./i.exec(messageId)?.[1];
  if (!token) return;
  const report = [
    'From: Mail Delivery System <MAILER-DAEMON@test-inbox.sendwell.local>',
    `Subject: Undelivered Mail Returned to Sender`,
    `Message-ID: <late-bounce-${token}@test-inbox.sendwell.local>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="late"',
    '',
    '--late',
    'Content-Type: text/plain',
    '',
    'The Sendwell test inbox took this message, then found no mailbox for it.',
    '--late',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; test-inbox.sendwell.local',
    '',
    `Final-Recipient: rfc822; ${message.to}`,
    'Action: failed',
    'Status: 5.1.1',
    `Diagnostic-Code: smtp; 550 5.1.1 <${message.to}>: mailbox unavailable (the test inbox bounces every address at ${TEST_LATE_BOUNCE_DOMAIN} after accepting it)`,
    '',
    '--late--',
    '',
  ].join('\r\n');
  setTimeout(() => {
    receiveBounceMessage(platform, [token.toLowerCase()], Buffer.from(report)).catch((error: unknown) =>
      platform.log.error({ err: error }, 'the test inbox could not record its late bounce'),
    );
  }, 200);
};

/**
 * What a receiver sees of one test-inbox message: its headers as they arrived and the spam
 * test's analysis (authentication, content, engines), computed the first time it is asked
 * for and kept with the message. Messages kept before the raw message was stored have neither.
 */
export const testInboxAnalysis = async (platform: TPlatform, userId: number, id: number) => {
  const message = await platform.db
    .selectFrom('test_inbox_messages')
    .select(['id', 'raw', 'analysis', 'mail_from', 'rcpt_to'])
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!message) return null;
  if (!message.raw) return { headers: null, report: null, raw: null };
  let report = message.analysis as TSpamReport | null;
  if (!report) {
    report = await analyse(platform, {
      raw: message.raw,
      ip: TEST_INBOX_HOST,
      helo: TEST_INBOX_HELO,
      mailFrom: message.mail_from,
      rcptTo: message.rcpt_to[0] ?? '',
    });
    await platform.db
      .updateTable('test_inbox_messages')
      .set({ analysis: JSON.stringify(report) })
      .where('id', '=', id)
      .execute();
  }
  return { headers: headersOf(message.raw), report, raw: message.raw };
};

/** A test-inbox message as it arrived; null when there is none (or it was kept without it). */
export const testInboxRaw = async (platform: TPlatform, userId: number, id: number) =>
  (
    await platform.db
      .selectFrom('test_inbox_messages')
      .select('raw')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.raw ?? null;

export const createTestInboxTransport = (platform: TPlatform, userId: number): TMailTransport => ({
  verify: async () => {},
  send: async (batch, onResult, options) => {
    const results: (TSendResult | undefined)[] = new Array(batch.length);
    for (const [index, message] of batch.entries()) {
      if (!mayStart(options)) break;
      const mayHandOver = (await options?.beforeHandOver?.(index).catch(() => false)) ?? true;
      if (!mayHandOver) {
        results[index] = { to: message.to, accepted: false, error: HANDOVER_REFUSED, kind: 'temporary' };
      } else if (isTestBounce(message.to)) {
        results[index] = { to: message.to, accepted: false, error: bounceAnswer(message.to), kind: 'permanent' };
      } else if (isSpamTestAddress(platform, message.to)) {
        // A spam test from a test-inbox account: handed to the test mailbox as if over SMTP from this machine.
        const { variables: _variables, ...mime } = message;
        const raw = await new MailComposer(mime).compile().build();
        const [sender] = addressparser(message.from, { flatten: true });
        const outcome = await receiveSpamTestMessage(platform, {
          raw,
          ip: TEST_INBOX_HOST,
          helo: TEST_INBOX_HELO,
          mailFrom: message.envelopeFrom ?? sender?.address ?? '',
          rcptTo: message.to,
        });
        results[index] =
          outcome === 'accepted'
            ? { to: message.to, accepted: true, providerId: 'spam-test' }
            : {
                to: message.to,
                accepted: false,
                error: `550 5.1.1 <${message.to}>: no such test mailbox`,
                kind: 'permanent',
              };
      } else {
        const { variables: _variables, ...mime } = message;
        const raw = await new MailComposer(mime).compile().build();
        try {
          const [sender] = addressparser(message.from, { flatten: true });
          const id = await storeTestInboxMessage(platform, {
            userId,
            mailFrom: sender?.address ?? message.from,
            rcptTo: [message.to],
            message: raw,
            size: () => {
              if (raw.length > Math.min(MAX_MESSAGE_BYTES, platform.config.testInboxQuota.bytes)) {
                throw new Error('Message too big for the test inbox');
              }
              return raw.length;
            },
          });
          results[index] = { to: message.to, accepted: true, providerId: `test-inbox-${id}` };
          if (isLateBounce(message.to)) mailLateBounce(platform, message);
        } catch (error) {
          results[index] = { to: message.to, accepted: false, error: (error as Error).message, kind: 'permanent' };
        }
      }
      await onResult?.(index, results[index]!);
    }
    return results;
  },
  close: () => {},
});

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
    // On shutdown, connections still open (a client's pooled session) are cut after 3 s instead
    // of the default 30, which outlasted the process's 20 s shutdown deadline.
    closeTimeout: 3_000,
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
    onRcptTo: (address, _session, callback) => {
      if (!isTestBounce(address.address)) return callback();
      callback(Object.assign(new Error(bounceAnswer(address.address).slice(10)), { responseCode: 550 }));
    },
    onData: (stream, session, callback) => {
      const userId = session.user as number;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const rcptTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        // Spam-test addresses go on to the test mailbox, the rest stay in the user's inbox.
        const forMailbox = rcptTo.filter((address) => isSpamTestAddress(platform, address));
        const forInbox = rcptTo.filter((address) => !isSpamTestAddress(platform, address));
        const kept = async () => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
            throw Object.assign(new Error('Message too big for the test inbox'), { responseCode: 552 });
          }
          for (const address of forMailbox) {
            await receiveSpamTestMessage(platform, {
              raw,
              ip: session.remoteAddress.replace(/^::ffff:/, ''),
              helo: session.hostNameAppearsAs ?? '',
              mailFrom,
              rcptTo: address,
            });
          }
          if (forInbox.length > 0) {
            await storeTestInboxMessage(platform, {
              userId,
              mailFrom,
              rcptTo: forInbox,
              message: raw,
              size: () => raw.length,
            });
          }
        };
        kept()
          .then(() => callback())
          .catch((error: Error) => callback(error));
      });
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
