import type { TPreSendCheck } from '@sendwell/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startDnsZone } from '../../../test/dns-zone';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { sealSecret } from '../accounts/secrets';
import { setRole } from '../auth/auth.service';
import { GTUBE } from '../spam-test/message-checks';
import { createCachingResolver } from './dns-cache';
import { preSendResolver } from './pre-send.service';

/**
 * The pre-send check (issue 31 §1) against a DNS server on loopback answering from the
 * test's own zone: SPF evaluated for the SMTP server's address, DKIM under a named selector,
 * DMARC and its alignment; the spam test's content checks on the composed message; the lists.
 */

const KEY =
  'MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDEbQy1Qk3bL0u6p8cFjSmGlE4d3wFlf8H6N0vQy1B1yq3mF1Zk9tCq3UoX9b3l5lM8i1S1vDk6sQ9kq2Y5d9nVQ3q3v6J1mJwzX0aB4o0Z8y0GgC5cW9sZ3t8o3W6f4V4k5E3m2O0b3J1w7mP8rA0Q9u0XkR4p1T5a6v2y8mZ3QIDAQAB';

let zone: Awaited<ReturnType<typeof startDnsZone>>;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;
let t: TTestApp;
const MAILGUN_KEY = 'key-pre-send-0123456789';
beforeAll(async () => {
  // Mailgun's domain API (its contract fake) reports k1 as the selector of mg.keyed.test.
  mailgun = await startMailgunFake({
    key: MAILGUN_KEY,
    domains: [{ name: 'mg.keyed.test', region: 'us', dkimSelector: 'k1' }],
  });
  zone = await startDnsZone({
    'acme.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    'smtp.acme.test': { a: ['127.0.0.1'] },
    'relay.elsewhere.test': { a: ['192.0.2.7'] },
    's1._domainkey.acme.test': { txt: [`v=DKIM1; k=rsa; p=${KEY}`] },
    '_dmarc.acme.test': { txt: ['v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.test'] },
    'bare.test': { a: ['192.0.2.1'] },
    'mg.bare.test': { txt: ['v=spf1 include:mailgun.org ~all'] },
    'mx._domainkey.mg.bare.test': { txt: [`k=rsa; p=${KEY}`] },
    'mg.keyed.test': { txt: ['v=spf1 include:mailgun.org ~all'] },
    // mx holds a key too: only the selector Mailgun reports is the one that counts.
    'mx._domainkey.mg.keyed.test': { txt: [`k=rsa; p=${KEY}`] },
    'k1._domainkey.mg.keyed.test': { txt: [`k=rsa; p=${KEY}`] },
    // An SMTP account's own selector, named on the account.
    'mail2024._domainkey.acme.test': { txt: [`v=DKIM1; k=rsa; p=${KEY}`] },
    // Issue 45 §1: a policy of none; a policy of reject; a record listing the server behind a
    // qualifier; a domain whose DNS never answers; bounce domains with and without SPF.
    'nonepolicy.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    '_dmarc.nonepolicy.test': { txt: ['v=DMARC1; p=none; rua=mailto:dmarc@nonepolicy.test'] },
    'strict.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    '_dmarc.strict.test': { txt: ['v=DMARC1; p=reject'] },
    'bounces.strict.test': { txt: ['v=spf1 ip4:127.0.0.1 -all'] },
    'bounces.sendwell.test': { mx: ['mx.sendwell.test'] },
    'listed.test': { txt: ['v=spf1 ?ip4:127.0.0.1 -all'] },
    'silent.test': { isSilent: true },
  });
  t = await startTestApp({
    SPAM_TEST_DNS_SERVERS: zone.server,
    PUBLIC_URL: 'https://sendwell.test',
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
  });
});
afterAll(async () => {
  await t?.close();
  zone?.close();
  await mailgun?.close();
});

const seed = async (account: {
  host?: string;
  fromAddress?: string;
  provider?: 'smtp' | 'mailgun';
  domain?: string;
}) => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const isMailgun = account.provider === 'mailgun';
  const { id: accountId } = await t.platform.db
    .insertInto('sending_accounts')
    .values({
      user_id: user.id,
      name: 'Main',
      provider: account.provider ?? 'smtp',
      driver: isMailgun ? null : 'smtp',
      domain: account.domain ?? null,
      region: isMailgun ? 'us' : null,
      username: isMailgun ? null : 'mailer',
      host: isMailgun ? null : (account.host ?? 'smtp.acme.test'),
      port: isMailgun ? null : 587,
      encryption: isMailgun ? null : 'tls',
      from_address: isMailgun ? null : (account.fromAddress ?? 'news@acme.test'),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const listDomain = account.domain ?? 'acme.test';
  const { id: listId } = await t.platform.db
    .insertInto('mailing_lists')
    .values({
      user_id: user.id,
      account_id: accountId,
      alias: 'all',
      domain: listDomain,
      address: `all@${listDomain}`,
      name: 'All',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // 10 members: 4 verified, 2 role addresses.
  await t.platform.db
    .insertInto('list_members')
    .values(
      ['info@a.test', 'sales@b.test', ...Array.from({ length: 8 }, (_, index) => `p${index}@c.test`)].map(
        (email, index) => ({ user_id: user.id, list_id: listId, account_id: accountId, email, verified: index >= 6 }),
      ),
    )
    .execute();
  return { user, agent, accountId, listId };
};

const check = async (
  seeded: Awaited<ReturnType<typeof seed>>,
  body: Record<string, unknown> = {},
): Promise<TPreSendCheck> => {
  const response = await seeded.agent.post('/api/email/pre-send-check', {
    account: seeded.accountId,
    from: 'news@acme.test',
    senderName: 'Acme',
    alias: 'news',
    to: [seeded.listId],
    subject: 'November news',
    message: '<p>Hello {{name::there}}, our November news is here.</p>',
    ...body,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

const itemOf = (result: TPreSendCheck, id: string) => result.items.find((entry) => entry.id === id);

describe('the pre-send check', () => {
  it('reads the From domain as a receiver would: SPF for the SMTP server, DKIM under its selector, DMARC aligned', async () => {
    const seeded = await seed({});
    const result = await check(seeded, { dkimSelector: 's1' });
    expect(itemOf(result, 'spf')).toMatchObject({ status: 'pass', detail: expect.stringContaining('127.0.0.1') });
    expect(itemOf(result, 'dkim')).toMatchObject({ status: 'pass', detail: expect.stringContaining('s1') });
    expect(itemOf(result, 'dmarc')).toMatchObject({ status: 'pass', detail: expect.stringContaining('quarantine') });
    expect(itemOf(result, 'bulk-rules')).toMatchObject({ status: 'pass' });
    // The message: the spam test's own checks and their score.
    expect(itemOf(result, 'message-score')?.status).toBe('pass');
    expect(result.messageScore).toBeGreaterThanOrEqual(8);
    expect(result.items.filter((entry) => entry.group === 'message').length).toBeGreaterThan(3);
    // The lists: 10 addresses, 6 unverified, 2 generic, no sends before. Never verified is no
    // evidence against an address: a warning with its reason, not red (issue 45 §1).
    expect(result.audience).toBe(10);
    expect(itemOf(result, 'unverified')).toMatchObject({
      status: 'warn',
      detail: '6 of 10 recipients (60%) were never verified.',
      advice: expect.stringMatching(/bounce.*sender reputation/),
    });
    expect(itemOf(result, 'invalid')?.status).toBe('pass');
    expect(itemOf(result, 'generic')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^2 of 10 recipients \(20%\) are role addresses/),
    });
    expect(itemOf(result, 'history')?.status).toBe('info');
    // A good domain, a good message, a list freshly imported: nothing asks "send it anyway?".
    expect(result.hasFailures).toBe(false);
  });

  it('says what is wrong, and what to do: a server SPF does not allow, a missing selector, spam words', async () => {
    const seeded = await seed({ host: 'relay.elsewhere.test' });
    const result = await check(seeded, {
      dkimSelector: 'nope',
      message: `<p>${GTUBE}</p>`,
    });
    expect(itemOf(result, 'spf')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('does not allow relay.elsewhere.test (192.0.2.7)'),
      advice: expect.any(String),
    });
    expect(itemOf(result, 'dkim')).toMatchObject({
      status: 'fail',
      detail: 'No DKIM key at nope._domainkey.acme.test.',
    });
    expect(itemOf(result, 'message-score')?.status).toBe('fail');
    expect(result.hasFailures).toBe(true);
  });

  it('checks a Mailgun account on its own domain: the include, the usual selector, DMARC missing', async () => {
    const seeded = await seed({ provider: 'mailgun', domain: 'mg.bare.test' });
    // Mailgun sends a domain's mail From its parent (news@bare.test), through mg.bare.test.
    const result = await check(seeded, { from: 'news@bare.test', alias: 'news' });
    expect(itemOf(result, 'spf')).toMatchObject({ status: 'pass', detail: expect.stringContaining('mailgun.org') });
    expect(itemOf(result, 'dkim')).toMatchObject({ status: 'pass', detail: expect.stringContaining('selector mx') });
    expect(itemOf(result, 'dmarc')).toMatchObject({
      status: 'warn',
      detail: 'bare.test publishes no DMARC policy.',
    });
  });

  it("checks the DKIM key under the selector Mailgun's domain API reports, asked once for a while", async () => {
    const seeded = await seed({ provider: 'mailgun', domain: 'mg.keyed.test' });
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ api_key_encrypted: sealSecret(t.platform, seeded.accountId, 'api_key', MAILGUN_KEY) })
      .where('id', '=', seeded.accountId)
      .execute();
    const asked = () => mailgun.requests.filter((request) => /^\/v[34]\/domains\/mg\.keyed\.test$/.test(request.path));
    const result = await check(seeded, { from: 'news@keyed.test', alias: 'news' });
    expect(itemOf(result, 'dkim')).toMatchObject({
      status: 'pass',
      detail: "mg.keyed.test publishes a DKIM key under the selector k1 (the selector Mailgun's domain API reports).",
    });
    expect(asked()).toHaveLength(1);
    await check(seeded, { from: 'news@keyed.test', alias: 'news' });
    expect(asked()).toHaveLength(1);
  });

  it("checks an SMTP account's own DKIM selector, and the account form refuses one DNS could not hold", async () => {
    const seeded = await seed({});
    const before = await check(seeded);
    expect(itemOf(before, 'dkim')).toMatchObject({ status: 'info', advice: expect.stringContaining('DKIM selector') });
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ dkim_selector: 'mail2024' })
      .where('id', '=', seeded.accountId)
      .execute();
    expect(itemOf(await check(seeded), 'dkim')).toMatchObject({
      status: 'pass',
      detail: "acme.test publishes a DKIM key under the selector mail2024 (the account's DKIM selector).",
    });
    // A selector named for one check still wins over the account's.
    expect(itemOf(await check(seeded, { dkimSelector: 'gone' }), 'dkim')).toMatchObject({
      status: 'fail',
      detail: 'No DKIM key at gone._domainkey.acme.test.',
    });
    const accounts = await seeded.agent.get('/api/settings/accounts');
    expect(JSON.stringify(accounts.json())).toContain('"dkimSelector":"mail2024"');
    const refused = await seeded.agent.post(`/api/settings/account/create-or-update/${seeded.accountId}`, {
      name: 'Main',
      provider: 'smtp',
      driver: 'smtp',
      username: 'mailer',
      host: 'smtp.acme.test',
      port: 587,
      encryption: 'tls',
      dkimSelector: 'mail 2024._domainkey',
    });
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(refused.json())).toContain('A DKIM selector holds letters');
  });

  it('keeps DNS answers for their TTL: a second check asks nothing, a later one asks again', async () => {
    const seeded = await seed({});
    await check(seeded, { dkimSelector: 's1' });
    const asked = preSendResolver(t.platform).asked();
    await check(seeded, { dkimSelector: 's1' });
    expect(preSendResolver(t.platform).asked()).toBe(asked);

    let now = 1_000_000;
    const resolver = createCachingResolver([zone.server], { now: () => now });
    expect(await resolver.resolve('_dmarc.acme.test', 'TXT')).toEqual([
      ['v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.test'],
    ]);
    await resolver.resolve('_dmarc.acme.test', 'TXT');
    expect(resolver.asked()).toBe(1);
    now += 59_000; // the zone's records live 60 s
    await resolver.resolve('_dmarc.acme.test', 'TXT');
    expect(resolver.asked()).toBe(1);
    now += 2_000;
    await resolver.resolve('_dmarc.acme.test', 'TXT');
    expect(resolver.asked()).toBe(2);
    await expect(resolver.resolve('missing.acme.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('checks the spam-test form the same way: the domain and the message, no lists', async () => {
    const seeded = await seed({ host: 'relay.elsewhere.test' });
    const response = await seeded.agent.post('/api/tools/mail-testing/pre-send-check', {
      account: seeded.accountId,
      senderName: 'Acme',
      subject: 'November news',
      mail_body: `<p>${GTUBE}</p>`,
      dkimSelector: 's1',
    });
    expect(response.statusCode, response.body).toBe(200);
    const result: TPreSendCheck = response.json();
    expect(itemOf(result, 'spf')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('relay.elsewhere.test'),
    });
    expect(itemOf(result, 'dkim')?.status).toBe('pass');
    expect(itemOf(result, 'message-score')?.status).toBe('fail');
    expect(result.items.filter((entry) => entry.group === 'lists')).toEqual([]);
    expect(result.hasFailures).toBe(true);
    // The spam test's own form rules: a sender name for SMTP.
    const invalid = await seeded.agent.post('/api/tools/mail-testing/pre-send-check', {
      account: seeded.accountId,
      senderName: ' ',
      subject: 'x',
      mail_body: '<p>x</p>',
    });
    expect(invalid.statusCode).toBe(422);
  });

  it("checks a drip campaign's start: the domain, each of its emails, its recipients; only the user's own draft", async () => {
    const seeded = await seed({});
    const { id: campaignId } = await t.platform.db
      .insertInto('campaigns')
      .values({
        user_id: seeded.user.id,
        account_id: seeded.accountId,
        temporary_key: 'draft-key-of-the-test',
        is_draft: true,
        title: 'Welcome',
        sender_name: 'Acme',
        from_address: 'news@acme.test',
        signature: '<p>Acme team</p>',
        daily_plan: JSON.stringify([]),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.db
      .insertInto('campaign_steps')
      .values([
        {
          campaign_id: campaignId,
          user_id: seeded.user.id,
          position: 1,
          subject: 'Welcome aboard',
          body: '<p>Hello {{name}}, welcome to Acme.</p>',
        },
        {
          campaign_id: campaignId,
          user_id: seeded.user.id,
          position: 2,
          subject: 'Re: Welcome aboard',
          body: `<p>${GTUBE}</p>`,
        },
      ])
      .execute();
    await t.platform.db
      .insertInto('campaign_recipients')
      .values(
        ['info@a.test', 'p1@c.test', 'p2@c.test', 'p3@c.test'].map((email) => ({
          campaign_id: campaignId,
          user_id: seeded.user.id,
          email,
        })),
      )
      .execute();
    const response = await seeded.agent.post('/api/campaigns/pre-send-check', { temporary: 'draft-key-of-the-test' });
    expect(response.statusCode, response.body).toBe(200);
    const result: TPreSendCheck = response.json();
    expect(itemOf(result, 'spf')?.status).toBe('pass');
    expect(itemOf(result, 'email-1-message-score')).toMatchObject({ status: 'pass', title: 'Email #1: Content score' });
    expect(itemOf(result, 'email-2-message-score')).toMatchObject({ status: 'fail', title: 'Email #2: Content score' });
    expect(result.audience).toBe(4);
    expect(itemOf(result, 'generic')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^1 of 4/) });
    expect(itemOf(result, 'suppressed')?.status).toBe('pass');
    // The same rule as a send's lists: never verified is a warning here too, not "All good".
    expect(itemOf(result, 'unverified')).toMatchObject({
      status: 'warn',
      detail: '4 of 4 recipients (100%) were never verified.',
    });
    expect(result.hasFailures).toBe(true);
    // Nothing was started by asking.
    const draft = await t.platform.db
      .selectFrom('campaigns')
      .select(['is_draft', 'running'])
      .where('id', '=', campaignId)
      .executeTakeFirstOrThrow();
    expect(draft).toEqual({ is_draft: true, running: false });
    const other = await seed({});
    const foreign = await other.agent.post('/api/campaigns/pre-send-check', { temporary: 'draft-key-of-the-test' });
    expect(foreign.statusCode).toBe(404);
  });

  it('notices a broken resolver (R48): no domain verdict on its word, and the operator is told', async () => {
    // A resolver that answers "no such domain" to everything, gmail.com included.
    const broken = await startDnsZone({}, { brokenAfter: 0 });
    const other = await startTestApp({ SPAM_TEST_DNS_SERVERS: broken.server }, { databaseUrl: t.databaseUrl });
    try {
      const seeded = await seed({});
      const agent = createAgent(other.app);
      await agent.signIn(seeded.user.email, seeded.user.password);
      const response = await agent.post('/api/email/pre-send-check', {
        account: seeded.accountId,
        from: 'news@acme.test',
        senderName: 'Acme',
        alias: 'news',
        to: [seeded.listId],
        subject: 'November news',
        message: '<p>Hello {{name::there}}, our November news is here.</p>',
        dkimSelector: 's1',
      });
      expect(response.statusCode, response.body).toBe(200);
      const result: TPreSendCheck = response.json();
      const domain = result.items.filter((entry) => entry.group === 'domain');
      expect(domain.map((entry) => entry.id)).toEqual(['spf', 'dkim', 'dmarc', 'bulk-rules']);
      for (const entry of domain) {
        expect(entry).toMatchObject({
          status: 'warn',
          detail: expect.stringMatching(/^Not checked: The DNS resolver did not find gmail\.com \(ENOTFOUND\)/),
        });
      }
      const operator = await seedUser(t.platform);
      await setRole(t.platform.db, operator.id, 'operator');
      const operatorAgent = createAgent(t.app);
      await operatorAgent.signIn(operator.email, operator.password);
      const resolvers = (await operatorAgent.get('/api/operator/system')).json().data.resolvers;
      expect(resolvers).toContainEqual(
        expect.objectContaining({ source: 'pre-send', servers: broken.server, brokenSince: expect.any(String) }),
      );
    } finally {
      await other.close();
      broken.close();
    }
  });

  describe('accuracy (issue 45 §1)', () => {
    /** The check through another app (another configuration) on the same database. */
    const checkOn = async (app: TTestApp, seeded: Awaited<ReturnType<typeof seed>>, body: Record<string, unknown>) => {
      const agent = createAgent(app.app);
      await agent.signIn(seeded.user.email, seeded.user.password);
      const response = await agent.post('/api/email/pre-send-check', {
        account: seeded.accountId,
        senderName: 'Acme',
        to: [seeded.listId],
        subject: 'November news',
        message: '<p>Hello {{name::there}}, our November news is here.</p>',
        ...body,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as TPreSendCheck;
    };

    it('judges SPF and DMARC on the envelope the engine uses: with BOUNCE_DOMAIN, the bounce domain, and says what to publish there', async () => {
      // A bounce domain of the installation's own, with no SPF record, and a From domain under p=reject.
      const foreign = await startTestApp(
        { SPAM_TEST_DNS_SERVERS: zone.server, BOUNCE_DOMAIN: 'bounces.sendwell.test', BOUNCE_SMTP_PORT: '0' },
        { databaseUrl: t.databaseUrl },
      );
      // One under the From domain's organization, whose SPF allows the server: relaxed alignment holds.
      const own = await startTestApp(
        { SPAM_TEST_DNS_SERVERS: zone.server, BOUNCE_DOMAIN: 'bounces.strict.test', BOUNCE_SMTP_PORT: '0' },
        { databaseUrl: t.databaseUrl },
      );
      try {
        const seeded = await seed({ fromAddress: 'news@strict.test' });
        const body = { from: 'news@strict.test', alias: 'news', dkimSelector: 'none-here' };
        // Without BOUNCE_DOMAIN the From domain is the envelope: SPF passes and is aligned.
        expect(itemOf(await check(seeded, body), 'dmarc')).toMatchObject({ status: 'pass' });

        const refused = await checkOn(foreign, seeded, body);
        expect(itemOf(refused, 'spf')).toMatchObject({
          status: 'fail',
          detail: expect.stringContaining('The envelope sender is at the bounce domain bounces.sendwell.test'),
          advice: expect.stringContaining(
            'Publish at bounces.sendwell.test the TXT record "v=spf1 ip4:127.0.0.1 ~all"',
          ),
        });
        // No aligned SPF and no DKIM key under p=reject: receivers refuse it, and the list says so in red.
        expect(itemOf(refused, 'dmarc')).toMatchObject({
          status: 'fail',
          detail: expect.stringMatching(/DMARC fails, so receivers refuse this mail/),
          advice: expect.stringContaining('bounces.strict.test'),
        });
        expect(refused.hasFailures).toBe(true);

        const aligned = await checkOn(own, seeded, body);
        expect(itemOf(aligned, 'spf')).toMatchObject({ status: 'pass' });
        expect(itemOf(aligned, 'dmarc')).toMatchObject({
          status: 'pass',
          detail: expect.stringContaining('SPF passes for bounces.strict.test, aligned with strict.test'),
        });
      } finally {
        await foreign.close();
        await own.close();
      }
    });

    it('calls p=none a warning with the next step; a DNS that does not answer says so; an address the record lists is never to be added', async () => {
      const none = await seed({ fromAddress: 'news@nonepolicy.test' });
      expect(itemOf(await check(none, { from: 'news@nonepolicy.test' }), 'dmarc')).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('policy none (reports only: receivers act on nothing)'),
        advice: expect.stringMatching(/move to p=quarantine, then to p=reject/),
      });

      const silent = await seed({ fromAddress: 'news@silent.test' });
      const unanswered = await check(silent, { from: 'news@silent.test' });
      expect(itemOf(unanswered, 'spf')).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('the DNS did not answer'),
        advice: 'Try the check again in a moment.',
      });
      expect(itemOf(unanswered, 'spf')?.advice).not.toMatch(/syntax|10 DNS lookups/);

      // The server given by its address: the record allows it; another lists it behind "?".
      const byAddress = await seed({ host: '127.0.0.1' });
      expect(itemOf(await check(byAddress), 'spf')).toMatchObject({
        status: 'pass',
        detail: "acme.test's SPF record allows the SMTP server 127.0.0.1.",
      });
      const listed = await seed({ host: '127.0.0.1', fromAddress: 'news@listed.test' });
      const neutral = itemOf(await check(listed, { from: 'news@listed.test' }), 'spf');
      expect(neutral).toMatchObject({ status: 'warn', advice: expect.stringContaining('The record lists 127.0.0.1') });
      expect(neutral?.advice).not.toMatch(/^Add /);
    });

    it('is red on evidence: a known-bad address, past sends over the account’s line counted as the figures count', async () => {
      const seeded = await seed({});
      // The user's verification found one member invalid.
      await t.platform.db
        .insertInto('verified_addresses')
        .values({ user_id: seeded.user.id, email: 'p0@c.test', verdict: 'invalid', reason: '550 5.1.1', flags: '{}' })
        .execute();
      // An earlier send to the list: 40 recipients, 36 accepted, 4 refused at handover for good.
      const { id: sendId } = await t.platform.db
        .insertInto('sends')
        .values({
          user_id: seeded.user.id,
          account_id: seeded.accountId,
          status: 'finished',
          from_address: 'news@acme.test',
          subject: 'October news',
          html: '<p>October</p>',
          list_ids: [seeded.listId],
          recipients_count: 40,
          sent_count: 36,
          failed_count: 4,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const recipients = await t.platform.db
        .insertInto('send_recipients')
        .values(
          Array.from({ length: 40 }, (_, index) => ({
            send_id: sendId,
            user_id: seeded.user.id,
            email: `r${index}@c.test`,
            token: `token-${sendId}-${index}`,
            status: index < 4 ? ('failed' as const) : ('sent' as const),
            sent_at: index < 4 ? null : new Date(),
          })),
        )
        .returning(['id', 'email'])
        .execute();
      await t.platform.db
        .insertInto('delivery_events')
        .values(
          recipients.slice(0, 4).map((recipient) => ({
            user_id: seeded.user.id,
            account_id: seeded.accountId,
            send_id: sendId,
            recipient_id: recipient.id,
            email: recipient.email,
            type: 'failed' as const,
            severity: 'permanent' as const,
            source: 'smtp' as const,
          })),
        )
        .execute();
      const result = await check(seeded, { dkimSelector: 's1' });
      expect(itemOf(result, 'invalid')).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/^1 of 10 recipients is not a valid address/),
      });
      expect(itemOf(result, 'history')).toMatchObject({
        status: 'fail',
        detail: '1 send in the last 90 days: 4 hard bounces (10%) and 0 spam complaints (0%) of 40 messages.',
        advice: expect.stringContaining("5% hard bounces or 0.1% complaints (your account's limits)"),
      });
    });

    it("checks History's Send again as Send Email checks a send: the old send's domain, message and lists (issue 45 §4)", async () => {
      const seeded = await seed({});
      const { id: sendId } = await t.platform.db
        .insertInto('sends')
        .values({
          user_id: seeded.user.id,
          account_id: seeded.accountId,
          status: 'finished',
          from_name: 'Acme',
          from_address: 'news@acme.test',
          subject: 'Hello {{name::friend}}',
          html: `<p>${GTUBE}</p>`,
          list_ids: [seeded.listId],
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const response = await seeded.agent.post('/api/history/resend/pre-send-check', {
        accountId: seeded.accountId,
        id: sendId,
      });
      expect(response.statusCode, response.body).toBe(200);
      const result: TPreSendCheck = response.json();
      expect(itemOf(result, 'spf')?.status).toBe('pass');
      expect(itemOf(result, 'message-score')?.status).toBe('fail');
      expect(itemOf(result, 'unverified')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^6 of 10/) });
      expect(result).toMatchObject({ audience: 10, hasFailures: true });
      const other = await seed({});
      const foreign = await other.agent.post('/api/history/resend/pre-send-check', {
        accountId: seeded.accountId,
        id: sendId,
      });
      expect(foreign.statusCode).toBe(404);
    });

    it('holds a message with a red finding under the red line: a phishing-like link is not Good', async () => {
      const seeded = await seed({});
      const result = await check(seeded, {
        dkimSelector: 's1',
        trackClicks: false,
        message:
          '<p>Hello {{name::there}}, our November news is here. Sign in to see your offers at ' +
          '<a href="https://login.elsewhere.example.net/">https://www.acme.test/account</a>.</p>',
      });
      expect(itemOf(result, 'message-link-text')?.status).toBe('fail');
      expect(result.messageScore).toBeLessThan(5);
      expect(itemOf(result, 'message-score')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('a finding below is red'),
      });
    });
  });

  it("refuses a form that could not be sent with the send's own messages, and another user's lists", async () => {
    const seeded = await seed({});
    const empty = await seeded.agent.post('/api/email/pre-send-check', {
      account: seeded.accountId,
      to: [],
      message: '',
    });
    expect(empty.statusCode).toBe(422);
    const other = await seed({});
    const response = await seeded.agent.post('/api/email/pre-send-check', {
      account: seeded.accountId,
      from: 'news@acme.test',
      to: [other.listId],
      subject: 'Hi',
      message: '<p>Hi</p>',
    });
    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json())).toContain('Please choose mailing lists of the chosen account.');
  });
});

describe('the editor’s message checks (issue 46 §3)', () => {
  it('names a link whose text shows another domain and an image-only body, for the signed-in user only', async () => {
    const user = await seedUser(t.platform);
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const bad = await agent.post('/api/email/message-check', {
      subject: 'Your account',
      html: '<p><img src="https://cdn.example.net/a.png"></p><p><a href="https://evil.example.org/login">https://mybank.com</a></p>',
    });
    expect(bad.statusCode, bad.body).toBe(200);
    const ids = (bad.json().items as { id: string; status: string }[]).filter((item) => item.status !== 'pass');
    expect(ids.map((item) => item.id)).toEqual(expect.arrayContaining(['message-link-text', 'message-image-ratio']));
    const good = await agent.post('/api/email/message-check', {
      subject: 'Our news',
      html: `<p>${'We baked three new breads this month; the recipes are on our site. '.repeat(6)}</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>`,
    });
    expect(good.json().items.find((item: { id: string }) => item.id === 'message-link-text')).toBeUndefined();
    expect(good.json().messageScore).toBeGreaterThan(bad.json().messageScore);
    expect((await createAgent(t.app).post('/api/email/message-check', { html: '<p>x</p>' })).statusCode).toBe(401);
    const deep = await agent.post('/api/email/message-check', { html: '<div>'.repeat(100_000) });
    expect(deep.statusCode).toBe(422);
  });
});
