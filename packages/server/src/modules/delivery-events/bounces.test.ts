import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { CORPUS, type TExpectedOutcome } from '../../../test/bounce-reports/corpus';
import { freePort } from '../../../test/cluster';
import { PATIENCE_MS, waitFor } from '../../../test/wait';
import { createLogger } from '../../platform/logging';
import { buildMessage, messageIdOf, refOf, refOfVerp, unsubscribeUrls, verpAddress } from '../delivery/message';
import { startListener } from '../inbound/receiver';
import { cleanUpSuppressions, notSuppressed } from '../suppression/suppression.service';
import { createTestInboxTransport } from '../test-inbox/test-inbox.service';
import { parseReport } from './bounce-parser';
import { bounceListener } from './bounces';

const DOMAIN = 'bounces.sendwell.test';
const FEEDBACK = `fbl@${DOMAIN}`;
const FIXTURES = path.join(import.meta.dirname, '..', '..', '..', 'test', 'bounce-reports');
const logLines: string[] = [];
let t: TTestApp;
let receiver: Awaited<ReturnType<typeof startListener>>;

beforeAll(async () => {
  t = await startTestApp(
    { BOUNCE_DOMAIN: DOMAIN, PUBLIC_URL: 'https://sendwell.test', LOG_LEVEL: 'info' },
    { log: createLogger('info', { write: (line: string) => void logLines.push(line) }) },
  );
  receiver = await startListener(t.platform, bounceListener, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

type TSent = { id: number; email: string; token: string };

/** A finished send whose recipients' messages were all accepted, as the engine leaves one. */
const sentSend = async (emails: string[], userId?: number) => {
  const owner = userId ?? (await seedUser(t.platform, { planId: 3 })).id;
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: owner, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const send = await t.platform.db
    .insertInto('sends')
    .values({
      user_id: owner,
      account_id: account.id,
      status: 'finished',
      from_address: 'news@acme.test',
      subject: 'November news',
      html: '<p>Hi</p>',
      list_ids: [],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const recipients: TSent[] = await t.platform.db
    .insertInto('send_recipients')
    .values(
      emails.map((email) => ({
        send_id: send.id,
        user_id: owner,
        email,
        token: sql<string>`replace(gen_random_uuid()::text, '-', '')`,
        status: 'sent' as const,
        sent_at: new Date(),
      })),
    )
    .returning(['id', 'email', 'token'])
    .execute();
  return { userId: owner, sendId: send.id, recipients };
};

const verpOf = (recipient: TSent) => verpAddress(DOMAIN, refOf(t.platform, 'verp', recipient));

/** A corpus message with the references of these recipients in place of its placeholders. */
const fill = (raw: Buffer, recipients: TSent[]) => {
  const byEmail = new Map(recipients.map((recipient) => [recipient.email, recipient]));
  const of = (email: string) => {
    const recipient = byEmail.get(email);
    if (!recipient) throw new Error(`the corpus names ${email}, not a recipient of the send`);
    return recipient;
  };
  const text = raw.toString('latin1').replace(/\{\{([a-z-]+)(?::([^}]+))?\}\}/g, (_, kind: string, email: string) => {
    switch (kind) {
      case 'verp':
        return verpOf(of(email));
      case 'message-id':
        return messageIdOf(t.platform, { from_address: 'news@acme.test' }, of(email));
      case 'unsubscribe-url':
        return unsubscribeUrls(t.platform, refOf(t.platform, 'unsubscribe', of(email))).oneClick;
      case 'unsubscribe-ref':
        return refOf(t.platform, 'unsubscribe', of(email));
      case 'feedback':
        return FEEDBACK;
      default:
        throw new Error(`unknown placeholder ${kind}`);
    }
  });
  return Buffer.from(text, 'latin1');
};

const mailTo = async (to: string, raw: Buffer | string) => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: receiver.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    return await transport.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    transport.close();
  }
};

const eventsOf = (sendId: number) =>
  t.platform.db
    .selectFrom('delivery_events')
    .select(['type', 'severity', 'detail', 'email', 'recipient_id'])
    .where('send_id', '=', sendId)
    .orderBy('id')
    .execute();
const suppressionsOf = (userId: number) =>
  t.platform.db
    .selectFrom('suppressions')
    .select(['email', 'type', 'message', 'description', 'expires_at', 'send_id'])
    .where('user_id', '=', userId)
    .execute();
const statusOf = async (recipientId: number) =>
  (
    await t.platform.db
      .selectFrom('send_recipients')
      .select('status')
      .where('id', '=', recipientId)
      .executeTakeFirstOrThrow()
  ).status;

/** What each expected outcome records: its event, its suppression, the recipient's state. */
const RECORDS: Record<
  TExpectedOutcome,
  { events: { type: string; severity: string | null }[]; suppression: string | null; status: string }
> = {
  hard: { events: [{ type: 'failed', severity: 'permanent' }], suppression: 'bounce', status: 'failed' },
  soft: { events: [{ type: 'failed', severity: 'temporary' }], suppression: null, status: 'failed' },
  delayed: { events: [{ type: 'deferred', severity: 'temporary' }], suppression: null, status: 'sent' },
  complaint: { events: [{ type: 'complained', severity: null }], suppression: 'complained', status: 'sent' },
  none: { events: [], suppression: null, status: 'sent' },
};

describe('VERP addresses', () => {
  it('give each message an envelope sender that names its recipient, and read it back', async () => {
    const ref = refOf(t.platform, 'verp', { id: 42, token: 'a'.repeat(32) });
    expect(verpAddress(DOMAIN, ref)).toBe(`bounces+${ref}@${DOMAIN}`);
    expect(refOfVerp(DOMAIN, `Bounces+${ref.toUpperCase()}@BOUNCES.sendwell.test`)).toBe(ref);
    expect(refOfVerp(DOMAIN, `bounces+${ref}@other.test`)).toBeNull();
    expect(refOfVerp(DOMAIN, 'postmaster@bounces.sendwell.test')).toBeNull();
    // A message sent before references carried its token: its bounce still comes back.
    expect(refOfVerp(DOMAIN, `bounces+${'b'.repeat(32)}@${DOMAIN}`)).toBe('b'.repeat(32));
    const send = {
      id: 7,
      user_id: 1,
      source: 'lists',
      from_address: 'news@acme.test',
      from_name: 'Acme',
      subject: 'Hi',
      html: '<p>Hi</p>',
      reply_to: '',
      track_opens: false,
      track_clicks: false,
    };
    const message = await buildMessage(t.platform, send as never, {
      id: 42,
      email: 'ann@example.com',
      name: '',
      fields: {},
      token: 'a'.repeat(32),
    });
    expect(message.envelopeFrom).toBe(`bounces+${ref}@${DOMAIN}`);
  });

  it('is the MAIL FROM an SMTP account sends with', async () => {
    const seen: string[] = [];
    const sink = new SMTPServer({
      logger: false,
      onAuth: (_auth, _session, callback) => callback(null, { user: 'mailer' }),
      onMailFrom: (address, _session, callback) => {
        seen.push(address.address);
        callback();
      },
      onData: (stream, _session, callback) => {
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    const port = await freePort();
    await new Promise<void>((resolve) => sink.listen(port, '127.0.0.1', resolve));
    const { createSmtpTransport } = await import('../../providers/smtp');
    const transport = await createSmtpTransport(
      { host: '127.0.0.1', port, username: 'mailer', password: 'secret', encryption: 'tls' },
      { allowLoopback: true, allowSelfSigned: true, timeoutMs: 5_000 },
    );
    const envelopeFrom = verpAddress(DOMAIN, refOf(t.platform, 'verp', { id: 5, token: 'b'.repeat(32) }));
    try {
      await transport.send([
        { from: '"Acme" <news@acme.test>', to: 'ann@example.com', subject: 'Hi', html: '<p>Hi</p>', envelopeFrom },
      ]);
    } finally {
      transport.close();
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
    expect(seen).toEqual([envelopeFrom]);
  });
});

describe('the report corpus over SMTP into the bounce receiver (R32)', () => {
  it('holds at least 60 messages of its own, each with its expected outcome', () => {
    const files = fs.readdirSync(FIXTURES).filter((file) => file.endsWith('.eml'));
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    expect(CORPUS.map((entry) => entry.file).sort()).toEqual(files.sort());
  });

  for (const entry of CORPUS) {
    const expected = Object.entries(entry.expect)
      .map(([email, outcome]) => `${email} ${outcome}`)
      .join(', ');
    it(`${entry.file}: ${expected}, recorded once however often it arrives`, async () => {
      const { userId, sendId, recipients } = await sentSend(entry.recipients);
      const raw = fill(fs.readFileSync(path.join(FIXTURES, entry.file)), recipients);
      const to = entry.to === 'feedback' ? FEEDBACK : verpOf(recipients[0]!);
      await mailTo(to, raw);
      await mailTo(to, raw); // the same report again: a sender's retry
      const events = await eventsOf(sendId);
      const suppressions = await suppressionsOf(userId);
      for (const recipient of recipients) {
        const outcome = entry.expect[recipient.email] ?? 'none';
        const record = RECORDS[outcome];
        const own = events.filter((event) => Number(event.recipient_id) === recipient.id);
        expect(
          own.map(({ type, severity }) => ({ type, severity })),
          `${recipient.email}'s events`,
        ).toEqual(record.events);
        const suppressed = suppressions.filter((row) => row.email === recipient.email);
        expect(
          suppressed.map((row) => row.type),
          `${recipient.email}'s suppressions`,
        ).toEqual(record.suppression ? [record.suppression] : []);
        expect(await statusOf(recipient.id), `${recipient.email}'s state`).toBe(record.status);
        const words = entry.words?.[recipient.email];
        if (words) {
          expect(own[0]?.detail, `${recipient.email}'s diagnostic`).toContain(words);
          if (record.suppression === 'bounce') expect(suppressed[0]?.message).toContain(words);
        }
      }
      // Nothing for anyone else.
      expect(events.every((event) => recipients.some((recipient) => recipient.id === Number(event.recipient_id)))).toBe(
        true,
      );
    });
  }

  it('keeps the suppression’s words decoded, and says where they came from (issue 27 §9, §10)', async () => {
    const { userId, recipients } = await sentSend(['taro@example.jp']);
    const raw = fill(fs.readFileSync(path.join(FIXTURES, '45-dsn-iso2022jp.eml')), recipients);
    await mailTo(verpOf(recipients[0]!), raw);
    const [suppression] = await suppressionsOf(userId);
    expect(suppression).toMatchObject({ type: 'bounce', message: '550 5.1.1 <taro@example.jp>: ユーザがいません' });
    expect(suppression!.message).not.toContain('$B');
    expect(suppression!.message).not.toContain(String.fromCharCode(0x1b));
    expect(suppression!.description).toContain('Status 5.1.1');
  });

  it('logs a DMARC failure report for the operator and records nothing against anyone (issue 27 §2)', async () => {
    const { sendId, recipients } = await sentSend(['alice@example.org']);
    const before = logLines.length;
    await mailTo(
      verpOf(recipients[0]!),
      fill(fs.readFileSync(path.join(FIXTURES, '63-dmarc-auth-failure.eml')), recipients),
    );
    expect(await eventsOf(sendId)).toEqual([]);
    const logged = logLines.slice(before).map((line) => JSON.parse(line) as { msg: string; detail?: string });
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'DMARC failure report received', detail: expect.stringContaining('acme.test') }),
    );
  });

  it('ties every hard bounce and complaint to its send and recipient', async () => {
    const { sendId, recipients } = await sentSend(['alice@example.org']);
    await mailTo(
      verpOf(recipients[0]!),
      fill(fs.readFileSync(path.join(FIXTURES, '01-postfix-user-unknown.eml')), recipients),
    );
    const { sendId: other, recipients: theirs } = await sentSend(['alice@example.org']);
    await mailTo(FEEDBACK, fill(fs.readFileSync(path.join(FIXTURES, '58-arf-yahoo-cfl.eml')), theirs));
    expect(await eventsOf(sendId)).toEqual([
      expect.objectContaining({ type: 'failed', recipient_id: recipients[0]!.id }),
    ]);
    expect(await eventsOf(other)).toEqual([
      expect.objectContaining({ type: 'complained', recipient_id: theirs[0]!.id }),
    ]);
  });

  it('takes mail only for VERP addresses and the feedback address (550 otherwise); nothing for a reference of another purpose', async () => {
    const { sendId, recipients } = await sentSend(['alice@example.org']);
    const raw = fill(fs.readFileSync(path.join(FIXTURES, '01-postfix-user-unknown.eml')), recipients);
    await expect(mailTo(`postmaster@${DOMAIN}`, raw)).rejects.toMatchObject({ responseCode: 550 });
    expect(await eventsOf(sendId)).toEqual([]);
    // A Message-ID reference in a VERP address opens nothing (R34): a report that quotes
    // nothing of the original is then tied to no message.
    const bare = [
      'From: MAILER-DAEMON@mx.example.net',
      'Subject: failure notice',
      'Message-ID: <bare-1@mx.example.net>',
      '',
      'Hi. This is the qmail-send program at mx.example.net.',
      '',
      '<alice@example.org>:',
      'Sorry, no mailbox here by that name. (#5.1.1)',
      '',
    ].join('\r\n');
    await mailTo(verpAddress(DOMAIN, refOf(t.platform, 'message-id', recipients[0]!)), bare);
    await mailTo(verpAddress(DOMAIN, refOf(t.platform, 'unsubscribe', recipients[0]!)), bare);
    expect(await eventsOf(sendId)).toEqual([]);
    await mailTo(verpOf(recipients[0]!), bare);
    expect(await eventsOf(sendId)).toEqual([expect.objectContaining({ type: 'failed', severity: 'permanent' })]);
  });

  it('still reads the bounce of a message sent before references (its token in the VERP address)', async () => {
    const { sendId, recipients } = await sentSend(['alice@example.org']);
    const raw = fill(fs.readFileSync(path.join(FIXTURES, '09-exim-classic.eml')), recipients);
    await mailTo(verpAddress(DOMAIN, recipients[0]!.token), raw);
    expect(await eventsOf(sendId)).toEqual([expect.objectContaining({ type: 'failed', severity: 'permanent' })]);
  });

  it('parses what is not a report as nothing', () => {
    expect(parseReport('From: a@b.example\r\nSubject: Hello\r\n\r\nJust a note.\r\n')).toMatchObject({ kind: 'none' });
  });
});

describe('the temporary suppression rule (issue 27 §7)', () => {
  it('suppresses an address as temporary after three soft bounces within 15 days, for 30 days, then lifts it', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const email = 'full@example.org';
    const softBounce = async () => {
      const { recipients } = await sentSend([email], user.id);
      const raw = fill(
        Buffer.from(
          fs
            .readFileSync(path.join(FIXTURES, '02-postfix-mailbox-full.eml'))
            .toString('latin1')
            .replaceAll('alice@example.org', email),
          'latin1',
        ),
        recipients,
      );
      await mailTo(verpOf(recipients[0]!), raw);
    };
    const isSendable = async () =>
      (await sql<{ ok: boolean }>`select ${notSuppressed(user.id, sql`${email}::text`)} as ok`.execute(t.platform.db))
        .rows[0]!.ok;
    await softBounce();
    await softBounce();
    expect(await suppressionsOf(user.id)).toEqual([]);
    expect(await isSendable()).toBe(true);
    await softBounce();
    const [held] = await suppressionsOf(user.id);
    expect(held).toMatchObject({ email, type: 'temporary', message: expect.stringContaining('Mailbox full') });
    const days = (held!.expires_at!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(await isSendable()).toBe(false);
    // Thirty days on: it lifts, and the hourly cleanup takes it away.
    await t.platform.db
      .updateTable('suppressions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', user.id)
      .execute();
    expect(await isSendable()).toBe(true);
    const cleaned = await cleanUpSuppressions(t.platform);
    expect(cleaned.liftedSuppressions).toBeGreaterThanOrEqual(1);
    expect(await suppressionsOf(user.id)).toEqual([]);
  });

  it('does not count soft bounces older than 15 days', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const email = 'old@example.org';
    await t.platform.db
      .insertInto('soft_bounces')
      .values([
        { user_id: user.id, email, bounced_at: new Date(Date.now() - 20 * 86_400_000) },
        { user_id: user.id, email, bounced_at: new Date(Date.now() - 16 * 86_400_000) },
      ])
      .execute();
    const { recipients } = await sentSend([email], user.id);
    const raw = fill(
      Buffer.from(
        fs
          .readFileSync(path.join(FIXTURES, '24-office365-mailbox-full.eml'))
          .toString('latin1')
          .replaceAll('alice@example.org', email),
        'latin1',
      ),
      recipients,
    );
    await mailTo(verpOf(recipients[0]!), raw);
    expect(await suppressionsOf(user.id)).toEqual([]);
  });
});

describe('a late bounce on a local run (the test inbox)', () => {
  it('accepts a message to bounce-later.test, then bounces it through the same reader: a failed event and a suppression', async () => {
    for (const how of ['VERP envelope', 'Message-ID'] as const) {
      const email = `later-${how === 'VERP envelope' ? 'a' : 'b'}@bounce-later.test`;
      const { userId, sendId, recipients } = await sentSend([email]);
      const results = await createTestInboxTransport(t.platform, userId).send([
        {
          from: 'news@acme.test',
          to: email,
          subject: 'Hi',
          html: '<p>Hi</p>',
          headers: { 'Message-ID': messageIdOf(t.platform, { from_address: 'news@acme.test' }, recipients[0]!) },
          ...(how === 'VERP envelope' ? { envelopeFrom: verpOf(recipients[0]!) } : {}),
        },
      ]);
      expect(results[0]).toMatchObject({ accepted: true });
      await waitFor(async () => (await suppressionsOf(userId)).length === 1, PATIENCE_MS, `the late bounce (${how})`);
      expect(await eventsOf(sendId)).toEqual([
        expect.objectContaining({ type: 'failed', severity: 'permanent', email }),
      ]);
    }
  });
});
