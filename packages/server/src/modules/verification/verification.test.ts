import type { AddressInfo } from 'node:net';
import { EMAIL_PROBLEMS, LIST_MESSAGES, VERIFY_MESSAGES } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createAgent, seedUser, startTestApp, type TAgent, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startDnsZone } from '../../../test/dns-zone';
import { startVerifyPeers } from '../../../test/verify-peers';
import { SESSION_COOKIE } from '../../platform/http-security';
import { setRole } from '../auth/auth.service';
import { verifyJob } from './verification.jobs';
import { runVerification } from './verification-run';

let t: TTestApp;
let peers: Awaited<ReturnType<typeof startVerifyPeers>>;
beforeAll(async () => {
  peers = await startVerifyPeers();
  t = await startTestApp({
    VERIFY_DNS_SERVERS: `127.0.0.1:${peers.dnsPort}`,
    VERIFY_SMTP_PORT: String(peers.smtpPort),
    VERIFY_STEP_TIMEOUT_MS: '700',
    VERIFY_GREYLIST_DELAY_MS: '50',
    VERIFY_ALLOW_LOOPBACK: 'true',
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t?.close();
  await peers?.close();
});

const signedIn = async () => {
  const user = await seedUser(t.platform); // the free plan's 300 trial credits
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent };
};
const balance = async (agent: ReturnType<typeof createAgent>) => {
  const { credit } = (await agent.get('/api/user-information')).json().data;
  return credit.totalCredit - credit.usedCredit;
};

describe('the verification tool', () => {
  it('stores a paste with its duplicates, charges one credit per address, verifies, refunds unknowns, and re-uses earlier results', async () => {
    const { user, agent } = await signedIn();
    const stored = await agent.post('/api/tools/verify-emails/text/store', {
      emails: 'ann@accept.test\nbob@accept.test, ANN@accept.test; whoever@catchall.test\nnot-an-address',
    });
    expect(stored.statusCode, stored.body).toBe(200);
    // Three addresses (ANN repeats ann), and one entry that is not an address: reported, free.
    expect(stored.json().data).toMatchObject({
      total: 4,
      addresses: 3,
      invalid: 1,
      totalDuplicate: 1,
      alreadyCheckedCount: 0,
      creditToBeUsed: 3,
      skipped: [{ line: 3, text: 'not-an-address', reason: 'invalid email address' }],
    });
    const listId = stored.json().data.listId as number;

    // The figure confirmed must be the one that will be charged.
    expect((await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 4 })).statusCode).toBe(
      409,
    );
    const before = await balance(agent);
    const started = await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 3 });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().message).toContain('Your request is in the queue...');
    expect(await balance(agent)).toBe(before - 3);
    expect((await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 3 })).statusCode).toBe(
      409,
    );

    await runVerification(t.platform, listId);
    const job = (await agent.get(`/api/tools/verify-emails/jobs/${listId}`)).json().data;
    expect(job).toMatchObject({
      status: 'finished',
      total: 4,
      checked: 4,
      valid: 1,
      invalid: 2,
      unknown: 1,
      credits_charged: 3,
      credits_refunded: 1,
    });
    expect(await balance(agent)).toBe(before - 2);
    const unknown = (
      await agent.get(`/api/tools/verify-emails/jobs/${listId}/results`, { query: { verdict: 'unknown' } })
    ).json();
    expect(unknown.data).toEqual([
      expect.objectContaining({ email: 'whoever@catchall.test', flags: expect.objectContaining({ catchAll: true }) }),
    ]);
    const csv = await agent.get(`/api/tools/verify-emails/jobs/${listId}/export`);
    expect(csv.body).toContain('ann@accept.test,valid');
    expect(csv.body).toContain('bob@accept.test,invalid,550 5.1.1 No such user');
    expect(csv.body).toContain('not-an-address,invalid,Not an email address: invalid email address (line 3).');
    void user;

    // The same addresses again: already checked, nothing to pay, results taken from before.
    const again = (
      await agent.post('/api/tools/verify-emails/text/store', { emails: 'ann@accept.test\nbob@accept.test' })
    ).json().data;
    expect(again).toMatchObject({ alreadyCheckedCount: 2, creditToBeUsed: 0 });
    await agent.post('/api/tools/verify-emails/last-check', { listId: again.listId, creditsToBeUsed: 0 });
    await runVerification(t.platform, again.listId);
    expect((await agent.get(`/api/tools/verify-emails/jobs/${again.listId}`)).json().data).toMatchObject({
      valid: 1,
      invalid: 1,
      credits_charged: 0,
    });
  });

  it('never lets two requests spend the same credits (R21), refuses more than 10,000 addresses, and answers 404 for another user’s job (R12)', async () => {
    const { agent } = await signedIn();
    const emails = Array.from({ length: 200 }, (_, index) => `p${index}@accept.test`).join('\n');
    const first = (await agent.post('/api/tools/verify-emails/text/store', { emails })).json().data;
    const second = (
      await agent.post('/api/tools/verify-emails/text/store', { emails: emails.replace(/@/g, '+x@') })
    ).json().data;
    // 300 credits: each costs 200, so exactly one of two simultaneous requests goes through.
    const answers = await Promise.all([
      agent.post('/api/tools/verify-emails/last-check', { listId: first.listId, creditsToBeUsed: 200 }),
      agent.post('/api/tools/verify-emails/last-check', { listId: second.listId, creditsToBeUsed: 200 }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 402]);
    // The spec's verification ERR_LIMIT: a warning dialog worded by the server, confirm going to Buy Credits.
    expect(answers.find((answer) => answer.statusCode === 402)!.json()).toMatchObject({
      code: 'ERR_LIMIT',
      message: 'To complete this process; please buy credits.',
      errorData: {
        title: 'Not enough credits',
        message: 'This needs 200 credits; you have 100. To complete this process; please buy credits.',
        confirmButtonText: 'Buy Credits',
        cancelButtonText: 'Cancel',
        url: '/settings/subscription',
      },
    });
    expect(await balance(agent)).toBe(100);

    const tooMany = Array.from({ length: 10_001 }, (_, index) => `a${index}@accept.test`).join('\n');
    expect((await agent.post('/api/tools/verify-emails/text/store', { emails: tooMany })).statusCode).toBe(422);

    const { agent: other } = await signedIn();
    expect((await other.get(`/api/tools/verify-emails/jobs/${first.listId}`)).statusCode).toBe(404);
    expect((await other.get(`/api/tools/verify-emails/jobs/${first.listId}/results`)).statusCode).toBe(404);
    expect(
      (await other.post('/api/tools/verify-emails/last-check', { listId: second.listId, creditsToBeUsed: 200 }))
        .statusCode,
    ).toBe(404);
  });
});

describe('Verify Your List', () => {
  it('checks the cost, verifies the unverified members, marks the valid ones and shows the list verified; another user’s list is 404', async () => {
    const { user, agent } = await signedIn();
    const account = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: account.id,
        alias: 'v',
        domain: 'acme.test',
        address: 'v@acme.test',
        name: 'V',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.db
      .insertInto('list_members')
      .values(
        ['ann@accept.test', 'bob@accept.test', 'whoever@catchall.test'].map((email) => ({
          user_id: user.id,
          list_id: list.id,
          account_id: account.id,
          email,
        })),
      )
      .execute();

    const cost = (await agent.post('/api/email/verify-credit-check', { mailingLists: [list.id] })).json();
    expect(cost).toMatchObject({ status: true, count: 3, controlled: 0, totalCount: 3 });
    const started = await agent.post('/api/mailing-lists/verify', { mailingLists: [list.id] });
    expect(started.statusCode, started.body).toBe(200);
    const listRow = () =>
      t.platform.db
        .selectFrom('mailing_lists')
        .select(['verify_status', 'verified_count', 'verified_at'])
        .where('id', '=', list.id)
        .executeTakeFirstOrThrow();
    expect((await listRow()).verify_status).toBe('processing');

    await runVerification(t.platform, started.json().checkListId);
    expect(await listRow()).toMatchObject({ verify_status: 'verified', verified_count: 1 });
    expect((await listRow()).verified_at).not.toBeNull();
    const members = await t.platform.db
      .selectFrom('list_members')
      .select(['email', 'verified'])
      .where('list_id', '=', list.id)
      .orderBy('email')
      .execute();
    expect(members).toEqual([
      { email: 'ann@accept.test', verified: true },
      { email: 'bob@accept.test', verified: false },
      { email: 'whoever@catchall.test', verified: false },
    ]);

    const { agent: other } = await signedIn();
    expect((await other.post('/api/email/verify-credit-check', { mailingLists: [list.id] })).statusCode).toBe(404);
    expect((await other.post('/api/mailing-lists/verify', { mailingLists: [list.id] })).statusCode).toBe(404);
  });
});

describe('a blocked port 25', () => {
  it('is reported to the operator when no server of several domains answers, and cleared once one does; the addresses stay unknown', async () => {
    // Every mail server "behind" a closed port, as on a cloud machine whose outbound port 25 is blocked.
    const closedPort = await freePort();
    const blocked = await startTestApp(
      {
        VERIFY_DNS_SERVERS: `127.0.0.1:${peers.dnsPort}`,
        VERIFY_SMTP_PORT: String(closedPort),
        VERIFY_STEP_TIMEOUT_MS: '700',
        VERIFY_ALLOW_LOOPBACK: 'true',
      },
      { databaseUrl: t.databaseUrl },
    );
    try {
      const user = await seedUser(t.platform);
      const agent = createAgent(blocked.app);
      await agent.signIn(user.email, user.password);
      const stored = await agent.post('/api/tools/verify-emails/text/store', {
        emails: 'ann@accept.test\nbob@reject.test\ncat@catchall.test\ndee@grey.test',
      });
      await agent.post('/api/tools/verify-emails/last-check', {
        listId: stored.json().data.listId,
        creditsToBeUsed: stored.json().data.creditToBeUsed,
      });
      await runVerification(blocked.platform, stored.json().data.listId);
      const items = (await agent.get(`/api/tools/verify-emails/jobs/${stored.json().data.listId}/results`)).json().data;
      expect(items.map((item: { verdict: string }) => item.verdict)).toEqual([
        'unknown',
        'unknown',
        'unknown',
        'unknown',
      ]);

      const operator = await seedUser(t.platform);
      await setRole(t.platform.db, operator.id, 'operator');
      const operatorAgent = createAgent(t.app);
      await operatorAgent.signIn(operator.email, operator.password);
      const system = async () => (await operatorAgent.get('/api/operator/system')).json().data.verificationProbe;
      const reported = await system();
      expect(reported.blockedSince).not.toBeNull();
      expect(reported.unreachableDomains).toBeGreaterThanOrEqual(3);
      expect(reported.detail).toMatch(/could be reached/);

      // From a machine whose probe reaches the servers, the report clears.
      const again = await agent.post('/api/tools/verify-emails/text/store', { emails: 'eve@accept.test' });
      await agent.post('/api/tools/verify-emails/last-check', {
        listId: again.json().data.listId,
        creditsToBeUsed: again.json().data.creditToBeUsed,
      });
      await runVerification(t.platform, again.json().data.listId);
      const cleared = await system();
      expect(cleared.blockedSince).toBeNull();
      expect(cleared.lastReachedAt).not.toBeNull();
    } finally {
      await blocked.close();
    }
  });
});

describe('a broken resolver (R48)', () => {
  /** A test app whose verification asks `dns` (a zone that breaks after some questions). */
  const appAsking = (dns: string) =>
    startTestApp(
      {
        VERIFY_DNS_SERVERS: dns,
        VERIFY_SMTP_PORT: String(peers.smtpPort),
        VERIFY_STEP_TIMEOUT_MS: '700',
        VERIFY_ALLOW_LOOPBACK: 'true',
      },
      { databaseUrl: t.databaseUrl },
    );
  const operatorView = async () => {
    const operator = await seedUser(t.platform);
    await setRole(t.platform.db, operator.id, 'operator');
    const agent = createAgent(t.app);
    await agent.signIn(operator.email, operator.password);
    return async () => (await agent.get('/api/operator/system')).json().data.resolvers as { source: string }[];
  };

  it('charges nothing on its word: names that must exist are not found, so DNS verdicts are unknown and refunded, the user is told why, the operator sees it', async () => {
    // Answers "no such domain" to every question, gmail.com's included.
    const zone = await startDnsZone({}, { brokenAfter: 0 });
    const broken = await appAsking(zone.server);
    try {
      const { user, agent } = await signedIn();
      const agentOnBroken = createAgent(broken.app);
      await agentOnBroken.signIn(user.email, user.password);
      const before = await balance(agent);
      // A real domain, one that exists nowhere, a disposable one and an entry that is no address.
      const { jobId: listId } = await pasteAndConfirm(
        agentOnBroken,
        'ann@gmail.com\nbob@no-such-domain-anywhere.test\ncat@mailinator.com\nnot an address',
      );
      expect(await balance(agent)).toBe(before - 3);
      await runVerification(broken.platform, listId);

      const items = (await agent.get(`/api/tools/verify-emails/jobs/${listId}/results`)).json().data as {
        email: string;
        verdict: string;
        reason: string;
      }[];
      const byEmail = Object.fromEntries(items.map((item) => [item.email, item]));
      // What rests on DNS is unknown, with the reason; what the address alone says still counts.
      expect(byEmail['ann@gmail.com']).toMatchObject({ verdict: 'unknown', reason: VERIFY_MESSAGES.resolverBroken });
      expect(byEmail['bob@no-such-domain-anywhere.test']).toMatchObject({
        verdict: 'unknown',
        reason: VERIFY_MESSAGES.resolverBroken,
      });
      expect(byEmail['cat@mailinator.com']).toMatchObject({
        verdict: 'invalid',
        reason: expect.stringMatching(/disposable/),
      });
      expect(byEmail['not an address']?.verdict).toBe('invalid');

      const job = (await agent.get(`/api/tools/verify-emails/jobs/${listId}`)).json().data;
      expect(job).toMatchObject({
        status: 'finished',
        invalid: 2,
        unknown: 2,
        credits_charged: 3,
        credits_refunded: 2,
        notice: expect.stringMatching(/^2 addresses were not checked: this server's DNS resolver/),
      });
      expect(await balance(agent)).toBe(before - 1);
      const notification = await t.platform.db
        .selectFrom('notifications')
        .select('body')
        .where('user_id', '=', user.id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(notification.body).toContain('2 addresses were not checked');
      // Unchecked addresses are not results to re-use: verifying them again charges and asks again.
      const again = (await agent.post('/api/tools/verify-emails/text/store', { emails: 'ann@gmail.com' })).json().data;
      expect(again).toMatchObject({ alreadyCheckedCount: 0, creditToBeUsed: 1 });

      const resolvers = await operatorView();
      expect(await resolvers()).toContainEqual(
        expect.objectContaining({
          source: 'verification',
          servers: zone.server,
          brokenSince: expect.any(String),
          detail: expect.stringContaining('gmail.com (ENOTFOUND)'),
        }),
      );
      // A job on a resolver that answers clears it.
      const healthy = await pasteAndConfirm(agent, 'ann@accept.test');
      await runVerification(t.platform, healthy.jobId);
      expect(await resolvers()).toContainEqual(
        expect.objectContaining({ source: 'verification', brokenSince: null, lastOkAt: expect.any(String) }),
      );
    } finally {
      await broken.close();
      zone.close();
    }
  });

  it('does not believe "no such domain" from a resolver that broke after the job started', async () => {
    // The start's three questions (the names that must exist) are answered; everything after is "no such domain".
    const zone = await startDnsZone({}, { brokenAfter: 3 });
    const breaking = await appAsking(zone.server);
    try {
      const { user } = await signedIn();
      const agent = createAgent(breaking.app);
      await agent.signIn(user.email, user.password);
      const { jobId: listId } = await pasteAndConfirm(agent, 'ann@gmail.com\nbob@outlook.com');
      await runVerification(breaking.platform, listId);
      const job = (await agent.get(`/api/tools/verify-emails/jobs/${listId}`)).json().data;
      expect(job).toMatchObject({ invalid: 0, unknown: 2, credits_refunded: 2 });
      expect(job.notice).toMatch(/^2 addresses were not checked/);
    } finally {
      await breaking.close();
      zone.close();
    }
  });
});

/** Stores a paste and confirms its price, as the page does; answers the job's id and its store figures. */
const pasteAndConfirm = async (agent: TAgent, emails: string) => {
  const stored = await agent.post('/api/tools/verify-emails/text/store', { emails });
  expect(stored.statusCode, stored.body).toBe(200);
  const data = stored.json().data;
  const confirmed = await agent.post('/api/tools/verify-emails/last-check', {
    listId: data.listId,
    creditsToBeUsed: data.creditToBeUsed,
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { jobId: data.listId as number, data };
};
const jobOf = async (agent: TAgent, jobId: number) =>
  (await agent.get(`/api/tools/verify-emails/jobs/${jobId}`)).json().data;
const resultsOf = async (agent: TAgent, jobId: number) =>
  (await agent.get(`/api/tools/verify-emails/jobs/${jobId}/results`, { query: { per_page: '100' } })).json().data as {
    email: string;
    verdict: string;
    reason: string;
  }[];

describe('what a pasted line means (issue 28 items 3–5)', () => {
  it('takes one address in several spellings once, charges it once and finishes', async () => {
    const { agent } = await signedIn();
    const before = await balance(agent);
    const { jobId, data } = await pasteAndConfirm(
      agent,
      [
        'otto@müller.test',
        'otto@xn--mller-kva.test',
        'Otto <otto@MÜLLER.test>',
        '<ann@accept.test>',
        'ann@accept.test',
        'ann@accept．test',
      ].join('\n'),
    );
    expect(data).toMatchObject({ total: 2, addresses: 2, totalDuplicate: 4, creditToBeUsed: 2 });
    await runVerification(t.platform, jobId);
    expect(await jobOf(agent, jobId)).toMatchObject({ status: 'finished', total: 2, checked: 2, valid: 2 });
    expect((await resultsOf(agent, jobId)).map((item) => item.email).sort()).toEqual([
      'ann@accept.test',
      'otto@xn--mller-kva.test',
    ]);
    expect(await balance(agent)).toBe(before - 2);
  });

  it('makes a line with a NUL or another control character invalid with its reason; the rest go on', async () => {
    const { agent } = await signedIn();
    const { jobId, data } = await pasteAndConfirm(
      agent,
      'ann@accept.test\nb\u0000ob@accept.test\ncat\u001b@accept.test',
    );
    expect(data).toMatchObject({ addresses: 1, invalid: 2, creditToBeUsed: 1 });
    await runVerification(t.platform, jobId);
    const results = await resultsOf(agent, jobId);
    expect(results).toContainEqual(expect.objectContaining({ email: 'ann@accept.test', verdict: 'valid' }));
    expect(results).toContainEqual(
      expect.objectContaining({
        email: 'b\uFFFDob@accept.test',
        verdict: 'invalid',
        reason: 'Not an email address: a control character in this line (U+0000) (line 2).',
      }),
    );
    expect(results.filter((item) => item.reason?.includes('U+001B'))).toHaveLength(1);
    const csv = await agent.get(`/api/tools/verify-emails/jobs/${jobId}/export`);
    expect(csv.statusCode).toBe(200);
    expect(csv.body).not.toContain('\u0000');
  });

  it('reads a line as the user meant it, never an address out of part of one, and charges nothing for what is no address', async () => {
    const { agent } = await signedIn();
    const before = await balance(agent);
    const { jobId, data } = await pasteAndConfirm(
      agent,
      'John Doe <ann@accept.test>\nte st@accept.test\nbob@accept.test, ann@accept.test.\nwrite to carl@accept.test',
    );
    expect(data).toMatchObject({ addresses: 2, invalid: 2, totalDuplicate: 1, creditToBeUsed: 2 });
    expect(data.skipped).toEqual([
      { line: 2, text: 'te st@accept.test', reason: EMAIL_PROBLEMS.invalid },
      { line: 4, text: 'write to carl@accept.test', reason: EMAIL_PROBLEMS.invalid },
    ]);
    expect(await balance(agent)).toBe(before - 2);
    await runVerification(t.platform, jobId);
    const emails = (await resultsOf(agent, jobId)).map((item) => item.email);
    expect(emails).not.toContain('st@accept.test');
    expect(emails).not.toContain('carl@accept.test');
    expect(await jobOf(agent, jobId)).toMatchObject({ total: 4, checked: 4, valid: 1, invalid: 3, credits_charged: 2 });
  });

  it('refuses a paste without a single address, saying which line is not one', async () => {
    const { agent } = await signedIn();
    const answer = await agent.post('/api/tools/verify-emails/text/store', { emails: '\n  \nJohn Doe' });
    expect(answer.statusCode).toBe(422);
    expect(answer.json().errors.emails).toEqual([`${VERIFY_MESSAGES.none} Line 3: ${EMAIL_PROBLEMS.invalid}.`]);
  });
});

describe('a CSV upload (item 6)', () => {
  const rows = [
    ['Name', 'Email', 'Backup'],
    ['Ann', 'ann@accept.test', 'ann.backup@accept.test'],
    ['Nobody', '', 'nobody@accept.test'],
    ['Bob', 'Bob <bob@accept.test>', ''],
    ['Cat', 'not an address', 'cat@accept.test'],
  ];

  it('takes addresses from the chosen column only, and reports the rows without one', async () => {
    const { agent } = await signedIn();
    const stored = await agent.post('/api/tools/verify-emails/file/store', {
      csvFile: rows,
      emailColumn: 1,
      hasHeaders: true,
    });
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json().data).toMatchObject({
      addresses: 2,
      invalid: 1,
      emptyRows: 1,
      creditToBeUsed: 2,
      skipped: [
        { line: 3, text: '', reason: EMAIL_PROBLEMS.missing },
        { line: 5, text: 'not an address', reason: EMAIL_PROBLEMS.invalid },
      ],
    });
    const { listId } = stored.json().data;
    const items = await t.platform.db
      .selectFrom('verification_items')
      .select('email')
      .where('job_id', '=', listId)
      .orderBy('email')
      .execute();
    expect(items.map((item) => item.email)).toEqual(['ann@accept.test', 'bob@accept.test', 'not an address']);
  });

  it('asks for the email column when it cannot tell, and applies the first-row rule', async () => {
    const { agent } = await signedIn();
    const unnamed = [['Name', 'Mail', 'Backup'], ...rows.slice(1)];
    const unmapped = await agent.post('/api/tools/verify-emails/file/store', { csvFile: unnamed });
    expect(unmapped.statusCode).toBe(422);
    expect(unmapped.json().errors.csvFile).toEqual([VERIFY_MESSAGES.selectEmail]);
    const headerAsData = await agent.post('/api/tools/verify-emails/file/store', {
      csvFile: rows,
      emailColumn: 1,
      hasHeaders: false,
    });
    expect(headerAsData.statusCode).toBe(422);
    expect(headerAsData.json().errors.csvFile).toEqual([LIST_MESSAGES.headerRow]);
    // A header that says email is found without being named.
    const auto = await agent.post('/api/tools/verify-emails/file/store', {
      csvFile: [['email'], ['ann@accept.test'], ['bob@accept.test']],
    });
    expect(auto.json().data).toMatchObject({ addresses: 2, emptyRows: 0 });
  });
});

describe('POST /email/verify-bulk-emails-credit-check (item 7)', () => {
  it('prices pasted addresses as the store will, counting the user’s own earlier results only', async () => {
    const { agent } = await signedIn();
    const emails = 'ann@accept.test\nbob@accept.test\nANN@accept.test\nnot one';
    const check = async (body: unknown, who = agent) =>
      (await who.post('/api/email/verify-bulk-emails-credit-check', body)).json();
    expect(await check({ emails })).toEqual({
      status: true,
      count: 2,
      total: 2,
      controlled: 0,
      duplicate: 1,
      invalid: 1,
    });
    const { jobId } = await pasteAndConfirm(agent, 'ann@accept.test');
    await runVerification(t.platform, jobId);
    expect(await check({ emails })).toMatchObject({ count: 1, controlled: 1 });
    expect(await check({ emails: emails.split('\n') })).toMatchObject({ count: 1, controlled: 1, duplicate: 1 });
    const { agent: other } = await signedIn();
    expect(await check({ emails }, other)).toMatchObject({ count: 2, controlled: 0 });
  });
});

describe('progress events (item 8)', () => {
  it('carry the spec’s checkListId, duplicate, controlledBefore, uniqueEmails and bar', async () => {
    const { agent } = await signedIn();
    const earlier = await pasteAndConfirm(agent, 'ann@accept.test');
    await runVerification(t.platform, earlier.jobId);
    const port = (t.app.server.address() as AddressInfo).port;
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/realtime`, {
      headers: { cookie: `${SESSION_COOKIE}=${agent.cookies.get(SESSION_COOKIE)}`, origin: `http://127.0.0.1:${port}` },
    });
    const events: Record<string, unknown>[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.event === 'VerificationProgressEvent') events.push(message.payload);
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    try {
      const { jobId } = await pasteAndConfirm(
        agent,
        'ann@accept.test\nbob@accept.test\nANN@accept.test\ncat@reject.test',
      );
      await runVerification(t.platform, jobId);
      await expect.poll(() => events.at(-1)?.status, { timeout: 10_000 }).toBe('finished');
      expect(events.at(-1)).toMatchObject({
        id: jobId,
        checkListId: jobId,
        total: 3,
        checked: 3,
        duplicate: 1,
        controlledBefore: 1,
        uniqueEmails: 3,
        bar: 100,
      });
      const bars = events.map((event) => event.bar as number);
      expect(bars).toEqual([...bars].sort((a, b) => a - b));
    } finally {
      socket.close();
    }
  });
});

describe('a job that fails (item 3)', () => {
  it('ends failed once its retries are spent, gives back the credits of what it did not check, and tells the user', async () => {
    const { user, agent } = await signedIn();
    // The database refuses to record one verdict: every batch that holds it fails.
    await sql`
      create function refuse_boom() returns trigger language plpgsql as $$
      begin
        if new.email = 'boom@accept.test' then raise exception 'could not extend file: No space left on device'; end if;
        return new;
      end $$`.execute(t.platform.db);
    await sql`create trigger refuse_boom before insert on verified_addresses for each row execute function refuse_boom()`.execute(
      t.platform.db,
    );
    try {
      const before = await balance(agent);
      const { jobId } = await pasteAndConfirm(agent, 'ann@accept.test\nboom@accept.test\nbob@accept.test\nnope');
      expect(await balance(agent)).toBe(before - 3);
      await expect(runVerification(t.platform, jobId)).rejects.toThrow(/No space left/);
      expect(await jobOf(agent, jobId)).toMatchObject({ status: 'running' });
      // What the queue runs once the last retry has failed too.
      await verifyJob.onGivenUp!({ jobId }, t.platform);
      expect(await jobOf(agent, jobId)).toMatchObject({ status: 'failed', credits_charged: 3, credits_refunded: 3 });
      expect(await balance(agent)).toBe(before);
      // Given up twice (a second dead letter), nothing more happens.
      await verifyJob.onGivenUp!({ jobId }, t.platform);
      expect(await balance(agent)).toBe(before);
      const notes = await t.platform.db
        .selectFrom('notifications')
        .select(['title', 'body'])
        .where('user_id', '=', user.id)
        .execute();
      expect(notes).toContainEqual(
        expect.objectContaining({
          title: 'Your email verification could not be finished',
          body: expect.stringContaining(VERIFY_MESSAGES.failed),
        }),
      );
    } finally {
      await sql`drop trigger refuse_boom on verified_addresses`.execute(t.platform.db);
      await sql`drop function refuse_boom()`.execute(t.platform.db);
    }
  });
});

describe('the probe’s reach (R35) and its connections per mail server (R36)', () => {
  it('gives unknown, refunded, for a domain whose mail server is on a private network, without connecting', async () => {
    const { agent } = await signedIn();
    const before = await balance(agent);
    const connections = peers.connections.total;
    const { jobId } = await pasteAndConfirm(
      agent,
      'ann@private.test\nann@metadata.test\nann@mapped.test\nann@accept.test',
    );
    await runVerification(t.platform, jobId);
    const results = await resultsOf(agent, jobId);
    expect(
      results
        .filter((item) => item.reason === VERIFY_MESSAGES.notPublic)
        .map((item) => item.email)
        .sort(),
    ).toEqual(['ann@mapped.test', 'ann@metadata.test', 'ann@private.test']);
    expect(await jobOf(agent, jobId)).toMatchObject({ valid: 1, unknown: 3, credits_refunded: 3 });
    expect(await balance(agent)).toBe(before - 1);
    expect(peers.connections.total - connections).toBe(1);
  });

  it('holds two jobs side by side to the connections one mail server allows', async () => {
    const first = await signedIn();
    const second = await signedIn();
    const addresses = (prefix: string) =>
      Array.from({ length: 52 }, (_, index) => `ok${prefix}${index}@busy.test`).join('\n');
    const jobs = [
      await pasteAndConfirm(first.agent, addresses('a')),
      await pasteAndConfirm(second.agent, addresses('b')),
    ];
    peers.connections.reset();
    await Promise.all(jobs.map(({ jobId }) => runVerification(t.platform, jobId)));
    // Each job alone asks on two connections (52 addresses, 25 a connection): four without the shared limit.
    expect(peers.connections.maxByServer.get('mx.busy.test')).toBe(2);
    expect(await jobOf(first.agent, jobs[0]!.jobId)).toMatchObject({ status: 'finished', valid: 52 });
    expect(await jobOf(second.agent, jobs[1]!.jobId)).toMatchObject({ status: 'finished', valid: 52 });
  }, 60_000);
});
