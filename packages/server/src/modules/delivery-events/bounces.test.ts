import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { PATIENCE_MS, waitFor } from '../../../test/wait';
import { buildMessage, tokenOfVerp, verpAddress } from '../delivery/message';
import { startListener } from '../inbound/receiver';
import { createTestInboxTransport } from '../test-inbox/test-inbox.service';
import { parseBounce } from './bounce-parser';
import { bounceListener } from './bounces';

const DOMAIN = 'bounces.sendwell.test';
let t: TTestApp;
let receiver: Awaited<ReturnType<typeof startListener>>;

beforeAll(async () => {
  t = await startTestApp({ BOUNCE_DOMAIN: DOMAIN, PUBLIC_URL: 'https://sendwell.test' });
  receiver = await startListener(t.platform, bounceListener, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** A sent recipient of a send, as the engine leaves one; answers its token. */
const sentRecipient = async (email: string) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const send = await t.platform.db
    .insertInto('sends')
    .values({
      user_id: user.id,
      account_id: account.id,
      status: 'finished',
      from_address: 'news@acme.test',
      subject: 'Hi',
      html: '<p>Hi</p>',
      list_ids: [],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = `${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`.padEnd(32, '0').slice(0, 32);
  await t.platform.db
    .insertInto('send_recipients')
    .values({ send_id: send.id, user_id: user.id, email, token, status: 'sent' })
    .execute();
  return { token, userId: user.id, sendId: send.id };
};

const mailTo = async (to: string, raw: string) => {
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

const dsn = (
  recipient: string,
  action: string,
  status: string,
  diagnostic: string,
  id = `<dsn-${Math.random()}@mx.example.net>`,
) =>
  [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    'To: bounces@sendwell.test',
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: ${id}`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.net. Your message could not be delivered.',
    '',
    '--b1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Original-Recipient: rfc822;${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    'Remote-MTA: dns; mail.example.org',
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    '--b1',
    'Content-Type: text/rfc822-headers',
    '',
    `To: ${recipient}`,
    'Subject: Hi',
    '',
    '--b1--',
    '',
  ].join('\r\n');

const QMAIL = (recipient: string) =>
  [
    'From: MAILER-DAEMON@mail.example.org',
    'Subject: failure notice',
    'Message-ID: <qmail-1@mail.example.org>',
    '',
    'Hi. This is the qmail-send program at mail.example.org.',
    "I'm afraid I wasn't able to deliver your message to the following addresses.",
    "This is a permanent error; I've given up. Sorry it didn't work out.",
    '',
    `<${recipient}>:`,
    'Sorry, no mailbox here by that name. (#5.1.1)',
    '',
  ].join('\r\n');

const EXCHANGE = (recipient: string) =>
  [
    'From: Microsoft Outlook <postmaster@contoso.example>',
    `Subject: Undeliverable: Hi`,
    'Message-ID: <ndr-1@contoso.example>',
    '',
    'Delivery has failed to these recipients or groups:',
    '',
    recipient,
    "The email address you entered couldn't be found.",
    '',
    'Diagnostic information for administrators:',
    `Remote Server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient ${recipient} not found by SMTP address lookup'`,
    '',
  ].join('\r\n');

const OUT_OF_OFFICE = [
  'From: Ann <ann@example.com>',
  'Subject: Out of Office: Hi',
  'Auto-Submitted: auto-replied',
  'Message-ID: <ooo-1@example.com>',
  '',
  'I am away until Monday and will read your message when I am back.',
  '',
].join('\r\n');

const events = (userId: number) =>
  t.platform.db
    .selectFrom('delivery_events')
    .select(['type', 'severity', 'detail', 'email'])
    .where('user_id', '=', userId)
    .execute();
const suppressions = (userId: number) =>
  t.platform.db
    .selectFrom('suppressions')
    .select(['email', 'type', 'message', 'description'])
    .where('user_id', '=', userId)
    .execute();

describe('VERP addresses', () => {
  it('give each message an envelope sender that names its recipient, and read it back', async () => {
    const token = 'a'.repeat(32);
    expect(verpAddress(DOMAIN, token)).toBe(`bounces+${token}@${DOMAIN}`);
    expect(tokenOfVerp(DOMAIN, `Bounces+${token.toUpperCase()}@BOUNCES.sendwell.test`)).toBe(token);
    expect(tokenOfVerp(DOMAIN, `bounces+${token}@other.test`)).toBeNull();
    expect(tokenOfVerp(DOMAIN, 'postmaster@bounces.sendwell.test')).toBeNull();
    const send = {
      id: 7,
      from_address: 'news@acme.test',
      from_name: 'Acme',
      subject: 'Hi',
      html: '<p>Hi</p>',
      reply_to: '',
      track_opens: false,
      track_clicks: false,
    };
    const message = buildMessage(t.platform, send as never, { email: 'ann@example.com', name: '', fields: {}, token });
    expect(message.envelopeFrom).toBe(`bounces+${token}@${DOMAIN}`);
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
    try {
      await transport.send([
        {
          from: '"Acme" <news@acme.test>',
          to: 'ann@example.com',
          subject: 'Hi',
          html: '<p>Hi</p>',
          envelopeFrom: `bounces+${'b'.repeat(32)}@${DOMAIN}`,
        },
      ]);
    } finally {
      transport.close();
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
    expect(seen).toEqual([`bounces+${'b'.repeat(32)}@${DOMAIN}`]);
  });
});

describe('the bounce receiver (a DSN corpus over SMTP)', () => {
  it('records a hard RFC 3464 bounce once: a permanent failure event and a suppression with the server’s words', async () => {
    const { token, userId } = await sentRecipient('gone@example.org');
    const message = dsn(
      'gone@example.org',
      'failed',
      '5.1.1',
      '550 5.1.1 <gone@example.org>: Recipient address rejected: User unknown',
      '<dsn-hard@mx.example.net>',
    );
    await mailTo(verpAddress(DOMAIN, token), message);
    await mailTo(verpAddress(DOMAIN, token), message); // the same bounce again
    expect(await events(userId)).toEqual([
      {
        type: 'failed',
        severity: 'permanent',
        email: 'gone@example.org',
        detail: '550 5.1.1 <gone@example.org>: Recipient address rejected: User unknown',
      },
    ]);
    expect(await suppressions(userId)).toEqual([
      expect.objectContaining({
        email: 'gone@example.org',
        type: 'bounce',
        message: expect.stringContaining('User unknown'),
        description: expect.stringContaining('Status 5.1.1'),
      }),
    ]);
  });

  it('records a delay as a temporary (deferred) event without suppressing', async () => {
    const { token, userId } = await sentRecipient('slow@example.org');
    await mailTo(
      verpAddress(DOMAIN, token),
      dsn('slow@example.org', 'delayed', '4.4.1', '451 4.4.1 Connection timed out, will retry'),
    );
    expect(await events(userId)).toEqual([expect.objectContaining({ type: 'deferred', severity: 'temporary' })]);
    expect(await suppressions(userId)).toEqual([]);
  });

  it('reads qmail and Exchange bounces without a report part as permanent failures', async () => {
    const qmail = await sentRecipient('q@example.org');
    await mailTo(verpAddress(DOMAIN, qmail.token), QMAIL('q@example.org'));
    expect(await events(qmail.userId)).toEqual([expect.objectContaining({ type: 'failed', severity: 'permanent' })]);
    const exchange = await sentRecipient('x@contoso.example');
    await mailTo(verpAddress(DOMAIN, exchange.token), EXCHANGE('x@contoso.example'));
    const [event] = await events(exchange.userId);
    expect(event).toMatchObject({ type: 'failed', severity: 'permanent' });
    expect(event!.detail).toContain('550 5.1.10');
  });

  it('takes an out-of-office reply (250) and records nothing; refuses addresses that are not VERP (550)', async () => {
    const { token, userId } = await sentRecipient('ann@example.com');
    await mailTo(verpAddress(DOMAIN, token), OUT_OF_OFFICE);
    expect(await events(userId)).toEqual([]);
    expect(await suppressions(userId)).toEqual([]);
    await expect(mailTo(`postmaster@${DOMAIN}`, OUT_OF_OFFICE)).rejects.toMatchObject({ responseCode: 550 });
  });

  it('parses the corpus as a receiver would', async () => {
    expect(await parseBounce(dsn('a@b.example', 'failed', '5.2.2', '552 5.2.2 Mailbox full'))).toMatchObject({
      kind: 'permanent',
      status: '5.2.2',
      recipient: 'a@b.example',
    });
    expect(await parseBounce(dsn('a@b.example', 'delivered', '2.0.0', '250 ok'))).toMatchObject({
      kind: 'not-a-bounce',
    });
    expect(await parseBounce(OUT_OF_OFFICE)).toMatchObject({ kind: 'not-a-bounce' });
    expect(await parseBounce(QMAIL('c@d.example'))).toMatchObject({ kind: 'permanent', recipient: 'c@d.example' });
    expect(await parseBounce('From: a@b.example\r\nSubject: Hello\r\n\r\nJust a note.\r\n')).toMatchObject({
      kind: 'not-a-bounce',
    });
  });
});

describe('a late bounce on a local run (the test inbox)', () => {
  it('accepts a message to bounce-later.test, then bounces it through the same reader: a failed event and a suppression', async () => {
    for (const how of ['VERP envelope', 'Message-ID'] as const) {
      const email = `later-${how === 'VERP envelope' ? 'a' : 'b'}@bounce-later.test`;
      const { token, userId, sendId } = await sentRecipient(email);
      const results = await createTestInboxTransport(t.platform, userId).send([
        {
          from: 'news@acme.test',
          to: email,
          subject: 'Hi',
          html: '<p>Hi</p>',
          headers: { 'Message-ID': `<${token}.${sendId}@acme.test>` },
          ...(how === 'VERP envelope' ? { envelopeFrom: verpAddress(DOMAIN, token) } : {}),
        },
      ]);
      expect(results[0]).toMatchObject({ accepted: true });
      await waitFor(async () => (await suppressions(userId)).length === 1, PATIENCE_MS, `the late bounce (${how})`);
      expect(await events(userId)).toEqual([expect.objectContaining({ type: 'failed', severity: 'permanent', email })]);
    }
  });
});
