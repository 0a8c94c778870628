import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startVerifyPeers } from '../../../test/verify-peers';
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
  });
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
    expect(stored.json().data).toMatchObject({
      total: 4,
      totalDuplicate: 1,
      alreadyCheckedCount: 0,
      creditToBeUsed: 4,
    });
    const listId = stored.json().data.listId as number;

    // The figure confirmed must be the one that will be charged.
    expect((await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 3 })).statusCode).toBe(
      409,
    );
    const before = await balance(agent);
    const started = await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 4 });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().message).toContain('Your request is in the queue...');
    expect(await balance(agent)).toBe(before - 4);
    expect((await agent.post('/api/tools/verify-emails/last-check', { listId, creditsToBeUsed: 4 })).statusCode).toBe(
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
      credits_refunded: 1,
    });
    expect(await balance(agent)).toBe(before - 3);
    const unknown = (
      await agent.get(`/api/tools/verify-emails/jobs/${listId}/results`, { query: { verdict: 'unknown' } })
    ).json();
    expect(unknown.data).toEqual([
      expect.objectContaining({ email: 'whoever@catchall.test', flags: expect.objectContaining({ catchAll: true }) }),
    ]);
    const csv = await agent.get(`/api/tools/verify-emails/jobs/${listId}/export`);
    expect(csv.body).toContain('ann@accept.test,valid');
    expect(csv.body).toContain('bob@accept.test,invalid,550 5.1.1 No such user');
    void user;

    // The same addresses again: already checked, nothing to pay, results taken from before.
    const again = (
      await agent.post('/api/tools/verify-emails/text/store', { emails: 'ann@accept.test bob@accept.test' })
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
