import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TTestApp } from '../../../test/app';
import { indexMemberSearch } from './member-search';

let t: TTestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const MEMBERS = [
  ['ann_lee@example.com', 'Ann Lee'],
  ['annxlee@example.com', 'Annx'],
  ['promo@example.org', 'Save 50% Now'],
  ['bob@example.org', 'Save 50x Now'],
  ['CAROL.KING@example.com', 'Carol'],
] as const;

/** Search term → the emails it must find, whatever part of the list is indexed. */
const EXPECTED: [string, string[]][] = [
  // In the middle of the email, any case; in the name only; in either.
  ['ROL.KI', ['CAROL.KING@example.com']],
  ['example.ORG', ['bob@example.org', 'promo@example.org']],
  ['now', ['bob@example.org', 'promo@example.org']],
  ['lee', ['ann_lee@example.com', 'annxlee@example.com']],
  // _ and % are characters, not wildcards.
  ['ann_', ['ann_lee@example.com']],
  ['50%', ['promo@example.org']],
  ['%', ['promo@example.org']],
  ['n_l', ['ann_lee@example.com']],
  ['nobody', []],
  // The index joins email and name with a space; a match across it is none.
  ['.com Annx', []],
];

describe('member search (contains; trigram index kept outside the import)', () => {
  it('finds the same members before, while and after the list is indexed, and after renames and deletes', async () => {
    const user = await seedUser(t.platform, { planId: 3 });
    const agent = createAgent(t.app);
    await agent.signIn(user.email, user.password);
    const account = await t.platform.db
      .insertInto('sending_accounts')
      .values({ user_id: user.id, name: 'SMTP', provider: 'smtp', driver: 'smtp', username: 'news@acme.test' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const created = await agent.post('/api/mailing-lists', { accountId: account.id, alias: 'search', name: 'Search' });
    expect(created.statusCode, created.body).toBe(200);
    const listId = created.json().data.id as number;

    const search = async (term: string) => {
      const page = (await agent.get(`/api/mailing-lists/${listId}/members`, { query: { search: term } })).json();
      expect(page.meta.total).toBe(page.data.length);
      return page.data.map((member: { email: string }) => member.email);
    };
    const expectAll = async (state: string) => {
      for (const [term, emails] of EXPECTED) expect(await search(term), `${state}: ${term}`).toEqual(emails);
    };
    const watermark = async () =>
      (
        await t.platform.db
          .selectFrom('mailing_lists')
          .select('search_indexed_through')
          .where('id', '=', listId)
          .executeTakeFirstOrThrow()
      ).search_indexed_through;

    // The first three members are added and indexed; the rest are added after: half the
    // list is found through the index, half by the scan of what is not indexed yet.
    for (const [email, fullname] of MEMBERS.slice(0, 3)) {
      const added = await agent.post('/api/mailing-lists/add-member', { listId, email, fullname });
      expect(added.statusCode, added.body).toBe(200);
    }
    expect(await indexMemberSearch(t.platform.db, listId)).toBe(3);
    for (const [email, fullname] of MEMBERS.slice(3)) {
      await agent.post('/api/mailing-lists/add-member', { listId, email, fullname });
    }
    await expectAll('half indexed');
    expect(await indexMemberSearch(t.platform.db, listId)).toBe(2);
    expect(await indexMemberSearch(t.platform.db, listId)).toBe(0);
    expect(Number(await watermark())).toBeGreaterThan(0);
    await expectAll('all indexed');

    // A rename of an indexed member reaches the index (the update trigger).
    const carol = (await agent.get(`/api/mailing-lists/${listId}/members`, { query: { search: 'carol' } })).json()
      .data[0] as { id: number };
    const renamed = await agent.post(`/api/mailing-lists/update/member/${carol.id}`, {
      fullname: 'Zelda',
      subscribe: 1,
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await search('zelda')).toEqual(['CAROL.KING@example.com']);
    const terms = await t.platform.db
      .selectFrom('list_member_search')
      .select('terms')
      .where('member_id', '=', carol.id)
      .executeTakeFirstOrThrow();
    expect(terms.terms).toBe('CAROL.KING@example.com Zelda');

    // A deleted member leaves the index with it.
    await t.platform.db.deleteFrom('list_members').where('id', '=', carol.id).execute();
    expect(await search('zelda')).toEqual([]);
    expect(
      await t.platform.db
        .selectFrom('list_member_search')
        .select('member_id')
        .where('member_id', '=', carol.id)
        .execute(),
    ).toEqual([]);

    // Where pg_trgm could be created, the candidates come from the trigram index.
    const hasTrigram = await sql`select 1 from pg_extension where extname = 'pg_trgm'`.execute(t.platform.db);
    if (hasTrigram.rows.length === 0) return;
    await t.platform.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`
        explain select member_id from list_member_search where list_id = ${listId} and terms ilike ${'%ann\\_%'}`.execute(
        trx,
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('list_member_search_terms_idx');
    });
  });
});
