import addressparser from 'nodemailer/lib/addressparser';
import type { TPlatform } from '../../platform/context';
import { CpuTaskError } from '../../platform/cpu-pool';
import { notFound } from '../../platform/errors';
import { publishToUser } from '../../platform/realtime';
import { hmac, safeEqual } from '../../platform/tokens';
import { HANDOVER_REFUSED, mayStart, type TMailTransport, type TSendResult } from '../../providers/mail';
import { buildMime } from '../../providers/mime-build';
import {
  deliverInProcess,
  LOCAL_REPORTS_ADDRESS,
  type TInboundAnswer,
  type TInboundListener,
  type TInboundMessage,
  type TInboundRoute,
} from '../inbound/inbound.service';
import * as repository from './test-inbox.repository';

/**
 * The test inbox: a place to try Sendwell without outside accounts. A user connects it as a
 * sending account (SMTP on loopback, or the in-process transport below); what they send is
 * kept in their own inbox page and never leaves the machine. It is an inbound route
 * (`inbound/`): mail for its signed-in users, on its own listener or handed over in-process.
 */

/** The test inbox listens on loopback only: it is for trying Sendwell and for tests. */
export const TEST_INBOX_HOST = '127.0.0.1';
/** The name the test inbox gives itself when it hands a message on (its EHLO, as a receiver sees it). */
export const TEST_INBOX_HELO = 'test-inbox.sendwell.local';
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
 * The test inbox refuses every address at this reserved domain the way a real server
 * refuses an unknown mailbox (550 5.1.1), so a bounce can be tried end to end on a local
 * run: the failure, the delivery event and the suppression.
 */
export const TEST_BOUNCE_DOMAIN = 'bounce.test';
const bounceAnswer = (address: string) =>
  `5.1.1 <${address}>: Recipient address rejected: the Sendwell test inbox bounces every address at ${TEST_BOUNCE_DOMAIN}`;
const isTestBounce = (address: string) => address.toLowerCase().endsWith(`@${TEST_BOUNCE_DOMAIN}`);

/**
 * Addresses at this reserved domain are accepted, then bounced a moment later with an
 * RFC 3464 report, the way a receiving server that took the message and then found no
 * mailbox does: the report goes to the message's envelope sender (its VERP address when
 * BOUNCE_DOMAIN is set, else the in-process reports address) through the same reader as a
 * real bounce, so the asynchronous bounce can be tried end to end on a local run.
 */
export const TEST_LATE_BOUNCE_DOMAIN = 'bounce-later.test';
const isLateBounce = (address: string) => address.toLowerCase().endsWith(`@${TEST_LATE_BOUNCE_DOMAIN}`);

/** The original's header block, quoted in the report as receiving servers do (RFC 3462 text/rfc822-headers). */
const headerBlockOf = (raw: Buffer) => {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
};

const lateBounceReport = (recipient: string, original: Buffer) =>
  Buffer.from(
    [
      'From: Mail Delivery System <MAILER-DAEMON@test-inbox.sendwell.local>',
      'Subject: Undelivered Mail Returned to Sender',
      `Message-ID: <late-bounce-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@test-inbox.sendwell.local>`,
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
      `Final-Recipient: rfc822; ${recipient}`,
      'Action: failed',
      'Status: 5.1.1',
      `Diagnostic-Code: smtp; 550 5.1.1 <${recipient}>: mailbox unavailable (the test inbox bounces every address at ${TEST_LATE_BOUNCE_DOMAIN} after accepting it)`,
      '',
      '--late',
      'Content-Type: text/rfc822-headers',
      '',
      headerBlockOf(original),
      '',
      '--late--',
      '',
    ].join('\r\n'),
    'latin1',
  );

/** A moment after a message to a late-bounce address was kept, its report goes back to the sender. */
const mailLateBounces = (platform: TPlatform, message: TInboundMessage) => {
  const recipients = message.rcptTo.filter(isLateBounce);
  if (recipients.length === 0) return;
  setTimeout(() => {
    for (const recipient of recipients) {
      deliverInProcess(platform, {
        raw: lateBounceReport(recipient, message.raw),
        ip: TEST_INBOX_HOST,
        helo: TEST_INBOX_HELO,
        mailFrom: '',
        rcptTo: message.mailFrom.startsWith('bounces+') ? message.mailFrom : LOCAL_REPORTS_ADDRESS,
        userId: null,
      })
        .then((answer) => {
          if (!answer.accepted) platform.log.warn({ answer }, 'the test inbox late bounce was refused');
        })
        .catch((error: unknown) =>
          platform.log.error({ err: error }, 'the test inbox could not deliver its late bounce'),
        );
    }
  }, 200);
};

/**
 * Keeps one message in a user's test inbox and tells their tabs. Oldest first rather than
 * refusing new mail (R30): a test inbox is for seeing what was just sent, and a refusal would
 * fail the send (a 5xx even suppresses the address as a bounce); only a message larger than
 * the whole quota is refused. The prune runs in the transaction that stores the new message.
 */
const storeMessage = async (platform: TPlatform, userId: number, message: TInboundMessage) => {
  // Read on a thread of the CPU pool (R40): mailparser takes 0.1 s and more over a large
  // message. One it cannot read in time is kept with its bytes alone, for its raw view.
  const mail = await platform.cpu
    .run('readInboxMessage', message.raw, { timeoutMs: platform.config.messageWork.timeoutMs })
    .catch((error: unknown) => {
      if (!(error instanceof CpuTaskError) || error.kind === 'busy') throw error;
      platform.log.warn({ err: error }, 'test inbox: message kept unread');
      return { subject: '(this message could not be read)', text: null, html: null };
    });
  return platform.db.transaction().execute(async (trx) => {
    const row = await repository.insertMessage(trx, {
      user_id: userId,
      mail_from: message.mailFrom,
      rcpt_to: message.rcptTo,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      size_bytes: message.raw.length,
      raw: message.raw,
    });
    await repository.pruneToQuota(trx, userId, platform.config.testInboxQuota);
    await publishToUser(trx, userId, 'TestInboxMessageEvent', { id: row.id, subject: row.subject });
    return row.id;
  });
};

const maxBytesOf = (platform: Pick<TPlatform, 'config'>) =>
  Math.min(MAX_MESSAGE_BYTES, platform.config.testInboxQuota.bytes);

/**
 * The test inbox's route: whatever a signed-in user sends through it (on its listener, or
 * handed over in-process by a test-inbox account's transport) is kept in their inbox,
 * after every more specific route (the spam test's addresses go on to the test mailbox).
 */
export const testInboxRoute: TInboundRoute = {
  name: 'test-inbox',
  isCatchAll: true,
  accepts: (_platform, address, session) => {
    if (session.userId === null || !(session.listener === 'test-inbox' || session.isInProcess)) return false;
    if (isTestBounce(address)) return { accepted: false, code: 550, message: bounceAnswer(address) };
    return true;
  },
  receive: async (platform, message): Promise<TInboundAnswer> => {
    if (message.raw.length > maxBytesOf(platform)) {
      return { accepted: false, code: 552, message: '5.3.4 Message too big for the test inbox' };
    }
    const id = await storeMessage(platform, message.session.userId!, message);
    mailLateBounces(platform, message);
    return { accepted: true, id: `test-inbox-${id}` };
  },
};

/** The built-in SMTP sink on loopback (TEST_INBOX_PORT), for SMTP clients and test-inbox accounts. */
export const testInboxListener: TInboundListener = {
  name: 'test-inbox',
  port: (config) => config.testInbox?.port ?? null,
  host: () => TEST_INBOX_HOST,
  banner: 'Sendwell test inbox: nothing sent here leaves this machine',
  // A message larger than the whole quota could never be kept: refused (552) at once.
  maxBytes: (config) => maxBytesOf({ config }),
  login: { kind: 'required', userOf: userIdFromLogin },
};

/** What the inbound answer means to the engine: accepted, or refused for good (5xx) or for now (4xx). */
const toSendResult = (to: string, answer: TInboundAnswer): TSendResult =>
  answer.accepted
    ? { to, accepted: true, providerId: answer.id ?? null }
    : {
        to,
        accepted: false,
        error: `${answer.code} ${answer.message}`,
        kind: answer.code >= 500 ? 'permanent' : 'temporary',
      };

/**
 * The transport of test-inbox accounts: the message is composed exactly as SMTP would carry
 * it and handed to the inbound routes in this process, as if it came from this machine.
 * Every worker can deliver a test-inbox send this way, whether or not it runs the listener
 * (several workers on one machine, or on several machines, share one database and so one inbox).
 */
export const createTestInboxTransport = (platform: TPlatform, userId: number): TMailTransport => ({
  verify: async () => {},
  send: async (batch, onResult, options) => {
    const results: (TSendResult | undefined)[] = new Array(batch.length);
    for (const [index, message] of batch.entries()) {
      if (!mayStart(options)) break;
      const mayHandOver = (await options?.beforeHandOver?.(index).catch(() => false)) ?? true;
      if (!mayHandOver) {
        results[index] = { to: message.to, accepted: false, error: HANDOVER_REFUSED, kind: 'temporary' };
      } else {
        const { variables: _variables, ...mime } = message;
        const raw = await buildMime(mime);
        const [sender] = addressparser(message.from, { flatten: true });
        try {
          const answer = await deliverInProcess(platform, {
            raw,
            ip: TEST_INBOX_HOST,
            helo: TEST_INBOX_HELO,
            mailFrom: message.envelopeFrom ?? sender?.address ?? '',
            rcptTo: message.to,
            userId,
          });
          results[index] = toSendResult(message.to, answer);
        } catch (error) {
          results[index] = { to: message.to, accepted: false, error: (error as Error).message, kind: 'temporary' };
        }
      }
      await onResult?.(index, results[index]!);
    }
    return results;
  },
  close: () => {},
});

// --- the test inbox page ---

export const selectMessages = repository.selectMessages;

export const findMessage = async (platform: TPlatform, userId: number, id: number) => {
  const message = await repository.findMessage(platform.db, userId, id);
  if (!message) throw notFound('This message does not exist.');
  return message;
};

/** A test-inbox message as it arrived; null when there is none (or it was kept without it). */
export const findRaw = async (platform: TPlatform, userId: number, id: number) =>
  (await repository.findMessage(platform.db, userId, id))?.raw ?? null;

/** What a receiver saw of a message, for the spam test's analysis of it; null when it is not the user's. */
export const findArrival = async (platform: TPlatform, userId: number, id: number) => {
  const message = await repository.findMessage(platform.db, userId, id);
  if (!message) return null;
  return {
    raw: message.raw,
    analysis: message.analysis,
    ip: TEST_INBOX_HOST,
    helo: TEST_INBOX_HELO,
    mailFrom: message.mail_from,
    rcptTo: message.rcpt_to[0] ?? '',
  };
};

/** Keeps a message's analysis with it, computed the first time it was asked for. */
export const keepAnalysis = (platform: TPlatform, id: number, analysis: unknown) =>
  repository.setAnalysis(platform.db, id, analysis);

export const clearInbox = (platform: TPlatform, userId: number) => repository.deleteMessages(platform.db, userId);
