import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { sealSecret } from '../accounts/secrets';
import { suppress } from './suppression.service';

const MAILGUN_KEY = 'key-suppress-0123456789abcdef0123456789';
let t: TTestApp;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;
beforeAll(async () => {
  mailgun = await startMailgunFake({ key: MAILGUN_KEY, domains: [{ name: 'mg.acme.test', region: 'us' }] });
  t = await startTestApp({ MAILGUN_US_URL: mailgun.urls.us, MAILGUN_EU_URL: mailgun.urls.eu });
});
afterAll(async () => {
  await t?.close();
  await mailgun?.close();
});

const seed = async () => {
  const user = await seedUser(t.platform, { planId: 3 });
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const account = await t.platform.db
    .insertInto('sending_accounts')
    .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const listIds: number[] = [];
  for (const [index, members] of [
    ['gone@example.com', 'kept@example.com'],
    ['GONE@example.com', 'angry@example.com'],
  ].entries()) {
    const list = await t.platform.db
      .insertInto('mailing_lists')
      .values({
        user_id: user.id,
        account_id: account.id,
        alias: `l${index}`,
        domain: 'acme.test',
        address: `l${index}@acme.test`,
        name: `L${index}`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    listIds.push(list.id);
    await t.platform.db
      .insertInto('list_members')
      .values(members.map((email) => ({ user_id: user.id, list_id: list.id, account_id: account.id, email })))
      .execute();
  }
  await suppress(t.platform.db, [
    {
      userId: user.id,
      email: 'gone@example.com',
      type: 'bounce',
      reason: 'permanent failure',
      message: '550 5.1.1 no such user',
      source: 'smtp',
    },
    { userId: user.id, email: 'angry@example.com', type: 'complained', reason: 'complained', source: 'mailgun' },
    {
      userId: user.id,
      email: 'nowhere@example.com',
      type: 'bounce',
      reason: 'permanent failure',
      message: '=cmd|calc',
      source: 'smtp',
    },
  ]);
  return { user, agent, listIds };
};

const page = async (agent: ReturnType<typeof createAgent>, query: Record<string, string> = {}) =>
  (await agent.get('/api/suppressions', { query })).json();

describe('the suppression screen', () => {
  it('lists suppressions with their lists and status, filters by type, hides the cleaned, and unsubscribes selected and all', async () => {
    const { agent, listIds } = await seed();
    const shown = await page(agent);
    // Hidden by default: addresses on no list (nowhere@) — nothing to clean.
    expect(shown.data.map((row: { email: string }) => row.email).sort()).toEqual([
      'angry@example.com',
      'gone@example.com',
    ]);
    const gone = shown.data.find((row: { email: string }) => row.email === 'gone@example.com');
    expect(gone).toMatchObject({ status: 'On List', type: 'bounce', message: '550 5.1.1 no such user' });
    expect(gone.lists.map((list: { id: number }) => list.id).sort()).toEqual([...listIds].sort());
    expect((await page(agent, { type: 'complained' })).data.map((row: { email: string }) => row.email)).toEqual([
      'angry@example.com',
    ]);
    expect((await page(agent, { see_hidden: '1' })).meta.total).toBe(3);

    const cleared = await agent.post('/api/suppressions/clear', { bounce_id: [gone.id], is_array: true });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().cleaned).toBe(2);
    const after = await page(agent, { see_hidden: '1' });
    expect(after.data.find((row: { email: string }) => row.email === 'gone@example.com').status).toBe('Cleaned');
    expect((await page(agent)).data.map((row: { email: string }) => row.email)).toEqual(['angry@example.com']);

    expect((await agent.post('/api/suppressions/clear-all')).json().cleaned).toBe(1);
    expect((await page(agent)).data).toEqual([]);
    // kept@ was never suppressed: still subscribed.
    const kept = await t.platform.db
      .selectFrom('list_members')
      .select('subscribed')
      .where('email', '=', 'kept@example.com')
      .where('list_id', '=', listIds[0]!)
      .executeTakeFirstOrThrow();
    expect(kept.subscribed).toBe(true);
  });

  it('lists an unsubscribe where the dashboard counts it (issue 45 §4): hidden by default, shown with Show hidden', async () => {
    const { user, agent, listIds } = await seed();
    const account = await t.platform.db
      .selectFrom('mailing_lists')
      .select('account_id')
      .where('id', '=', listIds[0]!)
      .executeTakeFirstOrThrow();
    // A finished send to kept@, who presses the one-click unsubscribe of its message.
    const { id: sendId } = await t.platform.db
      .insertInto('sends')
      .values({
        user_id: user.id,
        account_id: account.account_id,
        status: 'finished',
        from_address: 'news@acme.test',
        subject: 'November news',
        html: '<p>News</p>',
        list_ids: [listIds[0]!],
        recipients_count: 1,
        sent_count: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = 'ab'.repeat(16);
    await t.platform.db
      .insertInto('send_recipients')
      .values({
        send_id: sendId,
        user_id: user.id,
        email: 'kept@example.com',
        token,
        status: 'sent',
        sent_at: new Date(),
      })
      .execute();
    const oneClick = await t.app.inject({
      method: 'POST',
      url: `/api/unsubscribe/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);

    // The dashboard and the send count one unsubscribe …
    const events = (
      await agent.get('/api/dashboard/delivery-events', { query: { event_type: 'unsubscribed' } })
    ).json();
    expect(events.meta.total).toBe(1);
    expect((await agent.get('/api/dashboard')).json().stats.tracking.unsubscribed).toBe(1);
    // … and Suppression lists it: with Show hidden (the spec hides unsubscribes by default).
    expect((await page(agent)).data.map((row: { email: string }) => row.email)).not.toContain('kept@example.com');
    const hidden = await page(agent, { see_hidden: '1', type: 'unsubscribed' });
    expect(hidden.data).toEqual([
      expect.objectContaining({ email: 'kept@example.com', type: 'unsubscribed', status: 'Cleaned', quantity: 1 }),
    ]);
  });

  it('exports with formula cells escaped (R17), removes a reviewed suppression, and scopes every id to its user (R12)', async () => {
    const { agent } = await seed();
    const csv = await agent.get('/api/suppressions/export', { query: { see_hidden: '1' } });
    expect(csv.statusCode).toBe(200);
    expect(csv.body).toContain("'=cmd|calc");
    expect(csv.body).not.toMatch(/,=cmd/);

    const other = await seed();
    const mine = (await page(agent, { see_hidden: '1' })).data[0];
    expect((await other.agent.post(`/api/suppressions/${mine.id}/remove`)).statusCode).toBe(404);
    const cleared = await other.agent.post('/api/suppressions/clear', { bounce_id: mine.id });
    expect(cleared.json().cleaned).toBe(0);
    expect((await agent.post(`/api/suppressions/${mine.id}/remove`)).statusCode).toBe(200);
    expect((await page(agent, { see_hidden: '1' })).meta.total).toBe(2);
  });
});

describe('bounce review', () => {
  it('reclassifies a suppression, and refuses a type the address already has', async () => {
    const { agent, user } = await seed();
    const rows = (await page(agent, { see_hidden: '1' })).data as { id: number; email: string }[];
    const gone = rows.find((row) => row.email === 'gone@example.com')!;
    expect((await agent.post(`/api/suppressions/${gone.id}/type`, { type: 'temporary' })).statusCode).toBe(200);
    expect(
      (await page(agent, { see_hidden: '1', type: 'temporary' })).data.map((row: { id: number }) => row.id),
    ).toEqual([gone.id]);
    const angry = rows.find((row) => row.email === 'angry@example.com')!;
    await suppress(t.platform.db, [
      { userId: user.id, email: 'angry@example.com', type: 'bounce', reason: 'failed', source: 'smtp' },
    ]);
    expect((await agent.post(`/api/suppressions/${angry.id}/type`, { type: 'bounce' })).statusCode).toBe(422);
  });

  it('takes a Mailgun-reported bounce off Mailgun’s list for the account’s domain before removing it here', async () => {
    const { agent, user } = await seed();
    const account = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'Mailgun', provider: 'mailgun', domain: 'mg.acme.test', region: 'us' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.platform.db
      .updateTable('sending_accounts')
      .set({ api_key_encrypted: sealSecret(t.platform, account.id, 'api_key', MAILGUN_KEY) })
      .where('id', '=', account.id)
      .execute();
    const send = await t.platform.db
      .insertInto('sends')
      .values({
        user_id: user.id,
        account_id: account.id,
        status: 'finished',
        from_address: 'n@mg.acme.test',
        subject: 'x',
        html: 'x',
        list_ids: [],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await suppress(t.platform.db, [
      {
        userId: user.id,
        email: 'Bounced@Example.com',
        type: 'bounce',
        reason: 'failed',
        source: 'mailgun',
        sendId: send.id,
        // As the intake records it: the account the bounce came through.
        accountId: account.id,
      },
    ]);
    mailgun.suppressions.add('mg.acme.test/bounces/bounced@example.com');
    const row = (await page(agent, { see_hidden: '1', search: 'bounced' })).data[0] as { id: number };
    const removed = await agent.post(`/api/suppressions/${row.id}/remove`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(mailgun.suppressions.has('mg.acme.test/bounces/bounced@example.com')).toBe(false);
    expect((await page(agent, { see_hidden: '1', search: 'bounced' })).data).toEqual([]);
  });
});
