import crypto from 'node:crypto';
import type { TSpamTestResult } from '@sendwell/contracts';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startDnsZone } from '../../../test/dns-zone';
import { signDkim } from '../../../test/spam-corpus';
import { startSpamEngines } from '../../../test/spam-engines';
import { PROCESS_PATIENCE_MS } from '../../../test/wait';
import { sealSecret } from '../accounts/secrets';
import { changeCredits } from '../credits/credits.service';
import { dispatch, snapshotSend } from '../delivery/delivery.jobs';
import { trackedLinkTargets } from '../delivery/delivery.service';
import { startListener } from '../inbound/receiver';
import { spamTestListener } from './mailbox';
import { expireSpamTest } from './spam-test.service';

/**
 * The spam test from outside: a message reaches the test mailbox over SMTP (as the user's
 * own server would deliver it) or through the engine, is authenticated against a local
 * DNS zone with real DKIM keys, scored by rspamd and SpamAssassin and by Sendwell's checks,
 * and paid for once (refunded when it never arrives).
 */

const keyPair = () =>
  crypto.generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const good = keyPair();
const bad = keyPair();
const dkimRecord = (key: Buffer) => `v=DKIM1; k=rsa; p=${key.toString('base64')}`;

let t: TTestApp;
let zone: Awaited<ReturnType<typeof startDnsZone>>;
let engines: Awaited<ReturnType<typeof startSpamEngines>>;
let mailbox: Awaited<ReturnType<typeof startListener>>;

beforeAll(async () => {
  zone = await startDnsZone({
    // Ham's domain: 127.0.0.1 may send for it, it signs, and it publishes a strict policy.
    'good.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'], a: ['127.0.0.1'] },
    's1._domainkey.good.test': { txt: [dkimRecord(good.publicKey)] },
    '_dmarc.good.test': { txt: ['v=DMARC1; p=reject; rua=mailto:dmarc@good.test'] },
    // A domain whose SPF names another server and whose published key is not the signer's.
    'forged.test': { txt: ['v=spf1 ip4:192.0.2.10 -all'], a: ['192.0.2.10'] },
    's1._domainkey.forged.test': { txt: [dkimRecord(bad.publicKey)] },
    '_dmarc.forged.test': { txt: ['v=DMARC1; p=reject'] },
  });
  engines = await startSpamEngines();
  t = await startTestApp({
    ...engines.env,
    SPAM_TEST_DNS_SERVERS: zone.server,
    // On a loaded machine an engine can take seconds over a message: slow, never absent here.
    SPAM_ENGINE_TIMEOUT_SECONDS: '120',
    SPAM_TEST_DOMAIN: 'spamtest.sendwell.test',
    ALLOW_LOOPBACK_SMTP: 'true',
    PUBLIC_URL: 'https://sendwell.test',
  });
  mailbox = await startListener(t.platform, spamTestListener, { port: 0, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await mailbox?.close();
  await t?.close();
  engines?.stop();
  await zone?.close();
});

/** A user on a plan with accounts, its test-inbox account, and `credits` usable credits. */
const seed = async (credits: number) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id, 'news@good.test');
  const balance = await usable(agent);
  if (credits !== balance) {
    await t.platform.db.transaction().execute((trx) =>
      changeCredits(trx, {
        userId: user.id,
        type: credits > balance ? 'sale' : 'mon-balance-remove',
        quantity: credits - balance,
      }),
    );
  }
  return { user, agent, accountId };
};

const usable = async (agent: ReturnType<typeof createAgent>) => {
  const { credit } = (await agent.get('/api/user-information')).json().data;
  return credit.totalCredit - credit.usedCredit;
};

const startTest = async (seeded: Awaited<ReturnType<typeof seed>>, subject = 'Our November news') => {
  const response = await seeded.agent.post('/api/tools/mail-testing/send', {
    account: seeded.accountId,
    from: 'Good News',
    subject,
    mail_body: '<p>Hello</p>',
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { mail: number; to: string };
};

const result = async (agent: ReturnType<typeof createAgent>, id: number) => {
  const response = await agent.get(`/api/tools/mail-testing/result/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as TSpamTestResult;
};

const scored = async (agent: ReturnType<typeof createAgent>, id: number) => {
  // SpamAssassin under load takes long (engines' timeout raised for these tests): a process's patience.
  const deadline = Date.now() + PROCESS_PATIENCE_MS;
  for (;;) {
    const test = await result(agent, id);
    if (test.status === 'scored' || test.status === 'failed') return test;
    if (Date.now() > deadline) throw new Error(`spam test ${id} still ${test.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

type TFixture = { from: string; subject: string; html: string; text?: string; headers?: Record<string, string> };

const HAM: TFixture = {
  from: 'Good News <news@good.test>',
  subject: 'Our November news: three new recipes',
  html: `<html><body><h1>November at the bakery</h1>
    <p>This month we baked three new breads, and the recipes are below. The rye takes two days, the spelt one, and the focaccia an afternoon.</p>
    <p>Read them all on <a href="https://good.test/recipes/november">our recipes page</a>. Thank you for reading, and see you in December.</p>
    <p><a href="https://good.test/unsubscribe?u=1">Unsubscribe</a> from these emails.</p></body></html>`,
  text: 'November at the bakery\n\nThis month we baked three new breads, and the recipes are below. The rye takes two days, the spelt one, and the focaccia an afternoon.\n\nRead them: https://good.test/recipes/november\n\nUnsubscribe: https://good.test/unsubscribe?u=1',
  headers: {
    'List-Unsubscribe': '<https://good.test/unsubscribe?u=1>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
};

const SPAM: TFixture = {
  from: 'Best Offers <promo@good.test>',
  subject: 'FREE VIAGRA!!! ACT NOW, LIMITED TIME',
  html: `<html><body><div><img src="https://good.test/a.jpg"><img src="https://good.test/b.jpg">
    <p>CHEAP VIAGRA 100% FREE!!! Click <a href="http://bit.ly/3xYz">here</a> to claim your prize <a href="http://192.0.2.7/win">now</a></p>
    <table><tr><td>Act now</div></body></html>`,
};

/** The message, signed by `key` for `domain` when given, with the body changed afterwards when `tamper`. */
const compose = async (
  fixture: TFixture,
  to: string,
  sign?: { domain: string; key: string; tamper?: boolean },
): Promise<Buffer> => {
  let raw = await new MailComposer({
    from: fixture.from,
    to,
    subject: fixture.subject,
    html: fixture.html,
    ...(fixture.text ? { text: fixture.text } : {}),
    headers: fixture.headers ?? {},
    messageId: `<${crypto.randomUUID()}@${fixture.from.replace(/^.*@|>$/g, '')}>`,
    date: new Date(),
  })
    .compile()
    .build();
  // Line ends as SMTP carries them: a bare LF in the text part becomes CRLF on the way, which
  // would change the message after it was signed.
  raw = Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
  if (sign) {
    // The signing time read once (signDkim says why a second reading broke the signature).
    const signatures = await signDkim(raw, { domain: sign.domain, privateKey: sign.key });
    raw = Buffer.concat([Buffer.from(signatures), raw]);
    if (sign.tamper) raw = Buffer.from(raw.toString().replace('three new breads', 'three new brEads'));
  }
  return raw;
};

/** Delivers a message to the test mailbox over SMTP, as the user's own server would. */
const deliver = (raw: Buffer, envelope: { from: string; to: string }) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: mailbox.port, secure: false, ignoreTLS: true, name: 'mx.good.test' })
    .sendMail({ envelope, raw });

describe('the test mailbox and the score', () => {
  it('scores ham, spam and forged mail in the order a receiver would, with reasons a person can act on', async () => {
    const seeded = await seed(1_000);
    const [ham, spam, forged] = [await startTest(seeded), await startTest(seeded), await startTest(seeded)];
    await deliver(await compose(HAM, ham.to, { domain: 'good.test', key: good.privateKey }), {
      from: 'bounces@good.test',
      to: ham.to,
    });
    await deliver(await compose(SPAM, spam.to, { domain: 'good.test', key: good.privateKey }), {
      from: 'bounces@good.test',
      to: spam.to,
    });
    // Signed with a key that is not the one forged.test publishes, the body changed after
    // signing, and sent from an address its SPF does not name.
    await deliver(
      await compose({ ...HAM, from: 'Good News <news@forged.test>' }, forged.to, {
        domain: 'forged.test',
        key: good.privateKey,
        tamper: true,
      }),
      { from: 'bounces@forged.test', to: forged.to },
    );
    const hamResult = await scored(seeded.agent, ham.mail);
    const spamResult = await scored(seeded.agent, spam.mail);
    const forgedResult = await scored(seeded.agent, forged.mail);
    const statusOf = (test: TSpamTestResult, id: string) => test.report!.checks.find((item) => item.id === id)?.status;

    expect(hamResult.status).toBe('scored');
    const lost = (test: TSpamTestResult) =>
      JSON.stringify(test.report!.checks.filter((item) => item.penalty > 0).map((item) => [item.id, item.detail]));
    expect(hamResult.score, lost(hamResult)).toBeGreaterThanOrEqual(9);
    expect(hamResult.report!.verdict).toBe('Excellent');
    expect([statusOf(hamResult, 'spf'), statusOf(hamResult, 'dkim'), statusOf(hamResult, 'dmarc')]).toEqual([
      'pass',
      'pass',
      'pass',
    ]);
    expect(hamResult.report!.authenticationResults).toMatch(/dkim=pass/);
    expect([statusOf(hamResult, 'list-unsubscribe'), statusOf(hamResult, 'parts')]).toEqual(['pass', 'pass']);
    expect(hamResult.headers).toMatch(/^DKIM-Signature:/m);
    // Both engines scored every message.
    for (const test of [hamResult, spamResult, forgedResult]) {
      expect(test.report!.engines.map((engine) => [engine.name, engine.status])).toEqual([
        ['rspamd', 'scored'],
        ['SpamAssassin', 'scored'],
      ]);
    }

    expect(spamResult.score!).toBeLessThan(hamResult.score! - 3);
    expect(statusOf(spamResult, 'shorteners')).toBe('fail');
    expect(statusOf(spamResult, 'ip-links')).toBe('fail');
    expect(statusOf(spamResult, 'image-ratio')).not.toBe('pass');
    expect(statusOf(spamResult, 'subject')).toBe('warn');
    expect(statusOf(spamResult, 'list-unsubscribe')).toBe('warn');
    expect(statusOf(spamResult, 'html')).toBe('warn');
    expect(statusOf(spamResult, 'parts')).toBe('warn');
    const spamAssassin = spamResult.report!.engines.find((engine) => engine.name === 'SpamAssassin')!;
    expect(spamAssassin.score!).toBeGreaterThan(
      hamResult.report!.engines.find((e) => e.name === 'SpamAssassin')!.score!,
    );
    expect(spamAssassin.rules.length).toBeGreaterThan(0);

    expect(forgedResult.score!).toBeLessThan(hamResult.score! - 4);
    expect([statusOf(forgedResult, 'spf'), statusOf(forgedResult, 'dkim'), statusOf(forgedResult, 'dmarc')]).toEqual([
      'fail',
      'fail',
      'fail',
    ]);
    const dmarc = forgedResult.report!.checks.find((item) => item.id === 'dmarc')!;
    expect(dmarc.detail).toMatch(/reject/);
    expect(forgedResult.report!.checks.find((item) => item.id === 'spf')!.advice).toMatch(/127\.0\.0\.1/);
  }, 600_000);

  it('refuses addresses no test waits at, and takes a second copy of a message without scoring it twice', async () => {
    const seeded = await seed(1_000);
    const test = await startTest(seeded);
    await expect(
      deliver(await compose(HAM, 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test'), {
        from: 'x@good.test',
        to: 't-aaaaaaaaaaaaaaaaaaaa@spamtest.sendwell.test',
      }),
    ).rejects.toThrow(/550/);
    await expect(
      deliver(await compose(HAM, 'someone@good.test'), { from: 'x@good.test', to: 'someone@good.test' }),
    ).rejects.toThrow(/550/);
    const raw = await compose(HAM, test.to, { domain: 'good.test', key: good.privateKey });
    await deliver(raw, { from: 'bounces@good.test', to: test.to });
    const first = await scored(seeded.agent, test.mail);
    await deliver(await compose(SPAM, test.to), { from: 'bounces@good.test', to: test.to });
    const again = await result(seeded.agent, test.mail);
    expect(again.score).toBe(first.score);
    expect(again.scored_at).toBe(first.scored_at);
    const download = await seeded.agent.get(`/api/tools/mail-testing/history/${test.mail}/raw`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toMatch(/message\/rfc822/);
    // Byte for byte as sent (the SMTP data's own line end aside).
    const lines = (text: string) => text.replace(/\r?\n/g, '\r\n').trimEnd();
    expect(lines(download.rawPayload.toString())).toBe(lines(raw.toString()));
  });
});

describe('the flow of a spam test', () => {
  it('sends through the engine from a test-inbox account, scores the message, and charges 100 credits once', async () => {
    const seeded = await seed(250);
    const test = await startTest(seeded, 'Through the engine');
    expect(test.to).toMatch(/^t-[a-z0-9]{20}@spamtest\.sendwell\.test$/);
    expect(await usable(seeded.agent)).toBe(150);
    const waiting = await result(seeded.agent, test.mail);
    expect(waiting.status).toBe('waiting');

    const { send_id: sendId } = await t.platform.db
      .selectFrom('spam_tests')
      .select('send_id')
      .where('id', '=', test.mail)
      .executeTakeFirstOrThrow();
    await snapshotSend(t.platform, sendId!);
    await dispatch(t.platform, sendId!);
    const done = await scored(seeded.agent, test.mail);
    expect(done.status).toBe('scored');
    expect(done.subject).toBe('Through the engine');
    expect(done.account_name).toBe('Test inbox');
    // What the engine put on the message is what was scored.
    expect(done.headers).toMatch(/^Message-ID: <[0-9a-z]+-[0-9a-f]{20}@good\.test>/im);
    expect(done.report!.checks.find((item) => item.id === 'from')!.detail).toContain('news@good.test');
    // The engine's message carries a text part and one-click unsubscribe, as receivers want.
    for (const id of ['parts', 'list-unsubscribe', 'unsubscribe-link']) {
      expect(done.report!.checks.find((item) => item.id === id)!.status, id).toBe('pass');
    }
    // No false alarm on what the engine writes itself: From, Message-ID, Date, encodings,
    // tracked links (Sendwell's own host), size; every header and content finding passes.
    expect(
      done
        .report!.checks.filter(
          (item) => (item.category === 'headers' || item.category === 'content') && item.penalty > 0,
        )
        .map((item) => `${item.id}: ${item.detail}`),
    ).toEqual([]);
    // The engines were asked; nothing was charged twice; the message is not in the user's inbox.
    expect(done.report!.engines.every((engine) => engine.status === 'scored')).toBe(true);
    expect(await usable(seeded.agent)).toBe(150);
    const inbox = await seeded.agent.get('/api/test-inbox/messages');
    expect(inbox.json().data).toEqual([]);

    const history = await seeded.agent.get('/api/tools/mail-testing/history');
    expect(history.json().data.map((row: { id: number; score: number }) => [row.id, row.score])).toEqual([
      [test.mail, done.score],
    ]);
    const posted = await seeded.agent.post('/api/tools/mail-testing/post-result', { sentRecord: test.mail });
    expect(posted.json()).toMatchObject({ status: true, id: test.mail });

    const saved = await seeded.agent.post('/api/tools/mail-testing/save-as-template', {
      name: 'Tested',
      sent_id: test.mail,
    });
    expect(saved.json().data).toMatchObject({ name: 'Tested', subject: 'Through the engine', html: '<p>Hello</p>' });
  });

  it("reads a tracked message's links where they lead: a shortener or a phishing-like link behind Sendwell's click tracking is found", async () => {
    const seeded = await seed(300);
    const response = await seeded.agent.post('/api/tools/mail-testing/send', {
      account: seeded.accountId,
      from: 'Good News',
      subject: 'Tracked links',
      mail_body: `<p>This month we baked three new breads; the recipes are on our site.</p>
        <p>Read them <a href="https://bit.ly/3xYz">on our recipes page</a>, or check your order at
        <a href="https://account-check.example/login">https://www.paypal.com/account</a>.</p>
        <p>Our partner: <a href="https://click.other-service.example/api/t/c/abc/1/xyz">their offer</a>.</p>`,
    });
    expect(response.statusCode, response.body).toBe(200);
    const test = response.json().data as { mail: number; to: string };
    const { send_id: sendId } = await t.platform.db
      .selectFrom('spam_tests')
      .select('send_id')
      .where('id', '=', test.mail)
      .executeTakeFirstOrThrow();
    await snapshotSend(t.platform, sendId!);
    await dispatch(t.platform, sendId!);
    const done = await scored(seeded.agent, test.mail);
    expect(done.status).toBe('scored');
    // The message went out as every tracked send does: each link through Sendwell's redirect.
    const raw = (await seeded.agent.get(`/api/tools/mail-testing/history/${test.mail}/raw`)).rawPayload;
    const html = String((await simpleParser(raw)).html);
    const tracked = [...html.matchAll(/href="(https:\/\/sendwell\.test\/api\/t\/c\/[^"]+)"/g)].map(
      (match) => match[1]!,
    );
    expect(tracked).toHaveLength(3);
    expect(html).not.toContain('bit.ly');

    const finding = (id: string) => done.report!.checks.find((item) => item.id === id);
    expect(finding('shorteners')).toMatchObject({ status: 'fail' });
    expect(finding('shorteners')!.detail).toContain('bit.ly');
    // A link whose text names another domain than where it leads is a fault at least of the middle.
    expect(finding('link-text')).toMatchObject({ status: 'fail' });
    expect(finding('link-text')!.detail).toMatch(/names paypal\.com but the link goes to account-check\.example/);
    expect(['Good', 'Needs work', 'Likely spam']).toContain(done.report!.verdict);

    // Only Sendwell's own, validly signed links of the user's own sends are read through;
    // another service's redirect stays as written, and nothing counts as a click.
    const [shortener] = tracked;
    const other = await seed(0);
    const targets = await trackedLinkTargets(t.platform, seeded.user.id, [
      shortener!,
      shortener!.replace(/\/[^/]+$/, '/AAAAAAAAAAAAAAAA'),
      shortener!.replace('https://sendwell.test/', 'https://elsewhere.example/'),
      'https://click.other-service.example/api/t/c/abc/1/xyz',
    ]);
    expect(targets).toEqual({ [shortener!]: 'https://bit.ly/3xYz' });
    expect(await trackedLinkTargets(t.platform, other.user.id, [shortener!])).toEqual({});
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select('clicked_at')
      .where('send_id', '=', sendId!)
      .execute();
    expect(recipients).toEqual([{ clicked_at: null }]);
  });

  it('refuses a test below 100 usable credits with the ERR_LIMIT dialog, charging nothing', async () => {
    const seeded = await seed(99);
    const response = await seeded.agent.post('/api/tools/mail-testing/send', {
      account: seeded.accountId,
      from: 'Good News',
      subject: 'Hello',
      mail_body: '<p>Hello</p>',
    });
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({
      status: false,
      code: 'ERR_LIMIT',
      errorData: { title: 'Not enough credits', confirmButtonText: 'Buy Credits', link: '/settings/subscription' },
    });
    expect(await usable(seeded.agent)).toBe(99);
    expect(
      await t.platform.db.selectFrom('spam_tests').select('id').where('user_id', '=', seeded.user.id).execute(),
    ).toEqual([]);
  });

  it('validates the form as the send page does, and stops at five tests waiting at once', async () => {
    const seeded = await seed(10_000);
    const missing = await seeded.agent.post('/api/tools/mail-testing/send', {
      account: seeded.accountId,
      from: '',
      subject: '',
      mail_body: ' ',
    });
    expect(missing.statusCode).toBe(422);
    expect(Object.keys(missing.json().errors).sort()).toEqual(['mail_body', 'subject']);
    const noName = await seeded.agent.post('/api/tools/mail-testing/send', {
      account: seeded.accountId,
      from: '',
      subject: 'Hi',
      mail_body: '<p>x</p>',
    });
    expect(noName.json().errors).toEqual({ senderName: ['Sender Name field is required!'] });
    for (let index = 0; index < 5; index++) await startTest(seeded);
    const sixth = await seeded.agent.post('/api/tools/mail-testing/send', {
      account: seeded.accountId,
      from: 'Good News',
      subject: 'Hi',
      mail_body: '<p>x</p>',
    });
    expect(sixth.statusCode).toBe(402);
    expect(sixth.json().errorData).toMatchObject({
      title: 'Wait for your tests to finish',
      link: '/tools/mail-testing/history',
    });
    expect(await usable(seeded.agent)).toBe(10_000 - 500);
  });

  it('gives the credits back once when the message never arrives, and at once when the account fails it', async () => {
    const seeded = await seed(300);
    const lost = await startTest(seeded);
    expect(await usable(seeded.agent)).toBe(200);
    await expireSpamTest(t.platform, lost.mail);
    await expireSpamTest(t.platform, lost.mail);
    const failed = await result(seeded.agent, lost.mail);
    expect(failed).toMatchObject({ status: 'failed', credits_charged: 100, credits_refunded: 100 });
    expect(failed.error).toMatch(/did not reach the test mailbox/);
    expect(await usable(seeded.agent)).toBe(300);
    // A message arriving after its test failed is refused, not scored for free.
    await expect(deliver(await compose(HAM, lost.to), { from: 'bounces@good.test', to: lost.to })).rejects.toThrow(
      /550/,
    );

    // An SMTP account whose server refuses the message (here the mailbox itself, the test's
    // address no longer known to it): the engine fails the recipient, and the next look at
    // the result refunds.
    const { id: brokenAccount } = await t.platform.db
      .insertInto('sending_accounts')
      .values({
        user_id: seeded.user.id,
        name: 'Refusing server',
        provider: 'smtp',
        driver: 'smtp',
        username: 'mailer',
        host: '127.0.0.1',
        port: mailbox.port,
        encryption: 'tls',
        from_address: 'news@good.test',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ password_encrypted: sealSecret(t.platform, brokenAccount, 'password', 'any-password') })
      .where('id', '=', brokenAccount)
      .execute();
    const viaEngine = await startTest({ ...seeded, accountId: brokenAccount });
    await t.platform.db
      .updateTable('spam_tests')
      .set({ token: 'zzzzzzzzzzzzzzzzzzzz' })
      .where('id', '=', viaEngine.mail)
      .execute();
    const { send_id: sendId } = await t.platform.db
      .selectFrom('spam_tests')
      .select('send_id')
      .where('id', '=', viaEngine.mail)
      .executeTakeFirstOrThrow();
    await snapshotSend(t.platform, sendId!);
    // The mailbox's 550 quotes the address. One whose random token held "tls" or "ssl" read as
    // "The secure connection … failed" (seen once in a full run): here it always does.
    await t.platform.db
      .updateTable('send_recipients')
      .set({ email: 't-tlssslstarttls000000@spamtest.sendwell.test' })
      .where('send_id', '=', sendId!)
      .execute();
    await dispatch(t.platform, sendId!);
    const refunded = await result(seeded.agent, viaEngine.mail);
    expect(refunded.status).toBe('failed');
    expect(refunded.error).toMatch(
      /^Your sending account could not deliver the test email: The SMTP server refused the message: .*550 5\.1\.1 <t-tlssslstarttls000000@/,
    );
    expect(await usable(seeded.agent)).toBe(300);
  });

  it('refuses a message past its deadline and gives the credits back then, before the deadline job runs, and once', async () => {
    const seeded = await seed(1_000);
    const late = await startTest(seeded);
    // created_at is written once by the database; a test moves its deadline by rewriting it.
    const overdue = (id: number) =>
      sql`update spam_tests set created_at = now() - interval '1 hour' where id = ${id}`.execute(t.platform.db);
    // The deadline passes; its job has not run (no worker here).
    await overdue(late.mail);
    await expect(deliver(await compose(HAM, late.to), { from: 'bounces@good.test', to: late.to })).rejects.toThrow(
      /550/,
    );
    // The refusal failed and refunded the test: the result says so without waiting for the job.
    const refused = await t.platform.db
      .selectFrom('spam_tests')
      .select(['status', 'credits_refunded', 'raw'])
      .where('id', '=', late.mail)
      .executeTakeFirstOrThrow();
    expect(refused).toMatchObject({ status: 'failed', credits_refunded: 100, raw: null });
    expect(await usable(seeded.agent)).toBe(1_000);
    // The job, when it runs, finds nothing to do: the credits came back once.
    await expireSpamTest(t.platform, late.mail);
    expect(await usable(seeded.agent)).toBe(1_000);

    // A test past its deadline whose message never came is failed by the next look at the history.
    const lost = await startTest(seeded);
    await overdue(lost.mail);
    const history = (await seeded.agent.get('/api/tools/mail-testing/history')).json().data as {
      id: number;
      status: string;
      credits_refunded: number;
    }[];
    expect(history.find((row) => row.id === lost.mail)).toMatchObject({ status: 'failed', credits_refunded: 100 });
    expect(await usable(seeded.agent)).toBe(1_000);

    // Tests past their deadline do not hold back new ones (five waiting at most).
    const waiting = [];
    for (let index = 0; index < 5; index++) waiting.push(await startTest(seeded));
    for (const test of waiting) await overdue(test.mail);
    const next = await startTest(seeded);
    expect((await result(seeded.agent, next.mail)).status).toBe('waiting');
    for (const test of waiting) expect((await result(seeded.agent, test.mail)).status).toBe('failed');
    expect(await usable(seeded.agent)).toBe(1_000 - 100);
  });

  it('shows a user only their own tests (R12)', async () => {
    const owner = await seed(200);
    const other = await seed(200);
    const test = await startTest(owner);
    expect((await other.agent.get(`/api/tools/mail-testing/result/${test.mail}`)).statusCode).toBe(404);
    expect((await other.agent.get(`/api/tools/mail-testing/history/${test.mail}/raw`)).statusCode).toBe(404);
    expect(
      (await other.agent.post('/api/tools/mail-testing/save-as-template', { name: 'x', sent_id: test.mail }))
        .statusCode,
    ).toBe(404);
    expect((await other.agent.get('/api/tools/mail-testing/history')).json().data).toEqual([]);
  });
});

describe('the test inbox shows what a receiver sees', () => {
  it('keeps each message as it arrived and gives it the spam test’s analysis', async () => {
    const seeded = await seed(0);
    const { createTestInboxTransport } = await import('../test-inbox/test-inbox.service');
    const transport = createTestInboxTransport(t.platform, seeded.user.id);
    await transport.send([
      {
        from: 'Good News <news@good.test>',
        to: 'reader@example.com',
        subject: 'Hello reader',
        html: '<p>Hi there, <a href="https://bit.ly/x">a link</a></p>',
        headers: { 'Message-ID': '<m1@good.test>' },
      },
    ]);
    const [message] = (await seeded.agent.get('/api/test-inbox/messages')).json().data;
    const analysis = await seeded.agent.get(`/api/test-inbox/messages/${message.id}/analysis`);
    expect(analysis.statusCode, analysis.body).toBe(200);
    const { headers, report } = analysis.json().data;
    expect(headers).toMatch(/^Subject: Hello reader$/m);
    expect(report.checks.find((item: { id: string }) => item.id === 'shorteners').status).toBe('fail');
    expect(report.score).toBeLessThan(10);
    const raw = await seeded.agent.get(`/api/test-inbox/messages/${message.id}/raw`);
    expect(raw.body).toContain('Subject: Hello reader');
    const other = await seed(0);
    expect((await other.agent.get(`/api/test-inbox/messages/${message.id}/analysis`)).statusCode).toBe(404);
    expect((await other.agent.get(`/api/test-inbox/messages/${message.id}/raw`)).statusCode).toBe(404);
  });
});
