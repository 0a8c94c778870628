import fs from 'node:fs';
import path from 'node:path';
import { CAMPAIGN_MESSAGES, DRAFTS_MAX, defaultDailyPlan, nextAllowedTime, SEND_MESSAGES } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedTestInboxAccount, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { suppress } from '../suppression/suppression.service';
import { syncMessages, tickCampaigns } from './scheduler';

/**
 * The drip wizard's recipients from several files and from mailing lists (issue 47), and the
 * routes the spec links beside the campaign views: the errors page, the members-list variant
 * with its delete, the account information; the plan's gate on the first mail's time.
 */

let t: TTestApp;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_URL: 'https://sendwell.test' });
});
afterAll(async () => t?.close());

const NY = 'America/New_York';

const signedIn = async ({ planId = 3 }: { planId?: number } = {}) => {
  const user = await seedUser(t.platform, { planId });
  await t.platform.db.updateTable('users').set({ time_zone: NY }).where('id', '=', user.id).execute();
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  const accountId = await seedTestInboxAccount(t.platform, user.id);
  return { user, agent, accountId };
};
type TSeeded = Awaited<ReturnType<typeof signedIn>>;

const startDraft = async (seeded: TSeeded, title = 'Spring outreach') => {
  const start = await seeded.agent.put('/api/campaigns/save-campaign/1', {
    accountId: seeded.accountId,
    title,
    senderName: 'Acme',
  });
  expect(start.statusCode, start.body).toBe(200);
  return { id: start.json().id as number, temporary: start.json().temporaryKey as string };
};

const draftOf = async (seeded: TSeeded, temporary: string) =>
  (await seeded.agent.post('/api/campaigns/get-temporary-data', { temporaryKey: temporary })).json().data;

const recipientsOf = async (campaignId: number) =>
  (
    await t.platform.db
      .selectFrom('campaign_recipients')
      .select(['email', 'name', 'variables'])
      .where('campaign_id', '=', campaignId)
      .orderBy('email')
      .execute()
  ).map((row) => [row.email, row.name, row.variables]);

/** The rest of the wizard after the recipients: one email, the options, Finish. */
const finishDraft = async (seeded: TSeeded, temporary: string, options: Record<string, unknown> = {}) => {
  const sequence = await seeded.agent.put('/api/campaigns/save-campaign/3', {
    temporary,
    drips: [{ subject: 'Hello {{name::there}}', body: '<p>Hi {{name::there}} from {{company::us}}.</p>' }],
    dailyPlan: defaultDailyPlan(),
  });
  expect(sequence.statusCode, sequence.body).toBe(200);
  expect((await seeded.agent.put('/api/campaigns/save-campaign/4', { temporary })).statusCode).toBe(200);
  const saved = await seeded.agent.put('/api/campaigns/save-campaign/5', {
    temporary,
    options: { acceptLaw: true, ...options },
  });
  expect(saved.statusCode, saved.body).toBe(200);
  const finished = await seeded.agent.put('/api/campaigns/save-campaign/6', { temporary });
  expect(finished.statusCode, finished.body).toBe(200);
  return finished.json().id as number;
};

describe('recipients from several files', () => {
  it("keeps the last name given that is not empty and every source's fields, a later value over an earlier one", async () => {
    const seeded = await signedIn();
    const { id, temporary } = await startDraft(seeded, 'Names kept');
    const save = (
      fileName: string,
      recipients: { email: string; name: string; variables?: Record<string, string> }[],
    ) => seeded.agent.put('/api/campaigns/save-campaign/2', { temporary, fileName, recipients });
    const first = await save('named.csv', [
      { email: 'dee@example.com', name: 'Dee', variables: { company: 'Initech', city: 'Oslo' } },
    ]);
    expect(first.statusCode, first.body).toBe(200);
    const second = await save('unnamed.csv', [
      { email: 'DEE@example.com', name: '', variables: { city: 'Bergen' } },
      { email: 'eli@example.com', name: '' },
    ]);
    expect(second.statusCode, second.body).toBe(200);
    // The later row's address; the name the earlier file gave; the company kept, the city the later one.
    expect(await recipientsOf(id)).toEqual([
      ['DEE@example.com', 'Dee', { company: 'Initech', city: 'Bergen' }],
      ['eli@example.com', '', {}],
    ]);
  });

  it('adds a second file to the first, counts the addresses given twice, removes a file by its index, and skips when there is none', async () => {
    const seeded = await signedIn();
    const { id, temporary } = await startDraft(seeded);

    // Skip is there while no file exists: the wizard moves on with nobody.
    const skipped = await seeded.agent.put('/api/campaigns/save-campaign/2', { temporary, recipients: [], skip: true });
    expect(skipped.json()).toMatchObject({ status: true, count: 0, files: [] });
    expect((await draftOf(seeded, temporary)).step).toBe(3);
    // Without Skip, nothing is not a file.
    const nothing = await seeded.agent.put('/api/campaigns/save-campaign/2', { temporary, recipients: [] });
    expect(nothing.statusCode).toBe(422);
    expect(nothing.json().errors.recipients).toEqual([CAMPAIGN_MESSAGES.csvMissing]);

    const first = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'leads.csv',
      recipients: [
        { email: 'ann@example.com', name: 'Ann', variables: { company: 'Initech' } },
        { email: 'bob@example.com', name: 'Bob' },
        { email: 'not an address', name: 'x' },
      ],
    });
    expect(first.json()).toMatchObject({ count: 2, added: 2, skipped: 1, duplicates: 0 });
    const second = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'more-leads.csv',
      recipients: [
        // Ann again, in another case: one recipient, with the later file's name, and both files' fields.
        { email: 'ANN@example.com', name: 'Ann Lee', variables: { city: 'Oslo' } },
        { email: 'cat@example.com', name: 'Cat' },
        { email: 'cat@example.com', name: 'Cat again' },
      ],
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({ count: 3, added: 1, skipped: 0, duplicates: 2 });
    expect(second.json().message).toContain('2 addresses were given more than once');
    expect(
      second
        .json()
        .files.map((file: { index: number; name: string; rows: number; added: number; duplicates: number }) => [
          file.index,
          file.name,
          file.rows,
          file.added,
          file.duplicates,
        ]),
    ).toEqual([
      [0, 'leads.csv', 3, 2, 0],
      [1, 'more-leads.csv', 3, 1, 2],
    ]);
    expect(await recipientsOf(id)).toEqual([
      ['ANN@example.com', 'Ann Lee', { company: 'Initech', city: 'Oslo' }],
      ['bob@example.com', 'Bob', {}],
      ['cat@example.com', 'Cat again', {}],
    ]);
    const draft = await draftOf(seeded, temporary);
    expect(draft.recipients).toMatchObject({ count: 3, duplicates: 2, variables: ['city', 'company'] });
    expect(draft.recipients.files).toHaveLength(2);

    // The first file taken away: Ann stays (the second file gives her too), Bob goes.
    const removed = await seeded.agent.post('/api/campaigns/remove-recipients', { temporary, index: 0 });
    expect(removed.json()).toMatchObject({ status: true, removed: 1, count: 2, duplicates: 1 });
    expect(removed.json().files.map((file: { name: string; added: number }) => [file.name, file.added])).toEqual([
      ['more-leads.csv', 2],
    ]);
    expect((await recipientsOf(id)).map(([email]) => email)).toEqual(['ANN@example.com', 'cat@example.com']);
    // An index past the list is refused with the spec's words; the recipients stay.
    const past = await seeded.agent.post('/api/campaigns/remove-recipients', { temporary, index: 5 });
    expect(past.statusCode).toBe(404);
    expect(past.json().message).toBe(CAMPAIGN_MESSAGES.removeFailed);
    // A new upload with `replace` starts over; without an index every source goes.
    const replaced = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      replace: true,
      recipients: [{ email: 'dan@example.com', name: 'Dan' }],
    });
    expect(replaced.json()).toMatchObject({ count: 1, files: [expect.objectContaining({ name: 'File 1' })] });
    expect((await seeded.agent.post('/api/campaigns/remove-recipients', { temporary })).json()).toMatchObject({
      removed: 1,
      count: 0,
      files: [],
    });
    // Another user's draft is not found.
    const other = await signedIn();
    expect((await other.agent.post('/api/campaigns/remove-recipients', { temporary, index: 0 })).statusCode).toBe(404);
  });

  it('bounds what drafts hold (R30): files of one draft up to 100,000 addresses, and 50 unsaved campaigns a user', async () => {
    const seeded = await signedIn();
    const { temporary } = await startDraft(seeded, 'Bounded');
    const file = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({ email: `p${from + index}@example.com`, name: '' }));
    const first = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'big.csv',
      recipients: file(0, 60_000),
    });
    expect(first.statusCode, first.body).toBe(200);
    const over = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'more.csv',
      recipients: file(60_000, 40_001),
    });
    expect(over.statusCode).toBe(422);
    expect(over.json().errors.recipients[0]).toContain('at most 100,000 addresses from files; its files hold 60,000');
    // Nothing of the refused file was kept.
    expect((await draftOf(seeded, temporary)).recipients).toMatchObject({ count: 60_000 });
    expect((await draftOf(seeded, temporary)).recipients.files).toHaveLength(1);
    // In place of the files (Replace), the same rows fit.
    const replaced = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'more.csv',
      recipients: file(60_000, 40_001),
      replace: true,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);

    for (let index = 1; index < DRAFTS_MAX; index += 1) await startDraft(seeded, `Draft ${index}`);
    const oneMore = await seeded.agent.put('/api/campaigns/save-campaign/1', {
      accountId: seeded.accountId,
      title: 'One too many',
      senderName: 'Acme',
    });
    expect(oneMore.statusCode).toBe(409);
    expect(oneMore.json().message).toBe(
      `You have ${DRAFTS_MAX} unsaved campaigns. Finish or delete one of them to start another.`,
    );
  });

  it('keeps the recipients of a draft saved before sources existed, as one source (the backfill migration)', async () => {
    const seeded = await signedIn();
    const { id, temporary } = await startDraft(seeded);
    // A draft as the recipients step left it before: recipients, no sources.
    await t.platform.db
      .insertInto('campaign_recipients')
      .values([
        { campaign_id: id, user_id: seeded.user.id, email: 'old@example.com', name: 'Old' },
        { campaign_id: id, user_id: seeded.user.id, email: 'older@example.com', name: 'Older' },
      ])
      .execute();
    const backfill = fs.readFileSync(
      path.resolve(import.meta.dirname, '../../../migrations/20261207T100100_campaign_sources_backfill.sql'),
      'utf8',
    );
    await sql.raw(backfill).execute(t.platform.db);
    const after = await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: [{ email: 'new@example.com', name: 'New' }],
    });
    expect(after.json()).toMatchObject({ count: 3, added: 1 });
    expect(after.json().files.map((file: { name: string; added: number }) => [file.name, file.added])).toEqual([
      ['Recipients added before', 2],
      ['File 2', 1],
    ]);
    expect((await recipientsOf(id)).map(([email]) => email)).toEqual([
      'new@example.com',
      'old@example.com',
      'older@example.com',
    ]);
  });
});

describe('recipients from mailing lists', () => {
  const listWith = async (seeded: TSeeded, alias: string, members: { email: string; fullname?: string }[]) => {
    const list = await seeded.agent.post('/api/mailing-lists', {
      accountId: seeded.accountId,
      alias,
      name: `List ${alias}`,
      description: '',
    });
    expect(list.statusCode, list.body).toBe(200);
    const listId = list.json().data.id as number;
    for (const member of members) {
      const added = await seeded.agent.post('/api/mailing-lists/add-member', { listId, ...member });
      expect(added.statusCode, added.body).toBe(200);
    }
    return listId;
  };

  it('takes the subscribed, unsuppressed members of the chosen lists once each, beside a file, and counts the unverified', async () => {
    const seeded = await signedIn();
    const news = await listWith(seeded, 'news', [
      { email: 'ann@example.com', fullname: 'Ann' },
      { email: 'left@example.com', fullname: 'Left' },
      { email: 'gone@example.com', fullname: 'Gone' },
      { email: 'ver@example.com', fullname: 'Vera' },
    ]);
    const offers = await listWith(seeded, 'offers', [{ email: 'ann@example.com' }, { email: 'ole@example.com' }]);
    await seeded.agent.post(`/api/mailing-lists/${news}/members/unsubscribe`, { email: 'left@example.com' });
    await suppress(t.platform.db, [
      {
        userId: seeded.user.id,
        email: 'gone@example.com',
        type: 'bounce',
        reason: 'permanent failure',
        source: 'smtp',
      },
    ]);
    await t.platform.db
      .updateTable('list_members')
      .set({ verified: true, verified_at: new Date() })
      .where('email', '=', 'ver@example.com')
      .execute();
    const { id, temporary } = await startDraft(seeded);
    await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      fileName: 'vip.csv',
      recipients: [{ email: 'vip@example.com', name: 'Vip' }],
    });

    const added = await seeded.agent.post('/api/campaigns/recipient-lists', { temporary, listIds: [news, offers] });
    expect(added.statusCode, added.body).toBe(200);
    // news gives Ann and Vera (Left unsubscribed, Gone suppressed); offers gives Ole, and Ann again.
    expect(added.json()).toMatchObject({ count: 4, added: 3, skipped: 2, duplicates: 1 });
    expect(
      added
        .json()
        .files.map((file: { kind: string; rows: number; added: number; skipped: number; unverified: number }) => [
          file.kind,
          file.rows,
          file.added,
          file.skipped,
          file.unverified,
        ]),
    ).toEqual([
      ['file', 1, 1, 0, 0],
      ['list', 4, 2, 2, 1],
      ['list', 2, 1, 0, 2],
    ]);
    expect((await recipientsOf(id)).map(([email]) => email)).toEqual([
      'ann@example.com',
      'ole@example.com',
      'ver@example.com',
      'vip@example.com',
    ]);
    // A list already among the sources is not added twice.
    const again = await seeded.agent.post('/api/campaigns/recipient-lists', { temporary, listIds: [news] });
    expect(again.json().files).toHaveLength(3);
    // The list's delete modal names the unsaved campaign that uses it.
    const usage = await seeded.agent.post('/api/mailing-lists/check-delete', { listId: news });
    expect(usage.json().campaigns).toEqual([{ type: 'drip', id, name: 'Spring outreach' }]);

    // A member who joins before the campaign starts is among its recipients: lists are read at Finish.
    await seeded.agent.post('/api/mailing-lists/add-member', { listId: offers, email: 'late@example.com' });
    const campaignId = await finishDraft(seeded, temporary);
    expect((await recipientsOf(campaignId)).map(([email]) => email)).toContain('late@example.com');
    // A saved campaign keeps no file rows.
    const kept = await t.platform.db
      .selectFrom('campaign_source_rows')
      .innerJoin('campaign_sources', 'campaign_sources.id', 'campaign_source_rows.source_id')
      .select('campaign_source_rows.email')
      .where('campaign_sources.campaign_id', '=', campaignId)
      .execute();
    expect(kept).toEqual([]);

    // Another user's list is not found; none of the user's own is one of another account.
    const other = await signedIn();
    const otherDraft = await startDraft(other);
    const foreign = await other.agent.post('/api/campaigns/recipient-lists', {
      temporary: otherDraft.temporary,
      listIds: [news],
    });
    expect(foreign.statusCode).toBe(404);
    const secondAccount = await seedTestInboxAccount(t.platform, seeded.user.id, 'hello@other.test');
    const elsewhere = await listWith({ ...seeded, accountId: secondAccount }, 'elsewhere', [
      { email: 'x@example.com' },
    ]);
    const { temporary: draftTwo } = await startDraft(seeded, 'Another');
    const wrongAccount = await seeded.agent.post('/api/campaigns/recipient-lists', {
      temporary: draftTwo,
      listIds: [elsewhere],
    });
    expect(wrongAccount.statusCode).toBe(422);
  });
});

describe('the first mail’s time and the plan', () => {
  it('refuses a scheduled first mail on a plan without scheduling, on saving the options and again at Finish', async () => {
    const free = await signedIn({ planId: 2 });
    expect((await free.agent.get('/api/scheduled-mails/check-schedule')).json()).toEqual({ createSchedule: false });
    const { temporary } = await startDraft(free);
    await free.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: [{ email: 'ann@example.com', name: 'Ann' }],
    });
    await free.agent.put('/api/campaigns/save-campaign/3', {
      temporary,
      drips: [{ subject: 'Hi', body: '<p>Hi</p>' }],
      dailyPlan: defaultDailyPlan(),
    });
    await free.agent.put('/api/campaigns/save-campaign/4', { temporary });
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const refused = await free.agent.put('/api/campaigns/save-campaign/5', {
      temporary,
      options: { acceptLaw: true, scheduled: true, scheduleTime: inAnHour },
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.scheduled).toEqual([SEND_MESSAGES.scheduleUpgrade]);
    // Unscheduled it goes, lead catcher and all (spec §3's option, kept and answered).
    const now = await free.agent.put('/api/campaigns/save-campaign/5', {
      temporary,
      options: { acceptLaw: true, leadCatcher: true },
    });
    expect(now.statusCode, now.body).toBe(200);
    expect((await draftOf(free, temporary)).options).toMatchObject({ scheduled: false, leadCatcher: true });

    // Scheduled on a plan that allows it, then the plan changes before Finish: Finish holds the gate too.
    const pro = await signedIn({ planId: 3 });
    const draft = await startDraft(pro);
    await pro.agent.put('/api/campaigns/save-campaign/2', {
      temporary: draft.temporary,
      recipients: [{ email: 'ann@example.com', name: 'Ann' }],
    });
    await pro.agent.put('/api/campaigns/save-campaign/3', {
      temporary: draft.temporary,
      drips: [{ subject: 'Hi', body: '<p>Hi</p>' }],
      dailyPlan: defaultDailyPlan(),
    });
    await pro.agent.put('/api/campaigns/save-campaign/4', { temporary: draft.temporary });
    const scheduled = await pro.agent.put('/api/campaigns/save-campaign/5', {
      temporary: draft.temporary,
      options: { acceptLaw: true, scheduled: true, scheduleTime: inAnHour },
    });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    await t.platform.db.updateTable('users').set({ plan_id: 2 }).where('id', '=', pro.user.id).execute();
    const finish = await pro.agent.put('/api/campaigns/save-campaign/6', { temporary: draft.temporary });
    expect(finish.statusCode).toBe(422);
    expect(finish.json().errors.scheduled).toEqual([SEND_MESSAGES.scheduleUpgrade]);
    expect((await draftOf(pro, draft.temporary)).id).toBe(draft.id);
  });
});

describe('the pages the spec links beside the campaign views', () => {
  it('lists members two a page, deletes one by the spec’s GET with the CSRF token, and finds nothing of another user', async () => {
    const seeded = await signedIn();
    const { temporary } = await startDraft(seeded);
    await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: ['c', 'a', 'b'].map((letter) => ({ email: `${letter}@example.com`, name: letter.toUpperCase() })),
    });
    const id = await finishDraft(seeded, temporary);

    const first = await seeded.agent.get(`/api/drip-campaign/campaign/get-members/${id}`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual([
      { id: expect.any(Number), fullname: 'A', email: 'a@example.com' },
      { id: expect.any(Number), fullname: 'B', email: 'b@example.com' },
    ]);
    expect(first.json().meta).toMatchObject({ per_page: 2, total: 3, last_page: 2 });
    const second = await seeded.agent.get(`/api/drip-campaign/campaign/get-members/${id}`, { query: { page: '2' } });
    expect(second.json().data.map((row: { email: string }) => row.email)).toEqual(['c@example.com']);
    // The spec's sizes, and the table's own 2; nothing else.
    expect(
      (await seeded.agent.get(`/api/drip-campaign/campaign/get-members/${id}`, { query: { per_page: '3' } }))
        .statusCode,
    ).toBe(422);
    expect(
      (await seeded.agent.get(`/api/campaigns/get-data/members/${id}`, { query: { per_page: '100' } })).statusCode,
    ).toBe(200);

    const member = first.json().data[0].id as number;
    const path = `/api/drip-campaign/campaign/subscriber/${id}/delete/${member}`;
    // A link on another site cannot delete: the GET needs the token (a HEAD no less).
    expect((await seeded.agent.get(path)).statusCode).toBe(403);
    const cookie = [...seeded.agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    expect((await t.app.inject({ method: 'HEAD', url: path, headers: { cookie } })).statusCode).toBe(403);
    const token = (await seeded.agent.get('/api/csrf')).json().token as string;
    const deleted = await seeded.agent.get(path, { headers: { 'x-csrf-token': token } });
    expect(deleted.json()).toEqual({ status: true, message: CAMPAIGN_MESSAGES.memberDeleted });
    expect((await seeded.agent.get(path, { headers: { 'x-csrf-token': token } })).statusCode).toBe(404);
    expect((await seeded.agent.get(`/api/drip-campaign/campaign/get-members/${id}`)).json().meta.total).toBe(2);

    const other = await signedIn();
    const otherToken = (await other.agent.get('/api/csrf')).json().token as string;
    expect((await other.agent.get(`/api/drip-campaign/campaign/get-members/${id}`)).statusCode).toBe(404);
    const victim = second.json().data[0].id as number;
    expect(
      (
        await other.agent.get(`/api/drip-campaign/campaign/subscriber/${id}/delete/${victim}`, {
          headers: { 'x-csrf-token': otherToken },
        })
      ).statusCode,
    ).toBe(404);
    expect((await other.agent.get(`/api/campaigns/get-data/errors/${id}`)).statusCode).toBe(404);
  });

  it('shows the failed messages with their reasons and the stopped recipients on the errors page, and a sent step’s subject and text in the history', async () => {
    const seeded = await signedIn();
    const { temporary } = await startDraft(seeded);
    await seeded.agent.put('/api/campaigns/save-campaign/2', {
      temporary,
      recipients: [
        { email: 'bounce@example.com', name: 'Bo', variables: { company: 'Initech' } },
        { email: 'fine@example.com', name: 'Fi' },
      ],
    });
    const id = await finishDraft(seeded, temporary);
    // Two ticks two minutes apart (the account's pace) hand both first emails over.
    const start = nextAllowedTime(new Date(Date.now() + 1_000), defaultDailyPlan(), NY);
    await tickCampaigns(t.platform, start, { sync: false });
    await tickCampaigns(t.platform, new Date(start.getTime() + 121_000), { sync: false });
    const messages = await t.platform.db
      .selectFrom('campaign_messages')
      .innerJoin('campaign_recipients', 'campaign_recipients.id', 'campaign_messages.recipient_id')
      .select(['campaign_messages.send_id', 'campaign_recipients.email', 'campaign_recipients.id as recipient'])
      .where('campaign_messages.campaign_id', '=', id)
      .execute();
    expect(messages).toHaveLength(2);
    const bounced = messages.find((message) => message.email === 'bounce@example.com')!;
    const fine = messages.find((message) => message.email === 'fine@example.com')!;
    await t.platform.db
      .updateTable('send_recipients')
      .set({ status: 'failed', error: '550 5.1.1 No such user' })
      .where('send_id', '=', bounced.send_id!)
      .execute();
    await t.platform.db
      .updateTable('send_recipients')
      .set({ status: 'sent', sent_at: new Date() })
      .where('send_id', '=', fine.send_id!)
      .execute();
    await syncMessages(t.platform, 100_000);

    const errors = await seeded.agent.get(`/api/campaigns/get-data/errors/${id}`);
    expect(errors.statusCode, errors.body).toBe(200);
    expect(errors.json()).toMatchObject({
      data: [
        {
          email: 'bounce@example.com',
          order: 1,
          kind: 'step',
          subject: 'Hello {{name::there}}',
          reason: '550 5.1.1 No such user',
        },
      ],
      meta: { total: 1 },
      stopped: [{ reason: 'bounced', count: 1 }],
      breaker_reason: null,
    });

    const history = (await seeded.agent.get(`/api/campaigns/get-data/recipient-history/${fine.recipient}`)).json()
      .history;
    expect(history).toEqual([
      expect.objectContaining({
        event_type: 'sent',
        order: 1,
        subject: 'Hello Fi',
        body: expect.stringContaining('Hi Fi from us.'),
      }),
    ]);
    const failedHistory = (
      await seeded.agent.get(`/api/campaigns/get-data/recipient-history/${bounced.recipient}`)
    ).json().history;
    expect(failedHistory).toEqual([
      expect.objectContaining({ event_type: 'failed', subject: 'Hello Bo', body: expect.stringContaining('Initech') }),
    ]);
  });

  it('answers the account information: the accounts a campaign can send from and the one it starts with', async () => {
    const seeded = await signedIn();
    const answer = await seeded.agent.get('/api/campaigns/get-account-information');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toMatchObject({
      status: true,
      account: { id: seeded.accountId, name: 'Test inbox', provider: 'smtp', fromAddress: 'news@acme.test' },
      accountData: [expect.objectContaining({ id: seeded.accountId })],
    });
    const nobody = await signedIn();
    await t.platform.db.deleteFrom('sending_accounts').where('user_id', '=', nobody.user.id).execute();
    expect((await nobody.agent.get('/api/campaigns/get-account-information')).json()).toEqual({
      status: true,
      account: null,
      accountData: [],
    });
  });
});
