import { formatDeliveryTime, SEND_MESSAGES } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { queuedJobRunner } from '../../../test/jobs';
import { startVerifyPeers } from '../../../test/verify-peers';
import { chargeCredits } from '../credits/credits.service';
import { snapshotSendJob } from '../delivery/delivery.jobs';
import { runVerification } from '../verification/verification-run';
import { startSendAfterVerification } from './send-after-verification.service';
import { startAfterVerificationJob } from './send-email.jobs';

/**
 * The verify-lists upsell of Send Email (issue 47, spec §2 screen 2, §7): the lists verified
 * under a storage id, the send with the same id waiting for them, then going out by itself
 * (through the engine, the addresses found invalid left out) when the last verification ends.
 * Verification runs against a DNS server and an SMTP peer on loopback (`verify-peers.ts`:
 * accept.test valid, reject.test invalid, catchall.test unknown).
 */
let t: TTestApp;
let peers: Awaited<ReturnType<typeof startVerifyPeers>>;
let runQueued: ReturnType<typeof queuedJobRunner>;
beforeAll(async () => {
  peers = await startVerifyPeers();
  t = await startTestApp({
    VERIFY_DNS_SERVERS: `127.0.0.1:${peers.dnsPort}`,
    VERIFY_SMTP_PORT: String(peers.smtpPort),
    VERIFY_STEP_TIMEOUT_MS: '700',
    VERIFY_GREYLIST_DELAY_MS: '50',
    VERIFY_ALLOW_LOOPBACK: 'true',
  });
  runQueued = queuedJobRunner(t.platform);
});
afterAll(async () => {
  await t?.close();
  await peers?.close();
});

/** A user (300 trial credits) with the test inbox as account and lists of the members given. */
const setup = async (...lists: string[][]) => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id);
  const listIds: number[] = [];
  for (const [index, emails] of lists.entries()) {
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: accountId,
        alias: `l${index}`,
        domain: 'acme.test',
        address: `l${index}@acme.test`,
        name: `List ${index}`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    listIds.push(list.id);
    await t.platform.db
      .insertInto('list_members')
      .values(emails.map((email) => ({ user_id: user.id, list_id: list.id, account_id: accountId, email })))
      .execute();
  }
  const form = (changes: object = {}) => ({
    account: accountId,
    senderName: 'Acme News',
    to: listIds,
    subject: 'After the check',
    message: '<p>Hello</p>',
    ...changes,
  });
  return { user, agent, accountId, listIds, form };
};

const sendsOf = (userId: number) =>
  t.platform.db.selectFrom('sends').select(['id', 'list_ids', 'subject']).where('user_id', '=', userId).execute();

const jobsOf = (userId: number, storageId: string) =>
  t.platform.db
    .selectFrom('verification_jobs')
    .select(['id', 'list_id'])
    .where('user_id', '=', userId)
    .where('storage_id', '=', storageId)
    .orderBy('id')
    .execute();

const balanceOf = async (agent: ReturnType<typeof createAgent>) => {
  const { credit } = (await agent.get('/api/user-information')).json().data;
  return credit.totalCredit - credit.usedCredit;
};

describe('the verify-lists upsell', () => {
  it('verifies the lists for the cost confirmed, waits, and sends by itself when the last verification ends, without the invalid addresses', async () => {
    // ann is on both lists (she gets the email once); bob is refused by his server, dee's takes anything.
    const s = await setup(['ann@accept.test', 'bob@reject.test'], ['ann@accept.test', 'dee@catchall.test']);
    const cost = (await s.agent.post('/api/email/verify-credit-check', { mailingLists: s.listIds })).json();
    expect(cost).toMatchObject({ count: 4, controlled: 0, totalCount: 4 });

    // The cost is known before anything is charged: a figure that is no longer the cost is refused.
    const stale = await s.agent.post('/api/mailing-lists/verify', {
      mailingLists: s.listIds,
      storageId: 'upsell-1',
      creditsToBeUsed: 5,
    });
    expect(stale.statusCode).toBe(409);
    expect(await balanceOf(s.agent)).toBe(300);
    const verify = await s.agent.post('/api/mailing-lists/verify', {
      mailingLists: s.listIds,
      storageId: 'upsell-1',
      creditsToBeUsed: 4,
    });
    expect(verify.statusCode, verify.body).toBe(200);
    expect(verify.json()).toMatchObject({ status: true, total: 4, checkedLists: s.listIds });
    expect(await balanceOf(s.agent)).toBe(296);

    const sent = await s.agent.post('/api/email/send', s.form({ storageId: 'upsell-1' }));
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({
      status: true,
      sendId: null,
      waiting: {
        storageId: 'upsell-1',
        status: 'waiting',
        subject: 'After the check',
        listIds: s.listIds,
        leaveOutInvalid: true,
        verification: { total: 4, checked: 0 },
      },
    });
    // Asked again (a second click), the same send waits: not a second one.
    const again = await s.agent.post('/api/email/send', s.form({ storageId: 'upsell-1' }));
    expect(again.json()).toMatchObject({ sendId: null, waiting: { status: 'waiting' } });
    expect((await s.agent.get('/api/email/waiting-sends')).json().data).toHaveLength(1);
    expect(await sendsOf(s.user.id)).toEqual([]);

    // The first list verified: the send still waits for the second.
    const [first, second] = await jobsOf(s.user.id, 'upsell-1');
    await runVerification(t.platform, first!.id);
    await runQueued(startAfterVerificationJob);
    expect(await sendsOf(s.user.id)).toEqual([]);
    expect((await s.agent.get('/api/email/waiting-sends')).json().data[0]).toMatchObject({
      status: 'waiting',
      verification: { checked: 2, valid: 1, invalid: 1 },
    });

    // The last one queues the start (in the transaction that ends it). Started twice at once
    // (a retried job beside the first), the send goes out once.
    const queuedStarts = async () =>
      (
        await sql<{ count: number }>`select count(*)::int as count from pgboss.job
           where name = ${startAfterVerificationJob.name} and (data->>'id')::bigint = ${id}`.execute(t.platform.db)
      ).rows[0]!.count;
    const id = (await rowId(s.user.id, 'upsell-1'))!;
    const before = await queuedStarts();
    await runVerification(t.platform, second!.id);
    expect(await queuedStarts()).toBe(before + 1);
    await Promise.all([startSendAfterVerification(t.platform, id), startSendAfterVerification(t.platform, id)]);
    await runQueued(startAfterVerificationJob);
    const sends = await sendsOf(s.user.id);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.subject).toBe('After the check');
    expect(sends[0]!.list_ids.map(Number).sort()).toEqual([...s.listIds].sort());
    expect((await s.agent.get('/api/email/waiting-sends')).json().data).toEqual([]);
    const row = await t.platform.db
      .selectFrom('sends_after_verification')
      .select(['status', 'send_id'])
      .where('user_id', '=', s.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'started', send_id: sends[0]!.id });
    const note = await t.platform.db
      .selectFrom('notifications')
      .select('title')
      .where('user_id', '=', s.user.id)
      .where('title', 'like', 'Your lists are verified%')
      .execute();
    expect(note).toHaveLength(1);
    // Started again (a retried job), nothing more is sent.
    await t.platform.queue.enqueue(startAfterVerificationJob, { id });
    await runQueued(startAfterVerificationJob);
    expect(await sendsOf(s.user.id)).toHaveLength(1);

    // The invalid address was unsubscribed from its list; the send's audience is the rest.
    const members = await t.platform.db
      .selectFrom('list_members')
      .select(['email', 'subscribed'])
      .where('user_id', '=', s.user.id)
      .orderBy('email')
      .execute();
    expect(members).toEqual([
      { email: 'ann@accept.test', subscribed: true },
      { email: 'ann@accept.test', subscribed: true },
      { email: 'bob@reject.test', subscribed: false },
      { email: 'dee@catchall.test', subscribed: true },
    ]);
    await runQueued(snapshotSendJob);
    const recipients = await t.platform.db
      .selectFrom('send_recipients')
      .select('email')
      .where('send_id', '=', sends[0]!.id)
      .orderBy('email')
      .execute();
    expect(recipients.map((recipient) => recipient.email)).toEqual(['ann@accept.test', 'dee@catchall.test']);
  });

  it('sends at once when the verification has ended already, and keeps invalid addresses when asked to', async () => {
    const s = await setup(['ann@accept.test', 'fay@reject.test']);
    const verify = await s.agent.post('/api/mailing-lists/verify', { mailingLists: s.listIds, storageId: 'done-1' });
    await runVerification(t.platform, verify.json().checkListId);
    const sent = await s.agent.post('/api/email/send', s.form({ storageId: 'done-1', leaveOutInvalid: false }));
    expect(sent.statusCode, sent.body).toBe(200);
    const sends = await sendsOf(s.user.id);
    expect(sends).toHaveLength(1);
    expect(sent.json()).toMatchObject({ sendId: sends[0]!.id, waiting: { status: 'started' } });
    const fay = await t.platform.db
      .selectFrom('list_members')
      .select('subscribed')
      .where('email', '=', 'fay@reject.test')
      .where('user_id', '=', s.user.id)
      .executeTakeFirstOrThrow();
    expect(fay.subscribed).toBe(true);
  });

  it('gives up a waiting send on request: nothing goes out when the verification ends; others cannot touch it', async () => {
    const s = await setup(['gus@accept.test']);
    const verify = await s.agent.post('/api/mailing-lists/verify', { mailingLists: s.listIds, storageId: 'gone-1' });
    await s.agent.post('/api/email/send', s.form({ storageId: 'gone-1' }));
    const other = await setup(['hal@accept.test']);
    expect((await other.agent.post('/api/email/waiting-sends/gone-1/cancel')).statusCode).toBe(404);
    expect((await other.agent.get('/api/email/waiting-sends')).json().data).toEqual([]);

    const cancelled = await s.agent.post('/api/email/waiting-sends/gone-1/cancel');
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await s.agent.post('/api/email/waiting-sends/gone-1/cancel')).statusCode).toBe(409);
    await runVerification(t.platform, verify.json().checkListId);
    await runQueued(startAfterVerificationJob);
    expect(await sendsOf(s.user.id)).toEqual([]);
    // The verification itself went on: the list is verified.
    const list = await t.platform.db
      .selectFrom('mailing_lists')
      .select('verify_status')
      .where('id', '=', s.listIds[0]!)
      .executeTakeFirstOrThrow();
    expect(list.verify_status).toBe('verified');
  });

  it('ends with the reason when the email can no longer go out after the verification (the plan changed), and says so', async () => {
    const s = await setup(['ida@accept.test']);
    await t.platform.db.updateTable('users').set({ plan_id: 3 }).where('id', '=', s.user.id).execute();
    const verify = await s.agent.post('/api/mailing-lists/verify', { mailingLists: s.listIds, storageId: 'x-1' });
    const delivery = `${formatDeliveryTime(new Date(Date.now() + 86_400_000)).slice(0, 10)} 10:00 AM`;
    const waiting = await s.agent.post('/api/email/send', s.form({ storageId: 'x-1', delivery, sendLater: true }));
    expect(waiting.json()).toMatchObject({ waiting: { status: 'waiting' } });
    // Meanwhile the user is back on the free plan, which does not schedule.
    await t.platform.db.updateTable('users').set({ plan_id: 2 }).where('id', '=', s.user.id).execute();
    await runVerification(t.platform, verify.json().checkListId);
    await runQueued(startAfterVerificationJob);
    const row = await t.platform.db
      .selectFrom('sends_after_verification')
      .select(['status', 'error'])
      .where('user_id', '=', s.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'failed',
      error: `The email was not sent: ${SEND_MESSAGES.scheduleUpgrade}`,
    });
    expect(await sendsOf(s.user.id)).toEqual([]);
    const note = await t.platform.db
      .selectFrom('notifications')
      .select(['title', 'body'])
      .where('user_id', '=', s.user.id)
      .where('title', 'like', '%was not sent after the verification')
      .executeTakeFirstOrThrow();
    expect(note.body).toBe(row.error);
  });

  it('refuses verifications the balance cannot pay for whole with the ERR_LIMIT dialog, charging nothing; a verified list is passed over', async () => {
    const s = await setup(['kim@reject.test', 'lea@reject.test'], ['ann@accept.test']);
    // The second list verified already: verifying both verifies the first only.
    const done = await s.agent.post('/api/mailing-lists/verify', { mailingLists: [s.listIds[1]] });
    await runVerification(t.platform, done.json().checkListId);
    await t.platform.db
      .transaction()
      .execute((trx) => chargeCredits(trx, { userId: s.user.id, type: 'verify', amount: 300 - 1 - 1 }));
    expect(await balanceOf(s.agent)).toBe(1);
    const short = await s.agent.post('/api/mailing-lists/verify', { mailingLists: s.listIds, storageId: 'short-1' });
    expect(short.statusCode).toBe(402);
    expect(short.json()).toMatchObject({
      code: 'ERR_LIMIT',
      errorData: { title: 'Not enough credits', confirmButtonText: 'Buy Credits', url: '/settings/subscription' },
    });
    expect(short.json().errorData.message).toContain('This needs 2 credits; you have 1.');
    expect(await balanceOf(s.agent)).toBe(1);
    expect(await jobsOf(s.user.id, 'short-1')).toEqual([]);

    const everything = await s.agent.post('/api/mailing-lists/verify', { mailingLists: [s.listIds[1]] });
    expect(everything.statusCode, everything.body).toBe(422);
  });

  it("waits for nothing when the storage id names no verification, and refuses one of other lists' verifications", async () => {
    const s = await setup(['ned@accept.test'], ['ola@accept.test']);
    const plain = await s.agent.post('/api/email/send', s.form({ storageId: 'nothing-here' }));
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json().sendId).toEqual(expect.any(Number));
    expect(plain.json().waiting).toBeUndefined();

    await s.agent.post('/api/mailing-lists/verify', { mailingLists: [s.listIds[1]], storageId: 'other-1' });
    const mismatch = await s.agent.post('/api/email/send', s.form({ storageId: 'other-1', to: [s.listIds[0]] }));
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.json().errors.storageId).toBeDefined();
  });
});

const rowId = async (userId: number, storageId: string) =>
  (
    await sql<{
      id: number;
    }>`select id from sends_after_verification where user_id = ${userId} and storage_id = ${storageId}`.execute(
      t.platform.db,
    )
  ).rows[0]?.id;
