import { genericUnsubscribedMessage, LIST_MESSAGES } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  seedUser,
  signedInWithSmtp as signedInWithSmtpAccount,
  startTestApp,
  type TAgent,
  type TTestApp,
} from '../../../test/app';
import { startMailgunFake } from '../../../test/mailgun-fake';
import { importListJob } from './imports.service';
import { syncProviderListsJob } from './lists.jobs';

const MAILGUN_KEY = 'key-lists-0123456789abcdef0123456789';
let t: TTestApp;
let mailgun: Awaited<ReturnType<typeof startMailgunFake>>;

beforeAll(async () => {
  mailgun = await startMailgunFake({ key: MAILGUN_KEY, domains: [{ name: 'mg.acme.test', region: 'us' }] });
  t = await startTestApp({
    MAILGUN_US_URL: mailgun.urls.us,
    MAILGUN_EU_URL: mailgun.urls.eu,
    LIST_IMPORT_MAX_MB: '1',
  });
});
afterAll(async () => {
  await t?.close();
  await mailgun?.close();
});

/** A signed-in user on a paid plan with one SMTP account (seeded: SMTP checks are the accounts issue's). */
const signedInWithSmtp = () => signedInWithSmtpAccount(t);

const createList = async (agent: TAgent, accountId: number, alias = 'news', name = 'Newsletter') => {
  const response = await agent.post('/api/mailing-lists', { accountId, alias, name, description: 'Monthly' });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { id: number; address: string; account_id: number };
};

const listInfo = async (agent: TAgent, listId: number) =>
  (await agent.get(`/api/mailing-lists/get-list-info/${listId}`)).json().data;

const csvUpload = async (
  agent: TAgent,
  listId: number,
  fileName: string,
  content: string | Buffer,
  mapping: object,
) => {
  const form = new FormData();
  form.set('mapping', JSON.stringify(mapping));
  form.set('file', new Blob([content]), fileName);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return agent.post(`/api/mailing-lists/${listId}/imports`, Buffer.from(await request.arrayBuffer()), {
    headers: { 'content-type': request.headers.get('content-type')! },
  });
};

/** Runs a queued import the way a worker does (the handler, with its job's payload). */
const runImport = async (importId: number) => {
  const queued = await sql<{ data: { importId: number } }>`
    select data from pgboss.job where name = ${importListJob.name} and (data->>'importId')::int = ${importId}`.execute(
    t.platform.db,
  );
  expect(queued.rows).toHaveLength(1);
  await importListJob.handler(queued.rows[0]!.data, t.platform, {
    jobId: 'test',
    retryCount: 0,
    signal: new AbortController().signal,
  });
};

describe('mailing lists', () => {
  it('creates a list at alias@domain of the account, shows it in the table and edits it', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    expect(list.address).toBe('news@acme.test');

    const duplicate = await agent.post('/api/mailing-lists', { accountId, alias: 'NEWS', name: 'Again' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().message).toBe(LIST_MESSAGES.listExists);

    await createList(agent, accountId, 'offers', 'Offers');
    const page = (await agent.get('/api/mailing-lists', { query: { search: 'offer' } })).json();
    expect(page.meta.total).toBe(1);
    expect(page.data[0]).toMatchObject({ address: 'offers@acme.test', name: 'Offers', members_count: 0 });

    const missing = await agent.post(`/api/mailing-lists/update/list/${list.id}`, { alias: '', name: '' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toMatchObject({
      alias: [LIST_MESSAGES.aliasRequired],
      name: [LIST_MESSAGES.nameRequired],
    });
    const saved = await agent.post(`/api/mailing-lists/update/list/${list.id}`, {
      accountId,
      alias: 'letters',
      name: 'Letters',
      description: 'Weekly',
      domain: 'ignored.example',
    });
    expect(saved.json()).toEqual({ status: true, message: LIST_MESSAGES.listSaved });
    expect(await listInfo(agent, list.id)).toMatchObject({
      address: 'letters@acme.test',
      domain: 'acme.test',
      name: 'Letters',
      account_name: 'Office SMTP',
    });
  });

  it('checks what uses a list, then deletes it with its members', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'ann@example.com' });
    const check = await agent.post('/api/mailing-lists/check-delete', { listId: list.id });
    expect(check.json()).toEqual({ status: true, campaigns: [] });
    const deleted = await agent.post('/api/mailing-lists/delete', { listId: list.id });
    expect(deleted.json()).toEqual({ status: true, message: LIST_MESSAGES.listDeleted });
    expect((await agent.get(`/api/mailing-lists/get-list-info/${list.id}`)).statusCode).toBe(404);
    const left = await t.platform.db.selectFrom('list_members').select('id').where('list_id', '=', list.id).execute();
    expect(left).toEqual([]);
  });
});

describe('members', () => {
  it('adds, sorts, searches, edits and deletes members, keeping the counters current', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    for (const [email, fullname] of [
      ['carol@example.com', 'Carol'],
      ['Ann@example.com', 'Ann'],
      ['bob@example.com', 'Bob'],
    ]) {
      const added = await agent.post('/api/mailing-lists/add-member', { listId: list.id, email, fullname });
      expect(added.statusCode, added.body).toBe(200);
    }
    const again = await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'ANN@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(LIST_MESSAGES.memberExists);
    const invalid = await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'not-an-email' });
    expect(invalid.statusCode).toBe(422);

    const page = (await agent.get(`/api/mailing-lists/${list.id}/members`)).json();
    expect(page.data.map((member: { email: string }) => member.email)).toEqual([
      'Ann@example.com',
      'bob@example.com',
      'carol@example.com',
    ]);
    expect(page.meta).toMatchObject({ total: 3, from: 1, to: 3 });
    const byName = (
      await agent.get(`/api/mailing-lists/${list.id}/members`, { query: { column: 'fullname', order: 'desc' } })
    ).json();
    expect(byName.data[0].fullname).toBe('Carol');
    const searched = (await agent.get(`/api/mailing-lists/${list.id}/members`, { query: { search: 'bob' } })).json();
    expect(searched.meta.total).toBe(1);

    const bob = searched.data[0];
    const edited = await agent.post(`/api/mailing-lists/update/member/${bob.id}`, {
      account_id: accountId,
      email: 'changed@example.com',
      fullname: 'Robert',
      subscribe: 0,
    });
    expect(edited.json()).toEqual({ status: true, message: LIST_MESSAGES.memberSaved });
    const info = (await agent.get(`/api/mailing-lists/get-member-info/${bob.id}`)).json().data;
    expect(info).toMatchObject({ email: 'bob@example.com', fullname: 'Robert', subscribe: 0, verified: false });
    expect(await listInfo(agent, list.id)).toMatchObject({
      members_count: 3,
      subscribed: 2,
      unverified_subscribers_count: 2,
    });

    const deleted = await agent.post('/api/mailing-lists/delete-member', {
      listId: list.id,
      id: bob.id,
      email: bob.email,
    });
    expect(deleted.json()).toEqual({ status: true, message: LIST_MESSAGES.memberDeleted });
    const rest = (await agent.get(`/api/mailing-lists/${list.id}/members`)).json().data;
    const bulk = await agent.post('/api/mailing-lists/bulk-delete-member', {
      memberId: JSON.stringify(rest.map((member: { id: number }) => member.id)),
      accountId,
      listId: list.id,
    });
    expect(bulk.json().status).toBe(true);
    expect(await listInfo(agent, list.id)).toMatchObject({ members_count: 0, subscribed: 0 });
  });

  it('finds generic addresses and unsubscribes them: they stay on the list, get nothing, and are found no more', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    const none = (await agent.get(`/api/mailing-lists/get-emails-for-generic-control/${list.id}`)).json();
    expect(none).toMatchObject({ emails: [], total: 0, message: LIST_MESSAGES.noGeneric });
    for (const email of ['info@acme.test', 'Sales@acme.test', 'ann@acme.test', 'information@acme.test']) {
      await agent.post('/api/mailing-lists/add-member', { listId: list.id, email });
    }
    const found = (await agent.get(`/api/mailing-lists/get-emails-for-generic-control/${list.id}`)).json();
    expect(found.emails).toEqual(['info@acme.test', 'Sales@acme.test']);
    const cleared = await agent.post('/api/mailing-lists/clear-generic-emails', { listId: list.id });
    expect(cleared.json()).toEqual({ status: true, message: genericUnsubscribedMessage(2) });
    // Still members (4), two of them no longer subscribed.
    expect(await listInfo(agent, list.id)).toMatchObject({ members_count: 4, subscribed: 2 });
    const members = (await agent.get(`/api/mailing-lists/${list.id}/members`, { query: { per_page: '20' } })).json()
      .data;
    const subscribeOf = (email: string) =>
      members.find((member: { email: string }) => member.email.toLowerCase() === email).subscribe;
    expect(['info@acme.test', 'sales@acme.test', 'ann@acme.test', 'information@acme.test'].map(subscribeOf)).toEqual([
      0, 0, 1, 1,
    ]);
    const again = (await agent.get(`/api/mailing-lists/get-emails-for-generic-control/${list.id}`)).json();
    expect(again).toMatchObject({ emails: [], total: 0, message: LIST_MESSAGES.noGeneric });
    const generic = (await agent.get('/api/ajax/get-generic-emails')).json();
    expect(generic.emails).toContain('info');
  });

  it('unsubscribes only the generic addresses it is given, and never another address named with them', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    for (const email of ['info@acme.test', 'sales@acme.test', 'ann@acme.test']) {
      await agent.post('/api/mailing-lists/add-member', { listId: list.id, email });
    }
    const cleared = await agent.post('/api/mailing-lists/clear-generic-emails', {
      listId: list.id,
      emails: ['INFO@acme.test', 'ann@acme.test'],
    });
    expect(cleared.json().message).toBe(genericUnsubscribedMessage(1));
    const found = (await agent.get(`/api/mailing-lists/get-emails-for-generic-control/${list.id}`)).json();
    expect(found.emails).toEqual(['sales@acme.test']);
    expect(await listInfo(agent, list.id)).toMatchObject({ members_count: 3, subscribed: 2 });
  });

  it('imports rows the browser parsed: invalid skipped, duplicates merged, generic removed on request', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'ann@example.com', fullname: 'Ann' });
    const response = await agent.post('/api/mailing-lists/ajax/post-csv', {
      account: accountId,
      address: list.address,
      removeGeneric: true,
      data: [
        { email: 'ANN@example.com', name: '' },
        { email: 'bob@example.com', name: 'Bob' },
        { email: 'bob@example.com', name: 'Bobby' },
        { email: 'broken@', name: 'x' },
        { email: 'info@example.com', name: 'Info' },
      ],
    });
    expect(response.json()).toMatchObject({
      status: true,
      counts: { added: 1, updated: 1, skipped: 2, duplicates: 1 },
    });
    const members = (await agent.get(`/api/mailing-lists/${list.id}/members`)).json().data;
    expect(members.map((member: { email: string; fullname: string }) => [member.email, member.fullname])).toEqual([
      ['ann@example.com', 'Ann'],
      ['bob@example.com', 'Bobby'],
    ]);
  });
});

describe('file imports', () => {
  const mapping = { hasHeaders: true, emailColumn: 1, nameColumn: 0, fields: [{ column: 2, key: 'city' }] };

  it('imports a file in the background: counts, custom fields, duplicates merged, a report of skipped rows', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'old@example.com', fullname: 'Old' });
    const file = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        'Name;Email;City\r\n"Smith; Ann";ann@example.com;Paris\r\nBob;BOB@example.com;\r\nBob again;bob@example.com;Rome\r\n' +
          'Nobody;not-an-email;Oslo\r\nOld One;old@example.com;Lima\r\n=cmd;;\r\n',
      ),
    ]);
    const started = await csvUpload(agent, list.id, 'people.csv', file, mapping);
    expect(started.statusCode, started.body).toBe(200);
    const queued = started.json().data;
    expect(queued).toMatchObject({ status: 'queued', file_name: 'people.csv', bytes_total: file.length });

    await runImport(queued.id);
    const done = (await agent.get(`/api/mailing-lists/imports/${queued.id}`)).json().data;
    expect(done).toMatchObject({
      status: 'finished',
      rows_read: 6,
      added: 2,
      updated: 1,
      skipped: 2,
      duplicates: 1,
      has_report: true,
      skipped_reasons: { 'invalid email address': 1, 'no email in the mapped column': 1 },
    });
    const members = (await agent.get(`/api/mailing-lists/${list.id}/members`)).json().data;
    expect(
      members.map((member: { email: string; fullname: string; fields: object }) => [
        member.email,
        member.fullname,
        member.fields,
      ]),
    ).toEqual([
      ['ann@example.com', 'Smith; Ann', { city: 'Paris' }],
      ['bob@example.com', 'Bob again', { city: 'Rome' }],
      ['old@example.com', 'Old One', { city: 'Lima' }],
    ]);
    expect((await listInfo(agent, list.id)).members_count).toBe(3);

    const report = await agent.get(`/api/mailing-lists/imports/${queued.id}/skipped`);
    expect(report.headers['content-type']).toContain('text/csv');
    expect(report.body).toContain('not-an-email');
    // A formula cell goes out escaped, never as a formula.
    expect(report.body).toContain("'=cmd");
    expect(report.body).not.toMatch(/(^|,)=cmd/m);

    const active = (await agent.get('/api/mailing-lists/imports', { query: { active: 'true' } })).json().data;
    expect(active.map((item: { id: number }) => item.id)).toContain(queued.id);
  });

  it('stops on a broken file with a clear error and leaves the list as it was', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'keep@example.com' });
    const rows = Array.from({ length: 5000 }, (_, index) => `Person ${index},p${index}@example.com,X`).join('\n');
    // Good rows first, then a quote that never closes and runs past the record limit.
    const broken = `Name,Email,City\n${rows}\n"unclosed,${'x'.repeat(70 * 1024)}\n`;
    const started = (await csvUpload(agent, list.id, 'broken.csv', broken, mapping)).json().data;
    await runImport(started.id);
    const failed = (await agent.get(`/api/mailing-lists/imports/${started.id}`)).json().data;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/line 5002/i);
    expect(failed.added).toBe(0);
    const info = await listInfo(agent, list.id);
    expect(info.members_count).toBe(1);
  });

  it('refuses files that are not CSV, too large, or without a mapping, keeping nothing', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const list = await createList(agent, accountId);
    const wrongType = await csvUpload(agent, list.id, 'people.xlsx', 'a,b', mapping);
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json().errors.file).toEqual([LIST_MESSAGES.csvFormat]);
    const tooLarge = await csvUpload(agent, list.id, 'big.csv', Buffer.alloc(1024 * 1024 + 10, 'a'), mapping);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().message).toBe(LIST_MESSAGES.csvTooLarge);
    const noMapping = await csvUpload(agent, list.id, 'people.csv', 'email\na@b.co', { hasHeaders: true });
    expect(noMapping.statusCode).toBe(422);
    expect(noMapping.json().errors.mapping).toEqual([LIST_MESSAGES.selectEmail]);
    const kept = await t.platform.db.selectFrom('list_imports').select('id').where('list_id', '=', list.id).execute();
    expect(kept).toEqual([]);
  });
});

describe("another user's lists (R12)", () => {
  it('answers 404 with no data for every list, member and import id of someone else', async () => {
    const owner = await signedInWithSmtp();
    const list = await createList(owner.agent, owner.accountId);
    const member = (
      await owner.agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'ann@example.com' })
    ).json().data;
    const started = (
      await csvUpload(owner.agent, list.id, 'a.csv', 'email\nzed@example.com\nbad\n', {
        hasHeaders: true,
        emailColumn: 0,
      })
    ).json().data;
    await runImport(started.id);

    const intruder = await signedInWithSmtp();
    const agent = intruder.agent;
    const answers = [
      await agent.get(`/api/mailing-lists/get-list-info/${list.id}`),
      await agent.get(`/api/mailing-lists/${list.id}/members`),
      await agent.get(`/api/mailing-lists/get-member-info/${member.id}`),
      await agent.get(`/api/mailing-lists/get-emails-for-generic-control/${list.id}`),
      await agent.get(`/api/mailing-lists/imports/${started.id}`),
      await agent.get(`/api/mailing-lists/imports/${started.id}/skipped`),
      await agent.post(`/api/mailing-lists/update/list/${list.id}`, { alias: 'x', name: 'x' }),
      await agent.post('/api/mailing-lists/check-delete', { listId: list.id }),
      await agent.post('/api/mailing-lists/delete', { listId: list.id }),
      await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'x@example.com' }),
      await agent.post(`/api/mailing-lists/update/member/${member.id}`, { fullname: 'x', subscribe: 0 }),
      await agent.post('/api/mailing-lists/delete-member', { listId: list.id, id: member.id }),
      await agent.post('/api/mailing-lists/bulk-delete-member', { memberId: [member.id], listId: list.id }),
      await agent.post('/api/mailing-lists/clear-generic-emails', { listId: list.id }),
      await agent.post('/api/mailing-lists/ajax/post-csv', {
        account: owner.accountId,
        address: list.address,
        data: [{ email: 'x@example.com' }],
      }),
      await csvUpload(agent, list.id, 'a.csv', 'email\nx@example.com', { hasHeaders: true, emailColumn: 0 }),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(404);
      expect(answer.body).not.toContain('ann@example.com');
    }
    const foreignAccount = await agent.post('/api/mailing-lists', {
      accountId: owner.accountId,
      alias: 'x',
      name: 'x',
    });
    expect(foreignAccount.statusCode).toBe(422);
    expect((await agent.get('/api/mailing-lists')).json().meta.total).toBe(0);
    expect((await agent.get('/api/mailing-lists/imports')).json().data).toEqual([]);
    expect(await listInfo(owner.agent, list.id)).toMatchObject({ name: 'Newsletter', members_count: 2 });
  });
});

describe('Mailgun lists', () => {
  const mailgunAccount = async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const saved = await agent.post('/api/settings/account/create-or-update', {
      name: 'Mailgun',
      provider: 'mailgun',
      domain: 'mg.acme.test',
      apiKey: MAILGUN_KEY,
      region: 'us',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    return { agent, accountId: saved.json().data.id as number };
  };

  it('syncs lists and members from Mailgun, and member changes reach Mailgun', async () => {
    mailgun.addList(
      'team@mg.acme.test',
      'Team',
      Array.from({ length: 130 }, (_, index) => ({
        address: `member${index}@example.com`,
        name: `Member ${index}`,
        subscribed: index % 10 !== 0,
      })),
    );
    const { agent, accountId } = await mailgunAccount();
    const synced = await agent.post('/api/mailing-lists/import-lists-from-provider', { accountId });
    expect(synced.statusCode, synced.body).toBe(200);
    const lists = (await agent.get('/api/mailing-lists')).json().data;
    const team = lists.find((list: { address: string }) => list.address === 'team@mg.acme.test');
    expect(team).toMatchObject({ name: 'Team', members_count: 130, subscribed: 117, provider: 'mailgun' });

    await agent.post('/api/mailing-lists/add-member', { listId: team.id, email: 'new@example.com', fullname: 'New' });
    expect(mailgun.lists.get('team@mg.acme.test')!.members.get('new@example.com')).toMatchObject({ name: 'New' });
    const first = (await agent.get(`/api/mailing-lists/${team.id}/members`, { query: { search: 'member1@' } })).json()
      .data[0];
    await agent.post(`/api/mailing-lists/update/member/${first.id}`, { fullname: 'Renamed', subscribe: 0 });
    expect(mailgun.lists.get('team@mg.acme.test')!.members.get('member1@example.com')).toMatchObject({
      name: 'Renamed',
      subscribed: false,
    });
    await agent.post('/api/mailing-lists/delete-member', { listId: team.id, id: first.id });
    expect(mailgun.lists.get('team@mg.acme.test')!.members.has('member1@example.com')).toBe(false);

    // Syncing again matches by address: no second list, no doubled members.
    await agent.post('/api/mailing-lists/import-lists-from-provider', { accountId });
    expect((await agent.get('/api/mailing-lists')).json().meta.total).toBe(lists.length);
    expect((await listInfo(agent, team.id)).members_count).toBe(130);
  });

  it('deletes a member at Mailgun only when deleteMailgun is not false', async () => {
    mailgun.addList('kept-members@mg.acme.test', 'Kept members', [
      { address: 'stays@example.com', name: 'Stays', subscribed: true },
      { address: 'form@example.com', name: 'Form', subscribed: true },
      { address: 'goes@example.com', name: 'Goes', subscribed: true },
    ]);
    const { agent, accountId } = await mailgunAccount();
    await agent.post('/api/mailing-lists/import-lists-from-provider', { accountId });
    const list = (await agent.get('/api/mailing-lists'))
      .json()
      .data.find((candidate: { address: string }) => candidate.address === 'kept-members@mg.acme.test');
    const memberId = async (email: string) =>
      (await agent.get(`/api/mailing-lists/${list.id}/members`, { query: { search: email } })).json().data[0].id;
    const atMailgun = () => mailgun.lists.get('kept-members@mg.acme.test')!.members;

    const before = mailgun.requests.length;
    const kept = await agent.post('/api/mailing-lists/delete-member', {
      listId: list.id,
      id: await memberId('stays@'),
      email: 'stays@example.com',
      deleteMailgun: false,
    });
    expect(kept.statusCode, kept.body).toBe(200);
    // A form sends the flag as text: 'false' is false too.
    const keptByForm = await agent.post('/api/mailing-lists/delete-member', {
      listId: String(list.id),
      id: String(await memberId('form@')),
      deleteMailgun: 'false',
    });
    expect(keptByForm.statusCode, keptByForm.body).toBe(200);
    expect(mailgun.requests.slice(before).filter((request) => request.method === 'DELETE')).toEqual([]);
    expect(atMailgun().has('stays@example.com')).toBe(true);
    expect(atMailgun().has('form@example.com')).toBe(true);

    await agent.post('/api/mailing-lists/delete-member', {
      listId: list.id,
      id: await memberId('goes@'),
      deleteMailgun: true,
    });
    expect(atMailgun().has('goes@example.com')).toBe(false);
    expect((await listInfo(agent, list.id)).members_count).toBe(0);
  });

  it('Generic Email Control unsubscribes the generic members at Mailgun too, deleting none', async () => {
    mailgun.addList('generic@mg.acme.test', 'Generic', [
      { address: 'info@example.com', name: 'Info', subscribed: true },
      { address: 'kim@example.com', name: 'Kim', subscribed: true },
    ]);
    const { agent, accountId } = await mailgunAccount();
    await agent.post('/api/mailing-lists/import-lists-from-provider', { accountId });
    const list = (await agent.get('/api/mailing-lists'))
      .json()
      .data.find((candidate: { address: string }) => candidate.address === 'generic@mg.acme.test');
    const before = mailgun.requests.length;
    const cleared = await agent.post('/api/mailing-lists/clear-generic-emails', { listId: list.id });
    expect(cleared.statusCode, cleared.body).toBe(200);
    const members = mailgun.lists.get('generic@mg.acme.test')!.members;
    expect(members.get('info@example.com')).toMatchObject({ subscribed: false });
    expect(members.get('kim@example.com')).toMatchObject({ subscribed: true });
    expect(mailgun.requests.slice(before).filter((request) => request.method === 'DELETE')).toEqual([]);
    expect(await listInfo(agent, list.id)).toMatchObject({ members_count: 2, subscribed: 1 });
  });

  it('creates the list at Mailgun, and deletes it there only when asked', async () => {
    const { agent, accountId } = await mailgunAccount();
    const list = await createList(agent, accountId, 'promo', 'Promo');
    expect(list.address).toBe('promo@mg.acme.test');
    expect(mailgun.lists.has('promo@mg.acme.test')).toBe(true);
    await agent.post('/api/mailing-lists/delete', { listId: list.id, deleteMailgun: true });
    expect(mailgun.lists.has('promo@mg.acme.test')).toBe(false);

    const kept = await createList(agent, accountId, 'kept', 'Kept');
    await agent.post('/api/mailing-lists/delete', { listId: kept.id, deleteMailgun: false });
    expect(mailgun.lists.has('kept@mg.acme.test')).toBe(true);
  });

  it('pushes a file import to the Mailgun list in bulk calls', async () => {
    const { agent, accountId } = await mailgunAccount();
    const list = await createList(agent, accountId, 'bulk', 'Bulk');
    const rows = Array.from({ length: 2500 }, (_, index) => `b${index}@example.com`).join('\n');
    const started = (
      await csvUpload(agent, list.id, 'bulk.csv', `email\n${rows}\n`, { hasHeaders: true, emailColumn: 0 })
    ).json().data;
    const before = mailgun.requests.length;
    await runImport(started.id);
    expect(mailgun.lists.get('bulk@mg.acme.test')!.members.size).toBe(2500);
    const bulkCalls = mailgun.requests.slice(before).filter((request) => request.path.endsWith('/members.json'));
    expect(bulkCalls).toHaveLength(3);
  });

  it("imports the domain's lists in the background when the account is saved asking for it", async () => {
    mailgun.addList('vip@mg.acme.test', 'VIP', [{ address: 'vip1@example.com' }]);
    mailgun.addList('other@elsewhere.test', 'Other domain', [{ address: 'x@example.com' }]);
    const user = await seedUser(t.platform, { planId: 3 });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const saved = await agent.post('/api/settings/account/create-or-update', {
      name: 'Mailgun with lists',
      provider: 'mailgun',
      domain: 'mg.acme.test',
      apiKey: MAILGUN_KEY,
      region: 'us',
      getList: true,
    });
    expect(saved.json().message).toContain('being imported');
    const accountId = saved.json().data.id;
    const queued = await sql<{ data: { userId: number; accountId: number } }>`
      select data from pgboss.job where name = ${syncProviderListsJob.name} and (data->>'accountId')::int = ${accountId}`.execute(
      t.platform.db,
    );
    expect(queued.rows).toHaveLength(1);
    await syncProviderListsJob.handler(queued.rows[0]!.data, t.platform, {
      jobId: 'test',
      retryCount: 0,
      signal: new AbortController().signal,
    });
    const addresses = (await agent.get('/api/mailing-lists'))
      .json()
      .data.map((list: { address: string }) => list.address);
    expect(addresses).toContain('vip@mg.acme.test');
    expect(addresses).not.toContain('other@elsewhere.test');
  });

  it('refuses Sync From Provider for an SMTP account', async () => {
    const { agent, accountId } = await signedInWithSmtp();
    const response = await agent.post('/api/mailing-lists/import-lists-from-provider', { accountId });
    expect(response.statusCode).toBe(422);
    expect(response.json().message).toBe(LIST_MESSAGES.syncNotMailgun);
  });
});
