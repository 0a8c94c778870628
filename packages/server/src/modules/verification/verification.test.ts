import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { freePort } from '../../../test/cluster';
import { startVerifyPeers } from '../../../test/verify-peers';
import { setRole } from '../auth/auth.service';
import { runVerification } from './verification.service';

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
    expect(answers.find((answer) => answer.statusCode === 402)!.json().message).toBe(
      'To complete this process; please buy credits.',
    );
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
